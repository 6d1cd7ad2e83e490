#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload

/// `POST /v1/people/{person}/health-auto-export`: the Health Auto Export
/// app's payload (rule 67), its points applied in one transaction.
enum HealthAutoExportUpload {
    /// The answer: apply's counts and anchor, the points received, and the
    /// points not saved by metric name.
    static func apply(_ bytes: [UInt8], grant: Grant, store: Store) throws(APIError) -> (json: String, points: Int) {
        let mapped = try HealthAutoExport.map(bytes, grant: grant, receivedAt: .now)
        // A payload may repeat a metric (batched requests): one sample a UUID.
        var seen = Set<UUID>()
        let samples = mapped.samples.filter { seen.insert($0.uuid).inserted }
        let outcome: ApplyOutcome
        // The points' UUIDs come from their content; their sync versions
        // from when they arrived, so a point sent again differs in that alone.
        do { outcome = try store.apply(samples: samples, deletions: [], uuidsNameContent: true) } catch { throw APIError(error) }
        var o = ChangesUpload.answer(outcome)
        o.add("points", int: mapped.points)
        var unmapped = JSONObject()
        for (name, n) in mapped.unmapped.sorted(by: { $0.key < $1.key }) { unmapped.add(name, int: n) }
        o.add("unmapped", object: unmapped)
        return (o.closed, mapped.points)
    }
}
#endif
