import Glibc

/// Numbers rounded to 15 significant digits as C's `%.15g` rounds them
/// (rule 44: a value read in another unit than its type's canonical one),
/// without formatting each one: for a magnitude from 1e-8 to 1e15 (every
/// health value in a unit people read), times an exact power of ten it is
/// a 15-digit number, rounded to an integer and divided back, which is
/// correctly rounded. The product's own rounding can land on a half-way
/// point the exact product is not at; its exact error (Dekker's product)
/// settles those. Other magnitudes go through `%.15g` itself. The same
/// steps as the Python package's column rounding, so both agree.
enum Significant {
    private static let powers: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { x, _ in x * 10 } }
    private static let split = 134_217_729.0  // 2^27 + 1

    static func round15(_ x: Double) -> Double {
        let magnitude = abs(x)
        guard magnitude >= 1e-8, magnitude < 1e15 else { return magnitude == 0 || !x.isFinite ? x : formatted(x) }
        var exponent = 14 - Int(log10(magnitude).rounded(.down))
        // log10 may miss by one next to a power of ten.
        var product = x * powers[min(max(exponent, 0), 22)]
        if abs(product) < 1e14 { exponent += 1 } else if abs(product) >= 1e15 { exponent -= 1 }
        let scale = powers[min(max(exponent, 0), 22)]
        product = x * scale
        var whole = product.rounded(.toNearestOrEven)
        if product - product.rounded(.down) == 0.5 {
            let error = exactError(x, scale, product)
            if error > 0 { whole = product.rounded(.up) } else if error < 0 { whole = product.rounded(.down) }
        }
        return whole / scale
    }

    /// a * b - p, exactly, for p the rounded product.
    private static func exactError(_ a: Double, _ b: Double, _ p: Double) -> Double {
        var t = split * a
        let aHigh = t - (t - a)
        t = split * b
        let bHigh = t - (t - b)
        let aLow = a - aHigh, bLow = b - bHigh
        return ((aHigh * bHigh - p) + aHigh * bLow + aLow * bHigh) + aLow * bLow
    }

    private static func formatted(_ x: Double) -> Double {
        var buffer = [CChar](repeating: 0, count: 40)
        _ = withVaList([x]) { vsnprintf(&buffer, buffer.count, "%.15g", $0) }
        return strtod(buffer, nil)
    }
}
