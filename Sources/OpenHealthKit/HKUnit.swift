import Foundation
import OpenHealthKitCore

/// HealthKit's SI prefixes, with HealthKit's raw values.
public enum HKMetricPrefix: Int, Sendable {
    case none = 0, pico, nano, micro, milli, centi, deci, deca, hecto, kilo, mega, giga, tera, femto

    var symbol: String {
        switch self {
        case .none: ""
        case .femto: "f"
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        }
    }
}

/// A unit, parsed from HealthKit's unit strings (`count/min`, `kg`,
/// `mg/dL`, `mmol<180.1558800000541>/L`). Units are immutable and
/// compare equal when they are the same unit, however they were spelled.
public final class HKUnit: NSObject, @unchecked Sendable {
    let core: HealthUnit

    init(core: HealthUnit) {
        self.core = core
        super.init()
    }

    /// Parses a unit string. A string HealthKit cannot parse raises an
    /// exception in HealthKit, which ends the program; here it stops the
    /// program with the parser's message. Use `init(validating:)` for
    /// text that comes from outside the program.
    public convenience init(from string: String) {
        do {
            try self.init(validating: string)
        } catch {
            preconditionFailure("HKUnit(from: \"\(string)\"): \(error.localizedDescription)")
        }
    }

    /// Parses a unit string; throws `HKError(.errorInvalidArgument)` for
    /// one that is not a unit (not in HealthKit: Linux's addition).
    public convenience init(validating string: String) throws(HKError) {
        let core = try hk { try HealthUnit(string) }
        self.init(core: core)
    }

