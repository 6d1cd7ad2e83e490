import Foundation
import OpenHealthKitCore

/// "No limit" for a query's `limit`.
public let HKObjectQueryNoLimit: Int = 0
/// The integer anchor of a query that starts from the beginning.
public let HKAnchoredObjectQueryNoAnchor: Int = 0

/// What every query has: a type, a predicate, and a life that starts with
/// `HKHealthStore.execute(_:)` and ends with `stop(_:)`. A query runs
/// once; executing it again is an error delivered to its handler.
public class HKQuery: NSObject, @unchecked Sendable {
    public let objectType: HKObjectType?
    public let predicate: NSPredicate?
    public var sampleType: HKSampleType? { objectType as? HKSampleType }
    /// What the query matches: any of these.
    let descriptors: [HKQueryDescriptor]

    private let lock = NSLock()
    private var executed = false
    /// Weak: the store holds a running query, and the query's handlers
    /// hold this object, so a strong reference would keep both (and the
    /// health store) alive after the query ends.
    private weak var running: LiveQuery?
    private var stopped = false

    /// A query of one descriptor has its type and predicate; one of
    /// several has neither, as in HealthKit.
    init(descriptors: [HKQueryDescriptor]) {
        self.descriptors = descriptors
        objectType = descriptors.count == 1 ? descriptors[0].sampleType : nil
        predicate = descriptors.count == 1 ? descriptors[0].predicate : nil
        readsSamples = true
        super.init()
    }

    /// A query of values that are not samples (activity summaries): no
    /// descriptors; the subclass reads its predicate itself.
    init(objectType: HKObjectType, predicate: NSPredicate?) {
        descriptors = []
        self.objectType = objectType
        self.predicate = predicate
        readsSamples = false
        super.init()
    }

    /// False for a query of values that are not samples.
    private let readsSamples: Bool

    /// Starts the query on `store`, or hands `refuse` why it cannot run:
    /// executed before, no descriptors, a store or type that cannot be
    /// used, or what the subclass's `coreQuery` refuses.
    final func execute(on store: HKHealthStore) {
        do throws(HKError) {
            let first = lock.withLock { () -> Bool in
                defer { executed = true }
                return !executed
            }
            guard first else { throw .invalid("this query was already executed; create a new one") }
            guard !descriptors.isEmpty || !readsSamples else { throw .invalid("a query needs at least one descriptor") }
            let core = try store.core()
            let coreDescriptors = try descriptors.map { d throws(HKError) in try d.core(in: core) }
            try run(coreQuery(coreDescriptors, on: store), on: core)
        } catch {
            refuse(error)
        }
    }

    /// The core's live query that does this query's work (subclasses);
    /// nil for a query whose work is done once it has started.
    func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        preconditionFailure("\(type(of: self)) does not run")
    }

    /// Reports to the query's handler, on a background queue, why it
    /// does not run (subclasses).
    func refuse(_ error: HKError) {}

    /// Runs `core` on `store` as this query's engine; a query stopped
    /// before this point does not start.
    private func run(_ core: LiveQuery?, on store: Store) throws(HKError) {
        guard let core else { return }
        let go = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            running = core
            return true
        }
        guard go else { return }
        try hk { try store.execute(core) }
    }

    /// True once `HKHealthStore.stop(_:)` was called: a query that calls
    /// its handler from its own loop checks it before each call.
    var isStopped: Bool { lock.withLock { stopped } }

    /// `HKHealthStore.stop(_:)`: no handler runs after it returns, except
    /// one calling it.
    func stop() {
        let core = lock.withLock { () -> LiveQuery? in
            stopped = true
            return running
        }
        core?.stop()
    }

    /// A one-shot query's work, run on a background queue: its answer, or
    /// its error as an `HKError`, goes to `deliver`.
    static func answer<T>(_ work: @escaping () throws -> T, _ deliver: @escaping (T?, (any Error)?) -> Void) {
        onBackground {
            do { deliver(try work(), nil) } catch { deliver(nil, HKError(core: error)) }
        }
    }

    /// Calls `body` on a background queue, as HealthKit calls handlers.
    /// Handlers are not `Sendable` in HealthKit's signatures; each runs
    /// once, on that queue only.
    static func onBackground(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        DispatchQueue.global().async { body() }
    }
}

/// A predicate the store's contents decide (a workout's routes, the
/// samples no correlation holds): read into the core's predicate when a
/// query starts, as the query's whole predicate.
protocol StoreResolvedPredicate {
    func core(for type: SampleType, in store: Store) throws(HKError) -> SamplePredicate
}

/// One sample type and an optional predicate: several make one query.
public final class HKQueryDescriptor: NSObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let predicate: NSPredicate?

    public init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.predicate = predicate
        super.init()
    }

    /// The core's descriptor, its type resolved in `store`.
    func core(in store: Store) throws(HKError) -> QueryDescriptor {
        try Self.core(sampleType, predicate, in: store)
    }

    /// The core's descriptor for a type and predicate (also what
    /// `HKSamplePredicate` becomes, without making a descriptor object).
    static func core(_ type: HKSampleType, _ predicate: NSPredicate?, in store: Store) throws(HKError) -> QueryDescriptor {
        let resolved = try type.resolve(in: store)
        if let p = predicate as? StoreResolvedPredicate {
            return QueryDescriptor(type: resolved, predicate: try p.core(for: resolved, in: store))
        }
        return QueryDescriptor(type: resolved, predicate: try HKQuery.corePredicate(predicate))
    }
}
