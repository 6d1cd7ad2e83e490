import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore

/// `ohk stats TYPE --by day`: a statistics collection, printed as a
/// table, CSV or JSON (rules 25–29).
struct StatsByInterval {
    let type: SampleType
    let options: StatisticsOptions
    let interval: StatisticsInterval
    let from: Date?
    let to: Date?
    let utcOffset: Int
    let timeZone: ZoneRules?
    let unit: HealthUnit?
    let format: StatsCommand.OutputFormat

    func run(_ store: Store) throws {
        // Without --from/--to: the time the type's samples cover.
        guard let whole = try store.statistics(type: type, options: .duration) else {
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        let from = self.from ?? whole.startDate, to = self.to ?? whole.endDate
        // The first interval's start: in the zone's offset then, or the given one.
        let offsetAtStart = timeZone.map { $0.offset(atUnix: from.timeIntervalSince1970) } ?? utcOffset
        var anchor = Self.anchor(interval.unit, before: from, utcOffset: offsetAtStart)
        if let timeZone {  // the zone's own instant of that wall-clock time
            let wall = anchor.timeIntervalSince1970 + Double(offsetAtStart)
            anchor = Date(timeIntervalSince1970: timeZone.instant(ofLocal: wall))
        }
        let stats = try store.statisticsCollection(type: type, options: options, anchor: anchor, interval: interval,
                                                   from: from, to: to, utcOffset: utcOffset, timeZone: timeZone)
        let canonical = type.canonicalUnit!
        let shown = unit ?? type.displayUnit ?? canonical
        let columns = Self.columns(options)
        func value(_ v: StatisticsValues, _ c: Column) throws -> String {
            guard let x = c.read(v) else { return "" }
            return c.isQuantity ? OutputText.number(try canonical.convert(x, to: shown)) : OutputText.number(x)
        }
        let separate = options.contains(.separateBySource)
        var rows: [[String]] = []
        for s in stats {
            let shownOffset = timeZone.map { $0.offset(atUnix: s.startDate.timeIntervalSince1970) } ?? utcOffset
            let start = Self.localText(s.startDate, shownOffset)
            rows.append([start] + (separate ? ["all"] : []) + (try columns.map { try value(s.values, $0) }))
            for source in s.sources where separate {
                guard let v = s.bySource[source.bundleIdentifier] else { continue }
                rows.append([start, source.name] + (try columns.map { try value(v, $0) }))
            }
        }
        let header = ["start"] + (separate ? ["source"] : []) + columns.map { $0.isQuantity ? "\($0.name) (\(shown))" : $0.name }
        switch format {
        case .table: printTable(header, rows)
        case .csv: for r in [header] + rows { print(r.map(Self.csvField).joined(separator: ",")) }
        case .json:
            let keys = ["start"] + (separate ? ["source"] : []) + columns.map(\.name)
            let objects = rows.map { row -> String in
                var o = JSONObject()
                for (k, v) in zip(keys, row) {
                    if k == "start" || k == "source" { o.add(k, v) } else if let n = Double(v) { o.add(k, number: n) }
                }
                o.add("unit", shown.description)  // of the quantity figures (count and duration have their own)
                return o.closed
            }
            print(JSONObject.array(objects))
        }
    }

    private func printTable(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        for r in [header] + rows {
            print(r.enumerated().map { i, v in
                i == 0 || (i == 1 && options.contains(.separateBySource))
                    ? v + String(repeating: " ", count: widths[i] - v.count)
                    : String(repeating: " ", count: widths[i] - v.count) + v
            }.joined(separator: "  "))
        }
    }

    struct Column {
        let name: String
        let isQuantity: Bool
        let read: (StatisticsValues) -> Double?
    }

    static func columns(_ o: StatisticsOptions) -> [Column] {
        var out: [Column] = []
        if o.contains(.cumulativeSum) { out.append(Column(name: "sum", isQuantity: true) { $0.sum }) }
        if o.contains(.discreteAverage) { out.append(Column(name: "average", isQuantity: true) { $0.average }) }
        if o.contains(.discreteMin) { out.append(Column(name: "min", isQuantity: true) { $0.minimum }) }
        if o.contains(.discreteMax) { out.append(Column(name: "max", isQuantity: true) { $0.maximum }) }
        if o.contains(.mostRecent) { out.append(Column(name: "most recent", isQuantity: true) { $0.mostRecent }) }
        if o.contains(.duration) { out.append(Column(name: "duration (s)", isQuantity: false) { $0.duration }) }
        return out
    }

    static func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replacing("\"", with: "\"\"") + "\"" : s
    }

    /// `2024-03-01T00:00:00+01:00`: the interval's start in the query's offset.
    static func localText(_ d: Date, _ offset: Int) -> String {
        let local = OutputText.time(d.addingTimeInterval(Double(offset)))  // "…Z"
        guard offset != 0 else { return local }
        let sign = offset < 0 ? "-" : "+", m = abs(offset) / 60
        let pad = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return String(local.dropLast()) + "\(sign)\(pad(m / 60)):\(pad(m % 60))"
    }

    /// Where intervals start, at or before `d` in local time: the hour or
    /// minute, else midnight; a week's Monday, a month's first day, a
    /// year's first of January.
    static func anchor(_ unit: StatisticsInterval.Unit, before d: Date, utcOffset: Int) -> Date {
        let local = d.timeIntervalSinceReferenceDate + Double(utcOffset)
        func at(_ localTime: Double) -> Date { Date(timeIntervalSinceReferenceDate: localTime - Double(utcOffset)) }
        switch unit {
        case .second: return at(local.rounded(.down))
        case .minute: return at((local / 60).rounded(.down) * 60)
        case .hour: return at((local / 3600).rounded(.down) * 3600)
        default: break
        }
        let day = Int((local / 86_400).rounded(.down))  // days since 2001-01-01, a Monday
        switch unit {
        case .week: return at(Double(day - ((day % 7) + 7) % 7) * 86_400)
        case .month, .year:
            let (y, m, _) = ISODate.civilFromDays(day + 11_323)  // 2001-01-01 is day 11,323 since 1970
            let first = ISODate.daysFromCivil(y, unit == .year ? 1 : m, 1) - 11_323
            return at(Double(first) * 86_400)
        default: return at(Double(day) * 86_400)
        }
    }
}
