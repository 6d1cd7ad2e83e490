import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rules 68–70: live digests, sync checkpoints, converging replication.
@Suite struct SyncTests {
    /// The digest a store's live samples give, computed here from a query.
    func expectedDigest(_ store: Store, _ type: SampleType = steps) throws -> LiveDigest {
        var d = LiveDigest()
        for s in try store.anchoredQuery(type: type, anchor: nil).samples {
            d.add(s.uuid, version: (try s.syncInfo())?.version ?? 0)
        }
        return d
    }

    @Test func rule68_eachWriteKeepsTheLiveDigestOfEveryType() throws {
        let store = try makeStore()
        defer { store.close() }
        #expect(try store.liveDigests().isEmpty)
        let a = try stepSample(1), b = try stepSample(2, minute: 1, metadata: synced("s", 1))
        try store.save([a, b])
        #expect(try store.liveDigests()[steps.identifier] == (try expectedDigest(store)))
        #expect(try store.liveDigests()[steps.identifier]?.count == 2)
        // A replacement removes the old version and adds the new.
        try store.save([try stepSample(3, minute: 1, metadata: synced("s", 2))])
        try store.delete(uuids: [a.uuid])
        let kept = try store.liveDigests()[steps.identifier]!
        #expect(kept == (try expectedDigest(store)) && kept.count == 1)
        // The order of the writes does not matter, only the set.
        var other = LiveDigest()
        for s in try store.anchoredQuery(type: steps, anchor: nil).samples.reversed() {
            other.add(s.uuid, version: (try s.syncInfo())?.version ?? 0)
        }
        #expect(other == kept)
        try store.delete(type: steps, predicate: nil)
        #expect(try store.liveDigests()[steps.identifier] == LiveDigest())
        #expect(try store.verify().problems == [])
    }

