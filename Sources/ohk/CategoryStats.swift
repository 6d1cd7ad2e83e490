import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore

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
        guard let whole = try store.statistics(type: type, options: .duration) else {
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        // Nights: --from/--to name the days nights end on; each runs from the noon before, on the wall clock.
        let shift = isNights ? -12.0 * 3600 : 0
        let wallShifted = { (d: Date) in
            Date(timeIntervalSince1970: time.instant(ofWall: time.wall(ofInstant: d.timeIntervalSince1970) + shift))
        }
        let given = (from: try time.date(from, "--from", isEnd: false), to: try time.date(to, "--to", isEnd: true))
        let lo = given.from.map(wallShifted) ?? whole.startDate
        let hi = given.to.map(wallShifted) ?? whole.endDate.addingTimeInterval(0.001)
        guard lo < hi else { throw ValidationError("--from '\(from ?? "")' is not before the end of --to '\(to ?? "")'") }
        // Without --from: the boundary before the first sample (for nights, the noon before it).
        let anchor = given.from.map(wallShifted)
            ?? (isNights ? wallShifted(time.anchor(.day, before: lo.addingTimeInterval(12 * 3600)))
                         : time.anchor(interval.unit, before: lo))
        let sampleLocal: Bool = { if case .sampleLocal = time { true } else { false } }()
        let found = try store.categoryDurations(type: type, anchor: anchor, interval: interval, from: lo, to: hi,
                                                utcOffset: time.utcOffset, timeZone: time.zone, sampleLocalTime: sampleLocal)
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
