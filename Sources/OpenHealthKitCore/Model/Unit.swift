/// A HealthKit unit: parsed from HealthKit's unit strings (`count/min`, `kg`,
/// `mmol<180.15588000005408>/L`, `kcal/(kg*hr)`, `mL/min·kg`, `m^2`), with a
/// canonical string form that parses back to an equal unit, a dimension, and
/// conversion between units of the same dimension.
///
/// Grammar (`*`, `.` and `·` bind tighter than `/`; each `/` divides by the
/// whole product after it, so `mL/min·kg` is `mL/(min·kg)`):
///
///     unit    := product ('/' product)*
///     product := factor (('*' | '.' | '·') factor)*
///     factor  := ('(' unit ')' | '1' | atom) ('^' integer)?
///     atom    := prefix? symbol ('<' molar-mass '>')?
public struct HealthUnit: Hashable, Sendable, CustomStringConvertible {
    /// One named atom (prefix included) raised to a non-zero power.
    struct Factor: Hashable, Sendable {
        var atom: String
        var exponent: Int
    }

    let factors: [Factor]
    /// Dimension exponents over the base dimensions of `UnitAtoms`.
    public let dimension: UnitDimension
    /// Multiply a value in this unit by `scale` to get base units.
    let scale: Double
    /// Added before scaling (only for a lone degC / degF).
    let offset: Double

    /// HealthKit's spelling of units people write otherwise, by atom.
    private static let spellings: [String: String] = [
        "lbs": "lb", "pound": "lb", "pounds": "lb", "kgs": "kg", "kilogram": "kg", "kilograms": "kg",
        "gram": "g", "grams": "g", "stone": "st", "miles": "mi", "mile": "mi", "metre": "m", "metres": "m",
        "meter": "m", "meters": "m", "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km",
        "feet": "ft", "foot": "ft", "inch": "in", "inches": "in", "yard": "yd", "yards": "yd",
        "h": "hr", "hrs": "hr", "hour": "hr", "hours": "hr", "mins": "min", "minute": "min", "minutes": "min",
        "sec": "s", "secs": "s", "second": "s", "seconds": "s", "beats": "count", "beat": "count", "steps": "count",
        "step": "count", "kcals": "kcal", "calories": "kcal", "celsius": "degC", "fahrenheit": "degF",
        "litre": "L", "litres": "L", "liter": "L", "liters": "L", "l": "L", "ml": "mL",
    ]
    /// Whole units people write otherwise.
    private static let wholeSpellings = ["bpm": "count/min", "kph": "km/hr", "kmh": "km/hr", "mph": "mi/hr",
                                         "spm": "count/min", "percent": "%"]

    /// "; write km/hr" when `atom` has a HealthKit spelling, the unit
    /// rewritten with it.
    static func spelling(_ atom: String, in source: String) -> String {
        if let whole = wholeSpellings[source.lowercased()] { return "; write \(whole)" }
        guard let better = spellings[atom] ?? spellings[atom.lowercased()] else { return "" }
        // The atom replaced where it stands whole (the 'h' of 'km/h', not of 'mph').
        var out = "", token = ""
        func flush() { out += token == atom ? better : token; token = "" }
        for c in source {
            if c.isLetter || c.isNumber || c == "°" { token.append(c) } else { flush(); out.append(c) }
        }
        flush()
        return "; write \(out)"
    }

    public init(_ text: String) throws {
        guard text.utf8.count <= UnitLimits.textBytes else {
            throw OHKError(.invalidUnit, "unit string of \(text.utf8.count) bytes is longer than the limit of \(UnitLimits.textBytes)")
        }
        var parser = UnitParser(text)
        let factors = try parser.parseAll()
        try self.init(factors: factors, source: text)
    }

    init(factors raw: [Factor], source: String) throws {
        var merged: [Factor] = []
        for f in raw {
            if let i = merged.firstIndex(where: { $0.atom == f.atom }) {
                merged[i].exponent += f.exponent
            } else {
                merged.append(f)
            }
        }
        merged.removeAll { $0.exponent == 0 }
        var exponents = [Int](repeating: 0, count: 16)
        var scale = 1.0
        var offset = 0.0
        for f in merged {
            guard let atom = UnitAtoms.resolve(f.atom) else {
                throw OHKError(.invalidUnit, "unknown unit '\(f.atom)' in '\(source)'" + Self.spelling(f.atom, in: source))
            }
            guard f.exponent.magnitude <= UInt(UnitLimits.exponent) else {
                throw OHKError(.invalidUnit, "'\(f.atom)' is raised to the power \(f.exponent) in '\(source)'; powers go up to \(UnitLimits.exponent)")
            }
            for lane in 0..<16 { exponents[lane] += Int(atom.dimension.exponents[lane]) * f.exponent }
            scale *= UnitAtoms.power(atom.scale, f.exponent)
            if atom.offset != 0 {
                guard merged.count == 1, f.exponent == 1 else {
                    throw OHKError(.invalidUnit, "'\(f.atom)' cannot be combined with other units in '\(source)'")
                }
                offset = atom.offset
            }
        }
        // Dimensions are kept as 8-bit powers, which must not wrap, and a
        // scale must be a finite, non-zero number.
        guard exponents.allSatisfy({ $0.magnitude <= UInt(Int8.max) }), scale.isFinite, scale != 0 else {
            throw OHKError(.invalidUnit, "'\(source)' is too large or too small a unit")
        }
        var dimension = UnitDimension.none
        for lane in 0..<16 { dimension.exponents[lane] = Int8(exponents[lane]) }
        self.factors = merged
        self.dimension = dimension
        self.scale = scale
        self.offset = offset
    }

