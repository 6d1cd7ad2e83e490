import Foundation
import OpenHealthKitCore
import Synchronization

/// The store of health samples: saves, deletes, and runs queries.
///
/// `HKHealthStore()` opens the program's default store directory
/// (`$OHK_STORE`, else `~/.local/share/openhealthkit/store`, the one `ohk`
/// uses); `HKHealthStore(directory:)` opens another. Stores of one
/// directory see each other's changes, across processes; in one process
/// they share one open store. Completion handlers run on a background
/// queue.
public final class HKHealthStore: NSObject, @unchecked Sendable {
    private let opened: Result<(key: String, store: Store), HKError>
    /// Set once by `close` (an atomic: every call reads it, and a lock was
    /// a twentieth of a delta query through this API).
    private let closed = Atomic<Bool>(false)
    /// The HealthKit objects results share (types, sources, devices).
    let conversion = ResultConversion()

    /// Opens the default store. A store that cannot be opened makes every
    /// call fail with `errorDatabaseInaccessible` and the reason.
    public override convenience init() {
        self.init(opening: Store.defaultDirectory)
    }

    /// Opens (creating when missing) the store in `directory`. Like
    /// `init()`, it does not throw, as HealthKit's initializer does not: a
    /// store that cannot be opened (a path that is a file, no permission,
    /// a store of a newer format) makes every call fail with
    /// `errorDatabaseInaccessible` and the reason. `try coreStore()` tells
    /// at once.
    public convenience init(directory: String) {
        self.init(opening: directory)
    }

    /// `init()`'s way of opening: failures are kept, not thrown.
    init(opening directory: String) {
        do {
            opened = .success(try OpenStores.retain(directory))
        } catch {
            opened = .failure(HKError(.errorDatabaseInaccessible,
                                      "cannot open the store in \(directory): \(HKError(core: error).localizedDescription)"))
        }
        super.init()
        if case .success(let o) = opened { conversion.core = o.store }
    }

    deinit { close() }

    /// The engine, or why the store could not be opened.
    func core() throws(HKError) -> Store {
        guard !closed.load(ordering: .acquiring) else { throw HKError(.errorDatabaseInaccessible, "the health store was closed") }
        return try opened.get().store
    }

    /// The core's store behind this one (not in HealthKit): for what only
    /// the core has (durable subscriptions, pruning, statistics) without
    /// opening the directory a second time in the process.
    public func coreStore() throws(HKError) -> Store { try core() }

    /// Health data is available wherever the library runs.
    public class func isHealthDataAvailable() -> Bool { true }

    /// Closes this health store: later calls fail. When no other
    /// `HKHealthStore` of this process uses the directory, the store closes
    /// and its running queries stop. Not in HealthKit, whose stores live
    /// as long as the process; dropping the last reference does the same.
    public func close() {
        let first = !closed.exchange(true, ordering: .acquiringAndReleasing)
        if first, case .success(let opened) = opened { OpenStores.release(opened.key) }
    }

    // MARK: Queries

    /// Starts `query`; its handlers report results and errors.
    public func execute(_ query: HKQuery) { query.execute(on: self) }

    /// Stops a running query: none of its handlers runs after this
    /// returns (except the one calling it).
    public func stop(_ query: HKQuery) { query.stop() }

    // MARK: Saving and deleting

    /// Saves samples in one transaction: all or nothing. Bad input (an
    /// end before the start, a unit the type does not measure, a sync
    /// identifier without a version, an unknown type) fails the save with
    /// `errorInvalidArgument` and writes nothing.
    public func save(_ objects: [HKObject]) async throws {
        try saveNow(objects)
    }

    public func save(_ object: HKObject) async throws {
        try saveNow([object])
    }

    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.saveNow(objects) }
    }

    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        save([object], withCompletion: completion)
    }

    /// Deletes samples by UUID in one transaction; queries report them as
    /// deleted objects. An object not in the store fails the whole delete
    /// with `errorNoData`.
    public func delete(_ objects: [HKObject]) async throws {
        try deleteNow(objects)
    }

    public func delete(_ object: HKObject) async throws {
        try deleteNow([object])
    }

    public func delete(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.deleteNow(objects) }
    }

    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        delete([object], withCompletion: completion)
    }

    /// Deletes every sample of `objectType` matching `predicate`; returns
    /// how many.
    @discardableResult
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
        try deleteMatching(objectType, predicate)
    }

    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate,
                              withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void) {
        HKQuery.onBackground {
            do {
                completion(true, try self.deleteMatching(objectType, predicate), nil)
            } catch {
                completion(false, 0, error)
            }
        }
    }

    // MARK: Authorization (Linux has no prompts yet)

    /// Succeeds at once: reading and writing need no permission here yet.
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        HKQuery.onBackground { completion(true, nil) }
    }

    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {}

    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus { .sharingAuthorized }

    // MARK: Internals

    /// Saves in one transaction. A correlation's objects are saved before
    /// it (rule 33), unless the call saves them too or the store holds
    /// them already; correlations go last.
    private func saveNow(_ objects: [HKObject]) throws(HKError) {
        let store = try core()
        var samples: [Sample] = [], correlations: [Sample] = [], members: [Sample] = []
        samples.reserveCapacity(objects.count)
        for object in objects {
            guard let sample = object as? HKSample else { throw .invalid("\(type(of: object)) objects cannot be saved") }
            if let c = sample as? HKCorrelation {
                for member in c.newObjects { members.append(try member.coreSample(in: store)) }
                correlations.append(try sample.coreSample(in: store))
            } else {
                samples.append(try sample.coreSample(in: store))
            }
        }
        if !members.isEmpty {
            var skip = Set(samples.map(\.uuid))
            skip.formUnion(try storedUUIDs(members, in: store))
            for m in members where skip.insert(m.uuid).inserted { samples.append(m) }
        }
        let all = samples + correlations
        try hk { _ = try store.save(all) }
    }

    /// Which of `samples` the store holds live.
    private func storedUUIDs(_ samples: [Sample], in store: Store) throws(HKError) -> Set<UUID> {
        let uuids = Set(samples.map(\.uuid))
        let descriptors = Set(samples.map(\.type)).map { QueryDescriptor(type: $0, predicate: .uuids(uuids)) }
        return try hk { Set(try store.anchoredQuery(descriptors, anchor: nil).samples.map(\.uuid)) }
    }

    private func deleteNow(_ objects: [HKObject]) throws(HKError) {
        let store = try core()
        try hk { try store.delete(uuids: objects.map(\.uuid)) }
    }

    private func deleteMatching(_ objectType: HKObjectType, _ predicate: NSPredicate) throws(HKError) -> Int {
        let store = try core()
        guard let sampleType = objectType as? HKSampleType else { throw .invalid("\(objectType) has no samples") }
        let type = try sampleType.resolve(in: store)
        let p = try HKQuery.corePredicate(predicate)
        return try hk { try store.delete(type: type, predicate: p) }
    }

    /// Runs `body` on a background queue and reports to `completion`.
    func complete(_ completion: @escaping @Sendable (Bool, (any Error)?) -> Void,
                          _ body: @escaping () throws(HKError) -> Void) {
        HKQuery.onBackground {
            do throws(HKError) {
                try body()
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }
}

/// HealthKit's authorization states; every type is shared here.
public enum HKAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case sharingDenied = 1
    case sharingAuthorized = 2
}
