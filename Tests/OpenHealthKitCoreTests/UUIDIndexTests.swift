import FoundationEssentials
import CLMDB
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
        let saved = try saveInSmallBatches(store)
        let buckets = try store.env.read { txn in try txn.metaU64(store.trees, .uuidBuckets) }
        #expect(buckets == UInt64(saved.count))
        let deleted = stride(from: 0, to: saved.count, by: 7).map { saved[$0].uuid }
        try store.delete(uuids: deleted)
        try expectEveryUUIDFound(store, saved, deleted: deleted, refusedFrom: 0)
    }
}

/// Format 21: the hashed part's buckets, one value each (`UUIDHashBucket`).
@Suite("UUID hash buckets") struct UUIDHashBucketTests {
    /// A bucket reads back as the entries written, in hash order; any
    /// byte changed, or the value cut short, is `.storeCorrupt`, never
    /// other entries.
    @Test func aBucketReadsBackItsEntriesAndADamagedOneIsCorrupt() throws {
        var r = ModelBased.Rng(state: 21)
        for round in 0..<200 {
            let key = UInt32(truncatingIfNeeded: r.next()) & 0xFFFC_0000
            var entries: [UUIDHashBucket.Entry] = []
            for _ in 0..<r.int(90) {
                let h = key | UInt32(truncatingIfNeeded: r.next()) & 0x3FFFF
                let value = Schema.pack(type: UInt16(r.int(1024)), seq: r.next() >> UInt64(16 + r.int(40)))
                UUIDHashBucket.insert(.init(hash: h, value: value), into: &entries)
            }
            #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.hash <= $1.hash })
            let stored = UUIDHashBucket.encode(key, entries)
            #expect(try stored.withUnsafeBytes { try UUIDHashBucket.decode(key, $0) } == entries)
            guard round % 10 == 0 else { continue }
            for i in stored.indices {
                var bad = stored
                bad[i] ^= UInt8(1 << (i % 8))
                #expect(errorCode { _ = try bad.withUnsafeBytes { try UUIDHashBucket.decode(key, $0) } } == .storeCorrupt)
            }
            let cut = Array(stored.dropLast())
            #expect(errorCode { _ = try cut.withUnsafeBytes { try UUIDHashBucket.decode(key, $0) } } == .storeCorrupt)
            // The same bytes under another key do not check either.
            #expect(errorCode { _ = try stored.withUnsafeBytes { try UUIDHashBucket.decode(key ^ 0x4_0000, $0) } } == .storeCorrupt)
        }
    }

    /// An insert spliced into the stored bytes (`inserting`, a save's
    /// path) gives the bytes `encode` gives for the entries with it
    /// inserted, and shows the values of the entries of its hash; a
    /// damaged bucket is `.storeCorrupt`.
    @Test func anInsertSplicedIntoABucketIsTheBucketEncodedWithIt() throws {
        var r = ModelBased.Rng(state: 22)
        for _ in 0..<2_000 {
            let key = UInt32(truncatingIfNeeded: r.next()) & 0xFFFF_0000
            var entries: [UUIDHashBucket.Entry] = []
            // Few hash bits, so that hashes repeat.
            let bits = UInt32(r.int(16) + 1)
            for _ in 0..<r.int(70) {
                let h = key | UInt32(truncatingIfNeeded: r.next()) & (1 << bits - 1)
                UUIDHashBucket.insert(.init(hash: h, value: Schema.pack(type: UInt16(r.int(300)), seq: r.next() >> 20)), into: &entries)
            }
            let e = UUIDHashBucket.Entry(hash: key | UInt32(truncatingIfNeeded: r.next()) & (1 << bits - 1),
                                         value: Schema.pack(type: UInt16(r.int(300)), seq: r.next() >> 20))
            var seen: [UInt64] = []
            let stored = UUIDHashBucket.encode(key, entries)
            let spliced = try stored.withUnsafeBytes { try UUIDHashBucket.inserting(e, key: key, into: entries.isEmpty ? nil : $0) { seen.append($0) } }
            var expected = entries
            UUIDHashBucket.insert(e, into: &expected)
            #expect(spliced == UUIDHashBucket.encode(key, expected))
            #expect(seen == entries.filter { $0.hash == e.hash }.map(\.value))
            var bad = stored
            if !entries.isEmpty {
                bad[r.int(bad.count)] ^= 0x20
                #expect(errorCode { _ = try bad.withUnsafeBytes { try UUIDHashBucket.inserting(e, key: key, into: $0) { _ in } } } == .storeCorrupt)
            }
        }
    }

