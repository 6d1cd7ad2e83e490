import FoundationEssentials
import TestSupport
@testable import OpenHealthKitCore
import Testing

/// Workout predicates (rule 35) and samples associated with a workout
/// (rule 36).
@Suite struct WorkoutPredicateTests {
    let distance = try! SampleType.named("DistanceWalkingRunning")

    private func unit(_ s: String) -> HealthUnit { try! HealthUnit(s) }

    private func workout(_ type: UInt, minutes: Double, km: Double? = nil, kcal: Double? = nil,
                         averageHeartRate: Double? = nil, activities: [WorkoutActivity] = []) throws -> Sample {
        let end = t0.addingTimeInterval(minutes * 60)
        var statistics: [WorkoutStatistics] = []
        if let km { statistics.append(WorkoutStatistics(type: distance, start: t0, end: end, sum: km * 1000)) }
        if let averageHeartRate {
            statistics.append(WorkoutStatistics(type: heartRate, start: t0, end: end, average: averageHeartRate / 60))
        }
        let w = Workout(activityType: type, duration: minutes * 60, totalEnergyBurned: kcal, totalDistance: km.map { $0 * 1000 },
                        activities: activities, statistics: statistics)
        return try Sample.workout(w, start: t0, end: end, source: appA)
    }

    private func matches(_ store: Store, _ p: SamplePredicate) throws -> Set<UUID> {
        Set(try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType, predicate: p)], anchor: nil).sampleUUIDs)
    }

    @Test func rule35_workoutPredicatesCompareTypeDurationTotalsAndStatistics() throws {
        let store = try makeStore()
        defer { store.close() }
        let run = try workout(37, minutes: 30, km: 5, kcal: 300, averageHeartRate: 150)
        let walk = try workout(52, minutes: 60, kcal: 200)  // no distance
        let ride = try workout(13, minutes: 90, km: 40, averageHeartRate: 120)
        _ = try store.save([run, walk, ride])

        #expect(try matches(store, .workoutType([37])) == [run.uuid])
        #expect(try matches(store, .workoutType([37, 52])) == [run.uuid, walk.uuid])
        #expect(try matches(store, .workoutDuration(.greaterThan, 45 * 60)) == [walk.uuid, ride.uuid])
        // Totals compare in any unit of their dimension; a workout without
        // the total does not match, whatever the operator.
        #expect(try matches(store, .workoutTotal(.distance, .greaterThanOrEqual, 5, unit("km"))) == [run.uuid, ride.uuid])
        #expect(try matches(store, .workoutTotal(.distance, .lessThan, 10, unit("mi"))) == [run.uuid])
        #expect(try matches(store, .not(.workoutTotal(.distance, .lessThan, 10, unit("mi")))) == [walk.uuid, ride.uuid])
        #expect(try matches(store, .workoutTotal(.energyBurned, .greaterThan, 250_000, unit("cal"))) == [run.uuid])
        // Statistics: the figure of the named type, in any unit of it.
        #expect(try matches(store, .workoutStatistic(.sum, distance.identifier, .greaterThan, 10_000, unit("m"))) == [ride.uuid])
        #expect(try matches(store, .workoutStatistic(.average, heartRate.identifier, .greaterThan, 140, unit("count/min")))
            == [run.uuid])
        #expect(try matches(store, .workoutStatistic(.maximum, heartRate.identifier, .greaterThan, 0, unit("count/min"))).isEmpty)

        // Each term reads back from its text, and the text from the term.
        let texts = ["workoutType IN {\"Running\", \"Walking\"}", "duration > 45 min", "totalDistance >= 5 km",
                     "sumQuantity.DistanceWalkingRunning > 10000 m", "averageQuantity.HeartRate > 140 count/min",
                     "ACTIVITY(workoutType == \"Cycling\" AND duration >= 3600)"]
        for text in texts {
            let p = try SamplePredicate(text, for: TypeCatalogue.workoutType)
            #expect(try SamplePredicate(p.description) == p, "\(text) → \(p)")
        }
        #expect(try SamplePredicate("workoutType == 37") == .workoutType([37]))
        #expect(try SamplePredicate("duration > 45 min") == .workoutDuration(.greaterThan, 2_700))
        #expect(try matches(store, SamplePredicate("totalDistance >= 5 km AND workoutType != \"Running\"")) == [ride.uuid])
    }

    @Test func rule35_anActivityPredicateMatchesOneActivityAsAWhole() throws {
        let store = try makeStore()
        defer { store.close() }
        let swim = WorkoutActivity(uuid: UUID(), activityType: 46, start: t0, end: t0.addingTimeInterval(600), duration: 600)
        let bike = WorkoutActivity(uuid: UUID(), activityType: 13, start: t0.addingTimeInterval(600), end: t0.addingTimeInterval(4_200),
                                   duration: 3_600)
        let open = WorkoutActivity(uuid: UUID(), activityType: 37, start: t0.addingTimeInterval(4_200), end: nil)
        let triathlon = try workout(82, minutes: 80, activities: [swim, bike, open])
        _ = try store.save([triathlon, try workout(37, minutes: 30)])

        #expect(try matches(store, .workoutActivity(.and([.workoutType([13]), .workoutDuration(.greaterThan, 1_800)]))) == [triathlon.uuid])
        // Swimming and over half an hour are true of two activities, never of one.
        #expect(try matches(store, .workoutActivity(.and([.workoutType([46]), .workoutDuration(.greaterThan, 1_800)]))).isEmpty)
        #expect(try matches(store, .workoutActivity(.startDate(.greaterThanOrEqual, t0.addingTimeInterval(600)))) == [triathlon.uuid])
        // An activity in progress has no end: an end-date term is false for it.
        #expect(try matches(store, .workoutActivity(.and([.workoutType([37]), .endDate(.greaterThan, t0)]))).isEmpty)
    }

    @Test func rule35_workoutTermsAreRefusedWhereTheyCannotApply() throws {
        let store = try makeStore()
        defer { store.close() }
        let refused: [(SampleType, SamplePredicate, OHKError.Code)] = [
            (steps, .workoutType([37]), .invalidPredicate),
            (heartRate, .workoutDuration(.greaterThan, 60), .invalidPredicate),
            (TypeCatalogue.workoutType, .workoutTotal(.distance, .greaterThan, 5, unit("kcal")), .incompatibleUnit),
            (TypeCatalogue.workoutType, .workoutStatistic(.sum, sleep.identifier, .greaterThan, 5, unit("count")), .invalidPredicate),
            (TypeCatalogue.workoutType, .workoutActivity(.workoutTotal(.distance, .greaterThan, 5, unit("km"))), .invalidPredicate),
            (TypeCatalogue.workoutType, .workoutActivity(.quantity(.greaterThan, 5, unit("count"))), .invalidPredicate),
            (TypeCatalogue.workoutType, .workoutDuration(.greaterThan, .nan), .invalidValue),
        ]
        for (type, p, code) in refused {
            #expect(errorCode { _ = try store.anchoredQuery([QueryDescriptor(type: type, predicate: p)], anchor: nil) } == code, "\(p)")
        }
        #expect(errorCode { _ = try SamplePredicate("workoutType == \"Sleeping\"") } == .invalidPredicate)
        #expect(errorCode { _ = try SamplePredicate("sumQuantity.SleepAnalysis > 1 count") } == .invalidPredicate)
        // A number too large for any activity type is an error, not a trap.
        #expect(errorCode { _ = try SamplePredicate("workoutType == 1e30") } == .invalidPredicate)
        #expect(errorCode { _ = try SamplePredicate("workoutType IN {37, 18446744073709551616}") } == .invalidPredicate)
    }

    @Test func rule35_aDeletedWorkoutIsReportedToAWorkoutPredicate() throws {
        let store = try makeStore()
        defer { store.close() }
        let run = try workout(37, minutes: 30, km: 5)
        _ = try store.save([run])
        let first = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType, predicate: .workoutType([37]))], anchor: nil)
        try store.delete(uuids: [run.uuid])
        // A deleted object keeps no workout fields: the term is unknown, so
        // the deletion is reported (rule 8).
        let after = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType, predicate: .workoutType([37]))],
                                            anchor: first.newAnchor)
        #expect(after.deletedUUIDs == [run.uuid])
    }
}

