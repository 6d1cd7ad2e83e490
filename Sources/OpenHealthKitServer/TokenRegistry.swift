#if Server
import Glibc
import OpenHealthKitCore
import OpenHealthKitUpload

/// The server's view of the token file: read again whenever the file
/// changed (a `stat` a request), so that `ohk token revoke` takes effect
/// on a running server at its next request.
final class TokenRegistry: @unchecked Sendable {
    private let file: TokenFile
    private let state = Locked<(stamp: [Int], byID: [String: TokenRecord])>(([], [:]))

    init(directory: String) {
        file = TokenFile(directory: directory)
    }

    /// The grant of the request's bearer token; 401 without a live one.
    func grant(authorization: String?) throws(APIError) -> Grant {
        guard let header = authorization, header.hasPrefix("Bearer ") else {
            throw APIError(.unauthorized, "no bearer token: send Authorization: Bearer <token> (ohk token create makes one)")
        }
        let records: [String: TokenRecord]
        do { records = try current() } catch {
            // The detail (a path) is for the log, not for a client.
            throw APIError(.internalServerError, "the server cannot read its tokens", logged: "\(error)")
        }
        guard let grant = TokenFile.verify(header.dropFirst("Bearer ".count), in: records) else {
            throw APIError(.unauthorized, "the token is unknown or revoked")
        }
        return grant
    }

    /// Whether the token of `authorization` still gives `grant` (long polls
    /// and streams ask again as they go: a revoked token ends them).
    func stillGrants(_ grant: Grant, _ authorization: String?) -> Bool {
        (try? self.grant(authorization: authorization)) == grant
    }

    private func current() throws -> [String: TokenRecord] {
        var st = stat()
        let stamp = stat(file.path, &st) == 0
            ? [Int(st.st_ino), Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)] : []
        if let known = state.withLock({ $0.stamp == stamp ? $0.byID : nil }) { return known }
        let byID = Dictionary(try file.records().map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        state.withLock { $0 = (stamp, byID) }
        return byID
    }
}
#endif
