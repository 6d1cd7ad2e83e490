import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// `Store.verify()` (docs/reliability.md): a store written only through
/// the library verifies clean, and each broken invariant, made by hand in
/// a write transaction, is named.
@Suite struct VerifyTests {
    /// A store with samples of two types, deletions, a sync replacement, a
    /// prune and a subscription.
    private func busyStore() throws -> (Store, [Sample]) {
        let store = try makeStore()
        let samples = try (0..<40).map { try stepSample(Double($0), minute: $0) }
        try store.save(samples)
        try store.save([try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appB)])
        try store.save([try stepSample(1, minute: 100, metadata: synced("s", 1))])
        try store.save([try stepSample(2, minute: 101, metadata: synced("s", 2))])
        try store.delete(uuids: samples[0..<10].map(\.uuid))
        try store.pruneAll()
        try store.delete(uuids: samples[10..<15].map(\.uuid))
        let sub = DurableSubscription(name: "sync", descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try store.execute(sub)
        sub.stop()
        return (store, samples)
    }

    @Test func aStoreWrittenByTheLibraryVerifiesClean() throws {
        let (store, _) = try busyStore()
        defer { store.close() }
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems)")
        let stats = try store.counts()
        #expect(report.samples == stats.samples && report.deletedObjects == stats.deletedObjects)
        // 43 saved (one a sync replacement), 10 deleted and pruned with the
        // replaced one, then 5 deleted: 27 live and 5 deleted objects.
        #expect(report.samples == 27 && report.deletedObjects == 5)
    }

    /// Breaks the store in `body` (one write transaction, in which it
    /// calls no public API: that would wait for this transaction), then
    /// verifies. `body` gets the position of samples[20] (with a limit, a
    /// query's new anchor is the position of what it returned, rule 5).
    private func problems(_ body: (Store, [Sample], Txn, TypeTrees, UInt64) throws -> Void) throws -> [String] {
        let (store, samples) = try busyStore()
        defer { store.close() }
        let seq = try store.anchoredQuery(type: steps, predicate: .uuids([samples[20].uuid]), anchor: nil, limit: 1).newAnchor.position
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in try body(store, samples, txn, t, seq) }
        return try store.verify().problems
    }

    @Test func aRecordThatDoesNotDecodeIsNamed() throws {
        let found = try problems { _, _, txn, t, seq in
            try txn.put(t.records, u64: seq, [1, 2, 3])
        }
        #expect(found.contains { $0.contains("does not decode") })
    }

    @Test func startIndexEntriesMissingOrExtraAreNamed() throws {
        let missing = try problems { _, _, txn, t, _ in
            let c = try txn.cursor(t.starts)
            defer { c.close() }
            _ = try c.firstEntry()
            try c.deleteCurrent()
        }
        #expect(missing.contains { $0.contains("missing from the start index") })
        let extra = try problems { _, _, txn, t, _ in
            let c = try txn.cursor(t.starts)
            defer { c.close() }
            var writer = StartIndex.Writer(cursor: c)
            try writer.insert(start: 0, seq: 999_999)
        }
        #expect(extra.contains { $0.contains("entry for no record") })
    }

    @Test func aDeletionListAndHorizonOutOfStepAreNamed() throws {
        let unlisted = try problems { store, _, txn, _, _ in
            let c = try txn.cursor(store.trees.tombs)
            defer { c.close() }
            _ = try c.first()
            try c.deleteCurrent()
        }
        #expect(unlisted.contains { $0.contains("missing from the deletion list") })
        let horizon = try problems { store, _, txn, _, _ in
            let (head, _) = try txn.position(store.trees)
            try txn.setPosition(store.trees, head: head, horizon: head + 5)
        }
        #expect(horizon.contains { $0.contains("horizon") })
    }

    @Test func aSampleTheUUIDIndexDoesNotReachIsNamed() throws {
        let found = try problems { store, samples, txn, _, _ in
            var index = UUIDIndex(txn, store.trees, hash: store.tuning.uuidHash) { id in store.cache.withLock { $0.typeTrees[id]?.records } }
            let value = try #require(try index.get(PendingUUID(samples[30].uuid)))
            try index.remove(PendingUUID(samples[30].uuid), value: value)
        }
        #expect(found.contains { $0.contains("UUID index does not lead to it") })
    }
}

/// `PageWalk`: LMDB's pages checked without LMDB.
@Suite struct PageWalkTests {
    /// A store with every kind of page: branch pages (many samples),
    /// overflow pages (large metadata), duplicates in sub-pages and
    /// sub-trees, and a free list (deletions, a prune, rewrites).
    @Test func everyKindOfPageOfALibraryWrittenStoreWalksClean() throws {
        let store = try makeStore()
        defer { store.close() }
        var saved: [Sample] = []
        for batch in 0..<6 {
            let samples = try (0..<4000).map { i in
                try stepSample(Double(i), minute: batch * 4000 + i,
                               metadata: i % 500 == 0 ? ["note": .string(String(repeating: "x", count: 9000))] : [:])
            }
            try store.save(samples)
            saved += samples
        }
        // Samples that start together share a start-index bucket: several chunks.
        try store.save(try (0..<3000).map { try stepSample(Double($0), minute: 7) })
        // Duplicates in a sub-page and in a sub-tree: the store's own
        // (format 20's `uuid_hashes`) grew sub-trees only in large stores.
        try store.env.write { txn in
            let dups = try #require(try txn.openTree("test_duplicates", create: true, fixedDuplicates: true))
            for (key, count) in [(UInt64(1), 20), (2, 3000)] {
                for v in 0..<UInt64(count) {
                    try withUnsafeBytes(of: key.bigEndian) { k in try withUnsafeBytes(of: v.bigEndian) { _ = try txn.put(dups, k, $0) } }
                }
            }
        }
        try store.delete(uuids: saved.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.uuid))
        try store.pruneAll()
        let (problems, seen) = PageWalk.walk(file: store.env.path + "/data.mdb")
        #expect(problems == [])
        #expect(seen.branch > 0 && seen.leaf > seen.branch && seen.overflow > 0, "\(seen)")
        #expect(seen.subPages > 0 && seen.subTrees > 0 && seen.free > 0, "\(seen)")
        #expect(try store.verify().isClean)
    }
}