/// Samples associated with a workout (rule 36).
@Suite struct WorkoutAssociationTests {
    private func heart(_ bpm: Double, minute: Int) throws -> Sample {
        try Sample.quantity(heartRate, value: bpm, unit: HealthUnit("count/min"), start: t0.addingTimeInterval(Double(minute) * 60),
                            end: t0.addingTimeInterval(Double(minute) * 60), source: appA)
    }

    private func run() throws -> Sample {
        try Sample.workout(Workout(activityType: 37, duration: 1_800), start: t0, end: t0.addingTimeInterval(1_800), source: appA)
    }

    private func route(of workout: UUID) throws -> Sample {
        try Sample.route(WorkoutRoute(workout: workout, locations: [RouteLocation(timestamp: t0, latitude: 48.85, longitude: 2.35)]),
                         start: t0, end: t0, source: appA)
    }

    private func associated(_ store: Store, _ type: SampleType, _ workout: UUID, and more: SamplePredicate? = nil) throws -> Set<UUID> {
        let p: SamplePredicate = more.map { .and([.workout(workout), $0]) } ?? .workout(workout)
        return Set(try store.anchoredQuery([QueryDescriptor(type: type, predicate: p)], anchor: nil).sampleUUIDs)
    }

    @Test func rule36_samplesAddedToAWorkoutAreFoundThroughIt() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run(), other = try run()
        let saved = try (0..<4).map { try heart(120 + Double($0), minute: $0) }
        _ = try store.save([w, other] + saved)
        try store.associate([saved[0].uuid, saved[1].uuid], with: w.uuid)
        try store.associate([saved[1].uuid], with: w.uuid)  // again: no change
        try store.associate([saved[3].uuid], with: other.uuid)
        // Unsaved samples are saved by the same call.
        let fresh = try [heart(150, minute: 10), heart(155, minute: 11)]
        #expect(try store.add(fresh + [saved[2]], to: w.uuid) == [.saved, .saved, nil])
        let r = try route(of: w.uuid)
        _ = try store.save([r])

