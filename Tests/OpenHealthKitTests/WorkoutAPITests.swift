// HKWorkout and HKCorrelation (rules 31 and 33): the programs real apps
// contain, a workout list and a blood-pressure log.
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct WorkoutAPITests {
    private func samples(_ store: HKHealthStore, _ type: HKSampleType) async -> [HKSample] {
        let done = Transcript()
        let got = Shared<[HKSample]>([])
        store.execute(HKSampleQuery(sampleType: type, predicate: nil, limit: HKObjectQueryNoLimit,
                                    sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]) { _, s, _ in
            got.value = s ?? []
            done.record("done")
        })
        #expect(await done.wait(forLinesStartingWith: "done"))
        return got.value
    }

    @Test func rule31_aWorkoutListReadsWhatWasSaved() async throws {
        let store = try freshHealthStore()
        let start = day0, end = day0 + 45 * minute
        let run = HKWorkout(activityType: .running, start: start, end: end,
                            workoutEvents: [HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: start + 600, duration: 0), metadata: nil),
                                            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: start + 720, duration: 0), metadata: nil)],
                            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 420),
                            totalDistance: HKQuantity(unit: .mile(), doubleValue: 5), metadata: [HKMetadataKeyIndoorWorkout: false])
        let walk = HKWorkout(activityType: .walking, start: end + 3600, end: end + 7200)
        try await store.save([walk, run])
        let list = await samples(store, HKObjectType.workoutType())
        #expect(list.map(\.uuid) == [run.uuid, walk.uuid])
        let read = try #require(list.first as? HKWorkout)
        #expect(read.workoutActivityType == .running && read.duration == 45 * minute)
        #expect(read.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 420)
        #expect(abs(read.totalDistance!.doubleValue(for: .mile()) - 5) < 1e-9)
        #expect(read.workoutEvents?.map(\.type) == [.pause, .resume])
        #expect(read.workoutEvents?.first?.dateInterval.start == start + 600)
        #expect(read.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == false)
        #expect((list.last as? HKWorkout)?.workoutActivityType == .walking)
        #expect(HKWorkoutActivityType(rawValue: 37) == .running && HKWorkoutActivityType.other.rawValue == 3000)
    }

    /// A workout's statistics by quantity type, and its activities', as
    /// they were saved (an export's), in any unit of their dimension.
    @Test func rule31_aWorkoutsStatisticsAreThoseItWasSavedWith() async throws {
        let store = try freshHealthStore()
        let heart = try SampleType.named("HeartRate"), energy = try SampleType.named("ActiveEnergyBurned")
        let steps = try SampleType.named("StepCount")
        let end = day0 + 3600
        let w = Workout(activityType: 37, duration: 3600,
                        activities: [WorkoutActivity(uuid: UUID(), activityType: 37, start: day0, end: end,
                                                     statistics: [WorkoutStatistics(type: steps, start: day0, end: end, sum: 9000)])],
                        statistics: [WorkoutStatistics(type: heart, start: day0, end: end, average: 2.5, minimum: 1.5, maximum: 3),  // count/s
                                     WorkoutStatistics(type: energy, start: day0, end: end, sum: 500)])
        let saved = try OpenHealthKitCore.Sample.workout(w, start: day0, end: end,
                                                         source: OpenHealthKitCore.Source(bundleIdentifier: "com.example.watch", name: "Watch"))
        _ = try store.coreStore().save([saved])
        let read = try #require(await samples(store, HKObjectType.workoutType()).first as? HKWorkout)
        #expect(read.allStatistics.count == 2)
        let hr = try #require(read.statistics(for: HKQuantityType(.heartRate)))
        #expect(hr.averageQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 150)
        #expect(hr.maximumQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 180)
        #expect(hr.sumQuantity() == nil && hr.startDate == day0 && hr.endDate == end)
        #expect(read.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 500)
        #expect(read.statistics(for: HKQuantityType(.stepCount)) == nil)
        #expect(read.workoutActivities.first?.statistics(for: HKQuantityType(.stepCount))?.sumQuantity()?.doubleValue(for: .count()) == 9000)
        // A workout made by the program has none until saved with some.
        #expect(HKWorkout(activityType: .running, start: day0, end: end).allStatistics.isEmpty)
    }

    /// The blood-pressure log: a correlation saved with its two samples,
    /// read back with them; the samples are in their own types' queries.
    @Test func rule33_aBloodPressureLogSavesAndReadsItsCorrelations() async throws {
        let store = try freshHealthStore()
        let mmHg = HKUnit.millimeterOfMercury()
        let sys = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: 121),
                                   start: day0, end: day0)
        let dia = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: mmHg, doubleValue: 79),
                                   start: day0, end: day0)
        let type = try #require(HKObjectType.correlationType(forIdentifier: .bloodPressure))
        let reading = HKCorrelation(type: type, start: day0, end: day0, objects: [sys, dia])
        try await store.save(reading)

        let log = await samples(store, type)
        let read = try #require(log.first as? HKCorrelation)
        #expect(log.count == 1 && read.uuid == reading.uuid && read.correlationType == type)
        let values = read.objects.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: mmHg) }.sorted()
        #expect(values == [79, 121])
        #expect(read.objects(for: HKQuantityType(.bloodPressureSystolic)).map(\.uuid) == [sys.uuid])
        #expect(await samples(store, HKQuantityType(.bloodPressureDiastolic)).map(\.uuid) == [dia.uuid])

        // Members passed in the same call, or stored already, are saved once.
        let sys2 = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: 118),
                                    start: day0 + 60, end: day0 + 60)
        let dia2 = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: mmHg, doubleValue: 76),
                                    start: day0 + 60, end: day0 + 60)
        try await store.save([HKCorrelation(type: type, start: day0 + 60, end: day0 + 60, objects: [sys2, dia2]), sys2, dia2])
        try await store.save(HKCorrelation(type: type, start: day0, end: day0, objects: [sys, dia], metadata: ["note": "again"]))
        #expect(await samples(store, type).count == 3)
        #expect(await samples(store, HKQuantityType(.bloodPressureSystolic)).count == 2)

        // A systolic value saved alone is the only one no correlation holds.
        let alone = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: 130),
                                     start: day0 + 120, end: day0 + 120)
        try await store.save(alone)
        let free = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.bloodPressureSystolic), predicate: HKQuery.predicateForObjectsWithNoCorrelation())],
            sortDescriptors: []).result(for: store)
        #expect(free.map(\.uuid) == [alone.uuid])

        // A correlation the type does not allow fails the save, and writes nothing.
        let wrong = HKCorrelation(type: type, start: day0, end: day0, objects: [steps(10, at: 0), sys])
        await #expect(throws: HKError.self) { try await store.save(wrong) }
        #expect(await samples(store, HKQuantityType(.stepCount)).isEmpty)
    }

    /// The blood-pressure log's alert: HKCorrelationQuery finds the
    /// readings whose systolic value is high, among readings and meals.
    @Test func rule37_aCorrelationQueryFindsHighBloodPressureReadings() async throws {
        let store = try freshHealthStore()
        let mmHg = HKUnit.millimeterOfMercury()
        let type = try #require(HKObjectType.correlationType(forIdentifier: .bloodPressure))
        var readings: [HKCorrelation] = []
        for (i, (s, d)) in [(152.0, 96.0), (117.0, 75.0), (141.0, 72.0)].enumerated() {
            let at = day0 + Double(i) * 3600
            let sys = HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: s),
                                       start: at, end: at)
            let dia = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: mmHg, doubleValue: d),
                                       start: at, end: at)
            readings.append(HKCorrelation(type: type, start: at, end: at, objects: [sys, dia]))
        }
        try await store.save(readings)

        func run(_ predicate: NSPredicate?, _ members: [HKSampleType: NSPredicate]?) async -> (uuids: [UUID], error: (any Error)?) {
            let done = Transcript()
            let got = Shared<([UUID], (any Error)?)>(([], nil))
            store.execute(HKCorrelationQuery(type: type, predicate: predicate, samplePredicates: members) { _, found, error in
                got.value = ((found ?? []).map(\.uuid), error)
                done.record("done")
            })
            #expect(await done.wait(forLinesStartingWith: "done"))
            return got.value
        }
        let high = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: mmHg, doubleValue: 140))
        #expect(await run(nil, nil).uuids == readings.map(\.uuid))
        #expect(await run(nil, [HKQuantityType(.bloodPressureSystolic): high]).uuids == [readings[0].uuid, readings[2].uuid])
        #expect(await run(HKQuery.predicateForSamples(withStart: day0 + 1, end: nil),
                    [HKQuantityType(.bloodPressureSystolic): high]).uuids == [readings[2].uuid])
        let both = await run(nil, [HKQuantityType(.bloodPressureSystolic): high, HKQuantityType(.bloodPressureDiastolic): high])
        #expect(both.uuids.isEmpty && both.error == nil)
        // A key the correlation cannot hold is an invalid argument.
        let wrong = await run(nil, [HKQuantityType(.stepCount): NSPredicate(value: true)])
        #expect((wrong.error as? HKError)?.code == .errorInvalidArgument)
    }

    /// The workout list with routes: each workout's routes through
    /// `predicateForObjects(from:)`, their locations through
    /// `HKWorkoutRouteQuery`, in batches, in time order (rule 32).
    @Test func rule32_aWorkoutListWithRoutes() async throws {
        let store = try freshHealthStore()
        let core = try store.coreStore()
        let source = OpenHealthKitCore.Source(bundleIdentifier: "com.example.watch", name: "Watch")
        let run = try OpenHealthKitCore.Sample.workout(Workout(activityType: 37, duration: 1800), start: day0,
                                                       end: day0 + 1800, source: source)
        let walk = try OpenHealthKitCore.Sample.workout(Workout(activityType: 52, duration: 600), start: day0 + 3600,
                                                        end: day0 + 4200, source: source)
        // 2,500 points, one a second, saved out of order: three batches.
        let points = (0..<2500).reversed().map { i in
            RouteLocation(timestamp: day0 + Double(i), latitude: 48.85 + Double(i) * 1e-5, longitude: 2.35,
                          altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 3, course: nil, speed: 3)
        }
        let route = try OpenHealthKitCore.Sample.route(WorkoutRoute(workout: run.uuid, locations: points), start: day0,
                                                       end: day0 + 2499, source: source)
        try core.save([run, walk, route])

        let workouts = await samples(store, HKObjectType.workoutType()).compactMap { $0 as? HKWorkout }
        #expect(workouts.map(\.workoutActivityType) == [.running, .walking])
        let routes = await samples(store, HKSeriesType.workoutRoute())
        #expect(routes.count == 1)
        let done = Transcript()
        let found = Shared<[HKWorkoutRoute]>([])
        store.execute(HKSampleQuery(sampleType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workouts[0]),
                                    limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, s, _ in
            found.value = (s ?? []).compactMap { $0 as? HKWorkoutRoute }
            done.record("routes")
        })
        #expect(await done.wait(forLinesStartingWith: "routes"))
        let theRoute = try #require(found.value.first)
        #expect(found.value.count == 1 && theRoute.count == 2500)
        store.execute(HKSampleQuery(sampleType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workouts[1]),
                                    limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, s, _ in
            done.record("walk routes \((s ?? []).count)")
        })
        #expect(await done.wait(forLinesStartingWith: "walk routes"))
        #expect(done.lines.contains("walk routes 0"))

        // It combines with other predicates like any other (rule 36).
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [HKQuery.predicateForObjects(from: workouts[0]),
                                                                       HKQuery.predicateForSamples(withStart: day0, end: nil)])
        store.execute(HKSampleQuery(sampleType: HKSeriesType.workoutRoute(), predicate: both, limit: HKObjectQueryNoLimit,
                                    sortDescriptors: nil) { _, s, e in
            done.record("combined \((s ?? []).count) \(e == nil)")
        })
        #expect(await done.wait(forLinesStartingWith: "combined"))
        #expect(done.lines.contains("combined 1 true"))

        let batches = Shared<[Int]>([]), located = Shared<[CLLocation]>([])
        store.execute(HKWorkoutRouteQuery(route: theRoute) { _, locations, finished, error in
            located.value += locations ?? []
            batches.value.append(locations?.count ?? -1)
            if finished || error != nil { done.record("locations") }
        })
        #expect(await done.wait(forLinesStartingWith: "locations"))
        #expect(batches.value == [1000, 1000, 500])
        #expect(located.value.map(\.timestamp) == (0..<2500).map { day0 + Double($0) })
        #expect(located.value[0].course < 0 && located.value[0].speed == 3 && located.value[0].horizontalAccuracy == 4)
    }

    /// A workout's heart rates (rule 36): added with `add(_:to:)`, read
    /// back through `predicateForObjects(from:)`; workouts found by the
    /// predicates of rule 35.
    @Test func rule36_aWorkoutsHeartRatesAndTheWorkoutPredicates() async throws {
        let store = try freshHealthStore()
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let run = HKWorkout(activityType: .running, start: day0, end: day0 + 1800, workoutEvents: nil,
                            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300),
                            totalDistance: HKQuantity(unit: .meter(), doubleValue: 5000), metadata: nil)
        let walk = HKWorkout(activityType: .walking, start: day0 + 3600, end: day0 + 7200)
        try await store.save([run, walk])
        let heartRate = HKQuantityType(.heartRate)
        let beats = (0..<5).map { i in
            HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: 140 + Double(i)),
                             start: day0 + Double(i) * 60, end: day0 + Double(i) * 60)
        }
        try await store.addSamples(Array(beats[0..<3]), to: run)
        let done = Transcript()
        store.add(Array(beats[3...]), to: walk) { ok, error in done.record("added \(ok) \(error == nil)") }
        #expect(await done.wait(forLinesStartingWith: "added"))
        #expect(done.lines.contains("added true true"))

        func uuids(_ type: HKSampleType, _ predicate: NSPredicate) async -> Set<UUID> {
            let got = Shared<Set<UUID>>([])
            let finished = Transcript()
            store.execute(HKSampleQuery(sampleType: type, predicate: predicate, limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, s, _ in
                got.value = Set((s ?? []).map(\.uuid))
                finished.record("done")
            })
            _ = await finished.wait(forLinesStartingWith: "done")
            return got.value
        }
        #expect(await uuids(heartRate, HKQuery.predicateForObjects(from: run)) == Set(beats[0..<3].map(\.uuid)))
        #expect(await uuids(heartRate, HKQuery.predicateForObjects(from: walk)) == Set(beats[3...].map(\.uuid)))
        // The workout itself is unchanged by its samples.
        #expect(await uuids(HKObjectType.workoutType(), HKQuery.predicateForWorkouts(with: .greaterThan,
                                                                              totalDistance: HKQuantity(unit: .mile(), doubleValue: 3)))
            == [run.uuid])
        #expect(await uuids(HKObjectType.workoutType(), HKQuery.predicateForWorkouts(with: .walking)) == [walk.uuid])
        #expect(await uuids(HKObjectType.workoutType(), HKQuery.predicateForWorkouts(with: .greaterThanOrEqualTo, duration: 3600))
            == [walk.uuid])
        #expect(await uuids(HKObjectType.workoutType(), HKQuery.predicateForWorkouts(with: .lessThan,
                                                                              totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 500)))
            == [run.uuid])
    }

    /// HKWorkoutRouteBuilder (rule 32): pieces inserted in any order are
    /// saved as one route, sorted by time, of a saved workout, and found
    /// through it (rule 36); a finished or discarded builder takes nothing.
    @Test func rule32_theRouteBuilderSavesItsPiecesAsOneSortedRouteOfASavedWorkout() async throws {
        let store = try freshHealthStore()
        let run = HKWorkout(activityType: .running, start: day0, end: day0 + 600)
        try await store.save(run)
        func point(_ second: Double, latitude: Double = 48.85) -> CLLocation {
            CLLocation(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: 2.35), altitude: 35,
                       horizontalAccuracy: 5, verticalAccuracy: -1, course: -1, speed: 3, timestamp: day0 + second)
        }
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData([300, 400, 500].map { point($0) })
        try await builder.insertRouteData([0, 100, 200].map { point($0) })
        try await builder.addMetadata(["HKMetadataKeyRouteNote": "first"])
        try await builder.addMetadata(["HKMetadataKeyRouteNote": "second", "laps": 2])
        let route = try await builder.finishRoute(with: run, metadata: nil)
        #expect(route.count == 6 && route.startDate == day0 && route.endDate == day0 + 500)
        #expect(route.metadata?["HKMetadataKeyRouteNote"] as? String == "second")
        await #expect(throws: HKError.self) { try await builder.insertRouteData([point(600)]) }

        let done = Transcript()
        let found = Shared<[HKWorkoutRoute]>([])
        store.execute(HKSampleQuery(sampleType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: run),
                                    limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, s, _ in
            found.value = (s ?? []).compactMap { $0 as? HKWorkoutRoute }
            done.record("routes")
        })
        #expect(await done.wait(forLinesStartingWith: "routes"))
        #expect(found.value.map(\.uuid) == [route.uuid])
        let located = Shared<[CLLocation]>([])
        store.execute(HKWorkoutRouteQuery(route: found.value[0]) { _, locations, finished, _ in
            located.value += locations ?? []
            if finished { done.record("located") }
        })
        #expect(await done.wait(forLinesStartingWith: "located"))
        #expect(located.value.map(\.timestamp) == [0, 100, 200, 300, 400, 500].map { day0 + $0 })
        #expect(located.value[0].verticalAccuracy < 0 && located.value[0].course < 0 && located.value[0].speed == 3)

        // A workout that is not saved, a builder without locations, a bad
        // location (which ends the builder) and a discarded builder fail.
        let unsaved = HKWorkout(activityType: .walking, start: day0, end: day0 + 60)
        let other = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        await #expect(throws: HKError.self) { _ = try await other.finishRoute(with: run, metadata: nil) }
        try await other.insertRouteData([point(0)])
        await #expect(throws: HKError.self) { _ = try await other.finishRoute(with: unsaved, metadata: nil) }
        await #expect(throws: HKError.self) { try await other.insertRouteData([point(10, latitude: 91)]) }
        await #expect(throws: HKError.self) { _ = try await other.finishRoute(with: run, metadata: nil) }
        let dropped = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await dropped.insertRouteData([point(0)])
        dropped.discard()
        await #expect(throws: HKError.self) { _ = try await dropped.finishRoute(with: run, metadata: nil) }
        #expect(try store.coreStore().anchoredQuery(type: TypeCatalogue.routeType, anchor: nil).samples.count == 1)
    }
}