/// Rule 23: a damaged store is found and reported, never trusted.
@Suite struct DamagedStoreTests {
    @Test func rule23_damagedPagesAreFoundBeforeLMDBReadsThem() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        try store.save(try (0..<500).map { try stepSample(Double($0), minute: $0) })
        store.close()
        #expect(Store.verifyPages(directory: dir) == [])
        #expect(renumberPages(dir) > 0)
        let pages = Store.verifyPages(directory: dir)
        #expect(pages.contains { $0.contains("says it is page") }, "\(pages)")
        // Opened without the walk at open, `verify` walks them first.
        var options = StoreOptions()
        options.checkPagesWhenOpened = false
        let reopened = try Store(directory: dir, options: options)
        defer { reopened.close() }
        let report = try reopened.verify()
        #expect(!report.isClean && report.samples == 0, "the records are not read through damaged pages")
        #expect(report.problems.first?.contains("says it is page") == true)
    }

    /// A store whose pages are damaged is refused when a process first
    /// opens it, before LMDB reads a page: reads that never call `verify`
    /// cannot crash in LMDB.
    @Test func rule23_aStoreWithDamagedPagesIsRefusedWhenOpened() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        try store.save(try (0..<500).map { try stepSample(Double($0), minute: $0) })
        store.close()
        #expect(renumberPages(dir) > 0)
        do {
            _ = try makeStore(directory: dir)
            Issue.record("a store with damaged pages opened")
        } catch let e as OHKError {
            #expect(e.code == .storeCorrupt && e.message.contains("says it is page") && e.message.contains("ohk check"), "\(e)")
        }
    }

    @Test func rule23_aStoreWhoseMetaPagesAreDamagedDoesNotOpen() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        try store.save([try stepSample(1)])
        store.close()
        let fd = open(dir + "/data.mdb", O_RDWR)
        try #require(fd >= 0)
        var zero: UInt32 = 0
        for meta in [0, Int(sysconf(Int32(_SC_PAGESIZE)))] { _ = pwrite(fd, &zero, 4, off_t(meta + 16)) }  // the magic
        close(fd)
        #expect(Store.verifyPages(directory: dir).contains { $0.contains("not an LMDB meta page") })
        #expect(errorCode { _ = try makeStore(directory: dir) } == .storeCorrupt)
    }

    /// A byte of a record changed on disk, which no index records, is
    /// found by its check; the record's neighbours are not named.
    @Test func rule23_aRecordWhoseBytesChangedFailsItsCheck() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save(try (0..<3).map { try stepSample(Double($0), minute: $0, metadata: ["note": .string("kept")]) })
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in
            var bytes = Array(try #require(try txn.get(t.records, u64: 2)))
            bytes[35] ^= 0x01  // the value's last byte: still a finite number
            try txn.put(t.records, u64: 2, bytes)
        }
        let report = try store.verify()
        #expect(report.problems == ["\(steps.identifier) record 2 does not match its check: its bytes changed on disk"])
    }

    /// Format 6 (rule 21): a format-5 store opens, its records (which have
    /// no check) read and verify as before, and new records have a check.
    @Test func aFormat5StoresRecordsWithoutChecksReadAndVerify() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let old = try stepSample(5, metadata: ["note": .string("format 5")])
        try store.save([old])
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in
            // The record as format 5 wrote it: no flag, no check.
            var bytes = Array(try #require(try txn.get(t.records, u64: 1)))
            bytes.removeLast(RecordCheck.size)
            bytes[27] &= ~UInt8(RecordCodec.flagChecked >> 24)
            try txn.put(t.records, u64: 1, bytes)
            try txn.setMetaU64(store.trees, .format, 5)
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        try store.save([try stepSample(6)])
        let read = try store.anchoredQuery(type: steps, anchor: nil).samples
        #expect(read.map(\.uuid) == [old.uuid, read[1].uuid] && read[0] == old)
        let checked = try store.env.read { txn in
            try [1, 2].map { RecordView(bytes: try #require(try txn.get(t.records, u64: $0))).isChecked }
        }
        #expect(checked == [false, true])
        #expect(try store.verify().isClean)
    }

    @Test func rule23_aDamagedRecordIsAStoreCorruptError() throws {
        let store = try makeStore()
        defer { store.close() }
        let sample = try stepSample(1)
        try store.save([sample])
        let seq = try store.currentAnchor().position
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in try txn.put(t.records, u64: seq, [0xFF, 0xFF, 0xFF]) }
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: nil) } == .storeCorrupt)
    }
}
