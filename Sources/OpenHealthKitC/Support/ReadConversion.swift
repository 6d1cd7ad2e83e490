import OpenHealthKitCore

/// How a stored value reads in another unit (rule 44): one affine map per
/// pair of units, taken from the library's own conversion as the Python
/// package takes it (`catalogue.conversion`), then rounded to 15
/// significant digits, so that an Arrow column, a NumPy column and
/// `value_in` agree to the bit. Nil for the identity (the same unit,
/// however spelt): values read exactly as stored.
struct ReadConversion {
    let scale: Double
    let offset: Double

    init?(from: HealthUnit, to: HealthUnit) throws {
        let offset = try from.convert(0, to: to)
        // Linear units (all but temperatures): the library's own factor;
        // affine ones: the slope over a wide span, where its rounding weighs least.
        let scale = offset == 0 ? try from.convert(1, to: to) : (try from.convert(1000, to: to) - offset) / 1000
        if scale == 1, offset == 0 { return nil }
        (self.scale, self.offset) = (scale, offset)
    }

    @inline(__always)
    func callAsFunction(_ value: Double) -> Double {
        Significant.round15(offset != 0 ? value * scale + offset : value * scale)
    }
}
