import Foundation
import OpenHealthKitCore

extension HKHealthStore {
    /// The unit each type is usually shown in, as HealthKit's
    /// `preferredUnits(for:)` gives it: count/min for heart rates, km or mi
    /// for distances, kg or lb for body mass, degC or degF for
    /// temperatures, by the measurement system of the user's locale
    /// (`Locale.current`: `LC_ALL`, `LC_MEASUREMENT` or `LANG` on Linux).
    /// HealthKit follows the Health app's settings; there are none here.
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        try preferredUnitsNow(quantityTypes, usesUSUnits: Locale.current.measurementSystem == .us)
    }

    public func preferredUnits(for quantityTypes: Set<HKQuantityType>,
                               completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void) {
        let us = Locale.current.measurementSystem == .us
        HKQuery.onBackground {
            do { completion(try self.preferredUnitsNow(quantityTypes, usesUSUnits: us), nil) }
            catch { completion([:], error) }
        }
    }

    func preferredUnitsNow(_ types: Set<HKQuantityType>, usesUSUnits: Bool) throws(HKError) -> [HKQuantityType: HKUnit] {
        let store = try core()
        var units: [HKQuantityType: HKUnit] = [:]
        for t in types {
            units[t] = HKUnit(core: Self.preferredUnit(try t.resolve(in: store), usesUSUnits: usesUSUnits))
        }
        return units
    }

    /// The type's display unit (metric: `SampleType.displayUnit`), in US
    /// customary units where that locale shows them.
    static func preferredUnit(_ type: SampleType, usesUSUnits: Bool) -> HealthUnit {
        let metric = type.displayUnit ?? type.canonicalUnit!
        guard usesUSUnits else { return metric }
        let us: [String: String] = ["kg": "lb", "km": "mi", "cm": "in", "degC": "degF", "km/hr": "mi/hr", "mL": "fl_oz_us"]
        return us[metric.description].flatMap { try? HealthUnit($0) } ?? metric
    }
}
