import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// A walk's read in parts on two threads (`PartsAhead`): a second thread
/// reads every other part, from where the leaf pages say the part before
/// it ends. The parts must be the ones a read on one thread hands out.
@Suite struct PartsAheadTests {
    private static let layout = sampleRecordLayout

    /// Step counts saved 50 at a time, 3 earlier ones deleted after each
    /// save; every 23rd carries metadata larger than a page (a record in
    /// LMDB's overflow pages, which the page count cannot read in place).
    /// Returns the store and its anchor after each save.
    private func stepsWithDeletions(_ n: Int, seed: UInt64) throws -> (Store, [QueryAnchor]) {
        let store = try makeStore(mapSize: 64 << 20)
        var rng = TestSupport.Rng(state: seed)
        var saved: [UUID] = []
        var anchors: [QueryAnchor] = []
        let large: [String: MetadataValue] = ["note": .string(String(repeating: "x", count: 6_000))]
        for first in stride(from: 0, to: n, by: 50) {
            let batch = try (first..<min(n, first + 50)).map { i in
                try stepSample(Double(i % 700), minute: i, metadata: i % 23 == 0 ? large : [:])
            }
            try store.save(batch)
            saved += batch.map(\.uuid)
            try store.delete(uuids: (0..<3).map { _ in saved.remove(at: rng.int(saved.count)) })
            anchors.append(try store.currentAnchor())
        }
        return (store, anchors)
    }

    /// What one part hands out: its samples, deleted objects and anchor.
    private struct Part: Equatable {
        let samples: [UUID]
        let deleted: [UUID]
        let anchor: QueryAnchor
    }

    /// The parts of a read of the step counts, or of `descriptors` (the
    /// path of a read with predicates).
    private func parts(_ store: Store, _ descriptors: [QueryDescriptor]? = nil, from anchor: QueryAnchor?,
                       part: Int) throws -> [Part] {
        var out: [Part] = []
        let take = { (r: RowsQueryResult) -> Bool in
            var samples: [UUID] = []
            if let b = r.rows {
                samples = (0..<r.count).map { UUID(uuid: b.load(fromByteOffset: 64 * $0, as: uuid_t.self)) }
                r.spare?.give(b)
            } else {
                samples = r.result.samples.map(\.uuid)
            }
            out.append(Part(samples: samples, deleted: r.result.deletedObjects.map(\.uuid), anchor: r.result.newAnchor))
            return true
        }
        if let descriptors {
            try store.anchoredQueryParts(descriptors, anchor: anchor, part: part, rows: Self.layout, rowsFrom: 0, take)
        } else {
            try store.anchoredQueryParts(type: steps, anchor: anchor, part: part, rows: Self.layout, deleted: nil,
                                         rowsFrom: 0, take)
        }
        return out
    }

    /// Rule 75 on two threads: from every kind of anchor and in parts of
    /// every size, the parts read on two threads are the parts read on
    /// one, and the second thread was asked for some of them.
    @Test func rule75_partsReadOnTwoThreadsAreThePartsReadOnOne() throws {
        let (store, anchors) = try stepsWithDeletions(2_000, seed: 75)
        defer { store.close() }
        for anchor in [nil, anchors[2], anchors[anchors.count / 2], anchors[anchors.count - 3]] {
            for part in [1, 7, 64, 333, 1_000] {
                let what = "from \(String(describing: anchor?.position)) in parts of \(part)"
                store.tuning.partsAhead = false
                let one = try parts(store, from: anchor, part: part)
                store.tuning.partsAhead = true
                let before = store.partsAskedAhead.load(ordering: .relaxed)
                let two = try parts(store, from: anchor, part: part)
                let ahead = store.partsAskedAhead.load(ordering: .relaxed) - before
                #expect(two == one, "\(what)")
                let objects = one.reduce(0) { $0 + $1.samples.count + $1.deleted.count }
                if objects >= 3 * part {  // a second thread after the first part
                    #expect(ahead >= 1 && ahead < one.count, "\(what): \(ahead) of \(one.count) parts asked of the second thread")
                }
            }
        }
    }