    /// A format-20 store keeps its hashed entries as fixed-size duplicates
    /// in `uuid_hashes` (22 bits of the hash above the type id and
    /// position). Opened, they move into `uuid_hash_buckets` and the old
    /// tree goes; every UUID is found again (rule 13 refuses it, rule 15
    /// deletes it), samples and tombstones alike, and `verify` is clean.
    @Test func aFormat20StoresHashedEntriesArePackedWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(mapSize: 64 << 20, directory: dir)
        let saved = try saveInSmallBatches(store)
        let deleted = stride(from: 0, to: saved.count, by: 7).map { saved[$0].uuid }
        try store.delete(uuids: deleted)
        let count = try store.env.read { txn in try UUIDIndex.hashedCount(txn, store.trees) }
        #expect(count == UInt64(saved.count))
        try store.env.write { txn in
            let old = try #require(try txn.openTree("uuid_hashes", create: true, fixedDuplicates: true))
            try txn.forEach(store.trees.uuidHashes) { k, v in
                let key = UInt32(bigEndian: k.loadUnaligned(as: UInt32.self))
                for e in try UUIDHashBucket.decode(key, v) {
                    // Format 20's entry: an 80-bit big-endian number.
                    let kept = e.hash & UUIDHash.keptMask
                    var bytes = withUnsafeBytes(of: UInt16(truncatingIfNeeded: kept >> 6).bigEndian) { Array($0) }
                    bytes += withUnsafeBytes(of: (UInt64(kept & 63) << 58 | e.value).bigEndian) { Array($0) }
                    _ = try txn.put(old, Array(k), bytes)
                }
            }
            try lmdbCheck(mdb_drop(txn.txn, store.trees.uuidHashes, 0), "drop")
            try txn.setMetaU64(store.trees, .uuidHashed, 0)
            try txn.setMetaU64(store.trees, .format, 20)
        }
        store.close()
        store = try makeStore(mapSize: 64 << 20, directory: dir)
        defer { store.close() }
        let (format, oldTree, after) = try store.env.read { txn in
            (try txn.metaU64(store.trees, .format), try txn.openTree("uuid_hashes", create: false, fixedDuplicates: true),
             try UUIDIndex.hashedCount(txn, store.trees))
        }
        #expect(format == UInt64(Schema.format) && oldTree == nil && after == count)
        #expect(try store.verify().problems == [])
        try expectEveryUUIDFound(store, saved, deleted: deleted, refusedFrom: 1)
        try store.delete(uuids: [saved[1].uuid])
        #expect(try store.anchoredQuery(type: steps, predicate: .uuids([saved[1].uuid]), anchor: nil).deletedUUIDs == [saved[1].uuid])
    }

    /// Rule 18: a bucket whose bytes changed on disk is reported by
    /// `verify`, which reads no further through the index; a lookup
    /// through it is an error, never a wrong answer.
    @Test func rule18_aDamagedBucketIsReportedAndLookupsThroughItFail() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        let saved = try (0..<500).map { try stepSample(1, minute: $0) }
        try store.save(saved)
        try store.env.write { txn in
            let c = try txn.cursor(store.trees.uuidHashes)
            defer { c.close() }
            let (k, v) = try #require(try c.firstEntry())
            var bad = Array(v)
            bad[0] ^= 0x10
            _ = try txn.put(store.trees.uuidHashes, Array(k), bad)
        }
        let problems = try store.verify().problems
        #expect(problems.count == 1 && problems[0].contains("is damaged"), "\(problems)")
        // Some sample's UUID lies in that bucket: deleting every one fails.
        #expect(errorCode { try store.delete(uuids: saved.map(\.uuid)) } == .storeCorrupt)
    }
}

/// 3,000 step counts saved 100 at a time: each save goes to the hashed part.
private func saveInSmallBatches(_ store: Store) throws -> [Sample] {
    var saved: [Sample] = []
    for b in 0..<30 {
        let batch = try (0..<100).map { try stepSample(1, minute: b * 100 + $0) }
        try store.save(batch)
        saved += batch
    }
    return saved
}

/// A lookup by UUID through the index finds every sample of `saved` not
/// `deleted`, and each deleted one's tombstone; every 97th sample from
/// `refusedFrom` on, saved again, is refused (rule 13).
private func expectEveryUUIDFound(_ store: Store, _ saved: [Sample], deleted: [UUID], refusedFrom: Int) throws {
    store.tuning.planOverride = .uuidLookup
    let found = try store.anchoredQuery(type: steps, predicate: .uuids(Set(saved.map(\.uuid))), anchor: nil)
    #expect(Set(found.sampleUUIDs) == Set(saved.map(\.uuid)).subtracting(deleted))
    #expect(Set(found.deletedUUIDs) == Set(deleted))
    for i in stride(from: refusedFrom, to: saved.count, by: 97) {
        #expect(errorCode { try store.save([saved[i]]) } == .duplicateUUID)
    }
}
