import FoundationEssentials

/// Why a sink stopped. Every message names the server by its URL without
/// the password (`ConnectionString.redacted`).
public struct SinkError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// libpq is missing or too old.
        case library
        /// The server cannot be reached, refused the credentials, or has
        /// no such database; nothing was written.
        case connect
        /// The connection broke during a run (a server restart): what
        /// was committed stays, the next run resumes after it.
        case connectionLost
        /// Another sink of the same name and person took over (its fence
        /// is newer): this one's uncommitted batch was rolled back.
        case fenced
        /// PostgreSQL refused a statement or a row; the batch was rolled back.
        case server
        /// The checkpoint in PostgreSQL belongs to another store, or is
        /// ahead of this store, or was pruned past.
        case checkpoint
        /// A bad argument (batch size, name).
        case invalidArgument
    }

    public let kind: Kind
    public let message: String
    /// PostgreSQL's SQLSTATE when the server reported the error.
    public let sqlState: String?
    /// PostgreSQL's context of the error (`COPY ohk_staging, line 12`).
    let context: String?

    public init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
        self.init(kind, message, sqlState: sqlState, context: nil)
    }

    init(_ kind: Kind, _ message: String, sqlState: String?, context: String?) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.context = context
    }

    /// The row of a COPY that PostgreSQL refused (1-based) and the
    /// column when it names one, from its context (`…COPY ohk_staging,
    /// line 2, column metadata`).
    var copyRow: (line: Int, column: String?)? {
        guard let c = context, let copy = c.firstRange(of: "COPY "),
              let r = c[copy.upperBound...].firstRange(of: ", line "),
              let line = Int(c[r.upperBound...].prefix { $0.isNumber }) else { return nil }
        let column = c[r.upperBound...].firstRange(of: ", column ").map { String(c[$0.upperBound...].prefix { $0 != "\n" && $0 != ":" }) }
        return (line, column)
    }

    public var description: String { message }
}
