import Glibc

/// One libpq connection: statements, parameterised queries, and binary
/// COPY. Each failure is a `SinkError` naming the server without its
/// password; a broken connection is `.connectionLost`, not `.server`.
final class PostgresConnection {
    private let pq: LibPQ
    private let conn: LibPQ.Conn
    /// The connection string as messages show it.
    let displayURL: String

    /// Connects; `.connect` when the server is unreachable, refuses the
    /// credentials or has no such database.
    init(url: String) throws {
        let pq = try LibPQ.shared()
        self.pq = pq
        displayURL = ConnectionString.redacted(url)
        guard let c = url.withCString({ pq.connectdb($0) }) else {
            throw SinkError(.connect, "cannot connect to \(ConnectionString.redacted(url)): out of memory")
        }
        guard pq.status(c) == LibPQ.connectionOK else {
            // libpq may quote the string it could not parse: never the password.
            let why = Self.text(pq.errorMessage(c)).replacing(url, with: ConnectionString.redacted(url))
            pq.finish(c)
            throw SinkError(.connect, "cannot connect to \(ConnectionString.redacted(url)): \(why)")
        }
        conn = c
    }

    deinit { pq.finish(conn) }

    /// Whether the connection still stands (false after a server restart).
    var isOpen: Bool { pq.status(conn) == LibPQ.connectionOK }

    /// Runs statements that return no rows (several, `;`-separated, allowed).
    func execute(_ sql: String) throws {
        let r = sql.withCString { pq.exec(conn, $0) }
        defer { pq.clear(r) }
        try check(r, expecting: LibPQ.commandOK, sql)
    }

    /// Runs one statement with text parameters (`$1`…); the rows as text,
    /// nil for NULL.
    @discardableResult
    func query(_ sql: String, _ params: [String?] = []) throws -> [[String?]] {
        var copies = params.map { $0.map { strdup($0)! } }
        defer { for p in copies { free(p) } }
        let r = copies.withUnsafeMutableBufferPointer { ps in
            ps.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                sql.withCString { pq.execParams(conn, $0, Int32(params.count), nil, values.baseAddress, nil, nil, 0) }
            }
        }
        defer { pq.clear(r) }
        let status = pq.resultStatus(r)
        try check(r, expecting: status == LibPQ.tuplesOK ? LibPQ.tuplesOK : LibPQ.commandOK, sql)
        guard status == LibPQ.tuplesOK else { return [] }
        return (0..<pq.ntuples(r)).map { row in
            (0..<pq.nfields(r)).map { col in
                pq.getisnull(r, row, col) != 0 ? nil : Self.text(pq.getvalue(r, row, col))
            }
        }
    }

    /// Runs `COPY … FROM STDIN (FORMAT binary)` with the rows `fill`
    /// writes into the writer. A row PostgreSQL rejects fails the COPY
    /// with `.server`, naming its row number (1-based) in `rejectedRow`.
    func copy(_ sql: String, _ fill: (inout CopyWriter) throws -> Void) throws {
        let r = sql.withCString { pq.exec(conn, $0) }
        let status = pq.resultStatus(r)
        defer { pq.clear(r) }
        guard status == LibPQ.copyIn else { return try check(r, expecting: LibPQ.copyIn, sql) }
        var writer = CopyWriter { bytes in
            let ok = bytes.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { self.pq.putCopyData(self.conn, $0.baseAddress!, Int32($0.count)) }
            }
            guard ok == 1 else { throw SinkError(.connectionLost, "lost the connection to \(self.displayURL) during COPY") }
        }
        var failure: Error?
        do {
            try fill(&writer)
            try writer.finish()
        } catch {
            failure = error
        }
        let end = failure == nil ? pq.putCopyEnd(conn, nil) : "aborted by the sink".withCString { pq.putCopyEnd(conn, $0) }
        // Drain every result, keeping the COPY's own.
        var firstError: SinkError?
        while let res = pq.getResult(conn) {
            if pq.resultStatus(res) != LibPQ.commandOK, firstError == nil { firstError = error(res, sql) }
            pq.clear(res)
        }
        if let failure { throw failure }
        if end != 1 { throw SinkError(.connectionLost, "lost the connection to \(displayURL) during COPY") }
        if let firstError { throw firstError }
    }

    private func check(_ r: LibPQ.Result?, expecting: Int32, _ sql: String) throws {
        guard let r, pq.resultStatus(r) == expecting else { throw error(r, sql) }
    }

    /// The error of a failed result: `.connectionLost` when the
    /// connection broke (or the server is shutting down), else `.server`
    /// with PostgreSQL's message, detail and context.
    private func error(_ r: LibPQ.Result?, _ sql: String) -> SinkError {
        let state = r.flatMap { pq.resultErrorField($0, LibPQ.fieldSQLState) }.map { String(cString: $0) }
        if !isOpen || state?.hasPrefix("08") == true || state == "57P01" || state == "57P02" || state == "57P03" {
            let why = r.map { Self.text(pq.resultErrorMessage($0)) } ?? Self.text(pq.errorMessage(conn))
            return SinkError(.connectionLost, "lost the connection to \(displayURL): \(why.isEmpty ? "server closed it" : why)",
                             sqlState: state)
        }
        guard let r else { return SinkError(.server, "\(displayURL): \(Self.text(pq.errorMessage(conn)))") }
        var message = r.field(pq, LibPQ.fieldPrimary) ?? Self.text(pq.resultErrorMessage(r))
        if let d = r.field(pq, LibPQ.fieldDetail) { message += " (\(d))" }
        let context = r.field(pq, LibPQ.fieldContext)
        return SinkError(.server, message, sqlState: state, context: context)
    }

    static func text(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "" }
        var s = String(cString: p)
        while s.last == "\n" { s.removeLast() }
        return s
    }
}

extension LibPQ.Result {
    fileprivate func field(_ pq: LibPQ, _ code: Int32) -> String? {
        pq.resultErrorField(self, code).map { PostgresConnection.text($0) }
    }
}
