import FoundationEssentials
import Testing
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload
import TestSupport

/// Rule 66: the sample JSON `ohk changes` prints is what `POST /changes`
/// takes, for every kind, so a feed read from one store uploads to
/// another unchanged and reads back equal.
@Suite struct UploadKindsTests {
    let phone = Source(bundleIdentifier: "com.example.phone", name: "Phone", version: "17.2")
    let relay = Grant(person: "p", app: "com.example.sync", read: .all, write: .all, relay: true)
    let t0 = Date(timeIntervalSince1970: 1_709_280_000.25)

    func type(_ name: String) -> SampleType { TypeCatalogue.lookup(name)! }

    /// One sample of every kind, with numbers that print long (1/3, 0.1 + 0.2),
    /// members before their correlation.
    func everyKind() throws -> [Sample] {
        let t = t0
        let device = Device(name: "Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch7,1")
        let meta: [String: MetadataValue] = ["HKMetadataKeySyncIdentifier": .string("a"), "HKMetadataKeySyncVersion": .number(3),
                                             "note": .string("é ✓"), "ratio": .number(0.1 + 0.2), "flag": .bool(true)]
        let steps = try Sample.quantity(type("StepCount"), value: 1.0 / 3, unit: HealthUnit("count"), start: t, end: t + 60,
                                        source: phone, device: device, metadata: meta, creationDate: t + 61, utcOffset: 3600)
        let sleep = try Sample.category(type("SleepAnalysis"), value: 3, start: t, end: t + 3600, source: phone)
        let systolic = try Sample.quantity(type("BloodPressureSystolic"), value: 120, unit: HealthUnit("mmHg"), start: t, end: t,
                                           source: phone)
        let diastolic = try Sample.quantity(type("BloodPressureDiastolic"), value: 80.5, unit: HealthUnit("mmHg"), start: t, end: t,
                                            source: phone)
        let pressure = try Sample.correlation(type("HKCorrelationTypeIdentifierBloodPressure"), members: [systolic.uuid, diastolic.uuid],
                                              start: t, end: t, source: phone)
        let heart = type("HeartRate")
        let stats = [WorkoutStatistics(type: heart, start: t, end: t + 1800, average: 2.3456789012345678, minimum: 1.5, maximum: 3)]
        let workout = Workout(activityType: 37, duration: 1799.123456789, totalEnergyBurned: 0.1 + 0.2, totalDistance: 5000.0 / 3,
                              events: [WorkoutEvent(type: 1, start: t + 600, end: t + 600, metadata: ["why": .string("light")]),
                                       WorkoutEvent(type: 3, start: t + 900, end: t + 960)],
                              activities: [WorkoutActivity(uuid: RandomUUID.make(), activityType: 37, start: t, end: t + 1800,
                                                           duration: 1799.5, metadata: ["leg": .number(1)], statistics: stats)],
                              statistics: stats)
        let run = try Sample.workout(workout, start: t, end: t + 1800, source: phone, device: device)
        let route = try Sample.route(WorkoutRoute(workout: run.uuid, locations: [
            RouteLocation(timestamp: t, latitude: 37.331820000000001, longitude: -122.03118, altitude: 1.0 / 3,
                          horizontalAccuracy: 5, course: nil, speed: 2.7),
            RouteLocation(timestamp: t + 1.000001, latitude: 37.3319, longitude: -122.0312),
        ]), start: t, end: t + 2, source: phone)
        let beats = try Sample.heartbeatSeries(HeartbeatSeries(beats: [.init(timeSinceStart: 1.0 / 3),
                                                                       .init(timeSinceStart: 1.1, precededByGap: true)]),
                                               start: t, end: t + 2, source: phone)
        let hearing = try Sample.audiogram(Audiogram(points: [
            .init(frequency: 1000, left: .init(sensitivity: 20, masked: true, clampingRange: .init(upperBound: 100)),
                  right: .init(sensitivity: 25.5)),
            .init(frequency: 500, right: .init(sensitivity: 10, clampingRange: .init(lowerBound: -10, upperBound: 90))),
        ]), start: t, end: t, source: phone)
        let ecg = try Sample.electrocardiogram(Electrocardiogram(classification: .sinusRhythm, symptomsStatus: .present,
                                                                 averageHeartRate: 71.25, samplingFrequency: 512,
                                                                 voltages: [1.0 / 3, -2.0 / 7, 0.1 + 0.2]),
                                               start: t, end: t + 1, source: phone)
        let record = try Sample.clinicalRecord(type("ImmunizationRecord"), ClinicalRecord(
            displayName: "Flu", fhirResource: .init(resourceType: "Immunization", identifier: "T1", fhirVersion: "4.0.1",
                                                    sourceURL: "https://fhir.example.org/Immunization/T1",
                                                    data: Array("{ \"resourceType\": \"Immunization\",\n \"note\": \"é\" }".utf8))),
            start: t, end: t, source: phone)
        return [steps, sleep, systolic, diastolic, pressure, run, route, beats, hearing, ecg, record]
    }

