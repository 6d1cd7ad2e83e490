import FoundationEssentials
import OpenHealthKitCore

/// A quantity type's statistics collection as rows of text (rules
/// 25–29): what `ohk stats TYPE --by …` prints as a table, CSV or JSON,
/// and what `ohk serve` answers for statistics.
package struct StatisticsRows {
    package struct Column {
        package let name: String
        package let isQuantity: Bool
        package let read: (StatisticsValues) -> Double?
    }

    package let columns: [Column]
    /// Each source has its rows after the merged one (`.separateBySource`).
    package let separate: Bool
    /// The unit of the quantity columns.
    package let shown: HealthUnit
    /// start, end, (source), then a value per column ("" when none).
    package var rows: [[String]]

    package var names: [String] { ["start", "end"] + (separate ? ["source"] : []) }

    /// The collection from `from` to `to` (rule 28's dates in `time`; each
    /// missing one from the type's samples); nil when neither is given and
    /// the type has no samples.
    package static func compute(_ store: Store, type: SampleType, options: StatisticsOptions, interval: StatisticsInterval,
                                from: String?, to: String?, time: StatsTime, unit: HealthUnit?) throws -> StatisticsRows? {
        var options = options
        if time.isSampleLocal { options.insert(.sampleLocalTime) }
        let range = try time.span(from: from, to: to, unit: interval.unit) {
            try store.sampleSpan(of: type)  // the ends of the start index, not a pass over the samples
        }
        guard let (from, to, anchor) = range else { return nil }
        let stats = try store.statisticsCollection(type: type, options: options, anchor: anchor, interval: interval,
                                                   from: from, to: to, utcOffset: time.utcOffset, timeZone: time.zone)
        let canonical = type.canonicalUnit!
        let shown = unit ?? type.displayUnit ?? canonical
        let columns = Self.columns(options)
        func value(_ v: StatisticsValues, _ c: Column) throws -> String {
            guard let x = c.read(v) else { return "" }
            return c.isQuantity ? TextForms.number(try canonical.convert(x, to: shown)) : TextForms.number(x)
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
        return StatisticsRows(columns: columns, separate: separate, shown: shown, rows: rows)
    }

    /// A JSON array, an object a row: its dates (and source) as text, its
    /// figures as numbers, and the unit of the quantity figures.
    package var json: String {
        let keys = names + columns.map(\.name)
        return JSONObject.array(rows.map { row -> String in
            var o = JSONObject()
            for (k, v) in zip(keys, row) {
                if names.contains(k) { o.add(k, v) } else if let n = Double(v) { o.add(k, number: n) }
            }
            o.add("unit", shown.description)  // of the quantity figures (count and duration have their own)
            return o.closed
        })
    }

    package static func columns(_ o: StatisticsOptions) -> [Column] {
        var out: [Column] = []
        if o.contains(.cumulativeSum) { out.append(Column(name: "sum", isQuantity: true) { $0.sum }) }
        if o.contains(.discreteAverage) { out.append(Column(name: "average", isQuantity: true) { $0.average }) }
        if o.contains(.discreteMin) { out.append(Column(name: "min", isQuantity: true) { $0.minimum }) }
        if o.contains(.discreteMax) { out.append(Column(name: "max", isQuantity: true) { $0.maximum }) }
        if o.contains(.mostRecent) { out.append(Column(name: "most recent", isQuantity: true) { $0.mostRecent }) }
        if o.contains(.duration) { out.append(Column(name: "duration (s)", isQuantity: false) { $0.duration }) }
        return out
    }
}
