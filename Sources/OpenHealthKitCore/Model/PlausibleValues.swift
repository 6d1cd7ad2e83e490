/// The values a save accepts for each standard quantity type, in its
/// canonical unit (rule 56 of docs/semantics.md): what no measurement of
/// that kind can be, not what is unusual. A store's own types take any
/// finite value.
enum PlausibleValues {
    /// Bounds by catalogue index (quantity types come first); nil: any
    /// finite value.
    static let byIndex: [ClosedRange<Double>?] = quantityCatalogue.map { suffix, unit, _ in
        bounds(suffix, canonicalUnit: unit)
    }

    /// The range of `type`'s values, nil when any finite value will do.
    static func range(of type: SampleType) -> ClosedRange<Double>? {
        let i = type.catalogueIndex
        return i >= 0 && i < byIndex.count ? byIndex[i] : nil
    }

    /// Upper bounds beyond any human record, with room to spare: the
    /// heaviest person weighed 635 kg, the tallest was 2.72 m, the fastest
    /// heart rate recorded is about 600 per minute, the highest blood
    /// pressure 370 mmHg, and a body below 10 °C or above 50 °C is not a
    /// living one.
    private static let upper: [String: ClosedRange<Double>] = [
        "BodyMass": 0...1_000, "LeanBodyMass": 0...1_000,  // kg
        "Height": 0...3, "WaistCircumference": 0...5,  // m
        "BodyMassIndex": 0...250,
        "HeartRate": 0...10, "RestingHeartRate": 0...600, "WalkingHeartRateAverage": 0...600,  // count/s, count/min
        "HeartRateRecoveryOneMinute": 0...600,
        "RespiratoryRate": 0...(200.0 / 60),  // count/s
        "BloodPressureSystolic": 0...500, "BloodPressureDiastolic": 0...500,  // mmHg
        "BodyTemperature": 10...50, "BasalBodyTemperature": 10...50, "AppleSleepingWristTemperature": 10...50,  // degC
    ]

    private static func bounds(_ suffix: String, canonicalUnit: String) -> ClosedRange<Double>? {
        if let r = upper[suffix] { return r }
        switch canonicalUnit {
        case "degC", "dBASPL": return nil  // water below 0 °C; sound below 0 dB SPL
        case "%": return 0...1  // HealthKit's percent unit: 1 is 100 %
        default: return 0...Double.greatestFiniteMagnitude  // counts, lengths, masses, energies, times: never negative
        }
    }
}
