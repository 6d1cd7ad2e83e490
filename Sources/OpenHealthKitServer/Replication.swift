#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload

/// The endpoints of `ohk sync` over HTTP (rule 69, docs/sync.md): a
/// person's store as a sync's source (`GET …/replication`) and as its
/// destination (`GET …/replication/checkpoints`, `POST …/replication`).
/// Batches travel as `ReplicaBatch.wireBytes()`.
enum Replication {
    static let maxLimit = 100_000

    /// `GET /v1/people/{person}/replication?after=ANCHOR&limit=N&type=…`:
    /// the changes after the anchor (none: from the start), as bytes. The
    /// token must read every type read: those named, else every type the
    /// store holds.
    static func read(_ query: [(String, String)], _ store: Store, _ grant: Grant) throws(APIError) -> [UInt8] {
        func values(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
        var anchor: QueryAnchor?
        if let text = values("after").last, text != "none", !text.isEmpty {
            do { anchor = try QueryAnchor(base64: text) } catch {
                throw APIError(.badRequest, "'\(text)' is not an anchor", field: "after")
            }
        }
        guard let limit = Int(values("limit").last ?? "20000"), limit >= 1, limit <= maxLimit else {
            throw APIError(.badRequest, "limit must be 1 to \(maxLimit)", field: "limit")
        }
        let types = try typeSet(values("type"), store)
        do {
            for t in try types.map(Array.init) ?? store.storedSampleTypes().map(\.identifier) where !grant.read.contains(t) {
                throw APIError(.forbidden, "this token may not read \(t); a sync reads every type it copies", field: "type")
            }
            return try store.replicaBatch(after: anchor, limit: limit, types: types).wireBytes()
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(error, field: "after")
        }
    }

    /// `GET /v1/people/{person}/replication/checkpoints`: the store's id,
    /// its checkpoints, live digests and conflicts per source, as JSON;
    /// any token of the person (a sync reads it of its source too).
    static func checkpoints(_ store: Store, _ grant: Grant) throws(APIError) -> String {
        do {
            var o = JSONObject()
            o.add("storeId", store.storeID.uuidString)
            o.add("checkpoints", raw: JSONObject.array(try store.syncCheckpoints().map {
                JSONObject.quoted(Data($0.wireBytes).base64EncodedString())
            }))
            var digests = JSONObject()
            for (t, d) in try store.liveDigests().sorted(by: { $0.key < $1.key }) {
                digests.add(t, Data(d.wireBytes).base64EncodedString())
            }
            o.add("digests", object: digests)
            var conflicts = JSONObject()
            for (source, n) in Dictionary(grouping: try store.syncConflicts(), by: \.source).mapValues(\.count)
                .sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                conflicts.add(source.uuidString, int: n)
            }
            o.add("conflicts", object: conflicts)
            return o.closed
        } catch {
            throw APIError(error)
        }
    }

    /// `POST /v1/people/{person}/replication?name=…&location=…&expected=N|none&restart=1&type=…`
    /// with a batch as its body: applied with the checkpoint that covers
    /// it, in one transaction (`Store.receive`). A relay token that may
    /// write every type of the batch.
    static func receive(_ query: [(String, String)], _ body: [UInt8], _ store: Store, _ grant: Grant) throws(APIError) -> String {
        func value(_ name: String) -> String? { query.last(where: { $0.0 == name })?.1 }
        guard grant.relay else { throw APIError(.forbidden, "only a --relay token may sync into a store") }
        guard let name = value("name"), !name.isEmpty else { throw APIError(.badRequest, "a sync needs its name", field: "name") }
        let location = value("location") ?? ""
        let expected: UInt64?
        switch value("expected") {
        case nil, "none": expected = nil
        case let text?:
            guard let n = UInt64(text) else { throw APIError(.badRequest, "'\(text)' is not a position", field: "expected") }
            expected = n
        }
        let types = try typeSet(query.filter { $0.0 == "type" }.map(\.1), store).map { Array($0).sorted() }
        do {
            let batch = try ReplicaBatch(wire: body) { try store.sampleType($0) }
            for change in batch.changes {
                let t = switch change { case .save(let s): s.type.identifier; case .deletion(let d): d.type.identifier }
                guard grant.write.contains(t) else { throw APIError(.forbidden, "this token may not write \(t)", field: "type") }
            }
            let receipt = try store.receive(batch, name: name, location: location, types: types, expectedPosition: expected,
                                            restart: value("restart") == "1")
            var o = ChangesUpload.answer(receipt.outcome)
            o.add("checkpoint", Data(receipt.checkpoint.wireBytes).base64EncodedString())
            o.add("conflicts", raw: JSONObject.array(receipt.conflicts.map { JSONObject.quoted($0.uuidString) }))
            return o.closed
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(error)
        }
    }

    private static func typeSet(_ names: [String], _ store: Store) throws(APIError) -> Set<String>? {
        let parts = names.flatMap { $0.split(separator: ",").map(String.init) }
        guard !parts.isEmpty else { return nil }
        var out = Set<String>()
        for n in parts {
            do { out.insert(try store.sampleType(n).identifier) } catch {
                throw APIError(.badRequest, "unknown type '\(n)'", field: "type")
            }
        }
        return out
    }
}
#endif
