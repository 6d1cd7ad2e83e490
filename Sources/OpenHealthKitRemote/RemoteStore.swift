import CHTTPClient
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// A person's store on `ohk serve`, as a sync's source or destination
/// (docs/sync.md, "Over HTTP"): `http://host:port/v1/people/{person}`
/// and a token. Each call is one request, through libcurl.
public final class RemoteStore: SyncSource, SyncDestination {
    /// The person's URL, without a trailing slash.
    public let url: String
    private let authorization: String?
    private let timeout: Int
    public let syncStoreID: UUID
    /// What the last look at the checkpoints said (digests and conflicts).
    private var lastLook: CheckpointsAnswer

    /// Connects: reads the store's id and checkpoints. A URL that is not
    /// `http(s)://…/v1/people/{person}`, an unreachable server, a refused
    /// token or an unknown person are errors naming the URL.
    public init(url: String, token: String?, timeout: Int = 120) throws {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        let parts = u.split(separator: "/", omittingEmptySubsequences: false)
        // "http:", "", host, "v1", "people", person
        guard u.hasPrefix("http://") || u.hasPrefix("https://"), parts.count == 6, parts[3] == "v1", parts[4] == "people",
              !parts[2].isEmpty, !parts[5].isEmpty else {
            throw OHKError(.invalidArgument, "\(url) is not a store of ohk serve: http(s)://HOST:PORT/v1/people/PERSON")
        }
        self.url = u
        authorization = token.map { "Bearer " + $0 }
        self.timeout = timeout
        let look: CheckpointsAnswer = try Self.decode(try Self.request("GET", u + "/replication/checkpoints", authorization,
                                                                       nil, timeout: timeout), url: u)
        guard let id = UUID(uuidString: look.storeId) else { throw OHKError(.storage, "\(u) answered a store id that is no UUID") }
        syncStoreID = id
        lastLook = look
    }

    // MARK: SyncSource

    public func syncTypeIdentifier(_ name: String) throws -> String {
        if let t = try? SampleType.named(name) { return t.identifier }
        guard name.contains(".") && !name.hasPrefix("HK") else { throw OHKError(.unknownType, "unknown sample type '\(name)'") }
        return name  // a custom type's identifier, which the server checks
    }

    public func replicaBatch(after anchor: QueryAnchor?, limit: Int, types: Set<String>?) throws -> ReplicaBatch {
        var query = "after=" + Self.escaped(anchor?.base64 ?? "none") + "&limit=\(min(limit, 100_000))"
        if let types { query += "&type=" + Self.escaped(types.sorted().joined(separator: ",")) }
        let answer = try Self.request("GET", url + "/replication?" + query, authorization, nil, timeout: timeout)
        try Self.check(answer, url: url)
        return try ReplicaBatch(wire: answer.body) { id in
            if let t = TypeCatalogue.standard[id] { return t }
            throw OHKError(.unknownType, "\(url) sent samples of custom type '\(id)', which this side does not know")
        }
    }

    /// Returns when the store has a change after `anchor` (a long poll of
    /// `GET …/changes`), or after `seconds`.
    public func waitForChange(after anchor: QueryAnchor?, seconds: Int) throws {
        let query = "limit=1&wait=\(seconds)" + (anchor.map { "&anchor=" + Self.escaped($0.base64) } ?? "")
        let answer = try Self.request("GET", url + "/changes?" + query, authorization, nil, timeout: seconds + timeout)
        try Self.check(answer, url: url)
    }

    // MARK: SyncDestination

    public func syncCheckpoints() throws -> [SyncCheckpoint] {
        lastLook = try Self.decode(try Self.request("GET", url + "/replication/checkpoints", authorization, nil, timeout: timeout),
                                   url: url)
        return try lastLook.checkpoints.map { text in
            guard let data = Base64.decode(text) else { throw OHKError(.storage, "\(url) answered a checkpoint that is no base64") }
            return try SyncCheckpoint(wire: data)
        }
    }

    public func receive(_ batch: ReplicaBatch, name: String, location: String, types: [String]?, expectedPosition: UInt64?,
                        restart: Bool) throws -> SyncReceipt {
        var query = "name=" + Self.escaped(name) + "&location=" + Self.escaped(location)
            + "&expected=" + (expectedPosition.map(String.init) ?? "none") + (restart ? "&restart=1" : "")
        if let types { query += "&type=" + Self.escaped(types.joined(separator: ",")) }
        let a: ReceiveAnswer = try Self.decode(try Self.request("POST", url + "/replication?" + query, authorization,
                                                                try batch.wireBytes(), timeout: timeout), url: url)
        guard let cp = Base64.decode(a.checkpoint), let anchor = try? QueryAnchor(base64: a.anchor) else {
            throw OHKError(.storage, "\(url) answered a checkpoint or anchor that does not decode")
        }
        var o = ApplyOutcome(anchor: anchor)
        (o.added, o.replaced, o.alreadyStored, o.olderVersions) = (a.added, a.replaced, a.alreadyStored, a.olderVersions)
        (o.deletedBefore, o.deleted, o.alreadyDeleted, o.deletedBeforeArrival) = (a.deletedBefore, a.deleted, a.alreadyDeleted,
                                                                                  a.deletedBeforeArrival)
        return SyncReceipt(checkpoint: try SyncCheckpoint(wire: cp), outcome: o,
                           conflicts: a.conflicts.compactMap(UUID.init(uuidString:)))
    }

    public func liveDigests() throws -> [String: LiveDigest] {
        _ = try syncCheckpoints()
        return try lastLook.digests.mapValues { text in
            guard let data = Base64.decode(text) else { throw OHKError(.storage, "\(url) answered a digest that is no base64") }
            return try LiveDigest(wire: data)
        }
    }

