import Foundation
import OpenHealthKitCore

/// A query for what was saved and deleted after an anchor: the snapshot
/// first (to `resultsHandler`), then, when `updateHandler` is set, every
/// later change as it is committed, by this process or another. Handlers
/// run on a background thread, one call at a time per query.
///
/// HealthKit's rules hold: an update handler on a query with a limit, and
/// a query executed twice, are refused. HealthKit raises an exception for
/// these; here the refusal reaches the results handler as
/// `HKError(.errorInvalidArgument)`, and the query does not run.
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    public typealias Handler = @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void

    /// Every change after the snapshot; set it before `execute`.
    public var updateHandler: Handler? {
        get { lock.withLock { _updateHandler } }
        set { lock.withLock { _updateHandler = newValue } }
    }

    let anchor: HKQueryAnchor?
    let limit: Int
    private let resultsHandler: Handler
    private let lock = NSLock()
    private var _updateHandler: Handler?

    /// One type, an optional predicate.
    public init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
                resultsHandler handler: @escaping Handler) {
        self.anchor = anchor
        self.limit = limit
        resultsHandler = handler
        super.init(descriptors: [HKQueryDescriptor(sampleType: type, predicate: predicate)])
    }

    /// Several types, each with its predicate; one anchor for them all.
    public init(queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int,
                resultsHandler handler: @escaping Handler) {
        self.anchor = anchor
        self.limit = limit
        resultsHandler = handler
        super.init(descriptors: queryDescriptors)
    }

    /// HealthKit's first form, with integer anchors: the handler gets the
    /// samples and the new anchor's integer (deleted objects are not
    /// reported through this form).
    @available(*, deprecated, message: "Use init(type:predicate:anchor:limit:resultsHandler:)")
    public convenience init(type: HKSampleType, predicate: NSPredicate?, anchor: Int, limit: Int,
                            completionHandler handler: @escaping @Sendable (HKAnchoredObjectQuery, [HKSample]?, Int, (any Error)?) -> Void) {
        let start = anchor == HKAnchoredObjectQueryNoAnchor ? nil : HKQueryAnchor(fromValue: anchor)
        self.init(type: type, predicate: predicate, anchor: start, limit: limit) { query, samples, _, newAnchor, error in
            handler(query, samples, newAnchor.map { Int($0.core.position) } ?? anchor, error)
        }
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let update = updateHandler
        guard limit >= 0 else { throw .invalid("limit must be HKObjectQueryNoLimit or positive, got \(limit)") }
        guard update == nil || limit == HKObjectQueryNoLimit else {
            throw .invalid("a query with a limit cannot have an update handler")
        }
        return AnchoredObjectQuery(descriptors: descriptors, anchor: anchor?.core, limit: limit,
                                   resultsHandler: { [resultsHandler] _, r in self.deliver(r, store, to: resultsHandler) },
                                   updateHandler: update.map { u in { _, r in self.deliver(r, store, to: u) } })
    }

    override func refuse(_ error: HKError) {
        let handler = resultsHandler
        Self.onBackground { handler(self, nil, nil, nil, error) }
    }

    private func deliver(_ result: Result<AnchoredQueryResult, OHKError>, _ store: HKHealthStore, to handler: Handler) {
        switch result {
        case .success(let r):
            handler(self, store.conversion.samples(r.samples), ResultConversion.deleted(r.deletedObjects),
                    HKQueryAnchor(r.newAnchor), nil)
        case .failure(let e):
            handler(self, nil, nil, nil, HKError(core: e))
        }
    }
}
