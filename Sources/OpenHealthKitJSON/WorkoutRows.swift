import FoundationEssentials
import OpenHealthKitCore

/// Workouts per interval as rows of text: each counted once (rule 57:
/// likely duplicates aside, and counted apart), with their time,
/// distance and energy, by the intervals a statistics collection has
/// (rule 28). What `ohk stats Workout --by month` prints, and what `ohk
/// serve` answers for the workout type's statistics.
package struct WorkoutRows {
    package static let header = ["start", "end", "workouts", "duration (min)", "distance (km)", "energy (kcal)",
                                 "duplicates not counted"]
    /// The JSON keys of the columns.
    package static let keys = ["start", "end", "workouts", "durationMinutes", "distanceKilometres", "energyKilocalories",
                               "likelyDuplicatesNotCounted"]
    package var rows: [[String]]
    /// Likely duplicates left out of every row.
    package let duplicates: Int

    /// Nil when neither `from` nor `to` is given and the store has no workouts.
    package static func compute(_ store: Store, interval: StatisticsInterval, from: String?, to: String?,
                                time: StatsTime) throws -> WorkoutRows? {
        let all = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType)], anchor: nil).samples
        let copies = WorkoutDuplicates.originals(all)
        var counted = all.indices.filter { copies[$0] == nil }.map { all[$0] }
        // Without from and to: the first and last start of the workouts counted.
        let range = try time.span(from: from, to: to, unit: interval.unit) {
            guard let first = counted.map(\.startDate).min(), let last = counted.map(\.startDate).max() else { return nil }
            return (first, last)
        }
        guard let (lo, hi, anchor) = range else { return nil }
        let edges = try Store.intervalEdges(anchor: anchor, interval: interval, from: lo, to: hi, utcOffset: time.utcOffset,
                                            timeZone: time.zone, sampleLocal: time.isSampleLocal)
        // A workout belongs to the interval its start falls in (its own local time with sample-local time).
        let local: (Sample) -> Date = { s in
            guard case .sampleLocal(let q) = time else { return s.startDate }
            return s.startDate.addingTimeInterval(Double(s.utcOffset ?? q))
        }
        counted.sort { $0.startDate < $1.startDate }
        let copiesOf = all.indices.filter { copies[$0] != nil }.map { all[$0] }
        var rows: [[String]] = []
        for k in 0..<(edges.count - 1) {
            let within = { (s: Sample) in local(s) >= edges[k] && local(s) < edges[k + 1] }
            let inside = counted.filter(within)
            var minutes = 0.0, km = 0.0, kcal = 0.0
            for s in inside {
                guard case .workout(let w) = s.value else { continue }
                minutes += w.duration / 60
                km += (w.totalDistance ?? 0) / 1000
                kcal += w.totalEnergyBurned ?? 0
            }
            rows.append([time.label(edges[k]), time.label(edges[k + 1]), "\(inside.count)",
                         TextForms.number((minutes * 10).rounded() / 10), TextForms.number((km * 100).rounded() / 100),
                         TextForms.number(kcal.rounded()), "\(copiesOf.filter(within).count)"])
        }
        return WorkoutRows(rows: rows, duplicates: copiesOf.count)
    }

    /// A JSON array, an object a row: its dates as text, its figures as numbers.
    package var json: String {
        JSONObject.array(rows.map { row -> String in
            var o = JSONObject()
            for (k, v) in zip(Self.keys, row) {
                if k == "start" || k == "end" { o.add(k, v) } else { o.add(k, number: Double(v) ?? 0) }
            }
            return o.closed
        })
    }
}
