import CLMDB
import Dispatch
import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

@Suite struct Storage {
    @Test func theMapGrowsWithoutTheCallerNoticing() throws {
        let store = try makeStore(mapSize: 64 << 10)  // 64 KiB: full after a few hundred samples
        let before = store.env.mapSize
        for round in 0..<20 {
            try store.save((0..<500).map { try stepSample(Double($0), minute: round * 500 + $0) })
        }
        #expect(store.env.mapSize > before)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 10_000)
    }

    /// A `saveNew` that outgrows the map runs again from its first sample:
    /// every sample saved once, none reported as already held.
    @Test func saveNewSurvivesTheMapGrowing() throws {
        let store = try makeStore(mapSize: 64 << 10)
        let before = store.env.mapSize
        for round in 0..<20 {
            let outcomes = try store.saveNew((0..<500).lazy.map { try! stepSample(Double($0), minute: round * 500 + $0) })
            #expect(outcomes.count == 500 && outcomes.allSatisfy { $0 != nil })
        }
        #expect(store.env.mapSize > before)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 10_000)
    }

    /// `releaseMappedPages` only unmaps: reads and writes afterwards see
    /// everything, across a map growth too.
    @Test func releasingMappedPagesLosesNothing() throws {
        let store = try makeStore(durable: true, mapSize: 64 << 10)
        defer { store.close() }
        try store.save((0..<3000).map { try stepSample(Double($0), minute: $0) })
        let before = try store.anchoredQuery(type: steps, anchor: nil)
        try store.releaseMappedPages()
        let after = try store.anchoredQuery(type: steps, anchor: nil)
        #expect(after.sampleUUIDs == before.sampleUUIDs)
        #expect(after.samples.map(\.value) == before.samples.map(\.value))
        try store.save((0..<3000).map { try stepSample(Double($0), minute: 5000 + $0) })
        try store.releaseMappedPages()
        #expect(try store.anchoredQuery(type: steps, anchor: before.newAnchor).samples.count == 3000)
        #expect(try store.counts().samples == 6000)
    }

    /// A long write reads much of the map (a large `saveNew` looks up
    /// every sample in the UUID index): `MappedPageBound` keeps the store
    /// pages resident within its allowance, where without it every page
    /// read stays mapped.
    @Test func mappedPageBoundKeepsTheStorePagesReadWithinItsAllowance() throws {
        let store = try makeStore(mapSize: 256 << 20)
        for b in 0..<8 { try store.save((0..<20_000).map { try stepSample(1, minute: b * 20_000 + $0) }) }
        let stepsID = try #require(store.knownTypeID(steps))
        let records = try #require(store.cache.withLock { $0.typeTrees[stepsID] }).records
        // The most of the store's file mapped above where a walk of every
        // record began. (The store's mapping alone, for the bound too: the
        // process's file-backed total also moves with the tests beside this
        // one.) The map does not move during a walk: its ranges are found once.
        func walk(allowance: Int?) throws -> Int {
            try store.releaseMappedPages()
            let file = try #require(StoreFile(store.directory))
            let mapped = { file.residentBytes() }
            let base = mapped()
            let bound = allowance.map { MappedPageBound(store.env, extra: $0, resident: mapped) }
            var most = 0, n = 0
            try store.env.read { txn in
                try txn.forEach(records) { _, _ in
                    n += 1
                    guard n % 100 == 0 else { return }
                    bound?.check()
                    most = max(most, mapped() - base)
                }
            }
            return most
        }
        let allowance = 2 << 20
        let unbounded = try walk(allowance: nil)
        let bounded = try walk(allowance: allowance)
        #expect(unbounded > 4 * allowance)
        // The allowance, plus what the faults between two looks (8, of up
        // to 16 pages each: the kernel's fault-around) and 100 records map.
        #expect(bounded <= allowance + (1 << 20))
    }

