#if Server
import FoundationEssentials
import Glibc
import Hummingbird
import Logging
import NIOCore
import OpenHealthKitCore
import OpenHealthKitJSON
import ServiceLifecycle
import OpenHealthKitUpload

/// `ohk serve`: every person's store over HTTP/1.1 and JSON
/// (docs/server.md). Runs until SIGTERM or SIGINT, then lets the requests
/// in flight finish, ends the event streams and closes the stores.
public enum OHKServer {
    public static func run(_ config: ServerConfiguration) async throws {
        // Store calls block on fsync more than on the CPU: with a thread a
        // core, two people's commits waiting on the disk held up everyone.
        // (NIO's own variable, when set, decides.)
        if getenv("NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT") == nil {
            NIOSingletons.blockingPoolThreadCountSuggestion = 16
        }
        let state = ServerState(config)
        let router = Router(context: ServeContext.self)
        router.middlewares.add(AccessLog(state: state))
        routes(router, state)
        var logger = Logger(label: "ohk-serve")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            // The connection's idle limit is past the request timeout, so
            // that a slow body gets the 408 answer rather than a closed socket.
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(config.requestTimeout.components.seconds) + 5))),
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: "ohk"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                config.log("ohk serve: listening on http://\(config.host):\(port), data in \(config.dataDirectory), "
                           + "at most \(config.maxOpenStores) stores open")
            },
            logger: logger
        )
        // Services stop in reverse order: the streams end first, so that
        // the server's wait for requests in flight ends.
        let group = ServiceGroup(configuration: .init(services: [app, StreamCloser(state: state)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        state.pool.closeAll()
        config.log("ohk serve: stopped; \(state.pool.openCount) stores open")
    }

    static func routes(_ router: Router<ServeContext>, _ state: ServerState) {
        router.get("/v1/health") { _, _ -> Response in
            var o = JSONObject()
            o.add("status", "ok")
            o.add("version", LibraryVersion.string)
            o.add("openStores", int: state.pool.openCount)
            return json(o.closed)
        }
        router.get("/metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(status: .ok, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: state.metrics.text(openStores: state.pool.openCount))))
        }
        router.post("/v1/people/:person/changes") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let bytes = try await state.body(request)
            let body = try UploadDecoding.body(bytes)
            let (answer, count) = try await state.withStore(person, create: !grant.write.isEmpty) { lease throws(APIError) in
                try ChangesUpload.apply(body, grant: grant, store: lease.store)
            }
            state.metrics.samplesIn(count + body.deleted.count)
            return json(answer)
        }
        router.post("/v1/people/:person/health-auto-export") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let bytes = try await state.body(request)
            let (answer, count) = try await state.withStore(person, create: !grant.write.isEmpty) { lease throws(APIError) in
                try HealthAutoExportUpload.apply(bytes, grant: grant, store: lease.store)
            }
            state.metrics.samplesIn(count)
            return json(answer)
        }
        router.get("/v1/people/:person/changes") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let query = try ChangesRequest(query: request.uri.queryParameters.map { (String($0.key), String($0.value)) },
                                           lastEventID: request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value)
            if request.headers[.accept]?.contains("text/event-stream") == true {
                return try await EventStream.response(person: person, grant: grant, authorization: request.headers[.authorization],
                                                      query: query, state: state, connection: context.channel)
            }
            let (answer, count) = try await state.read(person, grant, request.headers[.authorization], query)
            state.metrics.samplesOut(count)
            return json(answer)
        }
        router.get("/v1/people/:person/replication") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            let bytes = try await state.withStore(person, create: false) { lease throws(APIError) in
                try Replication.read(query, lease.store, grant)
            }
            return octets(bytes)
        }
        router.get("/v1/people/:person/replication/checkpoints") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            return json(try await state.withStore(person, create: !grant.write.isEmpty) { lease throws(APIError) in
                try Replication.checkpoints(lease.store, grant)
            })
        }
        router.post("/v1/people/:person/replication") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            let bytes = try await state.body(request)
            return json(try await state.withStore(person, create: !grant.write.isEmpty) { lease throws(APIError) in
                try Replication.receive(query, bytes, lease.store, grant)
            })
        }
        router.get("/v1/people/:person/statistics") { request, context -> Response in
            let (person, grant) = try state.authorize(request, context)
            let query = try StatisticsRequest(query: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
            return json(try await state.withStore(person, create: false) { lease throws(APIError) in
                try query.read(lease.store, grant)
            })
        }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: ByteBuffer(string: text + "\n"), status: status)
    }

    /// Bytes of a replica batch (docs/sync.md).
    static func octets(_ bytes: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// A page's JSON bytes, as they were written.
    static func json(_ bytes: [UInt8]) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(bytes.count + 1)
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return json(bytes: buffer, status: .ok)
    }

    private static func json(bytes: ByteBuffer, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }
}

/// A request's context: Hummingbird's, and the client's address for the log.
struct ServeContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The connection: an event stream ends as soon as it closes.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}

