import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// How times and numbers are written as text, the same in `ohk`'s output
/// and in the JSON the PostgreSQL sink stores (docs/ohk.md, "Output").
package enum TextForms {
    /// UTC ISO 8601 to the microsecond, the fraction in groups of three
    /// and left out when zero: `2024-03-01T08:30:00Z`,
    /// `…00.250Z`, `…00.123456Z`. Samples keep their dates to the
    /// microsecond in every API but Swift, so no more is shown.
    package static func time(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1e6).rounded()
        let seconds = (micros / 1e6).rounded(.down)
        let whole = ISODate.format(Date(timeIntervalSince1970: seconds))  // "…SSZ"
        let fraction = Int(micros - seconds * 1e6)
        guard fraction > 0 else { return whole }
        let digits = String(fraction + 1_000_000).dropFirst()  // six, zero-padded
        let shown = digits.hasSuffix("000") ? digits.prefix(3) : digits[...]
        return String(whole.dropLast()) + "." + shown + "Z"
    }

    /// The shortest text that reads back to exactly `x`: what a stored
    /// value prints as where it must read back equal (JSON's canonical
    /// `value` and metadata numbers, which an upload to `ohk serve` or a
    /// replica reads): 1.0166666666666666, 62.
    package static func exactNumber(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        if x == x.rounded(), abs(x) < 9.007199254740992e15 { return String(Int64(x)) }
        return "\(x)"
    }

    /// The shortest text that reads back to the same double once rounded
    /// to 15 significant digits: a stored 62 count/min, 1.0333… count/s,
    /// prints as 62, not 61.99999999999999.
    package static func number(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = withVaList([x]) { vsnprintf(&buffer, buffer.count, "%.15g", $0) }
        let text = String(decoding: buffer.prefix(max(0, Int(n))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let rounded = Double(text) ?? x
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }
}
