import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Workouts (rule 31): samples of HKWorkoutTypeIdentifier that keep their
/// own fields and are change-tracked like every other sample.
@Suite struct WorkoutTests {
    let energy = try! SampleType.named("ActiveEnergyBurned")

    private func run(minutes: Double = 30, uuid: UUID = UUID(), metadata: [String: MetadataValue] = [:],
                     activityType: UInt = 37) throws -> Sample {
        let start = t0, end = t0.addingTimeInterval(minutes * 60)
        let workout = Workout(
            activityType: activityType, duration: minutes * 60 - 120, totalEnergyBurned: 312.5, totalDistance: 5_012,
            events: [WorkoutEvent(type: 2, start: t0.addingTimeInterval(420), end: t0.addingTimeInterval(420)),
                     WorkoutEvent(type: 1, start: t0.addingTimeInterval(300), end: t0.addingTimeInterval(300),
                                  metadata: ["why": .string("traffic light")]),
                     WorkoutEvent(type: 3, start: t0, end: t0.addingTimeInterval(600))],
            activities: [WorkoutActivity(uuid: UUID(), activityType: activityType, start: start, end: end, duration: minutes * 60 - 120,
                                         metadata: ["HKIndoorWorkout": .bool(false)],
                                         statistics: [WorkoutStatistics(type: heartRate, start: start, end: end,
                                                                        average: 2.4, minimum: 1.5, maximum: 2.9)])],
            statistics: [WorkoutStatistics(type: energy, start: start, end: end, sum: 312.5),
                         WorkoutStatistics(type: heartRate, start: start, end: end, average: 2.4, minimum: 1.5, maximum: 2.9)])
        return try Sample.workout(workout, start: start, end: end, source: appA, metadata: metadata, uuid: uuid,
                                  creationDate: end, utcOffset: 3_600)
    }

    @Test func rule31_aWorkoutKeepsItsFieldsAndIsChangeTracked() throws {
        let store = try makeStore()
        defer { store.close() }
        let w = try run()
        let steps1 = try stepSample(10)
        _ = try store.save([w, steps1])
        // The events are kept in date order.
        guard case .workout(let fields) = w.value else { Issue.record("not a workout"); return }
        #expect(fields.events.map(\.type) == [3, 1, 2])

        let first = try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil)
        #expect(Array(first.samples) == [w])
        #expect(first.samples[0].value == w.value && first.samples[0].metadata == w.metadata)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.map(\.uuid) == [steps1.uuid])

        // Predicates of every sample apply; deletion leaves a deleted object.
        let late = SamplePredicate.dateRange(start: t0.addingTimeInterval(-60), end: nil, options: .strictStartDate)
        #expect(try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType, predicate: late)], anchor: nil)
            .samples.count == 1)
        try store.delete(uuids: [w.uuid])
        let after = try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: first.newAnchor)
        #expect(after.samples.isEmpty && after.deletedUUIDs == [w.uuid])
        #expect(try store.verify().isClean)
    }

    @Test func rule31_aSyncIdentifierReplacesAWorkoutLikeAnySample() throws {
        let store = try makeStore()
        defer { store.close() }
        let v1 = try run(minutes: 30, metadata: synced("run-1", 1))
        let v2 = try run(minutes: 45, metadata: synced("run-1", 2))
        _ = try store.save([v1])
        #expect(try store.save([v2]) == [.replaced(v1.uuid)])
        let now = try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil)
        #expect(now.samples.map(\.uuid) == [v2.uuid] && now.deletedUUIDs == [v1.uuid])
    }

    @Test func rule31_aSaveRefusesWhatHealthKitRefusesInAWorkout() throws {
        let ok = Workout(activityType: 52, duration: 60)
        let bad: [(String, Workout)] = [
            ("no activity type 81", Workout(activityType: 81, duration: 60)),
            ("a negative duration", Workout(activityType: 52, duration: -1)),
            ("an infinite total", Workout(activityType: 52, duration: 60, totalDistance: .infinity)),
            ("event type 9", Workout(activityType: 52, duration: 60, events: [WorkoutEvent(type: 9, start: t0, end: t0)])),
            ("an event ending before it starts",
             Workout(activityType: 52, duration: 60, events: [WorkoutEvent(type: 3, start: t0, end: t0.addingTimeInterval(-1))])),
            ("statistics of a category type",
             Workout(activityType: 52, duration: 60, statistics: [WorkoutStatistics(type: sleep, start: t0, end: t0)])),
        ]
        _ = try Sample.workout(ok, start: t0, end: t0.addingTimeInterval(60), source: appA)
        for (what, w) in bad {
            #expect(throws: OHKError.self, "\(what)") { try Sample.workout(w, start: t0, end: t0.addingTimeInterval(60), source: appA) }
        }
        // Statistics of a store's own type: not HealthKit's, refused (a
        // workout's fields name HealthKit's types only).
        let store = try makeStore()
        defer { store.close() }
        let custom = try store.registerCustomType("com.example.power", kind: .quantity(canonicalUnit: HealthUnit("W"), aggregation: .discreteArithmetic))
        #expect(throws: OHKError.self) {
            try Sample.workout(Workout(activityType: 52, duration: 60, statistics: [WorkoutStatistics(type: custom, start: t0, end: t0)]),
                               start: t0, end: t0.addingTimeInterval(60), source: appA)
        }
        // Workouts, routes and correlations are HealthKit's kinds only.
        for kind in [SampleType.Kind.workout, .route, .correlation] {
            #expect(throws: OHKError.self) { try store.registerCustomType("com.example.\(kind)", kind: kind) }
        }
        // A workout type takes no quantity, and a quantity type no workout.
        #expect(throws: OHKError.self) {
            try Sample.quantity(TypeCatalogue.workoutType, value: 1, unit: HealthUnit("count"), start: t0, end: t0, source: appA)
        }
        #expect(throws: OHKError.self) {
            try SamplePredicate.categoryValue(.equal, 1).validate(for: TypeCatalogue.workoutType)
        }
    }

    @Test func workoutActivityTypesByNameAndNumber() {
        #expect(WorkoutActivityType.number("HKWorkoutActivityTypeRunning") == 37)
        #expect(WorkoutActivityType.number("Walking") == 52)
        #expect(WorkoutActivityType.number("3000") == 3000)
        #expect(WorkoutActivityType.number("81") == nil && WorkoutActivityType.number("Sleeping") == nil)
        #expect(TypeCatalogue.lookup("Workout") === TypeCatalogue.workoutType)
        #expect(TypeCatalogue.shortName(TypeCatalogue.workoutType) == "Workout")
    }

    /// Format 8 added the record payload; a format-7 store opens as the
    /// current format with nothing rewritten, and then takes workouts.
    @Test func aFormat7StoreOpensAsTheCurrentFormatWithItsRecordsUnchanged() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let old = try stepSample(1, metadata: ["note": .string("format 7")])
        _ = try store.save([old])
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, 7) }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let w = try run()
        _ = try store.save([w])
        #expect(Array(try store.anchoredQuery(type: steps, anchor: nil).samples) == [old])
        #expect(Array(try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil).samples) == [w])
        #expect(try store.verify().isClean)
    }
}

