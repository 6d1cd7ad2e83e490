import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// The hashed part of the UUID index (`UUIDIndex`, `UUIDBuckets`).
@Suite("UUID index") struct UUIDIndexTests {
    /// Linear hashing: one more bucket changes the bucket of exactly the
    /// hashes in the split bucket whose split bit is set, which move to
    /// the split's new key; every other hash stays where it was. So a
    /// split that moves those entries leaves every entry findable.
    @Test func oneSplitMovesOnlyTheSplitBucketsHashesWithItsBit() {
        var r = ModelBased.Rng(state: 7)
        for _ in 0..<20_000 {
            let count = UUIDBuckets.minimum + UInt64(r.int(1 << 20))
            let b = UUIDBuckets(count: count), next = UUIDBuckets(count: count + 1)
            // Half the hashes drawn inside the bucket that splits.
            let split = b.split
            let h = r.chance(0.5) ? split.key | UInt32(truncatingIfNeeded: r.next()) & (split.bit << 1 - 1)
                                  : UInt32(truncatingIfNeeded: r.next())
            let before = b.key(of: h), after = next.key(of: h)
            if before == split.key {
                #expect(after == (h & split.bit != 0 ? split.to : split.key))
            } else {
                #expect(after == before)
            }
            #expect(split.bit & UUIDHash.keptMask == split.bit)  // an entry keeps the bit it splits on
        }
    }

    /// With one entry per bucket before a split, buckets split on every
    /// save past the first 1,024 UUIDs; every UUID is still found (rule 13
    /// refuses each again, rule 15 deletes through the index) and UUID
    /// lookups find samples and tombstones alike.
    @Test func rules13_15_bucketsSplitAsTheIndexGrowsAndEveryUUIDIsFound() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        store.tuning.uuidIndex.bucketLoad = 1
        var saved: [Sample] = []
        for b in 0..<30 {
            let batch = try (0..<100).map { try stepSample(1, minute: b * 100 + $0) }
            try store.save(batch)
            saved += batch
        }
        let buckets = try store.env.read { txn in try txn.metaU64(store.trees, .uuidBuckets) }
        #expect(buckets == UInt64(saved.count))
        let deleted = stride(from: 0, to: saved.count, by: 7).map { saved[$0].uuid }
        try store.delete(uuids: deleted)
        store.tuning.planOverride = .uuidLookup
        let found = try store.anchoredQuery(type: steps, predicate: .uuids(Set(saved.map(\.uuid))), anchor: nil)
        #expect(Set(found.sampleUUIDs) == Set(saved.map(\.uuid)).subtracting(deleted))
        #expect(Set(found.deletedUUIDs) == Set(deleted))
        for i in stride(from: 0, to: saved.count, by: 97) {
            #expect(errorCode { try store.save([saved[i]]) } == .duplicateUUID)
        }
    }
}
