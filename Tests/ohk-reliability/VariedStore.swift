import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// The store the byte flips damage: every kind of object the store keeps
/// and every kind of LMDB page, so that a flip can land in any of them.
extension Child {
    static let heartRate = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")
    static let bodyMass = try! SampleType.named("HKQuantityTypeIdentifierBodyMass")
    static let sleep = try! SampleType.named("HKCategoryTypeIdentifierSleepAnalysis")
    static let bloodPressure = try! SampleType.named("HKCorrelationTypeIdentifierBloodPressure")
    static let systolic = try! SampleType.named("HKQuantityTypeIdentifierBloodPressureSystolic")
    static let diastolic = try! SampleType.named("HKQuantityTypeIdentifierBloodPressureDiastolic")
    static let allergy = try! SampleType.named("HKClinicalTypeIdentifierAllergyRecord")
    static let watch = Source(bundleIdentifier: "com.apple.health.watch", name: "Watch", version: "11.2")
    static let garmin = Device(name: "Forerunner", manufacturer: "Garmin", model: "955", hardwareVersion: "1",
                               firmwareVersion: "20.26", softwareVersion: "20.26", localIdentifier: "fr955")

    /// Fills `directory` with:
    /// - step counts in 60 batches, some with 6 KB of metadata (branch and
    ///   overflow pages), 600 heart rates that start together (duplicates
    ///   in a sub-tree), deletions before and after a prune (a free list);
    /// - samples of a second source and a device, in three UTC offsets with
    ///   creation dates, and that source first in the steps' priority;
    /// - a sync identifier replaced by a higher version, and sleep stages;
    /// - a workout with events, a route, a heartbeat series and heart
    ///   rates associated with it; a blood-pressure correlation;
    /// - an ECG, an audiogram with clamping ranges, a clinical record;
    /// - activity summaries, characteristics and a durable subscription;
    /// - the maintained statistics buckets all of these write.
    static func fillVariedStore(_ directory: String) throws {
        let store = try Store(directory: directory)
        defer { store.close() }
        try fillLMDBPages(store)
        try fillSources(store)
        try fillWorkout(store)
        try fillOtherKinds(store)
        let sub = DurableSubscription(name: "flips", descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try store.execute(sub)
        sub.stop()
    }

    private static let t0 = Date(timeIntervalSinceReferenceDate: 700_000_000)

    private static func fillLMDBPages(_ store: Store) throws {
        let big: [String: MetadataValue] = ["Notes": .string(String(repeating: "n", count: 6000))]
        for b in 0..<60 { try store.save(batch(seed: 9, number: b, metadata: b % 10 == 0 ? big : [:])) }
        try store.save((0..<600).map { i in
            try Sample.quantity(heartRate, value: Double(50 + i % 90), unit: HealthUnit("count/min"), start: t0,
                                end: t0, source: source, uuid: uuid(seed: 10, index: UInt64(i)))
        })
        for b in stride(from: 0, to: 60, by: 4) { try store.delete(uuids: uuids(seed: 9, batch: b)) }
        try store.pruneAll()
        for b in stride(from: 1, to: 60, by: 8) { try store.delete(uuids: uuids(seed: 9, batch: b)) }
    }

    private static func fillSources(_ store: Store) throws {
        let offsets = [3600, -5 * 3600, 5 * 3600 + 1800]
        try store.save((0..<90).map { i in
            let start = t0.addingTimeInterval(Double(i) * 1800)
            return try Sample.quantity(steps, value: Double(100 + i), unit: HealthUnit("count"), start: start,
                                       end: start.addingTimeInterval(900), source: watch, device: garmin,
                                       uuid: uuid(seed: 11, index: UInt64(i)), creationDate: start.addingTimeInterval(960),
                                       utcOffset: offsets[i % 3])
        })
        try store.setSourcePriority([watch.bundleIdentifier], for: steps)
        // Version 1, then version 2 of the same sync identifier: the first is replaced.
        for version in [1.0, 2.0] {
            try store.save([try Sample.quantity(bodyMass, value: 70 + version, unit: HealthUnit("kg"), start: t0, end: t0,
                                                source: watch, metadata: ["HKMetadataKeySyncIdentifier": .string("scale-1"),
                                                                          "HKMetadataKeySyncVersion": .number(version)],
                                                uuid: uuid(seed: 12, index: UInt64(version)))])
        }
        try store.save((0..<6).map { i in
            let start = t0.addingTimeInterval(Double(i) * 3600)
            return try Sample.category(sleep, value: 3 + i % 3, start: start, end: start.addingTimeInterval(3000),
                                       source: watch, uuid: uuid(seed: 13, index: UInt64(i)), utcOffset: 3600)
        })
    }

    private static func fillWorkout(_ store: Store) throws {
        let workout = uuid(seed: 14, index: 0)
        let end = t0.addingTimeInterval(1800)
        let events = [WorkoutEvent(type: 1, start: t0.addingTimeInterval(300), end: t0.addingTimeInterval(300)),
                      WorkoutEvent(type: 2, start: t0.addingTimeInterval(360), end: t0.addingTimeInterval(360))]
        try store.save([try Sample.workout(Workout(activityType: 37, duration: 1800, totalEnergyBurned: 310, totalDistance: 5012,
                                                   events: events),
                                           start: t0, end: end, source: watch, device: garmin,
                                           metadata: ["HKIndoorWorkout": .bool(false)], uuid: workout, utcOffset: 3600)])
        let locations = (0..<120).map { (i: Int) -> RouteLocation in
            let at = t0.addingTimeInterval(Double(i) * 15)
            let latitude = 48.85 + Double(i) * 1e-4, altitude = 35 + Double(i % 7)
            return RouteLocation(timestamp: at, latitude: latitude, longitude: 2.35, altitude: altitude)
        }
        _ = try store.saveRoute(try Sample.route(WorkoutRoute(workout: workout, locations: locations), start: t0, end: end,
                                                 source: watch, uuid: uuid(seed: 14, index: 1)), of: workout)
        let rates = try (0..<30).map { (i: Int) -> Sample in
            let at = t0.addingTimeInterval(Double(i) * 60)
            return try Sample.quantity(heartRate, value: Double(120 + i), unit: HealthUnit("count/min"), start: at, end: at,
                                       source: watch, uuid: uuid(seed: 14, index: UInt64(100 + i)))
        }
        try store.add(rates, to: workout)
        let beats = (0..<50).map { HeartbeatSeries.Beat(timeSinceStart: Double($0) * 0.8, precededByGap: $0 == 25) }
        try store.save([try Sample.heartbeatSeries(HeartbeatSeries(beats: beats), start: t0, end: t0.addingTimeInterval(40),
                                                   source: watch, uuid: uuid(seed: 14, index: 2))])
    }

    private static func fillOtherKinds(_ store: Store) throws {
        let members = [try Sample.quantity(systolic, value: 121, unit: HealthUnit("mmHg"), start: t0, end: t0, source: watch,
                                           uuid: uuid(seed: 15, index: 1)),
                       try Sample.quantity(diastolic, value: 79, unit: HealthUnit("mmHg"), start: t0, end: t0, source: watch,
                                           uuid: uuid(seed: 15, index: 2))]
        _ = try store.saveCorrelation(try Sample.correlation(bloodPressure, members: members.map(\.uuid), start: t0, end: t0,
                                                             source: watch, uuid: uuid(seed: 15, index: 0)),
                                      members: members)
        let voltages = (0..<1500).map { sin(Double($0) / 40) * 400 }
        try store.save([try Sample.electrocardiogram(Electrocardiogram(classification: .sinusRhythm, symptomsStatus: .none,
                                                                       averageHeartRate: 64, samplingFrequency: 512,
                                                                       voltages: voltages),
                                                     start: t0, end: t0.addingTimeInterval(30), source: watch,
                                                     uuid: uuid(seed: 16, index: 0))])
        let points = [Audiogram.Point(frequency: 500, left: .init(sensitivity: 20, masked: true),
                                      right: .init(sensitivity: 25, clampingRange: .init(lowerBound: 0, upperBound: 90))),
                      Audiogram.Point(frequency: 4000, left: .init(sensitivity: 45), right: .init(sensitivity: 50))]
        try store.save([try Sample.audiogram(Audiogram(points: points), start: t0, end: t0, source: watch,
                                             uuid: uuid(seed: 16, index: 1))])
        let fhir = ClinicalRecord.FHIRResource(resourceType: "AllergyIntolerance", identifier: "A1", fhirVersion: "4.0.1",
                                               data: Array(#"{"resourceType":"AllergyIntolerance","id":"A1"}"#.utf8))
        try store.save([try Sample.clinicalRecord(allergy, ClinicalRecord(displayName: "Pollen", fhirResource: fhir),
                                                  start: t0, end: t0, source: watch, uuid: uuid(seed: 16, index: 2))])
        try store.saveActivitySummaries(try (1...20).map { d in
            ActivitySummary(day: try .init(year: 2023, month: 3, day: d), activeEnergyBurned: Double(300 + d),
                            activeEnergyBurnedGoal: 500, appleExerciseTime: Double(d), appleStandHours: Double(d % 12))
        })
        try store.setCharacteristics(Characteristics(dateOfBirth: try .init(year: 1990, month: 7, day: 14), biologicalSex: .female,
                                                     bloodType: .oPositive))
    }
}
