import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk stats Workout --by month`: workouts per interval, each counted
/// once (rule 57: likely duplicates aside), with their time, distance and
/// energy, by the intervals a statistics collection has (rule 28).
struct WorkoutStats {
    let interval: StatisticsInterval
    let from: String?
    let to: String?
    let time: StatsTime
    let format: StatsCommand.OutputFormat

    func run(_ store: Store) throws {
        let all = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType)], anchor: nil).samples
        let copies = WorkoutDuplicates.originals(all)
        var counted = all.indices.filter { copies[$0] == nil }.map { all[$0] }
        // Without --from/--to: the first and last start of the workouts counted.
        let range = try time.span(from: from, to: to, unit: interval.unit) {
            guard let first = counted.map(\.startDate).min(), let last = counted.map(\.startDate).max() else { return nil }
            return (first, last)
        }
        guard let (lo, hi, anchor) = range else {
            print(format == .json ? "[]" : "no workouts")
            return
        }
        let edges = try Store.intervalEdges(anchor: anchor, interval: interval, from: lo, to: hi, utcOffset: time.utcOffset,
                                            timeZone: time.zone, sampleLocal: time.isSampleLocal)
        // A workout belongs to the interval its start falls in (its own local time with --local-time).
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
                         OutputText.number((minutes * 10).rounded() / 10), OutputText.number((km * 100).rounded() / 100),
                         OutputText.number(kcal.rounded()), "\(copiesOf.filter(within).count)"])
        }
        let names = ["start", "end", "workouts", "duration (min)", "distance (km)", "energy (kcal)", "duplicates not counted"]
        switch format {
        case .table:
            OutputText.printTable(names, rows, left: 2)
            if !copiesOf.isEmpty {
                print("\(copiesOf.count) likely duplicate workouts not counted (same activity, start, end and totals)")
            }
        case .csv:
            for r in [names] + rows { print(r.map(StatsByInterval.csvField).joined(separator: ",")) }
        case .json:
            let keys = ["start", "end", "workouts", "durationMinutes", "distanceKilometres", "energyKilocalories",
                        "likelyDuplicatesNotCounted"]
            let objects = rows.map { row -> String in
                var o = JSONObject()
                for (k, v) in zip(keys, row) {
                    if k == "start" || k == "end" { o.add(k, v) } else { o.add(k, number: Double(v) ?? 0) }
                }
                return o.closed
            }
            print(JSONObject.array(objects))
        }
    }
}
