import Glibc

/// The few libpq functions the sink calls, opened with dlopen when a sink
/// first connects (as the importer opens expat): the library and `ohk`
/// depend on LMDB alone for everyone who never runs a sink. libpq keeps
/// its ABI across PostgreSQL versions (libpq.so.5 since 8.0), so the
/// signatures here are declared, not taken from libpq-fe.h.
final class LibPQ: @unchecked Sendable {
    typealias Conn = OpaquePointer
    typealias Result = OpaquePointer

    let connectdb: @convention(c) (UnsafePointer<CChar>) -> Conn?
    let status: @convention(c) (Conn?) -> Int32
    let errorMessage: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let finish: @convention(c) (Conn?) -> Void
    let exec: @convention(c) (Conn?, UnsafePointer<CChar>) -> Result?
    let execParams: @convention(c) (Conn?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?,
                                    UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                    UnsafePointer<Int32>?, Int32) -> Result?
    let resultStatus: @convention(c) (Result?) -> Int32
    let resultErrorMessage: @convention(c) (Result?) -> UnsafePointer<CChar>?
    let resultErrorField: @convention(c) (Result?, Int32) -> UnsafePointer<CChar>?
    let clear: @convention(c) (Result?) -> Void
    let ntuples: @convention(c) (Result?) -> Int32
    let nfields: @convention(c) (Result?) -> Int32
    let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafePointer<CChar>?
    let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    let cmdTuples: @convention(c) (Result?) -> UnsafePointer<CChar>?
    let putCopyData: @convention(c) (Conn?, UnsafePointer<CChar>, Int32) -> Int32
    let putCopyEnd: @convention(c) (Conn?, UnsafePointer<CChar>?) -> Int32
    let getResult: @convention(c) (Conn?) -> Result?

    // libpq's enums (libpq-fe.h), stable since they were introduced.
    static let connectionOK: Int32 = 0
    static let commandOK: Int32 = 1, tuplesOK: Int32 = 2, copyIn: Int32 = 4
    static let fieldSQLState = Int32(UInt8(ascii: "C")), fieldPrimary = Int32(UInt8(ascii: "M")),
               fieldDetail = Int32(UInt8(ascii: "D")), fieldContext = Int32(UInt8(ascii: "W"))

    private init(_ h: UnsafeMutableRawPointer) throws {
        func sym<T>(_ name: String, _: T.Type) throws -> T {
            guard let p = dlsym(h, name) else {
                throw SinkError(.library, "libpq has no \(name): it is older than the sink needs (PostgreSQL 10 or later)")
            }
            return unsafeBitCast(p, to: T.self)
        }
        connectdb = try sym("PQconnectdb", type(of: connectdb))
        status = try sym("PQstatus", type(of: status))
        errorMessage = try sym("PQerrorMessage", type(of: errorMessage))
        finish = try sym("PQfinish", type(of: finish))
        exec = try sym("PQexec", type(of: exec))
        execParams = try sym("PQexecParams", type(of: execParams))
        resultStatus = try sym("PQresultStatus", type(of: resultStatus))
        resultErrorMessage = try sym("PQresultErrorMessage", type(of: resultErrorMessage))
        resultErrorField = try sym("PQresultErrorField", type(of: resultErrorField))
        clear = try sym("PQclear", type(of: clear))
        ntuples = try sym("PQntuples", type(of: ntuples))
        nfields = try sym("PQnfields", type(of: nfields))
        getvalue = try sym("PQgetvalue", type(of: getvalue))
        getisnull = try sym("PQgetisnull", type(of: getisnull))
        cmdTuples = try sym("PQcmdTuples", type(of: cmdTuples))
        putCopyData = try sym("PQputCopyData", type(of: putCopyData))
        putCopyEnd = try sym("PQputCopyEnd", type(of: putCopyEnd))
        getResult = try sym("PQgetResult", type(of: getResult))
    }

    private static let loaded: Swift.Result<LibPQ, SinkError> = {
        for name in ["libpq.so.5", "libpq.so"] {
            if let h = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                do { return .success(try LibPQ(h)) } catch let e as SinkError { return .failure(e) } catch { break }
            }
        }
        return .failure(SinkError(.library, "the PostgreSQL sink needs libpq.so.5, which is not installed "
                                  + "(Debian, Ubuntu: apt-get install libpq5)"))
    }()

    /// The library, opened once; an error naming the package when it is missing.
    static func shared() throws -> LibPQ { try loaded.get() }
}