    /// As of the last look at the checkpoints: `synchronize` asks for the
    /// live digests, which look again, just before.
    public func syncConflictCount(source: UUID) throws -> Int {
        lastLook.conflicts[source.uuidString] ?? 0
    }

    // MARK: requests

    struct Answer {
        var status: Int
        var body: [UInt8]
    }

    static func request(_ method: String, _ url: String, _ authorization: String?, _ body: [UInt8]?, timeout: Int) throws -> Answer {
        var response = ohk_http_response()
        var message = [CChar](repeating: 0, count: 512)
        let status = (body ?? []).withUnsafeBytes { raw in
            ohk_http_request(method, url, authorization, body == nil ? nil : "application/octet-stream",
                             body == nil ? nil : raw.baseAddress, raw.count, timeout, &response, &message, message.count)
        }
        guard status == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // Unreachable, refused, timed out, or no libcurl: the URL given cannot be used.
            throw OHKError(.invalidArgument, "\(url): \(text)")
        }
        defer { ohk_http_response_free(&response) }
        let bytes = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.length)) } ?? []
        return Answer(status: Int(response.status), body: bytes)
    }

    /// A refusal as the core's error: the server's message, and the code
    /// a sync acts on (an expired or future anchor, a checkpoint that
    /// does not fit, another sync meanwhile).
    static func check(_ a: Answer, url: String) throws {
        guard !(200..<300).contains(a.status) else { return }
        let e = JSONValue.read(a.body).flatMap(ErrorAnswer.init(json:))
        let text = "\(url) answered \(a.status): " + (e?.error ?? String(decoding: a.body.prefix(200), as: UTF8.self))
        let code: OHKError.Code = switch (a.status, e?.field) {
        case (410, _): .anchorExpired
        case (400, "after") where e?.error.contains("past the store's head") == true: .anchorFromFuture
        case (409, "expected"): .syncBusy
        case (409, _): .syncCheckpoint
        case (400, _), (401, _), (403, _), (404, _), (413, _): .invalidArgument
        default: .storage
        }
        throw OHKError(code, text)
    }

    static func decode<T: JSONAnswer>(_ a: Answer, url: String) throws -> T {
        try check(a, url: url)
        guard let json = JSONValue.read(a.body) else { throw OHKError(.storage, "\(url) answered text that is not JSON") }
        guard let answer = T(json: json) else {
            throw OHKError(.storage, "\(url) answered JSON this version does not read: \(String(decoding: a.body.prefix(200), as: UTF8.self))")
        }
        return answer
    }

    /// Percent-encoding of a query value: all but unreserved characters.
    static func escaped(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(b)))
            default:
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

/// An answer of `ohk serve`, read from its JSON (nil: a field missing or
/// of another kind).
protocol JSONAnswer {
    init?(json: JSONValue)
}

struct CheckpointsAnswer: JSONAnswer {
    var storeId: String
    var checkpoints: [String]
    var digests: [String: String]
    var conflicts: [String: Int]

    init?(json: JSONValue) {
        guard let storeId = json["storeId"]?.string,
              let checkpoints = json["checkpoints"]?.all(\.string),
              let digests = json["digests"]?.allValues(\.string),
              let conflicts = json["conflicts"]?.allValues(\.int) else { return nil }
        (self.storeId, self.checkpoints, self.digests, self.conflicts) = (storeId, checkpoints, digests, conflicts)
    }
}

struct ReceiveAnswer: JSONAnswer {
    var added, replaced, alreadyStored, olderVersions, deletedBefore, deleted, alreadyDeleted, deletedBeforeArrival: Int
    var anchor: String
    var checkpoint: String
    var conflicts: [String]

    init?(json: JSONValue) {
        guard let added = json["added"]?.int, let replaced = json["replaced"]?.int,
              let alreadyStored = json["alreadyStored"]?.int, let olderVersions = json["olderVersions"]?.int,
              let deletedBefore = json["deletedBefore"]?.int, let deleted = json["deleted"]?.int,
              let alreadyDeleted = json["alreadyDeleted"]?.int, let deletedBeforeArrival = json["deletedBeforeArrival"]?.int,
              let anchor = json["anchor"]?.string, let checkpoint = json["checkpoint"]?.string,
              let conflicts = json["conflicts"]?.all(\.string) else { return nil }
        (self.added, self.replaced, self.alreadyStored, self.olderVersions) = (added, replaced, alreadyStored, olderVersions)
        (self.deletedBefore, self.deleted, self.alreadyDeleted, self.deletedBeforeArrival) =
            (deletedBefore, deleted, alreadyDeleted, deletedBeforeArrival)
        (self.anchor, self.checkpoint, self.conflicts) = (anchor, checkpoint, conflicts)
    }
}

private extension JSONValue {
    /// Each element of an array read by `read`; nil when one does not read.
    func all<T>(_ read: (JSONValue) -> T?) -> [T]? {
        guard let a = array else { return nil }
        let out = a.compactMap(read)
        return out.count == a.count ? out : nil
    }

    /// Each value of an object read by `read`; nil when one does not read.
    func allValues<T>(_ read: (JSONValue) -> T?) -> [String: T]? {
        guard let o = object else { return nil }
        let out = o.compactMapValues(read)
        return out.count == o.count ? out : nil
    }
}

struct ErrorAnswer {
    var error: String
    var field: String?

    init?(json: JSONValue) {
        guard let error = json["error"]?.string else { return nil }
        self.error = error
        field = json["field"]?.string
    }
}
