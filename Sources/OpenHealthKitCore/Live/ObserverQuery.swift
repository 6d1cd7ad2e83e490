/// An observer query (rule 10): after a commit (of any process) that
/// saved or deleted something its descriptors match, the handler gets the
/// set of matching types that changed. Never a call without a change:
/// it does not fire at start, unless made with `firesOnStart` (rule 10b:
/// HealthKit's HKObserverQuery does). The completion handler exists for
/// HealthKit's shape; durable acknowledgement belongs to durable
/// subscriptions. Run it with `Store.execute(_:)`.
public final class ObserverQuery: LiveQuery, @unchecked Sendable {
    public typealias Handler = (ObserverQuery, Result<Set<SampleType>, OHKError>, _ completion: @escaping () -> Void) -> Void

    public let descriptors: [QueryDescriptor]
    private let handler: Handler
    /// No descriptor has a predicate: any change of a type matches.
    private let typesOnly: Bool
    // Set by `prepare` before the first poll, then touched only on the queue.
    private var anchor: QueryAnchor?
    /// How many times it read the store to find what changed (for tests).
    private(set) var storeReads = 0
    /// The first poll calls the handler with every type (rule 10b).
    private var startCall: Bool

    /// `firesOnStart`: call the handler once when the query starts, with
    /// every type it observes, before any change (HealthKit's observer
    /// does; rule 10b).
    public init(descriptors: [QueryDescriptor], firesOnStart: Bool = false, handler: @escaping Handler) {
        self.descriptors = descriptors
        self.handler = handler
        startCall = firesOnStart
        typesOnly = descriptors.allSatisfy { $0.predicate == nil }
        super.init()
    }

    public convenience init(type: SampleType, predicate: SamplePredicate? = nil, handler: @escaping Handler) {
        self.init(descriptors: [QueryDescriptor(type: type, predicate: predicate)], handler: handler)
    }

    override func validate() throws {
        guard !descriptors.isEmpty else { throw OHKError(.invalidArgument, "an observer needs at least one descriptor") }
    }

    override func prepare(_ store: Store) throws {
        _ = try Store.group(descriptors, validatingWith: store)
        anchor = try store.currentAnchor()
    }

    override func poll(_ store: Store, note: CommitNote?) {
        do {
            var types: Set<SampleType>
            if let note, let known = typesChanged(by: note, store) {
                types = known
                if let a = anchor, a.position < note.head {
                    anchor = QueryAnchor(storeID: store.storeID, position: note.head, horizon: note.horizon)
                }
            } else {
                storeReads += 1
                (types, anchor) = try store.changedTypes(descriptors, since: anchor)
            }
            if startCall {
                // Every observed type, whatever the first read found.
                startCall = false
                types = Set(descriptors.map(\.type))
            }
            if !types.isEmpty { deliver { handler(self, .success(types), {}) } }
        } catch {
            deliver { handler(self, .failure(OHKError(error)), {}) }
            stop()
        }
    }

    /// The matching types `note`'s commits changed, without reading the
    /// store: what `Store.changedTypes` would find when the anchor is
    /// where they began and no descriptor has a predicate (a predicate
    /// needs the records); nothing when an earlier read already passed
    /// them (the first poll's read can see a commit whose note comes
    /// after). nil otherwise.
    private func typesChanged(by note: CommitNote, _ store: Store) -> Set<SampleType>? {
        guard let a = anchor, a.storeID == store.storeID, a.horizon == note.horizon else { return nil }
        if a.position >= note.head { return [] }
        guard typesOnly, a.position == note.startHead else { return nil }
        var changed = Set<SampleType>()
        for d in descriptors {
            if let id = store.knownTypeID(d.type), note.typeIDs.contains(id) { changed.insert(d.type) }
        }
        return changed
    }
}
