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
        var out: [UInt8] = []
        append(time: date, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `time(date)` after what `out` holds, written into a stack buffer
    /// and appended once (a page of samples writes two or three each).
    package static func append(time date: Date, to out: inout [UInt8]) {
        // In doubles, as `time` always did: past 2^53 µs (the year 2255)
        // a double holds no single microseconds, and the text stays the same.
        let micros = (date.timeIntervalSince1970 * 1e6).rounded()
        let whole = (micros / 1e6).rounded(.down)
        guard abs(whole) < 1e15 else {
            out.append(contentsOf: ISODate.format(date).utf8)  // far outside the years 1 to 9999
            return
        }
        let seconds = Int64(whole)
        let fraction = Int(micros - whole * 1e6)
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let clock = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = ISODate.civilFromDays(days)
        guard (0...9999).contains(y) else {
            out.append(contentsOf: ISODate.format(date).utf8)
            return
        }
        // "YYYY-MM-DDTHH:MM:SS.ffffffZ": 27 bytes at most.
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { b in
            var i = 0
            func put(_ v: Int, _ n: Int) {
                var v = v
                for k in stride(from: i + n - 1, through: i, by: -1) {
                    b[k] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
                i += n
            }
            func put(_ c: UInt8) { b[i] = c; i += 1 }
            put(y, 4); put(0x2D); put(m, 2); put(0x2D); put(d, 2); put(0x54)
            put(clock / 3600, 2); put(0x3A); put(clock / 60 % 60, 2); put(0x3A); put(clock % 60, 2)
            if fraction > 0 {
                put(0x2E)
                if fraction % 1000 == 0 { put(fraction / 1000, 3) } else { put(fraction, 6) }
            }
            put(0x5A)
            out.append(contentsOf: b[..<i])
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// A UUID's upper-case text (`UUID.uuidString`) after what `out` holds.
    package static func append(uuid: UUID, to out: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 36 bytes used
        hexDigits.withUnsafeBufferPointer { hex in
            withUnsafeBytes(of: uuid.uuid) { b in
                withUnsafeMutableBytes(of: &text) { t in
                    var i = 0
                    for k in 0..<16 {
                        if k == 4 || k == 6 || k == 8 || k == 10 { t[i] = 0x2D; i += 1 }
                        t[i] = hex[Int(b[k] >> 4)]
                        t[i + 1] = hex[Int(b[k] & 15)]
                        i += 2
                    }
                    out.append(contentsOf: t[..<36])
                }
            }
        }
    }

    /// An integer's decimal digits after what `out` holds.
    package static func append(integer v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: any 64-bit magnitude
        withUnsafeMutableBytes(of: &buffer) { b in
            var i = b.count
            repeat {
                i -= 1
                b[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
            } while m > 0
            out.append(contentsOf: b[i...])
        }
    }

    /// `exactNumber(x)` after what `out` holds.
    package static func append(exactNumber x: Double, to out: inout [UInt8]) {
        if x.isFinite, x == x.rounded(), abs(x) < 9.007199254740992e15 {
            append(integer: Int64(x), to: &out)
        } else {
            out.append(contentsOf: "\(x)".utf8)
        }
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
