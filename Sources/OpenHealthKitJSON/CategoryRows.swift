import FoundationEssentials
import OpenHealthKitCore

/// The time each value of a category type covers per interval, sources
/// merged by priority (rule 59), in hours, as rows of text: what `ohk
/// stats SleepAnalysis --by day` prints, and what `ohk serve` answers for
/// a category type's statistics. Sleep by day is by night: noon to noon,
/// filed under the day the night ends, as Python's `sleep_nights` files it.
package struct CategoryRows {
    package let header: [String]
    /// The JSON keys of the columns.
    package let keys: [String]
    package var rows: [[String]]

    package static func isNights(_ type: SampleType, _ interval: StatisticsInterval) -> Bool {
        type.identifier == "HKCategoryTypeIdentifierSleepAnalysis" && interval == .day
    }

    /// Nil when neither `from` nor `to` is given and the type has no samples.
    package static func compute(_ store: Store, type: SampleType, interval: StatisticsInterval, from: String?, to: String?,
                                time: StatsTime) throws -> CategoryRows? {
        let nights = isNights(type, interval)
        // Nights: from/to name the days nights end on; each runs from the noon before, on the wall clock.
        let range = try time.span(from: from, to: to, unit: interval.unit, wallShift: nights ? -12 * 3600 : 0) {
            try store.sampleSpan(of: type)  // the ends of the start index, not a pass over the samples
        }
        guard let (lo, hi, anchor) = range else { return nil }
        let found = try store.categoryDurations(type: type, anchor: anchor, interval: interval, from: lo, to: hi,
                                                utcOffset: time.utcOffset, timeZone: time.zone,
                                                sampleLocalTime: time.isSampleLocal)
        let values = Set(found.flatMap(\.byValue.keys)).sorted()
        let names = values.map { type.categoryValueName($0) ?? "\($0)" }
        let rows = found.map { d -> [String] in
            let label = nights ? String(time.label(d.endDate).prefix(10)) : time.label(d.startDate)
            let hours = values.map { TextForms.number(((d.byValue[$0] ?? 0) / 36).rounded() / 100) }
            return [label, time.label(d.endDate)] + hours + [TextForms.number((d.total / 36).rounded() / 100)]
        }
        let first = nights ? "night" : "start"
        return CategoryRows(header: [first, "end"] + names.map { "\($0) (h)" } + ["any (h)"],
                            keys: [first, "end"] + names + ["any"], rows: rows)
    }

    /// A JSON array, an object a row: its dates as text, its hours as numbers.
    package var json: String {
        JSONObject.array(rows.map { row -> String in
            var o = JSONObject()
            for (i, (k, v)) in zip(keys, row).enumerated() {
                if i < 2 { o.add(k, v) } else { o.add(k, number: Double(v) ?? 0) }
            }
            o.add("unit", "hr")
            return o.closed
        })
    }
}
