#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload

/// `POST /v1/people/{person}/changes`: a phone's anchored-query results
/// applied in one transaction (rule 63), all or nothing; sending it again
/// changes nothing.
enum ChangesUpload {
    /// Applies `body` for `grant`; the answer's JSON and the samples received.
    static func apply(_ body: UploadBody, grant: Grant, store: Store) throws(APIError) -> (json: String, samples: Int) {
        let samples = try UploadDecoding.samples(body, grant: grant, store: store)
        let deletions = try UploadDecoding.deletions(body)
        let outcome: ApplyOutcome
        do {
            outcome = try store.apply(samples: samples, deletions: deletions) { index, stored in
                try mayDelete(index, stored, grant)
            }
        } catch let e as APIError {
            throw e
        } catch {
            let e = OHKError(error)
            // apply names the sample: "samples[3]: …".
            let field = e.message.hasPrefix("samples[") ? e.message.split(separator: ":").first.map(String.init) : nil
            throw APIError(e, field: field)
        }
        return (answer(outcome).closed, samples.count)
    }

    /// The counts of an apply, and the store's anchor after it, as an
    /// object the caller may add to.
    static func answer(_ outcome: ApplyOutcome) -> JSONObject {
        var o = JSONObject()
        o.add("added", int: outcome.added)
        o.add("alreadyStored", int: outcome.alreadyStored)
        o.add("replaced", int: outcome.replaced)
        o.add("olderVersions", int: outcome.olderVersions)
        o.add("deletedBefore", int: outcome.deletedBefore)
        o.add("deleted", int: outcome.deleted)
        o.add("alreadyDeleted", int: outcome.alreadyDeleted)
        o.add("deletedBeforeArrival", int: outcome.deletedBeforeArrival)
        o.add("anchor", outcome.anchor.base64)
        return o
    }

    /// An app deletes only its own samples of types it may write, as in
    /// HealthKit; a relay token deletes any, and may name UUIDs the store
    /// has not received yet (a phone's deletion that overtakes its sample).
    private static func mayDelete(_ index: Int, _ stored: Sample?, _ grant: Grant) throws {
        guard !grant.relay else { return }
        guard let stored else {
            throw APIError(.forbidden, "the store holds no such sample; only a --relay token may send a deletion ahead of "
                           + "its sample", field: "deleted[\(index)]")
        }
        guard stored.source.bundleIdentifier == grant.app else {
            throw APIError(.forbidden, "the sample was saved by \(stored.source.bundleIdentifier); this token deletes only "
                           + "\(grant.app)'s", field: "deleted[\(index)]")
        }
        guard grant.write.contains(stored.type.identifier) else {
            throw APIError(.forbidden, "this token may not write \(stored.type.identifier)", field: "deleted[\(index)]")
        }
    }
}
#endif
