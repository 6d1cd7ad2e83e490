import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// How `ohk` prints times and numbers, the same in every command and
/// format (docs/ohk.md, "Output").
enum OutputText {
    /// UTC ISO 8601 to the microsecond, the fraction in groups of three
    /// and left out when zero: `2024-03-01T08:30:00Z`,
    /// `…00.250Z`, `…00.123456Z`. Samples keep their dates to the
    /// microsecond in every API but Swift, so no more is shown.
    static func time(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1e6).rounded()
        let seconds = (micros / 1e6).rounded(.down)
        let whole = ISODate.format(Date(timeIntervalSince1970: seconds))  // "…SSZ"
        let fraction = Int(micros - seconds * 1e6)
        guard fraction > 0 else { return whole }
        let digits = String(fraction + 1_000_000).dropFirst()  // six, zero-padded
        let shown = digits.hasSuffix("000") ? digits.prefix(3) : digits[...]
        return String(whole.dropLast()) + "." + shown + "Z"
    }

    /// The shortest text that reads back to the same double once rounded
    /// to 15 significant digits: a stored 62 count/min, 1.0333… count/s,
    /// prints as 62, not 61.99999999999999.
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = withVaList([x]) { vsnprintf(&buffer, buffer.count, "%.15g", $0) }
        let text = String(decoding: buffer.prefix(max(0, Int(n))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let rounded = Double(text) ?? x
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }

    /// Prints `rows` under `header` in columns two spaces apart: the first
    /// `left` columns (labels) left-aligned, the others (figures) right-aligned.
    static func printTable(_ header: [String], _ rows: [[String]], left: Int) {
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        for r in [header] + rows {
            print(r.enumerated().map { i, v in
                let pad = String(repeating: " ", count: widths[i] - v.count)
                return i < left ? v + pad : pad + v
            }.joined(separator: "  "))
        }
    }
}
