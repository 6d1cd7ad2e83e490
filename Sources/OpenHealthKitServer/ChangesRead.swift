#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload

/// `GET /v1/people/{person}/changes`: an anchored query of the types the
/// request names (or every type the token may read), answered as
/// `{"samples": […], "deleted": […], "anchor": "…", "types": […]}`.
struct ChangesRequest: Sendable {
    var anchor: QueryAnchor?
    var typeNames: [String]
    var limit: Int
    var predicate: String?
    /// Seconds to wait for a change when there is none yet (long poll).
    var wait: Double

    /// The largest page; a larger `limit` is refused.
    static let maxLimit = 100_000

    init(query: [(String, String)], lastEventID: String?) throws(APIError) {
        func values(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
        // An EventSource reconnecting sends the last id it saw, to the same
        // URL: the id is where it stopped, past the URL's anchor.
        let anchorText = lastEventID ?? values("anchor").last
        if let text = anchorText, text != "none", !text.isEmpty {
            do { anchor = try QueryAnchor(base64: text) } catch {
                throw APIError(.badRequest, "'\(text)' is not an anchor (the text answers give, or none)", field: "anchor")
            }
        } else {
            anchor = nil
        }
        typeNames = values("type").flatMap { $0.split(separator: ",").map(String.init) }
        let limitText = values("limit").last ?? "10000"
        guard let l = Int(limitText), l >= 1, l <= Self.maxLimit else {
            throw APIError(.badRequest, "limit must be 1 to \(Self.maxLimit)", field: "limit")
        }
        limit = l
        predicate = values("predicate").last
        let waitText = values("wait").last ?? "0"
        guard let w = Double(waitText), w >= 0, w <= 300 else {
            throw APIError(.badRequest, "wait must be 0 to 300 seconds", field: "wait")
        }
        wait = w
    }

    /// The descriptors to query for `grant`: named types must be ones it may
    /// read (403 naming the first that is not); none named means every
    /// type of the store it may read. As in HealthKit, a type it may write
    /// but not read shows only its own app's samples.
    func descriptors(_ store: Store, _ grant: Grant) throws(APIError) -> [QueryDescriptor] {
        func mayRead(_ t: SampleType) -> Bool { grant.read.contains(t.identifier) || grant.write.contains(t.identifier) }
        var types: [SampleType] = []
        if typeNames.isEmpty {
            let stored: [SampleType]
            do { stored = try store.storedSampleTypes() } catch { throw APIError(error) }
            types = stored.filter(mayRead)
        } else {
            for name in typeNames {
                let t: SampleType
                do { t = try store.sampleType(name) } catch { throw APIError(.badRequest, "unknown type '\(name)'", field: "type") }
                guard mayRead(t) else {
                    throw APIError(.forbidden, "this token may not read \(t.identifier)", field: "type")
                }
                types.append(t)
            }
        }
        do {
            return try types.map { t in
                var p = try predicate.map { try SamplePredicate($0, for: t) }
                if !grant.read.contains(t.identifier) {
                    let own = SamplePredicate.sources([grant.app])
                    p = p.map { .and([$0, own]) } ?? own
                }
                return QueryDescriptor(type: t, predicate: p)
            }
        } catch {
            throw APIError(error, field: "predicate")
        }
    }

    /// The answer's JSON, how many samples and deletions it holds, and
    /// its anchor.
    func read(_ store: Store, _ grant: Grant) throws(APIError) -> (json: [UInt8], count: Int, anchor: QueryAnchor) {
        let descriptors = try descriptors(store, grant)
        let result: AnchoredQueryResult
        do {
            if descriptors.isEmpty {
                // Nothing to read (yet): the head, so that later reads start there.
                let head = try store.currentAnchor()
                if let anchor { _ = try store.changes(after: anchor, limit: 1) }  // checks the anchor
                return (Self.json(samples: [Sample](), deleted: [DeletedObject](), anchor: head, types: []), 0, head)
            }
            result = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        } catch {
            throw APIError(error, field: "anchor")
        }
        return (Self.json(samples: result.samples, deleted: result.deletedObjects, anchor: result.newAnchor,
                          types: descriptors.map(\.type.identifier)),
                result.samples.count + result.deletedObjects.count, result.newAnchor)
    }

    /// `{"samples": […], "deleted": […], "anchor": "…", "types": […]}`,
    /// each sample written straight into the page's bytes.
    static func json(samples: some Collection<Sample>, deleted: some Collection<DeletedObject>, anchor: QueryAnchor,
                     types: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + samples.count * 256)
        out.append(contentsOf: #"{"samples":["#.utf8)
        for (i, s) in samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONObject.append(sample: s, to: &out)
        }
        out.append(contentsOf: #"],"deleted":["#.utf8)
        for (i, d) in deleted.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONObject.deleted(d).appendClosed(to: &out)
        }
        out.append(contentsOf: #"],"anchor":"#.utf8)
        JSONObject.append(string: anchor.base64, to: &out)
        out.append(contentsOf: #","types":"#.utf8)
        out.append(contentsOf: JSONObject.array(types.map(JSONObject.quoted)).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
#endif