    /// The samples of `types` in `store`, by UUID.
    func stored(_ store: Store, _ types: [SampleType]) throws -> [UUID: Sample] {
        var out: [UUID: Sample] = [:]
        for t in types { for s in try store.anchoredQuery(type: t, anchor: nil).samples { out[s.uuid] = s } }
        return out
    }

    func body(_ samples: [String]) -> [UInt8] {
        Array(("{\"samples\":[" + samples.joined(separator: ",") + "],\"deleted\":[]}").utf8)
    }

    @Test func rule66_everyKindUploadsAsItIsPrintedAndReadsBackEqual() throws {
        let from = try Store(directory: temporaryDirectory()), to = try Store(directory: temporaryDirectory())
        defer { from.close(); to.close() }
        let samples = try everyKind()
        try from.save(samples)
        let types = samples.map(\.type)
        let held = try stored(from, types)
        // Printed as `ohk changes` prints them, in the order they were saved.
        let printed = samples.map { JSONObject.sample(held[$0.uuid]!).closed }
        let decoded = try UploadDecoding.samples(try UploadDecoding.body(body(printed)), grant: relay, store: to)
        let first = try to.apply(samples: decoded, deletions: [])
        #expect(first.added == samples.count)
        let copied = try stored(to, types)
        #expect(copied.count == samples.count)
        for s in samples {
            #expect(copied[s.uuid] == held[s.uuid], "\(s.type.identifier) differs after the upload")
            #expect(JSONObject.sample(copied[s.uuid]!).closed == JSONObject.sample(held[s.uuid]!).closed)
        }
        // Sent again, the same text is the same content: nothing changes.
        let again = try to.apply(samples: try UploadDecoding.samples(try UploadDecoding.body(body(printed)), grant: relay, store: to),
                                 deletions: [])
        #expect(again.alreadyStored == samples.count && again.added == 0)
    }

    /// Each kind's field that is wrong is named in the 400, and nothing is
    /// decoded.
    @Test func rule66_aWrongFieldOfAKindIsA400NamingIt() throws {
        let store = try Store(directory: temporaryDirectory())
        defer { store.close() }
        let printed = try everyKind().map { s -> (String, String) in (s.type.identifier, JSONObject.sample(s).closed) }
        func sample(_ id: String) -> String { printed.first { $0.0 == id }!.1 }
        let run = sample(TypeCatalogue.workoutType.identifier), route = sample(TypeCatalogue.routeType.identifier)
        let ecg = sample(TypeCatalogue.electrocardiogramType.identifier)
        let cases: [(String, String)] = [
            (run.replacingFirst(#""workout":{"#, with: #""ignored":{"#), "samples[0].workout"),
            (run.replacingFirst(#""type":"Pause""#, with: #""type":"Nap""#), "samples[0].workout.events[0].type"),
            (run.replacingFirst(#""activityType":"Running""#, with: #""activityType":"Flying""#), "samples[0].workout.activityType"),
            (run.replacingFirst(#""unit":"count/s""#, with: #""unit":"kg""#), "samples[0].workout.activities[0].statistics[0].unit"),
            (route.replacingFirst(#""locations":[["#, with: #""locations":[[1],["#), "samples[0].route.locations[0]"),
            (route.replacingFirst(#""route":{"workout":""#, with: #""route":{"workout":"x"#), "samples[0].route.workout"),
            (ecg.replacingFirst(#""sinusRhythm""#, with: #""normal""#), "samples[0].electrocardiogram.classification"),
            (sample("HKCorrelationTypeIdentifierBloodPressure").replacingFirst(#""members":[""#, with: #""members":["x"#),
             "samples[0].members[0]"),
            (sample("HKDataTypeIdentifierHeartbeatSeries").replacingFirst(#",true]"#, with: #",1]"#), "samples[0].beats[1]"),
        ]
        for (text, field) in cases {
            #expect(text != "", "a case's text did not change")
            do {
                _ = try UploadDecoding.samples(try UploadDecoding.body(body([text])), grant: relay, store: store)
                Issue.record("\(field): accepted")
            } catch {
                #expect(error.httpStatus.code == 400)
                #expect(error.field?.hasPrefix(field) == true, "\(field): \(error.field ?? "no field"), \(error.message)")
            }
        }
    }
}

extension String {
    /// The text with the first `target` replaced; empty when there is none
    /// (so that a case whose text no longer matches fails loudly).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return "" }
        var out = self
        out.replaceSubrange(r, with: replacement)
        return out
    }
}