    /// The canonical text: numerator factors joined by `*`, then `/` and the
    /// denominator (in parentheses when it has several factors).
    public var description: String {
        func render(_ f: Factor, _ e: Int) -> String { e == 1 ? f.atom : "\(f.atom)^\(e)" }
        let num = factors.filter { $0.exponent > 0 }.map { render($0, $0.exponent) }
        let den = factors.filter { $0.exponent < 0 }.map { render($0, -$0.exponent) }
        if num.isEmpty && den.isEmpty { return "1" }
        if num.isEmpty { return factors.map { render($0, $0.exponent) }.joined(separator: "*") }
        let top = num.joined(separator: "*")
        switch den.count {
        case 0: return top
        case 1: return top + "/" + den[0]
        default: return top + "/(" + den.joined(separator: "*") + ")"
        }
    }

    public func isCompatible(with other: HealthUnit) -> Bool { dimension == other.dimension }

    /// Converts `value` from this unit to `target`; throws when the
    /// dimensions differ.
    public func convert(_ value: Double, to target: HealthUnit) throws -> Double {
        guard isCompatible(with: target) else {
            throw OHKError(.incompatibleUnit, "cannot convert '\(self)' to '\(target)': different dimensions")
        }
        // Same dimension, scale and offset: the same unit, whatever its spelling.
        if scale == target.scale && offset == target.offset { return value }
        let converted = temperature(value, to: target) ?? ((value + offset) * scale) / target.scale - target.offset
        guard converted.isFinite || !value.isFinite else {
            throw OHKError(.invalidValue, "\(value) \(self) is out of range in '\(target)'")
        }
        return converted
    }

    /// `value` in `target` when one of the two is degF and the other degC or
    /// K, through the map's own small coefficients: through kelvin (273.15,
    /// 459.67 and 5/9, none of them a double) 32 °F came out as 5.7e-14 °C
    /// and 0 °C as 31.999999999999943 °F. Each coefficient here is an exact
    /// double, so a fixed point (32 °F, 212 °F, −40) converts exactly and
    /// the rest within an ulp or two. Nil for any other pair.
    private func temperature(_ value: Double, to target: HealthUnit) -> Double? {
        guard factors.count == 1, target.factors.count == 1, factors[0].exponent == 1, target.factors[0].exponent == 1 else {
            return nil
        }
        switch (factors[0].atom, target.factors[0].atom) {
        case ("degC", "degF"): return (value * 9 + 160) / 5        // F = 9C/5 + 32
        case ("degF", "degC"): return (value * 5 - 160) / 9        // C = 5(F − 32)/9
        case ("K", "degF"): return (value * 900 - 229_835) / 500   // F = 9K/5 − 459.67
        case ("degF", "K"): return (value * 500 + 229_835) / 900   // K = 5(F + 459.67)/9
        default: return nil                                        // degC and K: one addition already
        }
    }

    /// The same atoms with the same powers, in any order: `kcal/(kg/hr)`
    /// prints as `kcal*hr/kg`, which must read back equal (found by fuzzing).
    public static func == (a: HealthUnit, b: HealthUnit) -> Bool {
        a.factors == b.factors || (a.factors.count == b.factors.count && a.factors.allSatisfy(b.factors.contains))
    }

    public func hash(into h: inout Hasher) {
        // Order-independent, as == is: a sum of the factors' own hashes.
        h.combine(factors.reduce(0) { $0 &+ $1.hashValue })
    }
}

/// Powers of the base dimensions; two units convert iff their dimensions match.
public struct UnitDimension: Hashable, Sendable {
    var exponents: SIMD16<Int8>
    static let none = UnitDimension(exponents: .zero)

    static func base(_ index: Int) -> UnitDimension {
        var e = SIMD16<Int8>.zero
        e[index] = 1
        return UnitDimension(exponents: e)
    }

    func adding(_ other: UnitDimension, times n: Int) -> UnitDimension {
        UnitDimension(exponents: exponents &+ other.exponents &* Int8(truncatingIfNeeded: n))
    }

