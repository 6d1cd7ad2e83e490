import Hummingbird
import NIOCore
import OpenHealthKitCore
import OpenHealthKitUpload

/// `GET /v1/people/{person}/changes` with `Accept: text/event-stream`:
/// the changes from the anchor on, then each change as it is committed by
/// any process, as server-sent events. Each event is the JSON object a
/// plain GET answers, its `id` the anchor after it: a client that
/// reconnects with `Last-Event-ID` continues there. A comment every 15
/// seconds without changes finds clients that went away. The stream ends
/// when the server stops.
enum EventStream {
    static let keepAlive: Duration = .seconds(15)

    static func response(person: String, grant: Grant, query: ChangesRequest, state: ServerState) async throws -> Response {
        let lease = try await blocking { [pool = state.pool] in try pool.acquire(person, create: false) }
        do {
            try await blocking { try lease.listenForCommits() }
            _ = try await blocking { try query.descriptors(lease.store, grant) }  // 400 or 403 now, not in the stream
        } catch {
            lease.release()
            throw error
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let body = ResponseBody { writer in
            defer { lease.release() }
            var page = query
            var first = true
            while !state.isStopping {
                let seen = lease.commits.generation
                let (json, count, anchor) = try await blocking { [page] in try page.read(lease.store, grant) }
                page.anchor = anchor
                if count > 0 || first {
                    first = false
                    state.metrics.samplesOut(count)
                    try await writer.write(ByteBuffer(string: "id: \(anchor.base64)\nevent: changes\ndata: \(json)\n\n"))
                    if count > 0 { continue }  // there may be another page
                }
                if await !lease.commits.wait(after: seen, timeout: keepAlive), !state.isStopping {
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