    /// Rule 75 on two threads for a query by start date alone: its plan's
    /// positions (the start index's edge buckets trimmed) are each an
    /// object, so its parts are read on two threads from the first; they
    /// are the parts read on one. A predicate with more than the start
    /// reads on one thread, and gives the same parts.
    @Test func rule75_aStartDateQuerysPartsOnTwoThreadsAreThePartsOnOne() throws {
        let (store, anchors) = try stepsWithDeletions(2_000, seed: 76)
        defer { store.close() }
        // Minutes 137.5 to 1,703.25: neither end on a bucket's edge.
        let byStart = SamplePredicate.dateRange(start: t0.addingTimeInterval(8_250), end: t0.addingTimeInterval(102_195),
                                                options: .strictStartDate)
        let andValue = try SamplePredicate.and([byStart, .quantity(.greaterThan, 100, try HealthUnit("count"))])
        store.tuning.planOverride = .startIndex
        for (name, predicate, ahead) in [("by start", byStart, true), ("by start and value", andValue, false)] {
            for anchor in [nil, anchors[anchors.count / 3]] {
                for part in [7, 64, 333] {
                    let what = "\(name) from \(String(describing: anchor?.position)) in parts of \(part)"
                    let d = [QueryDescriptor(type: steps, predicate: predicate)]
                    let whole = try store.anchoredQuery(d, anchor: anchor)
                    store.tuning.partsAhead = false
                    let one = try parts(store, d, from: anchor, part: part)
                    store.tuning.partsAhead = true
                    let before = store.partsAskedAhead.load(ordering: .relaxed)
                    let two = try parts(store, d, from: anchor, part: part)
                    let read = store.partsAskedAhead.load(ordering: .relaxed) - before
                    #expect(two == one, "\(what)")
                    #expect(one.flatMap(\.samples) == whole.samples.map(\.uuid), "\(what): samples")
                    #expect(one.flatMap(\.deleted) == whole.deletedObjects.map(\.uuid), "\(what): deleted")
                    let objects = whole.samples.count + whole.deletedObjects.count
                    if ahead && objects >= part + part / 4 {
                        #expect(read >= 1, "\(what): no part asked of the second thread")
                    } else if !ahead {
                        #expect(read == 0, "\(what): \(read) parts asked of the second thread")
                    }
                }
            }
        }
    }

    /// Where a part ends, counted in the leaf pages: the position of the
    /// `count`-th record at or after a position, as a cursor stepping
    /// through every record finds it, overflow records among them.
    @Test func aPartsEndIsCountedInTheLeafPages() throws {
        let (store, _) = try stepsWithDeletions(900, seed: 9)
        defer { store.close() }
        try store.readRetryingTrees { txn in
            let (_, t) = try #require(try store.storedTrees(steps, txn))
            let all = try txn.cursor(t.records)
            defer { all.close() }
            var keys: [UInt64] = []
            var entry = try all.first()
            while let (seq, _) = entry {
                keys.append(seq)
                entry = try all.next()
            }
            #expect(keys.count == 900)  // 54 samples deleted, 54 tombstones
            let cursor = try txn.cursor(t.records)
            defer { cursor.close() }
            let map = LeafPage.Map(txn)
            for first in [0, 1, 37, keys.count / 2, keys.count - 2] {
                let from = first == 0 ? 1 : keys[first - 1] + 1  // a position between records too
                for count in 1...(keys.count - first + 1) {
                    let end = try Store.recordPosition(count, from: from, cursor, map)
                    let expected = first + count - 1 < keys.count ? keys[first + count - 1] : nil
                    if end != expected {
                        Issue.record("from \(from), \(count) records: \(String(describing: end)), not \(String(describing: expected))")
                        return
                    }
                }
            }
        }
    }