        let mine: Set = [saved[0].uuid, saved[1].uuid, saved[2].uuid, fresh[0].uuid, fresh[1].uuid]
        #expect(try associated(store, heartRate, w.uuid) == mine)
        #expect(try associated(store, heartRate, other.uuid) == [saved[3].uuid])
        // A workout's routes are its objects too; other types have none.
        #expect(try associated(store, TypeCatalogue.routeType, w.uuid) == [r.uuid])
        #expect(try associated(store, steps, w.uuid).isEmpty)
        // It combines with any other term, and reads back from its text.
        #expect(try associated(store, heartRate, w.uuid, and: .quantity(.greaterThanOrEqual, 150, HealthUnit("count/min")))
            == [fresh[0].uuid, fresh[1].uuid])
        let text = SamplePredicate.workout(w.uuid).description
        #expect(try SamplePredicate(text) == .workout(w.uuid))
        #expect(Set(try store.associatedUUIDs(of: w.uuid)) == mine.union([r.uuid]))
        // An association is an index, not a copy: heart rates are stored once.
        #expect(try store.anchoredQuery(type: heartRate, anchor: nil).samples.count == 6)
    }

    @Test func rule36_anAssociationNeedsALiveWorkoutAndLiveSamplesOfAQuantityOrCategoryType() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run(), gone = try run()
        let hr = try heart(120, minute: 0), deleted = try heart(121, minute: 1)
        let r = try route(of: w.uuid)
        _ = try store.save([w, gone, hr, deleted, r])
        try store.delete(uuids: [gone.uuid, deleted.uuid])
        #expect(errorCode { try store.associate([hr.uuid], with: UUID()) } == .notFound)
        #expect(errorCode { try store.associate([hr.uuid], with: gone.uuid) } == .notFound)
        #expect(errorCode { try store.associate([w.uuid], with: hr.uuid) } == .invalidArgument)
        #expect(errorCode { try store.associate([hr.uuid, UUID()], with: w.uuid) } == .notFound)
        #expect(errorCode { try store.associate([hr.uuid, deleted.uuid], with: w.uuid) } == .notFound)
        #expect(errorCode { try store.associate([hr.uuid, r.uuid], with: w.uuid) } == .invalidArgument)
        #expect(errorCode { try store.add([try heart(130, minute: 5)], to: gone.uuid) } == .notFound)
        // Each refused call is all or nothing: hr was associated by none.
        #expect(try store.associatedUUIDs(of: w.uuid) == [r.uuid])
        #expect(try store.anchoredQuery(type: heartRate, anchor: nil).samples.count == 1)
    }

    @Test func rule36_deletingAWorkoutEndsItsAssociationsAndKeepsItsSamples() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run()
        let hr = try (0..<3).map { try heart(120, minute: $0) }
        _ = try store.save([w])
        try store.add(hr, to: w.uuid)
        let p = [QueryDescriptor(type: heartRate, predicate: .workout(w.uuid))]
        let first = try store.anchoredQuery(p, anchor: nil)
        #expect(Set(first.sampleUUIDs) == Set(hr.map(\.uuid)))
        // A deleted associated sample is reported to the workout's query.
        try store.delete(uuids: [hr[0].uuid])
        #expect(try store.anchoredQuery(p, anchor: first.newAnchor).deletedUUIDs == [hr[0].uuid])
        // Deleting the workout leaves its samples, and ends the associations.
        try store.delete(uuids: [w.uuid])
        #expect(Set(try store.anchoredQuery(type: heartRate, anchor: nil).sampleUUIDs) == [hr[1].uuid, hr[2].uuid])
        #expect(try store.associatedUUIDs(of: w.uuid).isEmpty)
        #expect(try store.anchoredQuery(p, anchor: nil).samples.isEmpty)
        #expect(try store.verify().isClean)
    }

    @Test func rule36_aLiveQueryOfAWorkoutsSamplesGetsTheOnesAddedLater() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run()
        _ = try store.save([w])
        let got = Waiter()
        let seen = Locked<[UUID]>([])
        let query = AnchoredObjectQuery(type: heartRate, predicate: .workout(w.uuid), anchor: nil,
                                        resultsHandler: { _, _ in got.add("results") },
                                        updateHandler: { _, result in
                                            if case .success(let r) = result { seen.withLock { $0 += r.samples.map(\.uuid) } }
                                            got.add("update")
                                        })
        try store.execute(query)
        defer { query.stop() }
        #expect(got.wait { got.value("results") == 1 })
        let later = try heart(140, minute: 3)
        _ = try store.save([try heart(100, minute: 4)])  // not the workout's
        try store.add([later], to: w.uuid)
        #expect(got.wait { seen.withLock { $0 } == [later.uuid] })
    }

    /// A workout's links are kept in UUID order, once each, wherever a new
    /// association's samples fall among them; thousands are split in
    /// chunks, of which a later association rewrites only those it adds
    /// to, and deleting the workout removes them all.
    @Test func rule36_linksStayInOrderOnceEachHoweverTheyArrive() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run()
        _ = try store.save([w])
        func beat(_ n: UInt8, _ minute: Int) throws -> Sample {
            try Sample.quantity(heartRate, value: 100, unit: HealthUnit("count/min"), start: t0.addingTimeInterval(Double(minute) * 60),
                                end: t0.addingTimeInterval(Double(minute) * 60), source: appA,
                                uuid: UUID(uuid: (0x40, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n)))
        }
        let b = try (1...8).map { try beat(UInt8($0), $0) }
        _ = try store.save(b)
        let linked = { try store.associatedUUIDs(of: w.uuid) }
        try store.associate([b[4].uuid, b[2].uuid], with: w.uuid)
        #expect(try linked() == [b[2], b[4]].map(\.uuid))
        try store.associate([b[5].uuid, b[0].uuid, b[2].uuid, b[0].uuid], with: w.uuid)  // before them, one again, one twice
        #expect(try linked() == [b[0], b[2], b[4], b[5]].map(\.uuid))
        try store.associate([b[7].uuid, b[6].uuid, b[1].uuid], with: w.uuid)  // among and after them
        #expect(try linked() == [b[0], b[1], b[2], b[4], b[5], b[6], b[7]].map(\.uuid))

        let many = try (0..<3000).map { try heart(60 + Double($0 % 100), minute: 100 + $0) }
        let other = try run()
        _ = try store.save([other])
        _ = try store.save(many)
        try store.associate(many.map(\.uuid), with: other.uuid)
        let byUUID = { (u: [UUID]) in u.sorted { $0.uuidString < $1.uuidString } }
        #expect(try store.associatedUUIDs(of: other.uuid) == byUUID(many.map(\.uuid)))
        // 3,000 links are two chunks (and w's one); one more and one again
        // rewrite one of them.
        let chunks = { try store.env.read { txn in txn.entries(store.trees.workoutLinks) } }
        #expect(try chunks() == 3)
        try store.associate([b[3].uuid, many[0].uuid], with: other.uuid)
        #expect(try store.associatedUUIDs(of: other.uuid) == byUUID(many.map(\.uuid) + [b[3].uuid]))
        #expect(try chunks() == 3)
        // Deleting the workout ends its links, every chunk.
        try store.delete(uuids: [other.uuid])
        #expect(try store.associatedUUIDs(of: other.uuid).isEmpty)
        #expect(try chunks() == 1)
        #expect(try linked().count == 7)
    }

    /// `holds` says which UUIDs the store has a record of (live, or
    /// deleted and not yet pruned), whatever order they come in; then
    /// `add(stored:_:to:)` associates those and saves the rest, and a
    /// stored one deleted since is not found.
    @Test func rule36_heldSamplesAreAssociatedWithoutBeingGivenAgain() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run()
        let beats = try (0..<5).map { try heart(100 + Double($0), minute: $0) }
        _ = try store.save([w] + beats)
        try store.delete(uuids: [beats[3].uuid])
        let unknown = UUID()
        let asked = [beats[4].uuid, unknown, beats[0].uuid, beats[1].uuid, beats[3].uuid, beats[2].uuid]
        #expect(try store.holds(asked) == [true, false, true, true, true, true])
        let fresh = try heart(90, minute: 9)
        #expect(try store.add(stored: [beats[0].uuid, beats[1].uuid], [fresh, beats[2]], to: w.uuid).map { $0 == nil } == [false, true])
        #expect(try store.associatedUUIDs(of: w.uuid).sorted { $0.uuidString < $1.uuidString }
            == [beats[0], beats[1], beats[2], fresh].map(\.uuid).sorted { $0.uuidString < $1.uuidString })
        #expect(throws: OHKError.self) { try store.add(stored: [beats[3].uuid], [], to: w.uuid) }
        #expect(throws: OHKError.self) { try store.add(stored: [unknown], [], to: w.uuid) }
    }

    /// Random associations (batches of any size, in any order, with
    /// repeats, to several workouts, some deleted and replaced) leave
    /// each workout's links equal to the set a model keeps, in sorted
    /// chunks of at most `chunkItems` that do not overlap.
    @Test(arguments: [UInt64(7), 2026])
    func rule36_randomAssociationsMatchASetModel(seed: UInt64) throws {
        let store = try makeStore()
        defer { store.close() }
        var rng = Rng(state: seed)
        var beats: [Sample] = []
        for b in 0..<3 {
            let batch = try (0..<2000).map { try heart(60 + Double($0 % 90), minute: b * 2000 + $0) }
            _ = try store.save(batch)
            beats += batch
        }
        var workouts = try (0..<3).map { _ in try run() }
        _ = try store.save(workouts)
        var model = [Set<UUID>](repeating: [], count: workouts.count)
        for step in 0..<40 {
            let w = rng.int(workouts.count)
            if rng.chance(0.1) {
                try store.delete(uuids: [workouts[w].uuid])
                #expect(try store.associatedUUIDs(of: workouts[w].uuid).isEmpty)
                workouts[w] = try run()
                _ = try store.save([workouts[w]])
                model[w] = []
                continue
            }
            let size = [1, 3, 40, 700, 1500, 2500][rng.int(6)]
            let chosen = (0..<size).map { _ in beats[rng.int(beats.count)].uuid }
            try store.associate(chosen, with: workouts[w].uuid)
            model[w].formUnion(chosen)
            #expect(try store.associatedUUIDs(of: workouts[w].uuid) == model[w].sorted { $0.uuidString < $1.uuidString },
                    "seed \(seed), step \(step)")
        }
        for (i, wk) in workouts.enumerated() {
            #expect(try store.associatedUUIDs(of: wk.uuid) == model[i].sorted { $0.uuidString < $1.uuidString }, "seed \(seed)")
        }
        // The chunks: each within bounds, in order, not overlapping.
        try store.env.read { txn in
            var previous: (workout: [UInt8], last: [UInt8])?
            try txn.forEach(store.trees.workoutLinks) { k, raw in
                let v = try #require(EntryCheck.valid(k, raw), "each chunk holds its check (format 15)")
                let count = v.count / WorkoutLinks.itemSize
                #expect(count >= 1 && count <= WorkoutLinks.chunkItems && v.count % WorkoutLinks.itemSize == 0)
                #expect(Array(k[16..<32]) == Array(v[0..<16]))
                let first = Array(v[0..<16]), last = Array(v[(count - 1) * 18..<(count - 1) * 18 + 16])
                if let p = previous, p.workout == Array(k[0..<16]) { #expect(p.last.lexicographicallyPrecedes(first)) }
                previous = (Array(k[0..<16]), last)
            }
        }
    }

    /// Format 13 keeps a workout's links in sorted chunks. A
    /// format-12 store's links (a key each, the type id in the value, or
    /// no value from 0.11 and 0.12) are moved when it is opened: typed
    /// ones keep their type, untyped ones are found by a query of any
    /// type, as before, and the old tree is gone.
    @Test func rule36_aFormat12StoresLinksAreMovedWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let w = try run()
        _ = try store.save([w])
        let beats = try (0..<3).map { try heart(120 + Double($0), minute: $0) }
        _ = try store.save(beats)
        let r = try route(of: w.uuid)
        _ = try store.save([r])
        let heartID = try #require(store.knownTypeID(heartRate))
        // The layout 0.15 left: the first heart rate typed, the rest and the route untyped.
        try store.env.write { txn in
            try txn.empty(store.trees.workoutLinks)
            let old = try #require(try txn.openTree(WorkoutLinks.legacyTree, create: true))
            for (u, typeID) in [(beats[0].uuid, heartID), (beats[1].uuid, nil), (beats[2].uuid, nil), (r.uuid, nil)] as [(UUID, UInt16?)] {
                let key = withUnsafeBytes(of: w.uuid.uuid) { Array($0) } + withUnsafeBytes(of: u.uuid) { Array($0) }
                _ = try txn.put(old, key, typeID.map { withUnsafeBytes(of: $0.littleEndian) { Array($0) } } ?? [])
            }
            try txn.setMetaU64(store.trees, .format, 12)
        }
        #expect(try associated(store, heartRate, w.uuid).isEmpty)
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try store.env.read { txn in try txn.openTree(WorkoutLinks.legacyTree, create: false) } == nil)
        let types = try store.env.read { txn in
            var t: [UUID: UInt16] = [:]
            try WorkoutLinks.forEach(of: w.uuid, txn, store.trees) { t[$0] = $1 }
            return t
        }
        #expect(types == [beats[0].uuid: heartID, beats[1].uuid: WorkoutLinks.anyType, beats[2].uuid: WorkoutLinks.anyType,
                          r.uuid: WorkoutLinks.anyType])
        #expect(try associated(store, heartRate, w.uuid) == Set(beats.map(\.uuid)))
        #expect(try associated(store, TypeCatalogue.routeType, w.uuid) == [r.uuid])
        #expect(try associated(store, steps, w.uuid).isEmpty)
        // Associating a moved link again adds nothing; a new one joins them.
        let more = try heart(130, minute: 9)
        try store.add([beats[1], more], to: w.uuid)
        #expect(try store.associatedUUIDs(of: w.uuid).count == 5)
    }

    /// Format 10 added the associations; a format-9 store's routes are
    /// linked to their workouts when it is opened.
    @Test func aFormat9StoreLinksItsRoutesWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let w = try run()
        let r = try route(of: w.uuid)
        _ = try store.save([w, r])
        try store.env.write { txn in
            try txn.empty(store.trees.workoutLinks)
            try txn.setMetaU64(store.trees, .format, 9)
        }
        #expect(try store.associatedUUIDs(of: w.uuid).isEmpty)
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try store.associatedUUIDs(of: w.uuid) == [r.uuid])
    }
}
