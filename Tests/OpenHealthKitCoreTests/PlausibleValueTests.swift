import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rule 56: values no measurement of their type can have are refused at
/// save, with a message in the type's display unit; the edges pass.
@Suite struct PlausibleValueTests {
    private let t = Date(timeIntervalSinceReferenceDate: 730_944_000)
    private let source = Source(bundleIdentifier: "com.example.scale", name: "Scale")

    private func sample(_ name: String, _ value: Double, _ unit: String) throws -> Sample {
        try Sample.quantity(try SampleType.named(name), value: value, unit: HealthUnit(unit), start: t, end: t, source: source)
    }

    private func refusal(_ name: String, _ value: Double, _ unit: String) -> String? {
        do {
            _ = try sample(name, value, unit)
            return nil
        } catch let e as OHKError {
            return e.code == .invalidValue ? e.message : "wrong code \(e.code)"
        } catch {
            return "\(error)"
        }
    }

    @Test func rule56_implausibleValuesAreRefusedWithTheirRange() throws {
        // The three: steps −5, a heart rate of −3 bpm, a body mass of 5,000 kg.
        #expect(refusal("StepCount", -5, "count") == "StepCount -5 count is out of range: StepCount is never negative")
        #expect(refusal("HeartRate", -3, "count/min")?.contains("lies from 0 to 600 count/min") == true)
        #expect(refusal("BodyMass", 5000, "kg") == "BodyMass 5000 kg is out of range: BodyMass lies from 0 to 1000 kg")
        #expect(refusal("BodyMass", 2_300, "lb") != nil)  // 1,043 kg, in any unit
        #expect(refusal("OxygenSaturation", 1.5, "%") != nil)  // HealthKit's percent: 1 is 100 %
        #expect(refusal("DistanceWalkingRunning", -0.1, "km") != nil)
        #expect(refusal("BodyTemperature", 5, "degC") != nil && refusal("BodyTemperature", 130, "degF") != nil)
        // The edges and ordinary values pass; temperatures and sound levels may be below zero.
        for (name, value, unit) in [("StepCount", 0, "count"), ("HeartRate", 600, "count/min"), ("BodyMass", 1_000, "kg"),
                                    ("OxygenSaturation", 1, "%"), ("BodyTemperature", 98.6, "degF"),
                                    ("WaterTemperature", -1.5, "degC"), ("EnvironmentalAudioExposure", -3, "dBASPL"),
                                    ("Height", 272, "cm")] as [(String, Double, String)] {
            #expect(refusal(name, value, unit) == nil, "\(name) \(value) \(unit)")
        }
        // A store's own quantity types take any finite value.
        let store = try makeStore()
        defer { store.close() }
        let own = try store.registerCustomType("org.example.Balance",
                                               kind: .quantity(canonicalUnit: HealthUnit("count"), aggregation: .cumulative))
        try store.save([try Sample.quantity(own, value: -40, unit: HealthUnit("count"), start: t, end: t, source: source)])
        #expect(try store.anchoredQuery([QueryDescriptor(type: own)], anchor: nil).samples.count == 1)
    }
}
