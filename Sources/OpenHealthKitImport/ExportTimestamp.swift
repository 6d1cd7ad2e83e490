import Glibc
import OpenHealthKitCore

/// The export's timestamps: `2020-04-18 05:52:26 -0800`, local time of the
/// exporting device with its UTC offset. Parsed by hand because the format
/// is fixed and millions of them go by; the result is an instant.
enum ExportTimestamp {
    /// Seconds since 2001-01-01 UTC (`Date`'s reference), or nil when `text`
    /// is not exactly `yyyy-MM-dd HH:mm:ss ±hhmm` with fields in range.
    static func parse(_ text: String) -> Double? { parseWithOffset(text)?.instant }

    /// The instant and the UTC offset it was written in (seconds east of
    /// UTC: `-0800` is -28,800), the sample's own time zone offset.
    static func parseWithOffset(_ text: String) -> (instant: Double, offset: Int)? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// `parseWithOffset` of an attribute's text as expat hands it over.
    static func parse(cString text: UnsafePointer<CChar>) -> (instant: Double, offset: Int)? {
        let count = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: count) { parse(UnsafeBufferPointer(start: $0, count: count)) }
    }

    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> (instant: Double, offset: Int)? {
        guard b.count == 25, b[4] == 45, b[7] == 45, b[10] == 32, b[13] == 58, b[16] == 58, b[19] == 32,
              b[20] == 43 || b[20] == 45 else { return nil }
        // Two digits at i. A byte that is no digit is above 9 once 48 is
        // taken off (wrapping), and so is `worst` then: one test for all
        // nine fields, where an optional a field cost ten times the digits'
        // work (three timestamps a record, millions of records).
        var worst: UInt8 = 0
        func two(_ i: Int) -> Int {
            let high = b[i] &- 48, low = b[i + 1] &- 48
            worst = max(worst, max(high, low))
            return Int(high) &* 10 &+ Int(low)
        }
        let year = two(0) &* 100 &+ two(2), month = two(5), day = two(8)
        let hour = two(11), minute = two(14), second = two(17), offH = two(21), offM = two(23)
        guard worst <= 9, month >= 1, month <= 12, day >= 1, day <= daysIn(month, year),
              hour < 24, minute < 60, second < 61, offH < 24, offM < 60 else { return nil }
        let offset = (offH * 3600 + offM * 60) * (b[20] == 45 ? -1 : 1)
        let unix = ISODate.daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return (Double(unix - 978_307_200), offset)
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
