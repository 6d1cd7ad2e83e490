import Foundation
import OpenHealthKitCore
import Synchronization

/// The core's query results as HealthKit objects. Types, source
/// revisions and devices are immutable, so one object of each serves
/// every sample of a store, as HealthKit shares them: they are made once
/// per store and kept here (a store's ids of sources and devices never
/// change meaning).
final class ResultConversion: @unchecked Sendable {
    /// A type as samples need it: the object, and for quantity types the
    /// type and its unit without a cast per sample.
    /// (A class: as a struct, each sample's read of its entry copied it,
    /// with a retain and a release per reference.)
    private final class TypeEntry {
        /// Held so that its identity, the key of `Shared.types`, stays its own.
        let core: SampleType
        let type: HKSampleType
        let quantityType: HKQuantityType?
        let unit: HKUnit?

        init(_ t: SampleType) {
            core = t
            type = HKObjectType.make(t)
            quantityType = type as? HKQuantityType
            unit = quantityType?.canonicalUnit
        }
    }

    private struct Shared: @unchecked Sendable {  // its objects are immutable
        /// Few (the types a store's queries read): a scan by identity
        /// costs less than hashing, and copying the table copies no
        /// dictionary storage.
        var types: [TypeEntry] = []

        func entry(_ t: SampleType) -> TypeEntry? { types.first { $0.core === t } }
        /// By the store's id (small, dense integers): an array, not a hash.
        var revisions: [HKSourceRevision?] = []
        var devices: [HKDevice?] = []
    }

    /// (A `Mutex`, not an `NSLock`: taken on every query, its uncontended
    /// path is an atomic in place instead of a call into an object.)
    private let shared = Mutex(Shared())
    /// The store the results come from, for what a result reads later (a
    /// correlation's objects).
    weak var core: Store?

    /// The batch as `S` objects; every sample of the batch must be an `S`
    /// (the query's descriptors were checked to be of `S`'s kind).
    func samples<S: HKSample>(_ batch: SampleBatch, as: S.Type) -> [S] {
        let all = samples(batch)
        // An array of class references has one layout whatever the class,
        // so an array whose every element is an S is an [S] as it stands.
        // (Built as [S] directly, this generic code looked up Array<S>'s
        // metadata once per sample; a cast costs a pass over the array.)
        assert(all.allSatisfy { $0 is S }, "a sample of another kind in a query for \(S.self)")
        return unsafeBitCast(all, to: [S].self)
    }

    /// The batch's samples, each an HKQuantitySample or HKCategorySample.
    func samples(_ batch: SampleBatch) -> [HKSample] {
        // A copy to read without the lock; what this batch adds is merged back.
        var known = shared.withLock { $0 }
        var added = false
        let types = batch.types.map { t in
            if let k = known.entry(t) { return k }
            added = true
            let made = TypeEntry(t)
            known.types.append(made)
            return made
        }
        var out: [HKSample] = []
        out.reserveCapacity(batch.count)
        batch.forEach { f in
            let sourceID = Int(f.sourceID)
            let revision: HKSourceRevision
            if sourceID < known.revisions.count, let r = known.revisions[sourceID] {
                revision = r
            } else {
                revision = HKSourceRevision(f.source ?? Source(bundleIdentifier: "?", name: "?"))
                Self.put(revision, at: sourceID, in: &known.revisions)
                added = true
            }
            var device: HKDevice?
            let deviceID = Int(f.deviceID)
            if deviceID != 0 {
                if deviceID < known.devices.count, let d = known.devices[deviceID] {
                    device = d
                } else {
                    device = f.device.map(HKDevice.init)
                    Self.put(device, at: deviceID, in: &known.devices)
                    added = true
                }
            }
            let metadata = f.storedMetadata.map(ObjectMetadata.stored) ?? .given(nil)
            let start = f.startDate, end = f.endDate
            let sample: HKSample
            let entry = types[f.typeIndex]
            if let payload = f.payload {
                sample = self.payloadSample(payload, entry.type, start, end, f.uuid, revision, device, metadata,
                                            f.creationDate, f.utcOffset)
            } else if let value = f.quantity, let type = entry.quantityType, let unit = entry.unit {
                sample = HKQuantitySample(type: type, canonicalUnit: unit, value: value, start: start, end: end,
                                          uuid: f.uuid, sourceRevision: revision, device: device, metadata: metadata,
                                          creationDate: f.creationDate, utcOffset: f.utcOffset)
            } else if let type = entry.type as? HKCategoryType {
                sample = HKCategorySample(type: type, value: f.categoryValue ?? 0,
                                          start: start, end: end, uuid: f.uuid,
                                          sourceRevision: revision, device: device, metadata: metadata,
                                          creationDate: f.creationDate, utcOffset: f.utcOffset)
            } else {
                // A workout or correlation whose payload does not read
                // (damage): a sample of its type, without its fields.
                sample = HKSample(type: entry.type, start: start, end: end, uuid: f.uuid, sourceRevision: revision,
                                  device: device, metadata: metadata, creationDate: f.creationDate, utcOffset: f.utcOffset)
            }
            out.append(sample)
        }
        if added {
            shared.withLock { shared in
                for k in known.types where shared.entry(k.core) == nil { shared.types.append(k) }
                for (i, r) in known.revisions.enumerated() where r != nil { Self.put(r, at: i, in: &shared.revisions) }
                for (i, d) in known.devices.enumerated() where d != nil { Self.put(d, at: i, in: &shared.devices) }
            }
        }
        return out
    }

    private static func put<T>(_ value: T?, at i: Int, in table: inout [T?]) {
        if i >= table.count { table.append(contentsOf: repeatElement(nil, count: i + 1 - table.count)) }
        if table[i] == nil { table[i] = value }
    }

    /// A changed type of an observer, as the store's shared type object.
    func type(_ t: SampleType) -> HKSampleType {
        shared.withLock { shared in
            if let k = shared.entry(t) { return k.type }
            let made = TypeEntry(t)
            shared.types.append(made)
            return made.type
        }
    }

    static func deleted(_ objects: DeletedObjects) -> [HKDeletedObject] {
        objects.map(HKDeletedObject.init)
    }
}
