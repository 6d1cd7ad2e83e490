import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk stats TYPE --by day`: a statistics collection, printed as a
/// table, CSV or JSON (rules 25–29).
struct StatsByInterval {
    let type: SampleType
    let options: StatisticsOptions
    let interval: StatisticsInterval
    let from: String?
    let to: String?
    let time: StatsTime
    let unit: HealthUnit?
    let format: StatsCommand.OutputFormat

    func run(_ store: Store) throws {
        var options = options
        if time.isSampleLocal { options.insert(.sampleLocalTime) }
        // Without --from/--to: the time the type's samples cover.
        let range = try time.span(from: from, to: to, unit: interval.unit) {
            try store.statistics(type: type, options: .duration).map { ($0.startDate, $0.endDate) }
        }
        guard let (from, to, anchor) = range else {
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        let stats = try store.statisticsCollection(type: type, options: options, anchor: anchor, interval: interval,
                                                   from: from, to: to, utcOffset: time.utcOffset, timeZone: time.zone)
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
            let start = time.label(s.startDate), end = time.label(s.endDate)
            rows.append([start, end] + (separate ? ["all"] : []) + (try columns.map { try value(s.values, $0) }))
            for source in s.sources where separate {
                guard let v = s.bySource[source.bundleIdentifier] else { continue }
                rows.append([start, end, source.name] + (try columns.map { try value(v, $0) }))
            }
        }
        let names = ["start", "end"] + (separate ? ["source"] : [])
        switch format {
        case .table:
            // The end is the next start: the table shows starts only.
            let header = ["start"] + (separate ? ["source"] : [])
                + columns.map { $0.isQuantity ? "\($0.name) (\(shown))" : $0.name }
            OutputText.printTable(header, rows.map { [$0[0]] + $0.dropFirst(2) }, left: separate ? 2 : 1)
        case .csv:
            // One unit column, as every frame and CSV has (rule 44).
            for r in [names + columns.map(\.name) + ["unit"]] + rows.map({ $0 + [shown.description] }) {
                print(r.map(Self.csvField).joined(separator: ","))
            }
        case .json:
            let keys = names + columns.map(\.name)
            let objects = rows.map { row -> String in
                var o = JSONObject()
                for (k, v) in zip(keys, row) {
                    if names.contains(k) { o.add(k, v) } else if let n = Double(v) { o.add(k, number: n) }
                }
                o.add("unit", shown.description)  // of the quantity figures (count and duration have their own)
                return o.closed
            }
            print(JSONObject.array(objects))
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
}
