/// An observer query (rule 10): after a commit (of any process) that
/// saved or deleted something its descriptors match, the handler gets the
/// set of matching types that changed. Never a call without a change:
/// it does not fire at start. The completion handler exists for
/// HealthKit's shape; durable acknowledgement belongs to durable
/// subscriptions. Run it with `Store.execute(_:)`.
public final class ObserverQuery: LiveQuery, @unchecked Sendable {
    public typealias Handler = (ObserverQuery, Result<Set<SampleType>, OHKError>, _ completion: @escaping () -> Void) -> Void

    public let descriptors: [QueryDescriptor]
    private let handler: Handler
    // Set by `prepare` before the first poll, then touched only on the queue.
    private var anchor: QueryAnchor?

    public init(descriptors: [QueryDescriptor], handler: @escaping Handler) {
        self.descriptors = descriptors
        self.handler = handler
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

    override func poll(_ store: Store) {
        do {
            let (types, newAnchor) = try store.changedTypes(descriptors, since: anchor)
            anchor = newAnchor
            if !types.isEmpty { deliver { handler(self, .success(types), {}) } }
        } catch {
            deliver { handler(self, .failure(OHKError(error)), {}) }
            stop()
        }
    }
}
