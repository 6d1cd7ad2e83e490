import FoundationEssentials

/// ISO-8601 dates for predicate text: `2024-03-01`, `2024-03-01T08:30:00Z`,
/// `2024-03-01T08:30:00.250+02:00`. Printing gives UTC with the fewest
/// fraction digits that parse back to the same instant. Public for the
/// command-line tool and the importer, which read and print the same dates.
public enum ISODate {
    /// The instant of a date or date-time; nil for anything else.
    public static func parse(_ s: Substring) -> Date? {
        let b = Array(s.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<i + n {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), expect(45), let mo = digits(2), expect(45), let d = digits(2),
              (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var seconds = 0
        var frac = 0.0
        var offset = 0
        if i < b.count {
            guard expect(84), let h = digits(2), expect(58), let mi = digits(2), expect(58), let sec = digits(2),
                  h < 24, mi < 60, sec < 61 else { return nil }
            seconds = h * 3600 + mi * 60 + sec
            if i < b.count, b[i] == 46 {
                let start = i
                i += 1
                while i < b.count, b[i] >= 48 && b[i] <= 57 { i += 1 }
                guard i > start + 1, let f = Double("0" + String(decoding: b[start..<i], as: UTF8.self)) else { return nil }
                frac = f
            }
            if expect(90) {
                offset = 0
            } else if i < b.count, b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                i += 1
                guard let oh = digits(2), expect(58), let om = digits(2) else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        // Whole seconds first, then the fraction: the printer checks the same sum.
        return Date(timeIntervalSince1970: Double(days * 86_400 - offset + seconds) + frac)
    }

    /// `date` in UTC: `2024-03-01T08:30:00.25Z`.
    public static func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        let whole = (t).rounded(.down)
        let secs = Int(whole)
        let days = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let rem = secs - days * 86_400
        let (y, m, d) = civilFromDays(days)
        var out = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(rem / 3600, 2) + ":" + pad(rem / 60 % 60, 2) + ":" + pad(rem % 60, 2)
        let frac = t - whole
        if frac > 0 {
            // The fewest fraction digits that parse back to the same instant.
            var scale = 1.0
            for n in 1...17 {
                scale *= 10
                let scaled = (frac * scale).rounded()
                guard scaled < scale else { continue }
                let text = pad(Int(scaled), n)
                if let f = Double("0." + text), Double(days * 86_400 + rem) + f == t {
                    out += "." + text
                    break
                }
            }
        }
        return out + "Z"
    }

    private static func pad(_ v: Int, _ n: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, n - s.count)) + s
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date (year, month, day) of a day number since 1970-01-01.
    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
