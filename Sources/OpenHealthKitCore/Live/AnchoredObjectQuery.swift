/// A long-running anchored object query (rule 9): the results handler
/// gets the snapshot after `anchor` once; then, if there is an update
/// handler, it gets every later change set with its new anchor, in commit
/// order, nothing skipped or repeated, whichever process wrote it. Without
/// an update handler the query stops after the snapshot. Changes of
/// several transactions committed between two looks arrive in one call;
/// one transaction's are never split, except by `maxBatchSize`. Run it with
/// `Store.execute(_:)`; see `LiveQuery` for threading and stop.
public final class AnchoredObjectQuery: LiveQuery, @unchecked Sendable {
    public typealias Handler = (AnchoredObjectQuery, Result<AnchoredQueryResult, OHKError>) -> Void

    public let descriptors: [QueryDescriptor]
    private let limit: Int
    private let maxBatchSize: Int
    private let resultsHandler: Handler
    private let updateHandler: Handler?
    // Touched only on the query's queue.
    private var anchor: QueryAnchor?
    private var snapshotDone = false

    /// - Parameters:
    ///   - anchor: where to start; nil for everything retained.
    ///   - limit: at most this many objects in the snapshot (0: no limit).
    ///   - maxBatchSize: at most this many objects per update call (0: one
    ///     call per wake-up however many changed; a larger change set is
    ///     split into several calls, in order).
    public init(descriptors: [QueryDescriptor], anchor: QueryAnchor?, limit: Int = 0, maxBatchSize: Int = 0,
                resultsHandler: @escaping Handler, updateHandler: Handler? = nil) {
        self.descriptors = descriptors
        self.anchor = anchor
        self.limit = limit
        self.maxBatchSize = maxBatchSize
        self.resultsHandler = resultsHandler
        self.updateHandler = updateHandler
        super.init()
    }

    /// One type, optional predicate.
    public convenience init(type: SampleType, predicate: SamplePredicate? = nil, anchor: QueryAnchor?,
                            limit: Int = 0, maxBatchSize: Int = 0,
                            resultsHandler: @escaping Handler, updateHandler: Handler? = nil) {
        self.init(descriptors: [QueryDescriptor(type: type, predicate: predicate)], anchor: anchor, limit: limit,
                  maxBatchSize: maxBatchSize, resultsHandler: resultsHandler, updateHandler: updateHandler)
    }

    override func validate() throws {
        guard limit >= 0, maxBatchSize >= 0 else {
            throw OHKError(.invalidArgument, "limit and maxBatchSize must be 0 (no limit) or positive")
        }
    }

    override func poll(_ store: Store, note: CommitNote?) {
        if !snapshotDone {
            snapshotDone = true
            do {
                let r = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
                anchor = r.newAnchor
                deliver { resultsHandler(self, .success(r)) }
            } catch {
                deliver { resultsHandler(self, .failure(OHKError(error))) }
                stop()
                return
            }
            if updateHandler == nil { stop() }
            return
        }
        guard let updateHandler else { return }
        while true {
            let r: AnchoredQueryResult
            do {
                r = try store.anchoredQuery(descriptors, anchor: anchor, limit: maxBatchSize)
            } catch {
                deliver { updateHandler(self, .failure(OHKError(error))) }
                stop()
                return
            }
            anchor = r.newAnchor
            let n = r.samples.count + r.deletedObjects.count
            guard n > 0, deliver({ updateHandler(self, .success(r)) }) else { return }
            if maxBatchSize == 0 || n < maxBatchSize { return }
        }
    }
}