    /// Large saves put their UUIDs in runs of the UUID index (`UUIDIndex`),
    /// with the default sizes: duplicates are still refused whichever part
    /// holds the UUID (rule 13), deletes (rule 15) and UUID predicates find
    /// run entries, a pruned UUID (rule 16) may be saved again, and one run
    /// past `maxRuns` merges them all.
    @Test func rules13_15_16_uuidsInRunsAreRefusedDeletedAndPrunedLikeTheRest() throws {
        let store = try makeStore(mapSize: 256 << 20)
        let size = UUIDIndex.Tuning().runThreshold
        var batches: [[Sample]] = []
        for b in 0..<UUIDIndex.Tuning().maxRuns {
            batches.append(try (0..<size).map { try stepSample(Double($0 % 1000), minute: b * size + $0) })
            try store.save(batches[b])
        }
        let runs = { try store.env.read { txn in var i = UUIDIndex(txn, store.trees, hash: store.tuning.uuidHash) { _ in nil }; return try i.runIDs().count } }
        #expect(try runs() == UUIDIndex.Tuning().maxRuns)
        let head = try store.currentAnchor().position
        // A duplicate from a run, in a large save and in a small one.
        var big = try (0..<size).map { try stepSample(1, minute: 900_000 + $0) }
        big[size / 2] = batches[3][17]
        #expect(errorCode { try store.save(big) } == .duplicateUUID)
        #expect(errorCode { try store.save([batches[0][5]]) } == .duplicateUUID)
        #expect(try store.currentAnchor().position == head)
        // One more run merges them all into one.
        try store.save(try (0..<size).map { try stepSample(2, minute: 2_000_000 + $0) })
        #expect(try runs() == 1)
        #expect(errorCode { try store.save([batches[1][9]]) } == .duplicateUUID)
        // Delete through the index, find by UUID predicate, prune, save again.
        let victim = batches[2][42]
        try store.delete(uuids: [victim.uuid])
        let found = try store.anchoredQuery(type: steps, predicate: .uuids([victim.uuid, batches[4][7].uuid]), anchor: nil)
        #expect(found.sampleUUIDs == [batches[4][7].uuid] && found.deletedUUIDs == [victim.uuid])
        #expect(errorCode { try store.save([victim]) } == .duplicateUUID)
        #expect(try store.pruneAll() == 1)
        try store.save([victim])
        #expect(try store.anchoredQuery(type: steps, predicate: .uuids([victim.uuid]), anchor: nil).sampleUUIDs == [victim.uuid])
        store.close()
    }