    @Test func rule68_verifyFindsADigestThatDoesNotMatchTheSamples() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([try stepSample(1), try stepSample(2, minute: 1)])
        try store.env.write { txn in
            var d = try DigestTable.read(txn, store.trees, typeID: 1)
            d.remove(UUID(), version: 0)
            try DigestTable.write(txn, store.trees, typeID: 1, d)
        }
        let problems = try store.verify().problems
        #expect(problems.count == 1 && problems[0].contains("live digest"))
    }

    @Test func rule68_aFormat16StoreGetsItsDigestsOnOpen() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        try store.save([try stepSample(1), try stepSample(2, minute: 1, metadata: synced("x", 3))])
        try store.save([try sampleOfSleep()])
        try store.env.write { txn in
            try txn.drop(store.trees.digests)
            try txn.drop(store.trees.syncCheckpoints)
            try txn.drop(store.trees.syncConflicts)
            try txn.setMetaU64(store.trees, .format, 16)
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try store.liveDigests()[steps.identifier] == (try expectedDigest(store)))
        #expect(try store.liveDigests()[sleep.identifier] == (try expectedDigest(store, sleep)))
        #expect(try store.verify().problems == [])
    }

    func sampleOfSleep(minute: Int = 0) throws -> Sample {
        try Sample.category(sleep, value: 1, start: t0.addingTimeInterval(Double(minute) * 60),
                            end: t0.addingTimeInterval(Double(minute) * 60 + 600), source: appB)
    }

    @Test func rule69_aSyncCopiesEveryChangeAndResumesFromItsCheckpoint() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        let first = try (0..<50).map { try stepSample(Double($0), minute: $0) }
        try a.save(first)
        try a.save([try sampleOfSleep()])
        try a.delete(uuids: [first[3].uuid])
        var o = SyncOptions()
        o.batchSize = 7
        var seen: [SyncProgress] = []
        let r1 = try b.sync(from: a, o) { seen.append($0) }
        #expect(r1.applied.added == 50 && r1.changesRead == 51)  // 49 steps, a sleep, a deletion
        #expect(r1.verification == .verified(try a.liveDigests().values.reduce(LiveDigest(), +)))
        #expect(r1.converged)
        #expect(try seen.count == 8 && seen.last?.position == a.currentAnchor().position)
        #expect(try b.syncCheckpoints().map(\.position) == [try a.currentAnchor().position])
        // Nothing new: nothing read, nothing written.
        let headB = try b.currentAnchor()
        let r2 = try b.sync(from: a, o)
        #expect(try r2.changesRead == 0 && b.currentAnchor() == headB && r2.converged)
        // New changes come, and only they.
        try a.delete(uuids: [first[10].uuid])
        try a.save([try stepSample(99, minute: 99)])
        let r3 = try b.sync(from: a, o)
        #expect(r3.changesRead == 2 && r3.applied.added == 1 && r3.applied.deleted == 1 && r3.converged)
        if case .differs(let d) = r3.verification { Issue.record("not verified: \(d)") }
        #expect(try a.liveDigests() == b.liveDigests())
        // Batches large enough to look their UUIDs up in one sorted walk,
        // into a store that holds some of them already.
        let c = try makeStore()
        defer { c.close() }
        let held = try a.anchoredQuery(type: steps, anchor: nil).samples.map { $0 }.prefix(20)
        try c.save(Array(held))
        o.batchSize = 100
        let r4 = try c.sync(from: a, o)
        #expect(r4.applied.alreadyStored == 20 && r4.applied.added == 50 - 2 + 1 - 20 + 1 && r4.converged)
    }

    @Test func rule69_theCheckpointIsWrittenWithTheChangesItCovers() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        try a.save(try (0..<30).map { try stepSample(Double($0), minute: $0) })
        // A blood pressure whose members' types the sync does not copy:
        // the receiving store refuses the batch that holds it (rule 33).
        let members = try [("BloodPressureSystolic", 120.0), ("BloodPressureDiastolic", 80.0)].map { name, v in
            try Sample.quantity(SampleType.named(name), value: v, unit: HealthUnit("mmHg"), start: t0, end: t0, source: appA)
        }
        try a.save(members)
        try a.save([try Sample.correlation(SampleType.named("BloodPressure"), members: members.map(\.uuid),
                                           start: t0, end: t0, source: appA)])
        var o = SyncOptions()
        o.batchSize = 10
        o.types = ["StepCount", "BloodPressure"]
        #expect(throws: OHKError.self) { try b.sync(from: a, o) }
        // The three batches before it stand, each with its checkpoint;
        // of the failed one, neither samples nor checkpoint.
        let cp = try #require(try b.syncCheckpoints().first)
        #expect(cp.samplesReceived == 30 && cp.position == 30)
        #expect(try b.changes(after: nil).count == 30)
        // With the members' types, under another name, it completes.
        o.name = "with-members"
        o.types = nil
        let r = try b.sync(from: a, o)
        #expect(r.applied.added == 3 && r.applied.alreadyStored == 30 && r.converged)
    }

    @Test func rule69_checkpointsThatDoNotFitNameTheFix() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        try a.save([try stepSample(1)])
        var o = SyncOptions()
        o.sourceLocation = "site-a"
        _ = try b.sync(from: a, o)
        // Another store at the same place.
        let a2 = try makeStore()
        defer { a2.close() }
        try a2.save([try stepSample(2)])
        let other = #expect(throws: OHKError.self) { try b.sync(from: a2, o) }
        #expect(other?.code == .syncCheckpoint && other?.message.contains("--from-scratch") == true)
        // Pruned past the checkpoint.
        try a.save([try stepSample(3, minute: 1)])
        try a.delete(uuids: [try a.anchoredQuery(type: steps, anchor: nil).samples[0].uuid])
        try a.pruneAll()
        let expired = #expect(throws: OHKError.self) { try b.sync(from: a, o) }
        #expect(expired?.code == .syncCheckpoint && expired?.message.contains("--from-scratch") == true)
        // Other types under the same name.
        var typed = o
        typed.types = ["StepCount"]
        #expect(errorCode { _ = try b.sync(from: a, typed) } == .syncCheckpoint)
        // The fix works, and nothing was written by the refusals.
        var scratch = o
        scratch.fromScratch = true
        let r = try b.sync(from: a, scratch)
        #expect(r.converged == false)  // b keeps a sample a deleted and pruned, as documented
        if case .differs(let d) = r.verification { Issue.record("not verified: \(d)") }
        // The same store, or a copy of it.
        #expect(errorCode { _ = try a.sync(from: a, o) } == .invalidArgument)
    }

    @Test func rule69_aSecondSyncOfTheSameNameRefusesWithoutWriting() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        try a.save(try (0..<20).map { try stepSample(Double($0), minute: $0) })
        var o = SyncOptions()
        o.batchSize = 5
        // While the first is between batches, a second of the same name runs.
        var interrupted = false
        let e = #expect(throws: OHKError.self) {
            try b.sync(from: a, o) { _ in
                guard !interrupted else { return }
                interrupted = true
                _ = try? b.sync(from: a, o)
            }
        }
        #expect(e?.code == .syncBusy)
        // The second's work stands, and the next run completes it.
        let r = try b.sync(from: a, o)
        #expect(try r.converged && b.anchoredQuery(type: steps, anchor: nil).samples.count == 20)
    }

    @Test func rule70_aTombstoneWinsAndTheHigherVersionWinsBothWays() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        let x = try stepSample(1), v1 = try stepSample(2, minute: 1, metadata: synced("s", 1))
        try a.save([x, v1])
        _ = try b.sync(from: a)
        // b deletes x and writes version 3; a writes version 2.
        try b.delete(uuids: [x.uuid])
        try b.save([try stepSample(4, minute: 1, metadata: synced("s", 3))])
        try a.save([try stepSample(3, minute: 1, metadata: synced("s", 2))])
        let ab = try b.sync(from: a)
        #expect(ab.applied.olderVersions == 1)
        _ = try a.sync(from: b)
        #expect(try a.liveDigests() == b.liveDigests())
        let live = try a.anchoredQuery(type: steps, anchor: nil).samples
        #expect(try live.count == 1 && live[0].syncInfo()?.version == 3)
        // A second round moves nothing, and a third reads nothing.
        let heads = (try a.currentAnchor(), try b.currentAnchor())
        _ = try b.sync(from: a)
        _ = try a.sync(from: b)
        #expect((try a.currentAnchor(), try b.currentAnchor()) == heads)
        #expect(try b.sync(from: a).changesRead == 0 && a.sync(from: b).changesRead == 0)
    }

    @Test func rule70_otherContentUnderAUUIDIsAConflictAndOverwritesNothing() throws {
        let a = try makeStore(), b = try makeStore()
        defer { a.close(); b.close() }
        let u = UUID()
        try a.save([try stepSample(1, uuid: u), try stepSample(5, minute: 5)])
        try b.save([try stepSample(2, uuid: u)])
        let r = try b.sync(from: a)
        #expect(r.newConflicts == [u] && r.applied.added == 1 && r.checkpoint.conflicts == 1)
        // The digests of (UUID, version) agree, but the content does not:
        // not converged while the conflict stands.
        #expect(try b.syncConflicts().map(\.uuid) == [u])
        #expect(try b.syncConflicts().first?.source == a.storeID)
        #expect(try b.anchoredQuery(type: steps, anchor: nil).samples.first { $0.uuid == u }?.value == .quantity(2))
        // Received as the source holds it, so the replica is complete but not equal.
        if case .differs(let d) = r.verification { Issue.record("not verified: \(d)") }
        #expect(!r.converged)
    }

    /// Random histories on three stores, synced in random directions: at
    /// the end all three hold the same live samples and know the same
    /// deletions, which a set model predicts, and each sync is verified.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func rule70_randomHistoriesConvergeInAnyOrder(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let stores = try (0..<3).map { _ in try makeStore() }
        defer { for s in stores { s.close() } }
        // The model: every sample some store saved, with its sync
        // identifier and version, and every UUID deleted by hand.
        var stored: [UUID: (syncID: String?, version: Double)] = [:]
        var deletedByHand = Set<UUID>()
        var o = SyncOptions()
        for step in 0..<120 {
            let i = Int(rng.next() % 3)
            let s = stores[i]
            switch rng.next() % 6 {
            case 0, 1:
                var batch: [Sample] = []
                for k in 0..<Int(rng.next() % 5 + 1) {
                    let id = rng.next() % 3 == 0 ? "s\(rng.next() % 6)" : nil
                    let version = Double(rng.next() % 5 + 1)
                    batch.append(try stepSample(Double(step * 10 + k), minute: step,
                                                metadata: id.map { synced($0, version) } ?? [:]))
                }
                for (x, outcome) in zip(batch, try s.saveNew(batch)) {
                    guard let outcome else { continue }
                    if case .notSavedOlderVersion = outcome { continue }
                    stored[x.uuid] = ((try x.syncInfo())?.identifier, (try x.syncInfo())?.version ?? 0)
                }
            case 2:
                let live = try s.anchoredQuery(type: steps, anchor: nil).samples
                if let victim = live.isEmpty ? nil : live[Int(rng.next() % UInt64(live.count))] {
                    try s.delete(uuids: [victim.uuid])
                    deletedByHand.insert(victim.uuid)
                }
            default:
                let j = (i + 1 + Int(rng.next() % 2)) % 3
                o.batchSize = Int(rng.next() % 9 + 1)
                // The source changes between the sync's batches, so that
                // its reads come from different snapshots (ReceivedDigest).
                let source = stores[j]
                let r = try s.sync(from: source, o) { _ in
                    guard rng.next() % 2 == 0 else { return }
                    let live = (try? source.anchoredQuery(type: steps, anchor: nil).samples.map { $0 }) ?? []
                    if rng.next() % 2 == 0, !live.isEmpty {
                        let victim = live[Int(rng.next() % UInt64(live.count))]
                        if (try? source.delete(uuids: [victim.uuid])) != nil { deletedByHand.insert(victim.uuid) }
                    } else if let x = try? stepSample(Double(step), minute: step), (try? source.save([x])) != nil {
                        stored[x.uuid] = (nil, 0)
                    }
                }
                if case .differs(let d) = r.verification { Issue.record("step \(step), \(j)→\(i): not verified: \(d)") }
            }
        }
        // Two rounds in a ring carry every change everywhere.
        for _ in 0..<2 {
            for i in 0..<3 { _ = try stores[i].sync(from: stores[(i + 2) % 3], o) }
        }
        let digests = try stores.map { try $0.liveDigests() }
        #expect(digests[0] == digests[1] && digests[1] == digests[2])
        let lives = try stores.map { Set(try $0.anchoredQuery(type: steps, anchor: nil).sampleUUIDs) }
        #expect(lives[0] == lives[1] && lives[1] == lives[2])
        // The same deletions known: deleted objects, and deletions of UUIDs a store never held.
        let known = try stores.map { try SyncTestsSupport.deletions($0) }
        #expect(known[0] == known[1] && known[1] == known[2])
        // Without a sync identifier, a sample is live exactly when some
        // store saved it and nobody deleted it: a deletion wins.
        for (u, v) in stored where v.syncID == nil {
            #expect(lives[0].contains(u) == !deletedByHand.contains(u))
        }
        // With one: at most one live sample per identifier, and when the
        // greatest version (the lesser UUID between equals) was not
        // deleted by hand, it is that one.
        let bySync = Dictionary(grouping: stored.filter { $0.value.syncID != nil }, by: { $0.value.syncID! })
        for (id, samples) in bySync {
            let live = samples.filter { lives[0].contains($0.key) }
            #expect(live.count <= 1, "sync identifier \(id)")
            let best = samples.max { ($0.value.version, $1.key.uuidString) < ($1.value.version, $0.key.uuidString) }!
            if !deletedByHand.contains(best.key) { #expect(live.first?.key == best.key, "sync identifier \(id)") }
        }
        for s in stores { #expect(try s.verify().problems == []) }
        // Quiet: one more ring reads nothing.
        for i in 0..<3 { #expect(try stores[i].sync(from: stores[(i + 2) % 3], o).changesRead == 0) }
    }
}

enum SyncTestsSupport {
    /// Every UUID the store knows as deleted: its deleted objects and the
    /// deletions of UUIDs it never held (rule 63).
    static func deletions(_ store: Store) throws -> Set<UUID> {
        var out = Set<UUID>()
        let feed = try store.changes(after: nil)
        feed.forEach { if $0.isDeletion { out.insert($0.fields.record.uuid) } }
        try store.env.read { txn in
            try txn.forEach(store.trees.earlyDeletions) { k, _ in out.insert(UUID(uuid: k.loadUnaligned(as: uuid_t.self))) }
        }
        return out
    }
}

/// Replica batches as bytes (docs/sync.md, "Over HTTP").
@Suite struct ReplicaWireTests {
    @Test func rule69_aBatchReadsBackExactlyFromItsBytes() throws {
        let a = try makeStore()
        defer { a.close() }
        let watch = Device(name: "Watch", manufacturer: "Apple Inc.", model: "Watch7,1")
        let oddTime = Date(timeIntervalSinceReferenceDate: 700_000_000.123456789)  // below the microsecond
        let rich = try Sample.quantity(heartRate, value: 61.000000000000014, unit: HealthUnit("count/min"), start: oddTime,
                                       end: oddTime.addingTimeInterval(0.5), source: appB, device: watch,
                                       metadata: ["when": .date(oddTime), "n": .number(1e-300), "ok": .bool(true)],
                                       creationDate: oddTime, utcOffset: -3600)
        let gone = try stepSample(2, minute: 1, metadata: synced("s", 4))
        try a.save([rich, try stepSample(1), gone, try Sample.category(sleep, value: 2, start: t0, end: t0.addingTimeInterval(60), source: appA)])
        try a.delete(uuids: [gone.uuid])
        let batch = try a.replicaBatch(after: nil, limit: 0)
        let bytes = try batch.wireBytes()
        let back = try ReplicaBatch(wire: bytes) { try a.sampleType($0) }
        #expect(back.changes == batch.changes && back.positions == batch.positions)
        #expect(back.digests == batch.digests && back.sourceStoreID == a.storeID)
        #expect((back.newPosition, back.horizon, back.head) == (batch.newPosition, batch.horizon, batch.head))
        guard case .save(let s)? = back.changes.first(where: { $0.uuid == rich.uuid }) else { Issue.record("no sample"); return }
        #expect(s == rich)
        // Every cut and a flipped byte in a record are errors, never a crash.
        for n in stride(from: 0, to: bytes.count, by: 7) {
            #expect(errorCode { _ = try ReplicaBatch(wire: Array(bytes[..<n])) { try a.sampleType($0) } } == .invalidArgument)
        }
        var flipped = bytes
        flipped[bytes.count - 10] ^= 0x40
        #expect(errorCode { _ = try ReplicaBatch(wire: flipped) { try a.sampleType($0) } } == .invalidArgument)
        let checkpoint = try #require(try { () throws -> SyncCheckpoint? in
            let b = try makeStore()
            defer { b.close() }
            _ = try b.sync(from: a)
            return try b.syncCheckpoints().first
        }())
        #expect(try SyncCheckpoint(wire: checkpoint.wireBytes) == checkpoint)
        #expect(errorCode { _ = try SyncCheckpoint(wire: Array(checkpoint.wireBytes.dropLast(3))) } == .invalidArgument)
    }
}