    // One vector compare: the synthesized == compared the 16 lanes one by
    // one (2 % of a bulk save, which checks every sample's unit).
    public static func == (a: UnitDimension, b: UnitDimension) -> Bool { all(a.exponents .== b.exponents) }
    public func hash(into h: inout Hasher) { h.combine(exponents) }
}

/// What a unit string may hold (docs/predicates.md, "Limits"): HealthKit's
/// own units are a few characters with powers of 1 to 3, and these bounds
/// keep hostile strings to a bounded time and stack.
public enum UnitLimits {
    /// Bytes of a unit string (UTF-8).
    public static let textBytes = 256
    /// Parentheses nested in each other.
    public static let nesting = 16
    /// The largest power of a unit, written (`m^3`) or as it results
    /// (`(m^2)^3`, `m*m*m`).
    public static let exponent = 32
}

/// Recursive-descent parser for the grammar documented on `HealthUnit`.
struct UnitParser {
    let chars: [Character]
    let text: String
    var i = 0
    var depth = 0

    init(_ text: String) {
        self.text = text
        self.chars = Array(text)
    }

    mutating func parseAll() throws -> [HealthUnit.Factor] {
        guard !chars.isEmpty else { throw error("empty unit string") }
        let f = try parseUnit()
        skipSpaces()
        guard i == chars.count else { throw error("unexpected '\(chars[i])'") }
        return f
    }

    private func error(_ what: String) -> OHKError {
        OHKError(.invalidUnit, "malformed unit '\(text)' at position \(i): \(what)")
    }

    private mutating func skipSpaces() { while i < chars.count, chars[i] == " " { i += 1 } }

    private mutating func parseUnit() throws -> [HealthUnit.Factor] {
        var out = try parseProduct()
        skipSpaces()
        while i < chars.count, chars[i] == "/" {
            i += 1
            out += try parseProduct().map { .init(atom: $0.atom, exponent: -$0.exponent) }
            skipSpaces()
        }
        return out
    }

    private mutating func parseProduct() throws -> [HealthUnit.Factor] {
        var out = try parseFactor()
        skipSpaces()
        while i < chars.count, chars[i] == "*" || chars[i] == "." || chars[i] == "·" {
            i += 1
            out += try parseFactor()
            skipSpaces()
        }
        return out
    }

    private mutating func parseFactor() throws -> [HealthUnit.Factor] {
        skipSpaces()
        guard i < chars.count else { throw error("expected a unit") }
        var inner: [HealthUnit.Factor]
        if chars[i] == "(" {
            guard depth < UnitLimits.nesting else { throw error("parentheses nested deeper than \(UnitLimits.nesting)") }
            i += 1
            depth += 1
            inner = try parseUnit()
            depth -= 1
            skipSpaces()
            guard i < chars.count, chars[i] == ")" else { throw error("expected ')'") }
            i += 1
        } else if chars[i] == "1" {
            i += 1
            inner = []
        } else {
            inner = [.init(atom: try parseAtom(), exponent: 1)]
        }
        if i < chars.count, chars[i] == "^" {
            i += 1
            let e = try parseInteger()
            inner = try inner.map { f in
                // Both are at most the limit, so the product cannot overflow.
                let power = f.exponent * e
                guard power.magnitude <= UInt(UnitLimits.exponent) else {
                    throw error("'\(f.atom)' raised to the power \(power); powers go up to \(UnitLimits.exponent)")
                }
                return .init(atom: f.atom, exponent: power)
            }
        }
        return inner
    }

    private mutating func parseAtom() throws -> String {
        let start = i
        while i < chars.count, chars[i].isLetter || chars[i] == "%" || chars[i] == "_" { i += 1 }
        guard i > start else { throw error("expected a unit name") }
        var atom = String(chars[start..<i])
        if i < chars.count, chars[i] == "<" {
            let open = i
            i += 1
            let numStart = i
            while i < chars.count, chars[i] != ">" { i += 1 }
            guard i < chars.count else { throw error("expected '>' after molar mass") }
            guard let mass = Double(String(chars[numStart..<i])), mass > 0, mass.isFinite else {
                i = open
                throw error("molar mass must be a positive number")
            }
            i += 1
            atom += "<\(UnitAtoms.format(mass))>"
        }
        return atom
    }

    private mutating func parseInteger() throws -> Int {
        let start = i
        if i < chars.count, chars[i] == "-" { i += 1 }
        while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
        let digits = String(chars[start..<i])
        guard let n = Int(digits), n != 0 else {
            // Digits that do not fit an Int are a power out of range too.
            let tooLong = Int(digits) == nil && digits.contains { $0.isNumber }
            throw error(tooLong ? "the power \(digits) is out of range; powers go up to \(UnitLimits.exponent)"
                                : "expected a non-zero integer exponent")
        }
        guard n.magnitude <= UInt(UnitLimits.exponent) else {
            throw error("the power \(n) is out of range; powers go up to \(UnitLimits.exponent)")
        }
        return n
    }
}