    /// A run is searched only for the UUIDs inside its span, its least
    /// to its greatest UUID (`RunSpan`): UUIDs below, above, between and
    /// inside the runs' spans are each found or not as they are stored,
    /// in the transaction that wrote the run, in later ones (spans read
    /// back from the tree), and after runs merged into one.
    @Test func runsAreSearchedOnlyWithinTheirSpans() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        store.tuning.uuidIndex = UUIDIndex.Tuning(runThreshold: 50, maxRuns: 3)
        func uuid(_ n: UInt64) -> UUID {
            var b = [UInt8](repeating: 0, count: 16)
            for i in 0..<8 { b[i] = UInt8(truncatingIfNeeded: n >> (56 - 8 * UInt64(i))) }
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], 0, 0, 0, 0, 0, 0, 0, 0))
        }
        func samples(_ ns: some Sequence<UInt64>) throws -> [Sample] {
            try ns.map { try stepSample(1, minute: Int($0), uuid: uuid($0)) }
        }
        // Three runs of even numbers: 10000–19998 (three chunks), 30000–30098, 20000–20098.
        for (base, n) in [(10_000, 5_000), (30_000, 50), (20_000, 50)] as [(UInt64, UInt64)] {
            try store.save(try samples(stride(from: base, to: base + 2 * n, by: 2)))
        }
        let spans = { try store.env.read { txn in
            var i = UUIDIndex(txn, store.trees, hash: store.tuning.uuidHash) { _ in nil }
            return try i.runSpans().map { [$0.first.high, $0.last.high] }
        } }
        #expect(try spans() == [[10_000, 19_998], [30_000, 30_098], [20_000, 20_098]])
        let held = { (n: UInt64) in n % 2 == 0 && (10_000...19_998 ~= n || 20_000...20_098 ~= n || 30_000...30_098 ~= n) }
        // Below, between, above and inside the spans: only the held ones are skipped.
        let probe: [UInt64] = [5, 10_000, 10_001, 14_444, 19_998, 19_999, 20_050, 20_051, 25_000, 30_098, 30_099, 90_000]
        var outcomes = try store.saveNew(try samples(probe))
        #expect(outcomes.map { $0 == nil } == probe.map(held))
        #expect(errorCode { try store.save(try samples([19_998])) } == .duplicateUUID)
        // A fourth run merges the three newest (the oldest is larger than
        // them all); the merged span reaches from their least to their
        // greatest. (The probe, a small save, went to the hashed part.)
        try store.save(try samples(stride(from: 50_000, to: 50_100, by: 2)))
        #expect(try spans() == [[10_000, 19_998], [20_000, 50_098]])
        let again: [UInt64] = [4, 10_002, 20_052, 30_000, 40_000, 50_098, 50_099, 90_001]
        outcomes = try store.saveNew(try samples(again))
        #expect(outcomes.map { $0 == nil } == [false, true, true, true, false, true, false, false])
        #expect(errorCode { try store.save(try samples([20_098])) } == .duplicateUUID)
        // A large save checks its own UUIDs against the merged run, one walk.
        var big = Array(stride(from: 60_000, to: 60_100, by: 1) as StrideTo<UInt64>)
        big[60] = 17_776
        #expect(errorCode { try store.save(try samples(big)) } == .duplicateUUID)
        big[60] = 17_777
        try store.save(try samples(big))
    }

    /// A merge of runs goes a step further with each run written, at most
    /// `mergeStepEntries` entries a transaction, across transactions and a
    /// reopen (`UUIDIndex.MergePlan`). Meanwhile every UUID is held once
    /// (the merge's run holds a prefix of the merged runs); at its end the
    /// merged runs are gone and its run holds each of their UUIDs once.
    @Test func aMergeOfRunsGoesOnInStepsAcrossTransactionsAndReopens() throws {
        let dir = temporaryDirectory()
        let tuning = UUIDIndex.Tuning(runThreshold: 50, maxRuns: 3, mergeStepEntries: 64)
        var store = try makeStore(mapSize: 64 << 20, directory: dir)
        store.tuning.uuidIndex = tuning
        defer { store.close() }
        func state() throws -> (plan: UUIDIndex.MergePlan?, runs: [UInt32], sizes: [UInt32: Int]) {
            try store.env.read { txn in
                var i = UUIDIndex(txn, store.trees, hash: store.tuning.uuidHash) { _ in nil }
                return (try i.pendingMerge(), try i.runIDs(), try i.runSizes())
            }
        }
        var saved: [Sample] = []
        func saveRun(_ n: Int) throws {
            let batch = try (0..<n).map { try stepSample(1, minute: saved.count + $0) }
            try store.save(batch)
            saved += batch
        }
        for _ in 0..<3 { try saveRun(100) }
        #expect(try state().plan == nil)
        // A fourth run: all four are merged (each at least the older's
        // size), 400 entries into run 5, 64 a step.
        try saveRun(100)
        var now = try state()
        #expect(now.plan == UUIDIndex.MergePlan(first: 1, last: 4) && now.runs == [1, 2, 3, 4, 5] && now.sizes[5] == 64)
        var steps = 1
        while try state().plan != nil {
            if steps == 3 {
                store.close()
                store = try makeStore(mapSize: 64 << 20, directory: dir)
                store.tuning.uuidIndex = tuning
            }
            try saveRun(50)
            steps += 1
            now = try state()
            #expect(now.sizes[5] == min(64 * steps, 400))
            // Every UUID saved is held, and a duplicate is refused, midway too.
            #expect(try store.saveNew(saved).allSatisfy { $0 == nil })
            #expect(errorCode { try store.save([saved[steps * 37 % saved.count]]) } == .duplicateUUID)
            try #require(steps < 10)
        }
        #expect(steps == 7)
        #expect(now.runs == [5] + (6...11).map(UInt32.init) && now.sizes[5] == 400)
        // Run 5 holds the first 400 UUIDs once each, in order.
        let entries = try store.env.read { txn in
            var r = try RunCopy(txn, store.trees.uuidRuns, 5)
            var out: [UUID] = []
            while let h = r.head { out.append(h.uuid); try r.advance() }
            return out
        }
        #expect(entries == saved.prefix(400).map(\.uuid).sorted { PendingUUID($0) < PendingUUID($1) })
        // The next run written starts a new merge.
        try saveRun(50)
        #expect(try state().plan != nil)
    }

    /// A large `saveNew` looks up its UUIDs in one sorted walk
    /// (`UUIDIndex.holds(sorted:)`) and skips exactly what one lookup
    /// each would: UUIDs in a run, in the hashed part, deleted and not
    /// yet pruned, or listed twice; a UUID pruned from a run is saved again.
    @Test func aLargeSaveNewSkipsWhatTheStoreHoldsAsOneLookupEachWould() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        store.tuning.uuidIndex = UUIDIndex.Tuning(runThreshold: 50, maxRuns: 8)
        let inRun = try (0..<60).map { try stepSample(1, minute: $0) }
        try store.save(inRun)
        let hashed = try (0..<5).map { try stepSample(2, minute: 100 + $0) }
        try store.save(hashed)
        try store.delete(uuids: [inRun[0].uuid, inRun[1].uuid, hashed[0].uuid])
        #expect(try store.pruneAll() == 3)
        try store.delete(uuids: [inRun[2].uuid, hashed[1].uuid])  // deleted, not pruned: still held
        let fresh = try (0..<80).map { try stepSample(3, minute: 200 + $0) }
        var batch = fresh + [inRun[0], inRun[1], inRun[2], inRun[3], hashed[0], hashed[1], hashed[2], fresh[7]]
        batch.shuffle()
        let outcomes = try store.saveNew(batch)
        let held = Set([inRun[2], inRun[3], hashed[1], hashed[2]].map(\.uuid))
        var seen = Set<UUID>()
        for (s, o) in zip(batch, outcomes) {
            let expectSkip = held.contains(s.uuid) || !seen.insert(s.uuid).inserted
            #expect((o == nil) == expectSkip, "\(s.uuid)")
        }
        // The pruned ones are live again, once each.
        let live = try store.anchoredQuery(type: steps, predicate: .uuids([inRun[0].uuid, inRun[1].uuid, hashed[0].uuid]), anchor: nil)
        #expect(live.samples.count == 3)
        #expect(errorCode { try store.save([inRun[0]]) } == .duplicateUUID)
        // The same below the run threshold: a large saveNew's entries go
        // to the hashed part without a second lookup, and a pruned run
        // entry's mark still goes.
        store.tuning.uuidIndex = UUIDIndex.Tuning(runThreshold: 1000, maxRuns: 8)
        try store.delete(uuids: [inRun[4].uuid, inRun[5].uuid])
        #expect(try store.pruneAll() == 4)  // with inRun[2] and hashed[1], deleted above
        let more = try (0..<70).map { try stepSample(4, minute: 400 + $0) }
        let second = try store.saveNew(more + [inRun[4], inRun[5], inRun[6], more[3]])
        #expect(second.map { $0 == nil } == Array(repeating: false, count: 72) + [true, true])
        let again = try store.anchoredQuery(type: steps, predicate: .uuids([inRun[4].uuid, inRun[5].uuid, more[69].uuid]), anchor: nil)
        #expect(again.samples.count == 3)
        // Of the pruned run entries, only inRun[2]'s mark is left: it was not saved again.
        #expect(try store.env.read { txn in txn.entries(store.trees.uuidGone) } == 1)
        #expect(errorCode { try store.save([inRun[5]]) } == .duplicateUUID)
        #expect(errorCode { try store.save([more[0]]) } == .duplicateUUID)
    }

    /// `MappedFile.ranges` finds a file's mappings in /proc/self/maps by
    /// device and inode (what `releaseMappedPages` advises), and only
    /// those that exist.
    @Test func aFilesMappingsAreFoundByDeviceAndInode() throws {
        let path = temporaryDirectory() + "/mapped"
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, 3 * 4096) == 0)
        var st = stat()
        try #require(fstat(fd, &st) == 0)
        let map = try #require(mmap(nil, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0))
        try #require(map != MAP_FAILED)
        let found = MappedFile.ranges(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        #expect(found.count == 1 && found.first?.0 == map && found.first?.1 == 3 * 4096)
        #expect(MappedFile.ranges(device: UInt64(st.st_dev) &+ 1, inode: UInt64(st.st_ino)).isEmpty)
        munmap(map, 3 * 4096)
        #expect(MappedFile.ranges(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)).isEmpty)
    }

    /// A collection that hands `saveNew` other samples on its second pass
    /// than on its first (the pass that looked their UUIDs up): a UUID the
    /// store holds among them is still refused, not indexed twice.
    @Test func aSaveNewOfACollectionThatChangesBetweenPassesStillRefusesDuplicates() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        let stored = try stepSample(1, minute: 0)
        try store.save([stored])
        final class Passes: @unchecked Sendable { var count = 0 }
        struct Fickle: Collection {
            let first: [Sample], second: [Sample]
            let passes = Passes()
            var startIndex: Int { 0 }
            var endIndex: Int { first.count }
            func index(after i: Int) -> Int { i + 1 }
            subscript(i: Int) -> Sample { passes.count > 1 ? second[i] : first[i] }
            func makeIterator() -> IndexingIterator<Fickle> {
                passes.count += 1
                return IndexingIterator(_elements: self)
            }
        }
        let fresh = try (0..<80).map { try stepSample(2, minute: 10 + $0) }
        var changed = fresh
        changed[40] = stored
        #expect(errorCode { try store.saveNew(Fickle(first: fresh, second: changed)) } == .duplicateUUID)
        #expect(try store.anchoredQuery(type: steps, predicate: .uuids([stored.uuid]), anchor: nil).samples.count == 1)
        #expect(try store.saveNew(fresh).allSatisfy { $0 != nil })
    }

    @Test func aStoreOfANewerOrRetiredFormatIsRefused() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, UInt64(Schema.format) + 1) }
        store.close()
        #expect(errorCode { _ = try makeStore(directory: dir) } == .storeFormatTooNew)
        let oldDir = temporaryDirectory()
        let old = try makeStore(directory: oldDir)
        try old.env.write { txn in try txn.setMetaU64(old.trees, .format, 1) }
        old.close()
        #expect(errorCode { _ = try makeStore(directory: oldDir) } == .storeFormatTooOld)
    }

    /// A format-4 store keeps its UUID index in a B-tree keyed by UUID
    /// (`uuids`; `UInt64.max` marks a pruned UUID that a run holds). Opened,
    /// its entries move to the hashed buckets and `uuid_gone` and the old tree
    /// goes; duplicates are refused as before (rule 13), deletes find run
    /// and hashed entries (rule 15), and pruned UUIDs may be saved again
    /// (rule 16). Its start index, in 1,024-second buckets, is rebuilt.
    @Test func aFormat4StoresUUIDIndexMovesToHashedBucketsWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(mapSize: 64 << 20, directory: dir)
        store.tuning.uuidIndex = UUIDIndex.Tuning(runThreshold: 50, maxRuns: 8)
        let run = try (0..<60).map { try stepSample(1, minute: $0) }
        try store.save(run)
        let small = try (0..<10).map { try stepSample(2, minute: 100 + $0) }
        try store.save(small)
        try store.delete(uuids: [run[0].uuid, small[0].uuid])
        #expect(try store.pruneAll() == 2)  // run[0] is marked gone; small[0] has no entry left
        try store.delete(uuids: [run[1].uuid])  // its tombstone's entry hides the run's
        let hashed = small.dropFirst().map(\.uuid) + [run[1].uuid]
        try store.env.write { txn in
            let old = try #require(try txn.openTree("uuids", create: true))
            var index = UUIDIndex(txn, store.trees, hash: store.tuning.uuidHash) { try txn.openTree(Schema.typeTreeName($0), create: false) }
            for u in hashed {
                let value = try #require(try index.get(PendingUUID(u)))
                try PendingUUID(u).withKeyBytes { k in try withUnsafeBytes(of: value.littleEndian) { _ = try txn.put(old, k, $0) } }
            }
            try PendingUUID(run[0].uuid).withKeyBytes { k in try withUnsafeBytes(of: UInt64.max) { _ = try txn.put(old, k, $0) } }
            try lmdbCheck(mdb_drop(txn.txn, store.trees.uuidHashes, 0), "drop")
            try lmdbCheck(mdb_drop(txn.txn, store.trees.uuidGone, 0), "drop")
            // Format 4's start index: buckets of 1,024 seconds, fixed-size
            // duplicates in `s<id>`; no format-20 index.
            let stepsID = try #require(store.knownTypeID(steps))
            let t = try #require(store.cache.withLock { $0.typeTrees[stepsID] })
            try lmdbCheck(mdb_drop(txn.txn, t.starts, 0), "drop")
            let legacy = try #require(try txn.openTree(Schema.legacyStartIndexName(stepsID), create: true, fixedDuplicates: true))
            let c = try txn.cursor(t.records)
            defer { c.close() }
            var entry = try c.first()
            while let (seq, raw) = entry {
                let bucket = Int64((RecordView(bytes: raw).start / 1024).rounded(.down))
                try withUnsafeBytes(of: (UInt64(bitPattern: bucket) ^ 1 << 63).bigEndian) { k in
                    try withUnsafeBytes(of: seq.bigEndian) { _ = try txn.put(legacy, k, $0) }
                }
                entry = try c.next()
            }
            try txn.setMetaU64(store.trees, .format, 4)
        }
        store.close()
        store = try makeStore(mapSize: 64 << 20, directory: dir)
        defer { store.close() }
        let (format, oldTree, entries) = try store.env.read { txn in
            (try txn.metaU64(store.trees, .format), try txn.openTree("uuids", create: false),
             (Int(try UUIDIndex.hashedCount(txn, store.trees)), txn.entries(store.trees.uuidGone)))
        }
        #expect(format == UInt64(Schema.format) && oldTree == nil)
        #expect(entries == (hashed.count, 1))
        for again in [small[3], run[5], run[1]] { #expect(errorCode { try store.save([again]) } == .duplicateUUID) }
        try store.save([run[0], small[0]])
        try store.delete(uuids: [small[4].uuid, run[7].uuid])
        let found = try store.anchoredQuery(type: steps, predicate: .uuids([small[4].uuid, run[7].uuid, run[1].uuid, run[0].uuid]),
                                            anchor: nil)
        #expect(found.sampleUUIDs == [run[0].uuid])
        #expect(Set(found.deletedUUIDs) == [small[4].uuid, run[7].uuid, run[1].uuid])
        // The start index was built again (format 20's), the old one dropped.
        let (indexed, walked) = try stepsStartingIn(30..<105, store, by: .startIndex)
        #expect(indexed == walked && indexed.count == 30 + 4)
        let stepsID = try #require(store.knownTypeID(steps))
        #expect(try store.env.read { txn in try txn.openTree(Schema.legacyStartIndexName(stepsID), create: false, fixedDuplicates: true) } == nil)
    }

    /// The steps that start in `minutes` (after `t0`), found by `plan` and by
    /// the walk of the change order.
    private func stepsStartingIn(_ minutes: Range<Int>, _ store: Store, by plan: QueryPlan) throws -> (planned: [UUID], walked: [UUID]) {
        let range = SamplePredicate.and([.startDate(.greaterThanOrEqual, t0.addingTimeInterval(Double(minutes.lowerBound) * 60)),
                                         .startDate(.lessThan, t0.addingTimeInterval(Double(minutes.upperBound) * 60))])
        defer { store.tuning.planOverride = nil }
        store.tuning.planOverride = plan
        let planned = try store.anchoredQuery(type: steps, predicate: range, anchor: nil).sampleUUIDs
        store.tuning.planOverride = .changeOrder
        return (planned, try store.anchoredQuery(type: steps, predicate: range, anchor: nil).sampleUUIDs)
    }

    /// A format-2 store (no zone map) gets its zone map when opened, and
    /// format 3, which a format-2 library refuses: it would not keep the map.
    @Test func aFormat2StoreGetsItsZoneMapWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        try store.save((0..<9000).map { try stepSample(1, minute: $0) })
        try store.save((0..<100).map { _ in
            try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appA)
        })
        try store.delete(uuids: try store.anchoredQuery(type: steps, anchor: nil, limit: 50).sampleUUIDs)
        let zonesWritten = try store.env.read { txn in txn.entries(store.trees.zones) }
        #expect(zonesWritten == 4)  // steps in blocks 0-2 (and its tombstones in 2), heart rate in 2
        try store.env.write { txn in
            try lmdbCheck(mdb_drop(txn.txn, store.trees.zones, 0), "drop")
            try txn.setMetaU64(store.trees, .format, 2)
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try store.env.read { txn in txn.entries(store.trees.zones) } == zonesWritten)
        let (zoned, walked) = try stepsStartingIn(100..<5000, store, by: .zoneMap)
        #expect(zoned == walked && zoned.count == 4900)
    }

    /// A format-2 library open on a store while another process upgrades
    /// it appends records the zone map does not hold (simulated here by
    /// dropping their entries and putting the zone head back): queries
    /// walk what lies past the zone head instead of skipping it, this
    /// library's writes leave the head alone, and the next open maps the
    /// gap.
    @Test func recordsPastTheZoneHeadAreWalkedThenMappedOnOpen() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        try store.save((0..<5000).map { try stepSample(1, minute: $0) })
        let mappedThrough = try store.currentAnchor().position
        try store.save((0..<5000).map { try stepSample(1, minute: 5000 + $0) })  // the "old library's" records
        try store.env.write { txn in
            for block in ZoneMap.block(of: mappedThrough + 1)...ZoneMap.block(of: mappedThrough + 5000) {
                let id = try #require(store.cache.withLock { $0.typeID(of: steps) })
                _ = try ZoneMap.key(type: id, block: block).withUnsafeBytes { try txn.delete(store.trees.zones, $0) }
            }
            try txn.setMetaU64(store.trees, .zoneHead, mappedThrough)
        }
        let late = SamplePredicate.and([.startDate(.greaterThanOrEqual, t0.addingTimeInterval(6000 * 60)),
                                        .startDate(.lessThan, t0.addingTimeInterval(9000 * 60))])
        func agree(_ what: String) throws {
            store.tuning.planOverride = .zoneMap
            let zoned = try store.anchoredQuery(type: steps, predicate: late, anchor: nil)
            store.tuning.planOverride = .changeOrder
            let walked = try store.anchoredQuery(type: steps, predicate: late, anchor: nil)
            store.tuning.planOverride = nil
            #expect(zoned.samples.count == 3000, "\(what)")
            #expect(zoned.sampleUUIDs == walked.sampleUUIDs, "\(what)")
        }
        try agree("past the zone head")
        try store.save([try stepSample(1, minute: 20_000)])
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .zoneHead) } == mappedThrough)
        try agree("after a write of this library")
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .zoneHead) } == store.currentAnchor().position)
        try agree("after reopening")
    }

    @Test func theStoreIDAndDataSurviveReopening() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let id = store.storeID
        let s = try Sample.category(sleep, value: 3, start: t0, end: t0.addingTimeInterval(3600), source: appA,
                                    device: Device(name: "Watch", manufacturer: "Apple", model: "Watch"),
                                    metadata: ["note": .string("deep"), "rating": .number(4), "when": .date(t0), "flag": .bool(true)])
        try store.save([s])
        store.close()
        store = try makeStore(directory: dir)
        #expect(store.storeID == id)
        let got = try store.anchoredQuery(type: sleep, anchor: nil).samples[0]
        #expect(got == s)
    }

    @Test func manyThreadsSaveAndReadConcurrently() throws {
        let store = try makeStore()
        let writers = 4, perWriter = 50
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: writers * 2) { k in
            do {
                if k < writers {
                    for i in 0..<perWriter { try store.save([stepSample(Double(i), minute: k * 1000 + i)]) }
                } else {
                    var anchor: QueryAnchor?
                    for _ in 0..<perWriter {
                        let r = try store.anchoredQuery(type: steps, anchor: anchor, limit: 10)
                        anchor = r.newAnchor
                    }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == writers * perWriter)
    }

    @Test func predicateTermsOnSamples() throws {
        let store = try makeStore()
        let watch = Device(name: "Watch", manufacturer: "Apple")
        let a = try Sample.quantity(bodyMass, value: 150, unit: HealthUnit("lb"), start: t0, end: t0, source: appA, device: watch,
                                    metadata: ["HKWasUserEntered": .bool(true), "scale": .string("kitchen")])
        let b = try Sample.quantity(bodyMass, value: 80, unit: HealthUnit("kg"), start: t0.addingTimeInterval(3600),
                                    end: t0.addingTimeInterval(7200), source: appB)
        try store.save([a, b])
        func q(_ p: SamplePredicate) throws -> [UUID] { try store.anchoredQuery(type: bodyMass, predicate: p, anchor: nil).sampleUUIDs }
        #expect(try q(.quantity(.greaterThan, 70, HealthUnit("kg"))) == [b.uuid])           // 150 lb = 68 kg
        #expect(try q(.quantity(.lessThan, 160, HealthUnit("lb"))) == [a.uuid])
        #expect(try q(.uuids([b.uuid])) == [b.uuid])
        #expect(try q(.device(.name, allowed: ["Watch"])) == [a.uuid])
        #expect(try q(.device(.name, allowed: [])) == [b.uuid])                             // empty set matches nil
        #expect(try q(.metadataExists("scale")) == [a.uuid])
        #expect(try q(.metadata("HKWasUserEntered", .equal, .bool(true))) == [a.uuid])
        #expect(try q(.metadata("scale", .equal, .number(1))) == [])                        // kinds differ
        // HealthKit's overlap: end >= start && start < end; strict variants.
        let h1 = t0.addingTimeInterval(3600)
        #expect(try q(.dateRange(start: h1, end: nil, options: [])) == [b.uuid])
        #expect(try q(.dateRange(start: t0, end: h1, options: [])) == [a.uuid])
        #expect(try q(.dateRange(start: t0, end: h1, options: .strictStartDate)) == [a.uuid])
        // strictEndDate is end ∈ [s, e) (rule 8b): a ends at s, b at e.
        #expect(try q(.dateRange(start: t0, end: t0.addingTimeInterval(7200), options: .strictEndDate)) == [a.uuid])
        #expect(try q(.or([.uuids([a.uuid]), .sources([appB.bundleIdentifier])])) == [a.uuid, b.uuid])
        #expect(try q(.not(.sources([appA.bundleIdentifier]))) == [b.uuid])
        let cat = try Sample.category(sleep, value: 4, start: t0, end: t0, source: appA)
        try store.save([cat])
        #expect(try store.anchoredQuery(type: sleep, predicate: .categoryValue(.equal, 4), anchor: nil).sampleUUIDs == [cat.uuid])
    }
}

/// A store's data file as this process maps it, and the bytes of it
/// resident in those mappings: the pages of its ranges (up to the file's
/// size) that /proc/self/pagemap marks present. Reading smaps instead
/// walked every mapping of the process at each look, and the test took
/// 22 s alone and 80 s beside the others, holding one of the test pool's
/// two threads all along.
private final class StoreFile {
    let ranges: [(address: Int, pages: Int)]
    let pagemap: Int32
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    init?(_ directory: String) {
        var st = stat()
        guard stat(directory + "/data.mdb", &st) == 0 else { return nil }
        pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return nil }
        let page = self.page
        ranges = MappedFile.ranges(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)).map {
            (Int(bitPattern: $0.0), min($0.1, Int(st.st_size)) / page)
        }
    }

    deinit { close(pagemap) }

    func residentBytes() -> Int {
        var total = 0
        for (address, pages) in ranges {
            var entries = [UInt64](repeating: 0, count: pages)
            let n = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, $0.count, off_t(address / page * 8)) }
            precondition(n == pages * 8, "pagemap unreadable")
            total += entries.reduce(0) { $0 + Int($1 >> 63) } * page  // bit 63: present
        }
        return total
    }
}
