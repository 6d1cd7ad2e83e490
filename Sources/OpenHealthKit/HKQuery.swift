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

    private let lock = NSLock()
    private var executed = false
    /// Weak: the store holds a running query, and the query's handlers
    /// hold this object, so a strong reference would keep both (and the
    /// health store) alive after the query ends.
    private weak var running: LiveQuery?
    private var stopped = false

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
        super.init()
    }

    /// Marks the query executed; false when it already was.
    func markExecuted() -> Bool {
        lock.withLock {
            defer { executed = true }
            return !executed
        }
    }

    /// Runs `core` on `store` as this query's engine; a query stopped
    /// before this point does not start.
    func run(_ core: LiveQuery, on store: Store) throws(HKError) {
        let go = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            running = core
            return true
        }
        guard go else { return }
        try hk { try store.execute(core) }
    }

    /// `HKHealthStore.stop(_:)`: no handler runs after it returns, except
    /// one calling it.
    func stop() {
        let core = lock.withLock { () -> LiveQuery? in
            stopped = true
            return running
        }
        core?.stop()
    }

    /// Starts the query on `store`, or reports why it cannot run (subclasses).
    func execute(on store: HKHealthStore) {}

    /// Calls `body` on a background queue, as HealthKit calls handlers.
    /// Handlers are not `Sendable` in HealthKit's signatures; each runs
    /// once, on that queue only.
    static func onBackground(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        DispatchQueue.global().async { body() }
    }
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
        QueryDescriptor(type: try sampleType.resolve(in: store), predicate: try HKQuery.corePredicate(predicate))
    }
}
