import CLMDB
import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Format 15's checks (docs/reliability.md, rule 23): the maintained
/// statistics' entries end with a check of their key and bytes, and the
/// small tables (meta, types, names, subscriptions, priorities, activity
/// summaries) have a check each. A byte changed on disk in any of them is
/// named by `verify`; a damaged statistics entry is an error to a read.
@Suite struct IntegrityCheckTests {
    /// A store with a bit of everything the checks cover.
    private func filledStore(directory: String? = nil) throws -> Store {
        let store = try makeStore(directory: directory)
        try store.save(try (0..<30).map { try stepSample(Double($0), minute: $0 * 7) })
        try store.save([try stepSample(5, minute: 0, source: appB)])  // overlaps the first: an overlap mark
        try store.save([try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appB)])
        try store.setSourcePriority([appB.bundleIdentifier], for: steps)
        try store.saveActivitySummaries([ActivitySummary(day: try .init(year: 2024, month: 1, day: 2), appleStandHours: 9)])
        try store.setCharacteristics(Characteristics(biologicalSex: .female))
        try store.registerSubscription(named: "feed", descriptors: [QueryDescriptor(type: steps)], frequency: .immediate)
        return store
    }

    /// Flips one bit of the value stored under `key` in `tree` (by hand,
    /// as the disk would, in a transaction that keeps no check).
    private func flip(_ store: Store, _ tree: (FixedTrees) -> MDB_dbi, key: (Txn) throws -> [UInt8], byte: Int = 0) throws {
        try store.env.write { txn in
            let dbi = tree(store.trees)
            let k = try key(txn)
            var v = Array(try #require(try txn.get(dbi, k)))
            v[min(byte, v.count - 1)] ^= 0x04
            _ = try txn.put(dbi, k, v)
        }
    }

    /// The first key of `tree`.
    private func firstKey(_ txn: Txn, _ dbi: MDB_dbi) throws -> [UInt8] {
        let c = try txn.cursor(dbi)
        defer { c.close() }
        return Array(try #require(try c.firstEntry()).0)
    }

    @Test func rule23_aStoreWrittenThroughTheLibraryPassesEveryCheck() throws {
        let store = try filledStore()
        defer { store.close() }
        #expect(try store.verify().problems == [])
        let kept = try store.env.read { txn in try TableChecks.trees(.all, store.trees).map { try TableChecks.stored(txn, store.trees, $0.name) } }
        #expect(kept.allSatisfy { $0 != nil })
    }

    @Test(arguments: ["sources", "devices", "subs", "priorities", "activity", "meta"])
    func rule23_aChangedByteInASmallTableIsNamed(_ table: String) throws {
        let store = try filledStore()
        defer { store.close() }
        try store.save([try Sample.quantity(bodyMass, value: 70, unit: HealthUnit("kg"), start: t0, end: t0, source: appA,
                                            device: Device(name: "Scale", manufacturer: "Acme"))])
        let dbi = try #require(TableChecks.trees(.all, store.trees).first { $0.name == table }?.dbi)
        // meta's first key is "activity_sequence"; its last byte is the sequence's highest.
        try flip(store, { _ in dbi }, key: { try firstKey($0, dbi) }, byte: 1)
        let found = try store.verify().problems
        #expect(found.first == "the \(table) table does not match its check: an entry's bytes changed on disk", "\(found)")
    }

    /// A type's identifier changed on disk would read as another type.
    @Test func rule23_aChangedTypeIdentifierIsNamed() throws {
        let store = try filledStore()
        defer { store.close() }
        try store.env.write { txn in
            let key = Array(heartRate.identifier.utf8)
            let id = Array(try #require(try txn.get(store.trees.types, key)))
            _ = try txn.delete(store.trees.types, key)
            _ = try txn.put(store.trees.types, Array(key.dropLast()) + [UInt8(ascii: "f")], id)
        }
        let found = try store.verify().problems
        #expect(found.first == "the types table does not match its check: an entry's bytes changed on disk", "\(found)")
    }

    @Test func rule23_aWriteAfterTheDamageDoesNotMakeItLookSound() throws {
        let store = try filledStore()
        defer { store.close() }
        try flip(store, \.sources, key: { try firstKey($0, store.trees.sources) })
        // A new source changes the names table: its check is not carried forward.
        try store.save([try stepSample(1, minute: 900, source: Source(bundleIdentifier: "com.example.c", name: "C"))])
        try store.save([try stepSample(1, minute: 901)])
        #expect(try store.verify().problems.contains("the sources table does not match its check: an entry's bytes changed on disk"))
        try store.env.write { txn in
            var v = Array(try #require(try txn.get(store.trees.meta, Schema.MetaKey.nextSource.bytes)))
            v[7] ^= 0x01
            _ = try txn.put(store.trees.meta, Schema.MetaKey.nextSource.bytes, v)
        }
        try store.save([try stepSample(1, minute: 902)])
        #expect(try store.verify().problems.contains("the meta table does not match its check: an entry's bytes changed on disk"))
    }

    @Test func rule23_aChangedStatisticsBucketIsNamedAndRefusedByAQuery() throws {
        let store = try filledStore()
        defer { store.close() }
        let day = Date(timeIntervalSinceReferenceDate: (t0.timeIntervalSinceReferenceDate / 86_400).rounded(.down) * 86_400)
        func daily() throws -> [Statistics] {
            try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: day, interval: .day,
                                           from: day, to: day.addingTimeInterval(86_400))
        }
        let before = try daily()
        #expect(before[0].sum != nil)
        // The day bucket of steps' samples, which have no UTC offset (the floating family).
        let id = try #require(store.knownTypeID(steps))
        let key = try store.env.read { txn -> [UInt8] in
            let c = try txn.cursor(store.trees.statistics.buckets)
            defer { c.close() }
            var e = try c.firstEntry()
            while let (k, _) = e {
                let floating = StatisticsKeys.bucket(type: id, family: StatisticsKeys.floating, level: .day, index: 0)
                if k.count == 15, Array(k[0..<7]) == Array(floating[0..<7]) { return Array(k) }
                e = try c.nextEntry()
            }
            return []
        }
        #expect(!key.isEmpty)
        try flip(store, \.statistics.buckets, key: { _ in key }, byte: 20)
        let found = try store.verify().problems
        #expect(found == ["statistics bucket under key \(key.withUnsafeBytes { EntryCheck.hex($0) }) does not match its check: its bytes changed on disk"])
        #expect(errorCode { _ = try daily() } == .storeCorrupt)
    }

    @Test func rule23_anOverlapMarkAndItsCoverageAreHeldToEachOther() throws {
        let store = try filledStore()
        defer { store.close() }
        let key = try store.env.read { txn in try firstKey(txn, store.trees.statistics.overlaps) }
        try store.env.write { txn in _ = try txn.delete(store.trees.statistics.overlaps, key) }
        let hex = key.withUnsafeBytes { EntryCheck.hex($0) }
        #expect(try store.verify().problems == ["the hour under key \(hex) has overlapping samples and no overlap mark"])
    }

    /// The tables that describe records are held to them: a sync
    /// identifier's key, a block of the zone map, a workout's links.
    @Test func rule23_syncKeysZonesAndLinksAreHeldToTheirRecords() throws {
        let store = try filledStore()
        defer { store.close() }
        try store.save([try stepSample(1, minute: 500, metadata: synced("scale", 1))])
        let workout = try Sample.workout(Workout(activityType: 37, duration: 600), start: t0, end: t0.addingTimeInterval(600), source: appA)
        try store.save([workout])
        let linked = try stepSample(3, minute: 600)
        try store.add([linked], to: workout.uuid)
        #expect(try store.verify().problems == [])
        let stepsID = try #require(store.knownTypeID(steps)), heartID = try #require(store.knownTypeID(heartRate))
        try store.env.write { txn in
            // The sync entry moved to another identifier.
            let (k, v) = try { let c = try txn.cursor(store.trees.sync); defer { c.close() }
                               let e = try #require(try c.firstEntry()); return (Array(e.0), Array(e.1)) }()
            _ = try txn.delete(store.trees.sync, k)
            _ = try txn.put(store.trees.sync, Array(k.dropLast()) + [UInt8(ascii: "X")], v)
            // Block 0 of steps narrowed to one instant.
            let zero = withUnsafeBytes(of: (0.0.bitPattern, 0.0.bitPattern)) { Array($0) }
            _ = try txn.put(store.trees.zones, ZoneMap.key(type: stepsID, block: 0), zero)
            // The linked step count named as a heart rate, its check made again
            // (so that what is held to the records is what is tested).
            let (lk, lv) = try { let c = try txn.cursor(store.trees.workoutLinks); defer { c.close() }
                                 let e = try #require(try c.firstEntry()); return (Array(e.0), Array(e.1.dropLast(EntryCheck.size))) }()
            var items = lv
            items[16] = UInt8(heartID >> 8)
            items[17] = UInt8(heartID & 0xFF)
            _ = try txn.put(store.trees.workoutLinks, lk, EntryCheck.sealed(lk, items))
        }
        let found = try store.verify().problems
        #expect(found.contains { $0.hasPrefix("the sync entry under key") && $0.contains("names another source or identifier than record") }, "\(found)")
        #expect(found.contains("\(steps.identifier): the zone map's block 0 does not hold the starts of its records"), "\(found)")
        #expect(found.contains { $0.contains("name sample \(linked.uuid) as of type \(heartID), and it is of type \(stepsID)") }, "\(found)")
    }

    /// A route may name a workout that is not saved, or was deleted (rule
    /// 32): its links are sound. Heart rates linked under a UUID that is
    /// no live workout are not.
    @Test func rule23_linksUnderNoLiveWorkoutHoldOnlyItsRoutes() throws {
        let store = try filledStore()
        defer { store.close() }
        let route = { (workout: UUID) in
            try Sample.route(WorkoutRoute(workout: workout, locations: [RouteLocation(timestamp: t0, latitude: 48.85, longitude: 2.35)]),
                             start: t0, end: t0, source: appA)
        }
        let gone = try Sample.workout(Workout(activityType: 37, duration: 60), start: t0, end: t0.addingTimeInterval(60), source: appA)
        try store.save([gone])
        try store.delete(uuids: [gone.uuid])
        try store.save([try route(gone.uuid), try route(UUID())])
        #expect(try store.verify().problems == [])
        let workout = try Sample.workout(Workout(activityType: 37, duration: 60), start: t0, end: t0.addingTimeInterval(60), source: appA)
        try store.save([workout])
        try store.add([try stepSample(7, minute: 700)], to: workout.uuid)
        let moved = UUID()
        try store.env.write { txn in
            let prefix = withUnsafeBytes(of: workout.uuid.uuid) { Array($0) }
            var chunk: ([UInt8], [UInt8])?
            try txn.forEach(store.trees.workoutLinks) { k, v in if Array(k.prefix(16)) == prefix { chunk = (Array(k), Array(v)) } }
            let (k, v) = try #require(chunk)
            _ = try txn.delete(store.trees.workoutLinks, k)
            // Moved with its check made again: held to the records, not to the check.
            let key = withUnsafeBytes(of: moved.uuid) { Array($0) } + k.suffix(16)
            _ = try txn.put(store.trees.workoutLinks, key, EntryCheck.sealed(key, Array(v.dropLast(EntryCheck.size))))
        }
        let found = try store.verify().problems
        #expect(found.count == 1 && found[0].contains("are of no live workout, and sample"), "\(found)")
        // A byte of a chunk changed on disk fails the chunk's check, and a read of the links.
        try store.env.write { txn in
            var chunk: ([UInt8], [UInt8])?
            try txn.forEach(store.trees.workoutLinks) { k, v in chunk = (Array(k), Array(v)) }
            var (k, v) = try #require(chunk)
            v[3] ^= 0x10
            _ = try txn.put(store.trees.workoutLinks, k, v)
        }
        #expect(try store.verify().problems.contains { $0.contains("do not match their check: their bytes changed on disk") })
    }

    /// Format 15 (rule 21): a format-14 store, whose statistics have no
    /// checks and whose tables have none, opens as the current format with
    /// its statistics rebuilt and its checks computed, and verifies clean.
    @Test func aFormat14StoreOpensWithItsChecks() throws {
        let dir = temporaryDirectory()
        var store = try filledStore(directory: dir)
        let workout = try Sample.workout(Workout(activityType: 37, duration: 60), start: t0, end: t0.addingTimeInterval(60), source: appA)
        try store.save([workout])
        let linked = try (0..<3).map { try stepSample(1, minute: 800 + $0) }
        try store.add(linked, to: workout.uuid)
        let day = Date(timeIntervalSinceReferenceDate: (t0.timeIntervalSinceReferenceDate / 86_400).rounded(.down) * 86_400)
        func hourly() throws -> [Double?] {
            try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: day, interval: .hour,
                                           from: day, to: day.addingTimeInterval(86_400)).map(\.sum)
        }
        let before = try hourly()
        // What a format-14 library left: entries without checks, no checks tree.
        try store.env.write { txn in
            for dbi in [store.trees.statistics.buckets, store.trees.statistics.cover, store.trees.statistics.overlaps,
                        store.trees.workoutLinks] {
                var entries: [([UInt8], [UInt8])] = []
                try txn.forEach(dbi) { k, v in entries.append((Array(k), Array(v.dropLast(EntryCheck.size)))) }
                for (k, v) in entries { _ = try txn.put(dbi, k, v) }
            }
            for (name, _) in TableChecks.trees(.all, store.trees) { _ = try txn.delete(store.trees.meta, TableChecks.key(name)) }
            try txn.setMetaU64(store.trees, .format, 14)
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try hourly() == before)
        #expect(Set(try store.associatedUUIDs(of: workout.uuid)) == Set(linked.map(\.uuid)))
        #expect(try store.verify().problems == [])
    }
}
