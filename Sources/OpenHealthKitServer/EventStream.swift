#if Server
import Hummingbird
import NIOCore
import OpenHealthKitCore
import OpenHealthKitUpload

/// `GET /v1/people/{person}/changes` with `Accept: text/event-stream`:
/// the changes from the anchor on, then each change as it is committed by
/// any process, as server-sent events. Each event is the JSON object a
/// plain GET answers, its `id` the anchor after it: a client that
/// reconnects with `Last-Event-ID` continues there. A comment every 5
/// seconds without changes finds clients that went away. The stream ends
/// when the server stops, or when its token is revoked.
enum EventStream {
    static let keepAlive: Duration = .seconds(5)

    static func response(person: String, grant: Grant, authorization: String?, query: ChangesRequest,
                         state: ServerState, connection: any Channel) async throws -> Response {
        // 404, 400 or 403 now, not in the stream.
        try await state.withStore(person, create: false) { lease throws(APIError) in
            do { try lease.listenForCommits() } catch { throw APIError(error) }
            _ = try query.descriptors(lease.store, grant)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        // The lease is taken in the body, which runs only when the response
        // is written: a client gone before that holds no store open.
        let body = ResponseBody { writer in
            let lease = try await blocking { [pool = state.pool] in try pool.acquire(person, create: false) }
            defer { lease.release() }
            try await blocking { try lease.listenForCommits() }
            // A connection's end, when NIO sees it before the next write
            // does, wakes the waiters (the store's others look once and
            // find nothing new), so that the stream lets its store go.
            let commits = lease.commits
            connection.closeFuture.whenComplete { _ in commits.committed() }
            var page = query
            var first = true
            while true {
                let seen = lease.commits.generation
                guard !state.isStopping, connection.isActive, state.tokens.stillGrants(grant, authorization) else { break }
                let (json, count, anchor) = try await blocking { [page] in try page.read(lease.store, grant) }
                page.anchor = anchor
                if count > 0 || first {
                    first = false
                    state.metrics.samplesOut(count)
                    var event = ByteBuffer(string: "id: \(anchor.base64)\nevent: changes\ndata: ")
                    event.writeBytes(json)
                    event.writeString("\n\n")
                    try await writer.write(event)
                    if count > 0 { continue }  // there may be another page
                }
                if await !lease.commits.wait(after: seen, timeout: keepAlive), !state.isStopping, connection.isActive,
                   state.tokens.stillGrants(grant, authorization) {
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
#endif
