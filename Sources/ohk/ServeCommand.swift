#if Server
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitServer
import OpenHealthKitUpload

/// `ohk serve`: every person's store on the network (docs/server.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every person's store over HTTP: uploads from phones, reads and live streams for consumers.",
        discussion: """
        DIR holds one store per person (DIR/<person>/), made by the first
        authorized upload, and the tokens' hashes (ohk token create). Stores
        open on demand and close when idle, at most --max-open-stores at once.
        One log line a request goes to stderr; the first line names the
        address. SIGTERM or SIGINT stops it: requests in flight finish,
        event streams end and the stores close. Serve on loopback and put a
        TLS-terminating proxy in front for other machines (docs/server.md).

        Endpoints (under /v1, see docs/server.md and docs/openapi.yaml):
          POST /v1/people/{person}/changes   upload samples and deletions
          GET  /v1/people/{person}/changes   an anchored query; wait=S long-polls;
                                             Accept: text/event-stream streams
          POST /v1/people/{person}/health-auto-export   the Health Auto Export app's payload
          GET  /v1/people/{person}/statistics   a quantity type's statistics
          GET  /v1/health, GET /metrics

        Examples:
          ohk serve --data /srv/health
          ohk serve --data /srv/health --listen 127.0.0.1:0
        """
    )

    @Option(help: ArgumentHelp("The data folder: one store per person, and the tokens.", valueName: "dir"))
    var data: String

    @Option(help: ArgumentHelp("Address and port to listen on (port 0: a free one).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("The largest request body in bytes.", valueName: "bytes"))
    var maxBody = 64 << 20

    @Option(help: ArgumentHelp("Seconds a client may take to send a request.", valueName: "seconds"))
    var requestTimeout = 30

    @Option(help: ArgumentHelp("People's stores open at once (default: what the descriptor limit allows, at most 1024).",
                               valueName: "n"))
    var maxOpenStores: Int?

    @Flag(help: "Answer uploads before they are flushed to disk (scratch data only).")
    var noSync = false

    func validate() throws {
        guard maxBody >= 1024 else { throw ValidationError("--max-body must be at least 1024 bytes") }
        guard requestTimeout >= 1 else { throw ValidationError("--request-timeout must be at least 1 second") }
        guard (maxOpenStores ?? 1) >= 1 else { throw ValidationError("--max-open-stores must be at least 1") }
        _ = try address()
    }

    private func address() throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port), colon != listen.startIndex else {
            throw ValidationError("--listen takes host:port (127.0.0.1:8080), got '\(listen)'")
        }
        return (String(listen[..<colon]), port)
    }

    /// Raises the soft descriptor limit to the hard one, then allows 4
    /// descriptors an open store, keeping 256 for connections and the rest.
    static func storesTheDescriptorsAllow() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 64 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let descriptors = limit.rlim_cur > 1 << 30 ? 1 << 30 : Int(limit.rlim_cur)  // RLIM_INFINITY too
        return max(1, min(1024, (descriptors - 256) / 4))
    }

    func run() throws {
        try reportingErrors {
            let dir = expandingTilde(data)
            var isDirectory = stat()
            guard stat(dir, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR else {
                throw OHKError(.storage, "--data \(dir) is not a directory")
            }
            var config = ServerConfiguration(dataDirectory: dir) { line in writeStderr(line + "\n") }
            (config.host, config.port) = try address()
            config.bodyLimit = maxBody
            config.requestTimeout = .seconds(requestTimeout)
            config.maxOpenStores = maxOpenStores ?? Self.storesTheDescriptorsAllow()
            config.durable = !noSync
            do { try OHKServer.runBlocking(config) } catch let e as OHKError { throw e } catch {
                throw OHKError(.storage, "ohk serve: \(error)")
            }
        }
    }
}
#endif
