#if Server
/// How `ohk serve` runs (docs/server.md).
public struct ServerConfiguration: Sendable {
    /// The data folder: one store per person, `DIR/<person>/`, and the
    /// tokens' hashes in `DIR/.ohk-tokens`.
    public var dataDirectory: String
    public var host = "127.0.0.1"
    /// 0 takes a free port (the log's first line names it).
    public var port = 8080
    /// The largest request body, in bytes (413 past it).
    public var bodyLimit = 64 << 20
    /// How long a request may take to send its body (408 past it).
    public var requestTimeout: Duration = .seconds(30)
    /// Stores open at once (`StorePool`).
    public var maxOpenStores = 256
    /// Each upload is on disk when it is answered (fsync).
    public var durable = true
    /// Where the log lines go: one a request, and the server's own.
    public var log: @Sendable (String) -> Void

    public init(dataDirectory: String, log: @escaping @Sendable (String) -> Void) {
        self.dataDirectory = dataDirectory
        self.log = log
    }
}
#endif
