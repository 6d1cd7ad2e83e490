import CLMDB
import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Format 20's start index (`StartIndex`): a bucket's positions in chunks
/// of delta-encoded varints.
@Suite struct StartIndexTests {
    /// Runs `body` on a start index tree of its own in a fresh store.
    private func withIndex(_ body: (Txn, MDB_dbi) throws -> Void) throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        try store.env.write { txn in
            let tree = try #require(try txn.openTree("b_test", create: true))
            try body(txn, tree)
        }
    }

    /// Every bucket's positions as the reader gives them, and the chunks'
    /// (bucket, first, last, value bytes), in key order.
    private func contents(_ txn: Txn, _ tree: MDB_dbi) throws
        -> (buckets: [UInt64: [UInt64]], chunks: [(bucket: UInt64, first: UInt64, last: UInt64, bytes: Int)]) {
        let c = try txn.cursor(tree)
        defer { c.close() }
        var chunks: [(bucket: UInt64, first: UInt64, last: UInt64, bytes: Int)] = []
        try c.forEachRaw { k, v in
            let (b, first) = try StartIndex.decodeKey(k)
            var last = first
            try StartIndex.forEachPosition(v, first: first) { last = $0 }
            chunks.append((b, first, last, v.count))
        }
        let reader = StartIndex.Reader(cursor: c)
        var buckets: [UInt64: [UInt64]] = [:]
        var b = try reader.firstBucket()
        while let bucket = b {
            buckets[bucket] = try reader.positions(inBucket: bucket)
            b = try reader.bucket(after: bucket)
        }
        return (buckets, chunks)
    }

    /// Positions added and removed in any order, repeated ones among them,
    /// in a few buckets (one of them large enough for many chunks): each
    /// bucket reads back as exactly the set it was given, ascending; the
    /// chunks of a bucket do not overlap, and none grows past twice a
    /// chunk's bytes.
    @Test func aBucketReadsBackAsTheSetOfItsPositions() throws {
        try withIndex { txn, tree in
            let c = try txn.cursor(tree)
            defer { c.close() }
            var writer = StartIndex.Writer(cursor: c)
            var model: [UInt64: Set<UInt64>] = [:]
            var rng = SplitMix(seed: 2026)
            // Starts in three buckets: 0 s, 5,000 s and 9,000 s.
            let starts = [100.0, 5_000.0, 9_000.0]
            for round in 0..<6_000 {
                let start = starts[Int(rng.next() % (round < 3_000 ? 3 : 1))]
                let bucket = StartIndex.bucket(of: start)
                // Mostly growing (saves), sometimes anywhere (apply, sync).
                let seq = rng.next() % 4 == 0 ? 1 + rng.next() % 4_000 : UInt64(round + 1) * 3
                if rng.next() % 5 == 0 {
                    try writer.remove(start: start, seq: seq)
                    model[bucket]?.remove(seq)
                } else {
                    try writer.insert(start: start, seq: seq)
                    model[bucket, default: []].insert(seq)
                }
            }
            try writer.flush()
            let (buckets, chunks) = try contents(txn, tree)
            #expect(buckets == model.filter { !$0.value.isEmpty }.mapValues { $0.sorted() })
            let large = chunks.filter { $0.bucket == StartIndex.bucket(of: starts[0]) }.count
            #expect(large >= 8, "the large bucket is in \(large) chunks")
            for (a, b) in zip(chunks, chunks.dropFirst()) where a.bucket == b.bucket {
                #expect(a.last < b.first, "chunks \(a.first)...\(a.last) and \(b.first)...\(b.last) overlap")
            }
            #expect(chunks.allSatisfy { $0.bytes <= 2 * StartIndex.chunkBytes + 10 })
        }
    }

    /// Removing a chunk's first position moves the rest under the next
    /// one; removing every position leaves no entry; removing a position
    /// that is not there changes nothing.
    @Test func removingEveryPositionLeavesNoEntry() throws {
        try withIndex { txn, tree in
            let c = try txn.cursor(tree)
            defer { c.close() }
            var writer = StartIndex.Writer(cursor: c)
            for seq in UInt64(1)...300 { try writer.insert(start: 60, seq: seq * 2) }
            try writer.remove(start: 60, seq: 3)  // not there
            try writer.remove(start: 1e9, seq: 2)  // another bucket
            #expect(try contents(txn, tree).buckets.values.first?.count == 300)
            for seq in UInt64(1)...300 { try writer.remove(start: 60, seq: seq * 2) }
            #expect(txn.entries(tree) == 0)
        }
    }

    /// A save appends to the chunk it wrote last without looking it up;
    /// when another cursor changed that chunk after a flush (a prune's,
    /// which `WriteContext.flushStarts` precedes), the writer looks it up
    /// again.
    @Test func anAppendSeesAChunkAnotherCursorChanged() throws {
        try withIndex { txn, tree in
            let c = try txn.cursor(tree)
            defer { c.close() }
            var writer = StartIndex.Writer(cursor: c)
            for seq in UInt64(1)...5 { try writer.insert(start: 60, seq: seq) }
            try writer.flush()
            let other = try txn.cursor(tree)
            defer { other.close() }
            var second = StartIndex.Writer(cursor: other)
            try second.remove(start: 60, seq: 5)
            try writer.insert(start: 60, seq: 6)
            try writer.flush()
            try second.insert(start: 60, seq: 9)
            try second.flush()
            try writer.insert(start: 60, seq: 7)  // before 9: not appended after it
            try writer.insert(start: 60, seq: 10)
            try writer.flush()
            #expect(try contents(txn, tree).buckets.values.first == [1, 2, 3, 4, 6, 7, 9, 10])
        }
    }

    /// Appends to a bucket's last chunk stay in the writer until the chunk
    /// is full, a position goes to another bucket, or `flush`; then the
    /// tree has every one, in chunks that do not overlap.
    @Test func appendsKeptInMemoryReachTheTreeWhenTheChunkIsLeft() throws {
        try withIndex { txn, tree in
            let c = try txn.cursor(tree)
            defer { c.close() }
            var writer = StartIndex.Writer(cursor: c)
            for seq in UInt64(1)...1_000 { try writer.insert(start: 60, seq: seq) }
            let kept = try contents(txn, tree).buckets.values.first?.count ?? 0
            #expect(kept > 0 && kept < 1_000, "the tree has \(kept) of 1,000 before the flush")
            // Another bucket's position writes the first bucket's tail.
            try writer.insert(start: 1e6, seq: 1_001)
            #expect(try contents(txn, tree).buckets[StartIndex.bucket(of: 60)] == Array(1...1_000))
            for seq in UInt64(1_002)...1_010 { try writer.insert(start: 1e6, seq: seq) }
            try writer.flush()
            let (buckets, chunks) = try contents(txn, tree)
            #expect(buckets[StartIndex.bucket(of: 1e6)] == Array(1_001...1_010))
            #expect(chunks.count >= 5, "1,000 positions in \(chunks.count) chunks")
            for (a, b) in zip(chunks, chunks.dropFirst()) where a.bucket == b.bucket {
                #expect(a.last < b.first, "chunks \(a.first)...\(a.last) and \(b.first)...\(b.last) overlap")
            }
        }
    }

    /// A chunk whose varints do not end at its last position, or end in
    /// the middle of one, or step by zero, is a corrupt store, not a
    /// wrong answer.
    @Test func aChunkThatDoesNotAddUpIsCorrupt() throws {
        func positions(_ bytes: [UInt8], first: UInt64) throws -> [UInt64] {
            var out: [UInt64] = []
            try bytes.withUnsafeBytes { v in try StartIndex.forEachPosition(v, first: first) { out.append($0) } }
            return out
        }
        func value(last: UInt64, _ deltas: [UInt8]) -> [UInt8] { withUnsafeBytes(of: last.littleEndian) { Array($0) } + deltas }
        #expect(try positions(value(last: 13, [1, 2]), first: 10) == [10, 11, 13])
        #expect(try positions(value(last: 10 + 300, [0xAC, 0x02]), first: 10) == [10, 310])
        for bad in [value(last: 14, [1, 2]), value(last: 12, [0x82]), value(last: 11, [0, 1]), [1, 2, 3]] {
            #expect(errorCode { _ = try positions(bad, first: 10) } == .storeCorrupt, "\(bad)")
        }
    }

    /// Format 20: a format-19 store's start index (fixed-size duplicates in
    /// `s<id>`) is built again in chunks when the store is opened, the old
    /// tree dropped; queries through it find what the walk finds, and
    /// `verify` finds nothing wrong.
    @Test func aFormat19StoresStartIndexIsBuiltAgainWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(mapSize: 64 << 20, directory: dir)
        let saved = try (0..<3_000).map { try stepSample(Double($0 % 50), minute: $0 * 3) }
        try store.save(saved)
        try store.delete(uuids: saved.enumerated().filter { $0.offset % 9 == 0 }.map(\.element.uuid))
        let stepsID = try #require(store.knownTypeID(steps))
        try store.env.write { txn in
            let t = try #require(store.cache.withLock { $0.typeTrees[stepsID] })
            let legacy = try #require(try txn.openTree(Schema.legacyStartIndexName(stepsID), create: true, fixedDuplicates: true))
            try txn.forEach(t.records) { k, v in
                try withUnsafeBytes(of: Schema.startBucketKey(RecordView(bytes: v).start)) { key in
                    _ = try txn.put(legacy, key, k)
                }
            }
            try lmdbCheck(mdb_drop(txn.txn, t.starts, 1), "drop")
            try txn.setMetaU64(store.trees, .format, 19)
        }
        store.close()
        store = try makeStore(mapSize: 64 << 20, directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try store.env.read { txn in
            try txn.openTree(Schema.legacyStartIndexName(stepsID), create: false, fixedDuplicates: true)
        } == nil)
        for minutes in [0..<30, 1_000..<4_000, 8_990..<9_000] {
            let range = SamplePredicate.and([.startDate(.greaterThanOrEqual, t0.addingTimeInterval(Double(minutes.lowerBound) * 60)),
                                             .startDate(.lessThan, t0.addingTimeInterval(Double(minutes.upperBound) * 60))])
            store.tuning.planOverride = .startIndex
            let indexed = try store.anchoredQuery(type: steps, predicate: range, anchor: nil)
            store.tuning.planOverride = .changeOrder
            let walked = try store.anchoredQuery(type: steps, predicate: range, anchor: nil)
            #expect(indexed.sampleUUIDs == walked.sampleUUIDs && indexed.deletedUUIDs == walked.deletedUUIDs, "\(minutes)")
            #expect(!indexed.samples.isEmpty && !indexed.deletedObjects.isEmpty, "\(minutes)")
        }
        store.tuning.planOverride = nil
        #expect(try store.verify().problems == [])
    }
}
