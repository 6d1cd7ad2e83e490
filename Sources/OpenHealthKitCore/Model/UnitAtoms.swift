/// HealthKit's unit symbols: each with its dimension, its scale to the base
/// units (g, m, s, K, mol, S, IU, …) and whether SI prefixes apply.
enum UnitAtoms {
    struct Atom {
        let dimension: UnitDimension
        let scale: Double
        var offset: Double = 0
        var prefixable: Bool = false
    }

    // Base dimensions (indices into UnitDimension.exponents).
    static let mass = UnitDimension.base(0)
    static let length = UnitDimension.base(1)
    static let time = UnitDimension.base(2)
    static let temperature = UnitDimension.base(3)
    static let amount = UnitDimension.base(4)
    static let conductance = UnitDimension.base(5)
    static let internationalUnit = UnitDimension.base(6)
    static let soundPressureLevel = UnitDimension.base(7)
    static let hearingLevel = UnitDimension.base(8)
    static let effortScore = UnitDimension.base(9)
    static let voltage = UnitDimension.base(10)
    static let illuminance = UnitDimension.base(11)
    static let angle = UnitDimension.base(12)

    static func product(_ parts: (UnitDimension, Int)...) -> UnitDimension {
        parts.reduce(UnitDimension.none) { $0.adding($1.0, times: $1.1) }
    }

    /// Energy, pressure and power in grams (the mass base), metres, seconds.
    static let energy = product((mass, 1), (length, 2), (time, -2))
    static let pressure = product((mass, 1), (length, -1), (time, -2))

    static let symbols: [String: Atom] = [
        // mass
        "g": Atom(dimension: mass, scale: 1, prefixable: true),
        "oz": Atom(dimension: mass, scale: 28.349523125),
        "lb": Atom(dimension: mass, scale: 453.59237),
        "st": Atom(dimension: mass, scale: 6350.29318),
        // length
        "m": Atom(dimension: length, scale: 1, prefixable: true),
        "in": Atom(dimension: length, scale: 0.0254),
        "ft": Atom(dimension: length, scale: 0.3048),
        "yd": Atom(dimension: length, scale: 0.9144),
        "mi": Atom(dimension: length, scale: 1609.344),
        // volume
        "L": Atom(dimension: product((length, 3)), scale: 1e-3, prefixable: true),
        "l": Atom(dimension: product((length, 3)), scale: 1e-3, prefixable: true),
        "fl_oz_us": Atom(dimension: product((length, 3)), scale: 29.5735295625e-6),
        "fl_oz_imp": Atom(dimension: product((length, 3)), scale: 28.4130625e-6),
        "cup_us": Atom(dimension: product((length, 3)), scale: 236.5882365e-6),
        "cup_imp": Atom(dimension: product((length, 3)), scale: 284.130625e-6),
        "pt_us": Atom(dimension: product((length, 3)), scale: 473.176473e-6),
        "pt_imp": Atom(dimension: product((length, 3)), scale: 568.26125e-6),
        // time
        "s": Atom(dimension: time, scale: 1, prefixable: true),
        "min": Atom(dimension: time, scale: 60),
        "hr": Atom(dimension: time, scale: 3600),
        "d": Atom(dimension: time, scale: 86400),
        // frequency; `bpm` (beats a minute, count/min) is ours, not
        // HealthKit's: the unit people write for heart rate
        "Hz": Atom(dimension: product((time, -1)), scale: 1, prefixable: true),
        "bpm": Atom(dimension: product((time, -1)), scale: 1.0 / 60),
        // energy and power
        "J": Atom(dimension: energy, scale: 1000, prefixable: true),
        "cal": Atom(dimension: energy, scale: 4184, prefixable: true),
        "Cal": Atom(dimension: energy, scale: 4_184_000),
        "W": Atom(dimension: product((mass, 1), (length, 2), (time, -3)), scale: 1000, prefixable: true),
        // pressure
        "Pa": Atom(dimension: pressure, scale: 1000, prefixable: true),
        "mmHg": Atom(dimension: pressure, scale: 133_322.387415),
        "cmAq": Atom(dimension: pressure, scale: 98_066.5),
        "atm": Atom(dimension: pressure, scale: 101_325_000),
        "inHg": Atom(dimension: pressure, scale: 3_386_389),
        // temperature (kelvin base; a lone degC / degF is affine)
        "K": Atom(dimension: temperature, scale: 1),
        "degC": Atom(dimension: temperature, scale: 1, offset: 273.15),
        "degF": Atom(dimension: temperature, scale: 5.0 / 9.0, offset: 459.67),
        // amount; mol<M> is a mass (M grams per mol), see resolve(_:)
        "mol": Atom(dimension: amount, scale: 1, prefixable: true),
        // scalars
        "count": Atom(dimension: .none, scale: 1),
        "%": Atom(dimension: .none, scale: 0.01),
        // others with dimensions of their own
        "S": Atom(dimension: conductance, scale: 1, prefixable: true),
        "IU": Atom(dimension: internationalUnit, scale: 1),
        "dBASPL": Atom(dimension: soundPressureLevel, scale: 1),
        "dBHL": Atom(dimension: hearingLevel, scale: 1),
        "appleEffortScore": Atom(dimension: effortScore, scale: 1),
        "V": Atom(dimension: voltage, scale: 1, prefixable: true),
        "lx": Atom(dimension: illuminance, scale: 1, prefixable: true),
        "rad": Atom(dimension: angle, scale: 1, prefixable: true),
        "deg": Atom(dimension: angle, scale: Double.pi / 180),
        "D": Atom(dimension: product((length, -1)), scale: 1),
    ]

    /// SI prefixes as HealthKit writes them (`mc` is micro).
    static let prefixes: [(String, Double)] = [
        ("da", 1e1), ("mc", 1e-6), ("µ", 1e-6), ("μ", 1e-6),
        ("f", 1e-15), ("p", 1e-12), ("n", 1e-9), ("m", 1e-3), ("c", 1e-2), ("d", 1e-1),
        ("h", 1e2), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12),
    ]

    /// Looks an atom up: a whole symbol first (`min`, `mmHg`, `Cal`), then
    /// prefix + prefixable symbol (`kg`, `mL`, `mcg`, `kcal`).
    static func resolve(_ atom: String) -> Atom? {
        var name = atom
        var molarMass: Double?
        if let lt = atom.firstIndex(of: "<") {
            name = String(atom[..<lt])
            molarMass = Double(atom[atom.index(after: lt)..<atom.index(before: atom.endIndex)])
        }
        func withMolarMass(_ a: Atom, _ prefixScale: Double) -> Atom? {
            if let m = molarMass {
                guard a.dimension == amount else { return nil }
                return Atom(dimension: mass, scale: prefixScale * m)
            }
            return Atom(dimension: a.dimension, scale: prefixScale * a.scale, offset: a.offset)
        }
        if let a = symbols[name] { return withMolarMass(a, 1) }
        for (p, factor) in prefixes where name.hasPrefix(p) {
            if let a = symbols[String(name.dropFirst(p.count))], a.prefixable {
                return withMolarMass(a, factor)
            }
        }
        return nil
    }

    static func power(_ x: Double, _ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<abs(n) { r *= x }
        return n < 0 ? 1 / r : r
    }

    /// Shortest text that reads back as the same Double.
    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
    }
}
