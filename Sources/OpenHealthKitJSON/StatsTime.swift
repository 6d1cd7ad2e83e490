import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// A statistics argument that does not read (`ohk stats` shows it as a
/// usage error, `ohk serve` as a 400).
package struct StatsTimeError: Error {
    package let message: String
    init(_ message: String) { self.message = message }
}

/// The time `ohk stats` and `ohk serve` count intervals in, and how they
/// read `from`/`to` and print dates (rule 28 of docs/semantics.md).
package enum StatsTime {
    /// A named zone's calendar: intervals are instants, printed with the
    /// offset in force at each.
    case zone(ZoneRules)
    /// A fixed offset (seconds east of UTC): intervals are instants.
    case offset(Int)
    /// Each sample in its own UTC offset, one without in this offset:
    /// intervals are wall-clock times, printed without an offset.
    case sampleLocal(Int)

    /// The machine's zone, as `date` uses it: `TZ` when it names a zone,
    /// else the zone `/etc/localtime` links to, else `/etc/timezone`'s;
    /// nil when none reads (the caller then counts in UTC).
    package static func machineZone() -> ZoneRules? {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return try? ZoneRules(name)
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let r = target.firstRange(of: "zoneinfo/"), let zone = try? ZoneRules(String(target[r.upperBound...])) {
                return zone
            }
        }
        if let f = fopen("/etc/timezone", "r") {
            defer { fclose(f) }
            var line = [CChar](repeating: 0, count: 256)
            if fgets(&line, Int32(line.count), f) != nil {
                let text = line.withUnsafeBytes { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                return try? ZoneRules(String(text.filter { !$0.isWhitespace }))
            }
        }
        return nil
    }

    /// The offset the core reads wall-clock arguments in, and the zone it counts in.
    package var utcOffset: Int {
        switch self {
        case .zone: 0
        case .offset(let o), .sampleLocal(let o): o
        }
    }
    package var zone: ZoneRules? {
        if case .zone(let z) = self { return z }
        return nil
    }
    /// What the times are in: the zone's name, `UTC`, `UTC+01:00`, or
    /// `each sample's own UTC offset`.
    package var name: String {
        func offset(_ o: Int) -> String {
            guard o != 0 else { return "UTC" }
            let m = abs(o) / 60, pad = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
            return "UTC\(o < 0 ? "-" : "+")\(pad(m / 60)):\(pad(m % 60))"
        }
        switch self {
        case .zone(let z): return z.identifier
        case .offset(let o): return offset(o)
        case .sampleLocal: return "each sample's own UTC offset (wall-clock times)"
        }
    }

    /// Whether each sample counts in its own offset (`--local-time`).
    package var isSampleLocal: Bool {
        if case .sampleLocal = self { return true }
        return false
    }

    /// The instant (Unix seconds) of a wall-clock time (Unix seconds read
    /// as a wall clock), as the core reads a date it is given.
    package func instant(ofWall wall: Double) -> Double {
        switch self {
        case .zone(let z): z.instant(ofLocal: wall)
        case .offset(let o), .sampleLocal(let o): wall - Double(o)
        }
    }

    /// The wall-clock time (Unix seconds) of an instant.
    package func wall(ofInstant t: Double) -> Double {
        switch self {
        case .zone(let z): t + Double(z.offset(atUnix: t))
        case .offset(let o), .sampleLocal(let o): t + Double(o)
        }
    }

    /// `2020-11-02T10:00:00+01:00` for an instant, in the offset in force;
    /// `2020-11-02T10:00:00` for a wall-clock time (`.sampleLocal`).
    package func label(_ d: Date) -> String {
        let offset: Int
        switch self {
        case .sampleLocal: return String(TextForms.time(d).dropLast())  // the core's wall clock, written as UTC
        case .zone(let z): offset = z.offset(atUnix: d.timeIntervalSince1970)
        case .offset(let o): offset = o
        }
        let local = TextForms.time(d.addingTimeInterval(Double(offset)))  // "…Z"
        guard offset != 0 else { return local }
        let sign = offset < 0 ? "-" : "+", m = abs(offset) / 60
        let pad = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return String(local.dropLast()) + "\(sign)\(pad(m / 60)):\(pad(m % 60))"
    }

    /// `--from` or `--to` (rule 28's one rule for dates): a day
    /// (`2020-11-01`) is that whole day in this time, so `--to` includes
    /// it; a date-time with `Z` or an offset is that instant, and one
    /// without is a wall-clock time in this time; `--to`'s instant is
    /// excluded. Nil when absent.
    package func date(_ text: String?, _ what: String, isEnd: Bool) throws -> Date? {
        guard let text else { return nil }
        let isDay = text.utf8.count == 10
        let hasZone = text.hasSuffix("Z") || text.dropFirst(19).contains("+") || text.dropFirst(19).contains("-")
        if !isDay && hasZone {
            guard let d = ISODate.parse(Substring(text)) else { throw Self.notADate(text, what) }
            return d
        }
        guard let wall = ISODate.parse(Substring(isDay ? text : text + "Z")) else { throw Self.notADate(text, what) }
        let w = wall.timeIntervalSince1970 + (isDay && isEnd ? 86_400 : 0)
        return Date(timeIntervalSince1970: instant(ofWall: w))
    }

    private static func notADate(_ text: String, _ what: String) -> StatsTimeError {
        StatsTimeError("\(what) '\(text)' is neither a day (2020-11-01) nor an ISO 8601 date-time "
                        + "(2020-11-01T08:00:00, with Z or +01:00 for an instant)")
    }

    /// The span `ohk stats` counts and where its intervals start (rule 28):
    /// --from and --to as `date` reads them, each missing one from `whole`
    /// (what is counted: its first start and last end; nil when there is
    /// nothing, and then so is the result); the first interval at --from,
    /// else at the boundary before the span. `wallShift` moves the given
    /// dates and that boundary on the wall clock: nights start at the noon
    /// before the day they are filed under.
    package func span(from: String?, to: String?, unit: StatisticsInterval.Unit, wallShift: Double = 0,
              whole: () throws -> (start: Date, end: Date)?) throws -> (from: Date, to: Date, anchor: Date)? {
        let shifted = { (d: Date) -> Date in
            guard wallShift != 0 else { return d }
            return Date(timeIntervalSince1970: self.instant(ofWall: self.wall(ofInstant: d.timeIntervalSince1970) + wallShift))
        }
        let given = (from: try date(from, "--from", isEnd: false).map(shifted), to: try date(to, "--to", isEnd: true).map(shifted))
        var all: (start: Date, end: Date)?
        if given.from == nil || given.to == nil {
            guard let w = try whole() else { return nil }
            all = w
        }
        // Just past the last end, so that an instant there has its interval.
        let lo = given.from ?? all!.start, hi = given.to ?? all!.end.addingTimeInterval(0.001)
        if given.from != nil, given.to != nil, lo >= hi {
            throw StatsTimeError("--from '\(from!)' is not before the end of --to '\(to!)'")
        }
        let anchor = given.from ?? shifted(self.anchor(unit, before: lo.addingTimeInterval(-wallShift)))
        return (lo, hi, anchor)
    }

    /// Where intervals start, at or before the instant `d` in this time:
    /// the minute or hour, else midnight; a week's Monday, a month's first
    /// day, a year's first of January.
    package func anchor(_ unit: StatisticsInterval.Unit, before d: Date) -> Date {
        let wall = wall(ofInstant: d.timeIntervalSince1970)
        func at(_ w: Double) -> Date { Date(timeIntervalSince1970: instant(ofWall: w)) }
        switch unit {
        case .second: return at(wall.rounded(.down))
        case .minute: return at((wall / 60).rounded(.down) * 60)
        case .hour: return at((wall / 3600).rounded(.down) * 3600)
        default: break
        }
        let day = Int((wall / 86_400).rounded(.down))  // days since 1970-01-01, a Thursday
        switch unit {
        case .week: return at(Double(day - ((day + 3) % 7 + 7) % 7) * 86_400)
        case .month, .year:
            let (y, m, _) = ISODate.civilFromDays(day)
            return at(Double(ISODate.daysFromCivil(y, unit == .year ? 1 : m, 1)) * 86_400)
        default: return at(Double(day) * 86_400)
        }
    }

    /// The time of `--tz`, `--utc-offset` and `--local-time` (at most one
    /// of the first two); without either, `fallback`.
    package static func make(tz: String?, utcOffset: String?, localTime: Bool, fallback: () -> StatsTime) throws -> StatsTime {
        if tz != nil, utcOffset != nil { throw StatsTimeError("give --tz or --utc-offset, not both") }
        if tz != nil, localTime { throw StatsTimeError("--local-time counts each sample in its own offset; it takes no --tz") }
        let offset = try utcOffset.map(Self.offset) ?? 0
        if localTime { return .sampleLocal(offset) }
        if utcOffset != nil { return .offset(offset) }
        guard let tz else { return fallback() }
        do { return .zone(try ZoneRules(tz)) } catch let e as OHKError { throw StatsTimeError("--tz: \(e.message)") }
    }

    /// `day`, `hour`, `2day`: the interval of `--by`.
    package static func interval(_ text: String) throws -> StatisticsInterval {
        let digits = text.prefix { $0.isNumber }
        let count = digits.isEmpty ? 1 : Int(digits) ?? 0
        let units: [String: StatisticsInterval.Unit] = ["minute": .minute, "hour": .hour, "day": .day, "week": .week,
                                                        "month": .month, "year": .year]
        guard count > 0, let unit = units[String(text.dropFirst(digits.count))] else {
            throw StatsTimeError("--by takes minute, hour, day, week, month or year, or a count before one (2day), not '\(text)'")
        }
        return StatisticsInterval(count, unit)
    }

    /// `+01:00`, `-0800`, `Z`: seconds east of UTC.
    package static func offset(_ text: String) throws -> Int {
        if text == "Z" || text == "0" { return 0 }
        let b = Array(text.utf8)
        let digits = b.dropFirst().filter { $0 != 58 }
        guard b.count >= 3, b[0] == 43 || b[0] == 45, digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let h = Int(String(decoding: digits.prefix(2), as: UTF8.self)),
              let m = Int(String(decoding: digits.suffix(2), as: UTF8.self)), h <= 18, m < 60 else {
            throw StatsTimeError("--utc-offset takes +HH:MM or -HH:MM (up to 18 hours), not '\(text)'")
        }
        return (h * 3600 + m * 60) * (b[0] == 45 ? -1 : 1)
    }
}