/// What every request shares.
final class ServerState: Sendable {
    let config: ServerConfiguration
    let pool: StorePool
    let tokens: TokenRegistry
    let metrics = ServerMetrics()
    let stopping = Locked(false)

    init(_ config: ServerConfiguration) {
        self.config = config
        pool = StorePool(directory: config.dataDirectory, capacity: config.maxOpenStores, durable: config.durable)
        tokens = TokenRegistry(directory: config.dataDirectory)
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    /// The person the path names and the grant of the request's token,
    /// which must be that person's.
    func authorize(_ request: Request, _ context: ServeContext) throws(APIError) -> (String, Grant) {
        let grant = try tokens.grant(authorization: request.headers[.authorization])
        let person = try PersonName.validate(context.parameters.get("person") ?? "")
        guard grant.person == person else {
            throw APIError(.forbidden, "this token is for another person", field: "person")
        }
        return (person, grant)
    }

    /// The request's body, at most `bodyLimit` bytes, within the timeout.
    func body(_ request: Request) async throws -> [UInt8] {
        let limit = config.bodyLimit, timeout = config.requestTimeout
        return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                do {
                    let buffer = try await request.body.collect(upTo: limit)
                    return Array(buffer.readableBytesView)
                } catch let e as any HTTPResponseError where e.status == .contentTooLarge {
                    throw APIError(.contentTooLarge, "the body is larger than \(limit) bytes (ohk serve --max-body)")
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw APIError(.requestTimeout, "the body did not arrive within \(timeout)")
            }
            return bytes
        }
    }

    /// Runs `body` with a lease on the person's store, on the thread pool.
    func withStore<T: Sendable>(_ person: String, create: Bool,
                                _ body: @escaping @Sendable (Lease) throws(APIError) -> T) async throws -> T {
        try await blocking { [pool] in
            let lease = try pool.acquire(person, create: create)
            defer { lease.release() }
            return try body(lease)
        }
    }

    /// A read, waiting up to `query.wait` seconds for a change when there
    /// is none yet.
    func read(_ person: String, _ grant: Grant, _ authorization: String?, _ query: ChangesRequest) async throws -> ([UInt8], Int) {
        let lease = try await blocking { [pool] in try pool.acquire(person, create: false) }
        defer { lease.release() }
        if query.wait > 0 { try await blocking { try lease.listenForCommits() } }
        let deadline = ContinuousClock.now + .milliseconds(Int64(query.wait * 1000))
        var waited = false
        while true {
            let seen = lease.commits.generation
            // A token revoked during the wait gets nothing more.
            if waited, !tokens.stillGrants(grant, authorization) {
                throw APIError(.unauthorized, "the token is unknown or revoked")
            }
            let (answer, count, _) = try await blocking { try query.read(lease.store, grant) }
            let left = deadline - .now
            if count > 0 || left <= .zero || isStopping { return (answer, count) }
            waited = true
            _ = await lease.commits.wait(after: seen, timeout: left)
        }
    }
}

/// One log line a request: time, client, method, path, status, duration.
struct AccessLog: RouterMiddleware {
    let state: ServerState

    func handle(_ request: Request, context: ServeContext,
                next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let elapsed = (ContinuousClock.now - start).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            let endpoint = context.endpointPath ?? "unmatched"
            // Methods a client makes up would grow the metrics without bound.
            let known: Set = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]
            let method = known.contains(request.method.rawValue) ? request.method.rawValue : "other"
            state.metrics.request(endpoint: endpoint, method: method, status: status, seconds: seconds)
            let client = context.remoteAddress?.ipAddress ?? "-"
            state.config.log("\(TextForms.time(.now)) \(client) \(request.method.rawValue) \(request.uri.path) \(status) "
                             + "\(Int(seconds * 1e6))us")
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let e as APIError {
            status = e.httpStatus.code
            if let detail = e.logged { state.config.log("ohk serve: \(request.method.rawValue) \(request.uri.path): \(detail)") }
            throw e
        } catch let e as any HTTPResponseError {
            status = e.status.code
            throw e
        } catch {
            // Anything else is the server's failure: logged, answered as JSON.
            status = 500
            state.config.log("ohk serve: \(request.method.rawValue) \(request.uri.path): \(error)")
            throw APIError(.internalServerError, "the server failed; its log says why")
        }
    }
}

/// Ends the event streams when the server is asked to stop.
struct StreamCloser: Service {
    let state: ServerState

    func run() async throws {
        try? await gracefulShutdown()
        state.stopping.withLock { $0 = true }
        state.pool.wakeAll()
    }
}

extension OHKServer {
    /// Runs the server from synchronous code (a command's `run`), blocking
    /// the calling thread until it stops.
    public static func runBlocking(_ config: ServerConfiguration) throws {
        try OpenHealthKitCore.runBlocking { try await run(config) }
    }
}
#endif