/// Workout routes (rule 32): samples of HKWorkoutRouteTypeIdentifier
/// holding their locations in time order and their workout's UUID.
@Suite struct WorkoutRouteTests {
    private func location(_ second: Double, _ lat: Double = 48.85, _ lon: Double = 2.35) -> RouteLocation {
        RouteLocation(timestamp: t0.addingTimeInterval(second), latitude: lat, longitude: lon, altitude: 35,
                      horizontalAccuracy: 4, verticalAccuracy: nil, course: 180, speed: 2.5)
    }

    @Test func rule32_aRouteKeepsItsLocationsInTimeOrderAndItsWorkout() throws {
        let store = try makeStore()
        defer { store.close() }
        let workout = try Sample.workout(Workout(activityType: 37, duration: 60), start: t0, end: t0.addingTimeInterval(60), source: appA)
        let route = try Sample.route(WorkoutRoute(workout: workout.uuid, locations: [location(30), location(0), location(60)]),
                                     start: t0, end: t0.addingTimeInterval(60), source: appA)
        guard case .route(let r) = route.value else { Issue.record("not a route"); return }
        #expect(r.locations.map(\.timestamp) == [0, 30, 60].map { t0.addingTimeInterval($0) })
        _ = try store.save([workout, route])
        let read = try store.anchoredQuery(type: TypeCatalogue.routeType, anchor: nil)
        #expect(Array(read.samples) == [route])
        guard case .route(let back) = read.samples[0].value else { Issue.record("not a route"); return }
        #expect(back.workout == workout.uuid && back.locations == r.locations)
        #expect(back.locations[0].verticalAccuracy == nil && back.locations[0].course == 180)

        // Deleting the workout leaves its route (HealthKit documents no
        // cascade; developers observe none).
        try store.delete(uuids: [workout.uuid])
        #expect(try store.anchoredQuery(type: TypeCatalogue.routeType, anchor: nil).samples.map(\.uuid) == [route.uuid])
        #expect(try store.verify().isClean)
    }

    @Test func rule32_aSaveRefusesARouteOffTheEarthOrEmpty() throws {
        let bad: [(String, [RouteLocation])] = [
            ("no location", []),
            ("a latitude of 91°", [location(0, 91, 0)]),
            ("a longitude of -181°", [location(0, 0, -181)]),
            ("an infinite altitude", [RouteLocation(timestamp: t0, latitude: 0, longitude: 0, altitude: .infinity)]),
        ]
        for (what, locations) in bad {
            #expect(throws: OHKError.self, "\(what)") {
                try Sample.route(WorkoutRoute(workout: nil, locations: locations), start: t0, end: t0, source: appA)
            }
        }
        _ = try Sample.route(WorkoutRoute(workout: nil, locations: [location(0, -90, 180)]), start: t0, end: t0, source: appA)
    }
}