    /// Rule 23 in a part the second thread reads: the read in parts ends
    /// with the damaged record's error.
    @Test func rule23_aDamagedRecordIsAnErrorInAPartTheSecondThreadReads() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save(try (0..<450).map { try stepSample(Double($0), minute: $0) })
        let seq = try store.currentAnchor().position
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in
            var bytes = Array(try #require(try txn.get(t.records, u64: seq)))
            bytes[27] |= 0x20  // a UTC offset it lacks
            try txn.put(t.records, u64: seq, bytes)
        }
        store.tuning.partsAhead = true
        var delivered = 0
        // Parts of 150: the first two are this thread's (the first read
        // alone, the second as the first of two threads), the third (with
        // the damaged record, the last) the second thread's.
        #expect(errorCode {
            try store.anchoredQueryParts(type: steps, anchor: nil, part: 150, rows: Self.layout, rowsFrom: 0) { r in
                delivered += 1
                if let b = r.rows { r.spare?.give(b) }
                return true
            }
        } == .storeCorrupt)
        #expect(delivered == 2)
    }

    /// A part the second thread has not begun may be taken back
    /// (`withdrawOldest`: the caller reads it rather than wait for a thread
    /// that waits for a processor). Asked, taken and taken back at random
    /// against the running thread: the thread reads, in order, exactly the
    /// parts not taken back, and each is taken once, in that order.
    @Test func aPartTheThreadHasNotBegunIsTakenBackAndNeverRead() throws {
        let store = try makeStore()
        defer { store.close() }
        let token = try store.anchoredQuery(type: steps, anchor: nil)
        let read = Locked<[UInt64]>([])
        let helper = PartsAhead()
        defer { helper.stop() }
        helper.begin { a in
            read.withLock { $0.append(a.position) }
            return RowsQueryResult(records: token)
        }
        var rng = TestSupport.Rng(state: 77)
        var asked: UInt64 = 0
        var waiting: [UInt64] = [], taken: [UInt64] = [], back: [UInt64] = []
        for _ in 0..<20_000 {
            if waiting.count < 3 && rng.int(2) == 0 {
                asked += 1
                helper.start(QueryAnchor(storeID: store.storeID, position: asked, horizon: 0))
                waiting.append(asked)
            } else if !waiting.isEmpty {
                if rng.int(2) == 0, helper.withdrawOldest() {
                    back.append(waiting.removeFirst())
                } else {
                    _ = try helper.take()
                    taken.append(waiting.removeFirst())
                }
            }
        }
        for p in waiting {
            _ = try helper.take()
            taken.append(p)
        }
        helper.end()
        #expect(read.withLock { $0 } == taken)
        #expect(Set(taken).isDisjoint(with: back) && taken.count + back.count == Int(asked))
    }

    /// The second thread is the store's: kept from one read in parts to
    /// the next, and stopped when the store closes.
    @Test func theSecondThreadIsKeptUntilTheStoreCloses() throws {
        let (store, _) = try stepsWithDeletions(600, seed: 3)
        store.tuning.partsAhead = true
        _ = try parts(store, from: nil, part: 50)
        let kept = try #require(store.partsHelper.withLock { $0 })
        _ = try parts(store, from: nil, part: 50)
        #expect(store.partsHelper.withLock { $0 } === kept)
        store.close()
        #expect(store.partsHelper.withLock { $0 } == nil)
    }

    /// A large read in parts on two threads is followed by a trim of the
    /// memory freed (`FreedMemory`), which the parts thread makes after
    /// the read returns; a small one asks for none.
    @Test func aLargeReadGivesMemoryBackOnThePartsThread() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        store.tuning.partsAhead = true
        try store.save((0..<FreedMemory.largeObjectCount + 100).map { try stepSample(1, minute: $0) })
        _ = try parts(store, from: nil, part: 2_000)
        let helper = try #require(store.partsHelper.withLock { $0 })
        #expect(helper.askedToGiveBack.load(ordering: .relaxed) == 1)
        let deadline = ContinuousClock.now + .seconds(60)
        while helper.givenBack.load(ordering: .acquiring) == 0, ContinuousClock.now < deadline { sched_yield() }
        #expect(helper.givenBack.load(ordering: .acquiring) == 1)
        let anchor = try store.currentAnchor()
        try store.save((0..<4_100).map { try stepSample(1, minute: 20_000 + $0) })
        _ = try parts(store, from: anchor, part: 2_000)
        #expect(store.partsHelper.withLock { $0 } === helper)
        #expect(helper.askedToGiveBack.load(ordering: .relaxed) == 1, "a read of 4,100 objects asks for no trim")
    }

    /// The spare blocks: up to `SpareBlock.slots` kept, the newest that
    /// fits taken first; one more given frees the oldest.
    @Test func aSpareBlockKeepsAFewBlocks() {
        let spare = SpareBlock()
        let n = SpareBlock.slots
        let blocks = (0...n).map { _ in malloc(8_192)! }
        for b in blocks { spare.give(b) }
        let taken = (0...n).map { _ in spare.take(4_096) }
        #expect(Array(taken[0..<n]) == Array(blocks[1...].reversed()))
        #expect(!blocks[1...].contains(taken[n]))
        for b in taken { free(b) }
    }
}