    /// The unit's canonical string; it parses back to an equal unit.
    public var unitString: String { core.description }
    public override var description: String { unitString }
    public override var hash: Int { core.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKUnit)?.core == core }

    /// True for the unit of pure numbers with no name (`count()` is not null).
    public func isNull() -> Bool { unitString == "1" }

    public func unitMultiplied(by unit: HKUnit) -> HKUnit { HKUnit(from: "(\(self))*(\(unit))") }
    public func unitDivided(by unit: HKUnit) -> HKUnit { HKUnit(from: "(\(self))/(\(unit))") }
    public func unitRaised(toPower power: Int) -> HKUnit { HKUnit(from: "(\(self))^\(power)") }
    public func reciprocal() -> HKUnit { HKUnit(from: "1/(\(self))") }

    private static func prefixed(_ prefix: HKMetricPrefix, _ symbol: String) -> HKUnit {
        HKUnit(from: prefix.symbol + symbol)
    }

    // Mass
    public class func gram() -> HKUnit { HKUnit(from: "g") }
    public class func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "g") }
    public class func ounce() -> HKUnit { HKUnit(from: "oz") }
    public class func pound() -> HKUnit { HKUnit(from: "lb") }
    public class func stone() -> HKUnit { HKUnit(from: "st") }
    public class func moleUnit(with prefix: HKMetricPrefix, molarMass: Double) -> HKUnit {
        HKUnit(from: "\(prefix.symbol)mol<\(molarMass)>")
    }
    public class func moleUnit(withMolarMass molarMass: Double) -> HKUnit { moleUnit(with: .none, molarMass: molarMass) }
    // Length
    public class func meter() -> HKUnit { HKUnit(from: "m") }
    public class func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "m") }
    public class func inch() -> HKUnit { HKUnit(from: "in") }
    public class func foot() -> HKUnit { HKUnit(from: "ft") }
    public class func yard() -> HKUnit { HKUnit(from: "yd") }
    public class func mile() -> HKUnit { HKUnit(from: "mi") }
    // Volume
    public class func liter() -> HKUnit { HKUnit(from: "L") }
    public class func literUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "L") }
    public class func fluidOunceUS() -> HKUnit { HKUnit(from: "fl_oz_us") }
    public class func fluidOunceImperial() -> HKUnit { HKUnit(from: "fl_oz_imp") }
    public class func pintUS() -> HKUnit { HKUnit(from: "pt_us") }
    public class func pintImperial() -> HKUnit { HKUnit(from: "pt_imp") }
    public class func cupUS() -> HKUnit { HKUnit(from: "cup_us") }
    public class func cupImperial() -> HKUnit { HKUnit(from: "cup_imp") }
    // Pressure
    public class func pascal() -> HKUnit { HKUnit(from: "Pa") }
    public class func pascalUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "Pa") }
    public class func millimeterOfMercury() -> HKUnit { HKUnit(from: "mmHg") }
    public class func centimeterOfWater() -> HKUnit { HKUnit(from: "cmAq") }
    public class func atmosphere() -> HKUnit { HKUnit(from: "atm") }
    public class func inchesOfMercury() -> HKUnit { HKUnit(from: "inHg") }
    public class func decibelAWeightedSoundPressureLevel() -> HKUnit { HKUnit(from: "dBASPL") }
    // Time
    public class func second() -> HKUnit { HKUnit(from: "s") }
    public class func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "s") }
    public class func minute() -> HKUnit { HKUnit(from: "min") }
    public class func hour() -> HKUnit { HKUnit(from: "hr") }
    public class func day() -> HKUnit { HKUnit(from: "d") }
    // Energy
    public class func joule() -> HKUnit { HKUnit(from: "J") }
    public class func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "J") }
    public class func kilocalorie() -> HKUnit { HKUnit(from: "kcal") }
    public class func smallCalorie() -> HKUnit { HKUnit(from: "cal") }
    public class func largeCalorie() -> HKUnit { HKUnit(from: "Cal") }
    // Temperature
    public class func degreeCelsius() -> HKUnit { HKUnit(from: "degC") }
    public class func degreeFahrenheit() -> HKUnit { HKUnit(from: "degF") }
    public class func kelvin() -> HKUnit { HKUnit(from: "K") }
    // Others
    public class func siemen() -> HKUnit { HKUnit(from: "S") }
    public class func siemenUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "S") }
    public class func internationalUnit() -> HKUnit { HKUnit(from: "IU") }
    public class func count() -> HKUnit { HKUnit(from: "count") }
    public class func percent() -> HKUnit { HKUnit(from: "%") }
    public class func decibelHearingLevel() -> HKUnit { HKUnit(from: "dBHL") }
    public class func hertz() -> HKUnit { HKUnit(from: "Hz") }
    public class func hertzUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "Hz") }
    public class func volt() -> HKUnit { HKUnit(from: "V") }
    public class func voltUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "V") }
    public class func watt() -> HKUnit { HKUnit(from: "W") }
    public class func wattUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "W") }
    public class func diopter() -> HKUnit { HKUnit(from: "D") }
    public class func radianAngle() -> HKUnit { HKUnit(from: "rad") }
    public class func radianAngleUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "rad") }
    public class func degreeAngle() -> HKUnit { HKUnit(from: "deg") }
    public class func lux() -> HKUnit { HKUnit(from: "lx") }
    public class func luxUnit(with prefix: HKMetricPrefix) -> HKUnit { prefixed(prefix, "lx") }
    public class func appleEffortScore() -> HKUnit { HKUnit(from: "appleEffortScore") }
}

/// An amount in a unit. Comparing or converting across incompatible
/// units is a programming error in HealthKit (an exception); here it
/// stops the program with a message.
public final class HKQuantity: NSObject, @unchecked Sendable {
    let unit: HKUnit
    let value: Double

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
        super.init()
    }

    public func `is`(compatibleWith unit: HKUnit) -> Bool { self.unit.core.isCompatible(with: unit.core) }

    /// The amount in `unit`, which must be compatible.
    public func doubleValue(for unit: HKUnit) -> Double {
        if unit === self.unit || unit.core == self.unit.core { return value }
        do {
            return try self.unit.core.convert(value, to: unit.core)
        } catch {
            preconditionFailure("HKQuantity.doubleValue(for:): \(HKError(core: error).localizedDescription)")
        }
    }

    /// Orders two quantities of compatible units.
    public func compare(_ other: HKQuantity) -> ComparisonResult {
        let a = value, b = other.doubleValue(for: unit)
        return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    public override var description: String { "\(value) \(unit)" }
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? HKQuantity, self.is(compatibleWith: o.unit) else { return false }
        return compare(o) == .orderedSame
    }
    public override var hash: Int { unit.core.dimension.hashValue }
}
