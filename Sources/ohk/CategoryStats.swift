import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk stats SleepAnalysis --by day`: the time each value of a category
/// type covers per interval, sources merged by priority (rule 59), in
/// hours. Sleep by day is by night: noon to noon, filed under the day the
/// night ends, as Python's `sleep_nights` files it.
struct CategoryStats {
    let type: SampleType
    let interval: StatisticsInterval
    let from: String?
    let to: String?
    let time: StatsTime
    let format: StatsCommand.OutputFormat

    var isNights: Bool { type.identifier == "HKCategoryTypeIdentifierSleepAnalysis" && interval == .day }

    func run(_ store: Store) throws {
        // Nights: --from/--to name the days nights end on; each runs from the noon before, on the wall clock.
        let range = try time.span(from: from, to: to, unit: interval.unit, wallShift: isNights ? -12 * 3600 : 0) {
            try store.statistics(type: type, options: .duration).map { ($0.startDate, $0.endDate) }
        }
        guard let (lo, hi, anchor) = range else {
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        let found = try store.categoryDurations(type: type, anchor: anchor, interval: interval, from: lo, to: hi,
                                                utcOffset: time.utcOffset, timeZone: time.zone,
                                                sampleLocalTime: time.isSampleLocal)
        let values = Set(found.flatMap(\.byValue.keys)).sorted()
        let names = values.map { type.categoryValueName($0) ?? "\($0)" }
        let header = [isNights ? "night" : "start", "end"] + names.map { "\($0) (h)" } + ["any (h)"]
        let rows = found.map { d -> [String] in
            let label = isNights ? String(time.label(d.endDate).prefix(10)) : time.label(d.startDate)
            let hours = values.map { OutputText.number(((d.byValue[$0] ?? 0) / 36).rounded() / 100) }
            return [label, time.label(d.endDate)] + hours + [OutputText.number((d.total / 36).rounded() / 100)]
        }
        switch format {
        case .table:
            OutputText.printTable(header, rows, left: 2)
        case .csv:
            for r in [header] + rows { print(r.map(StatsByInterval.csvField).joined(separator: ",")) }
        case .json:
            let keys = [isNights ? "night" : "start", "end"] + names + ["any"]
            print(JSONObject.array(rows.map { row -> String in
                var o = JSONObject()
                for (i, (k, v)) in zip(keys, row).enumerated() {
                    if i < 2 { o.add(k, v) } else { o.add(k, number: Double(v) ?? 0) }
                }
                o.add("unit", "hr")
                return o.closed
            }))
        }
    }
}
