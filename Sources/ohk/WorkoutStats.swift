#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk stats Workout --by month`: workouts per interval (`WorkoutRows`),
/// as a table, CSV or JSON.
struct WorkoutStats {
    let interval: StatisticsInterval
    let from: String?
    let to: String?
    let time: StatsTime
    let format: StatsCommand.OutputFormat

    func run(_ store: Store) throws {
        guard let found = try WorkoutRows.compute(store, interval: interval, from: from, to: to, time: time) else {
            print(format == .json ? "[]" : "no workouts")
            return
        }
        switch format {
        case .table:
            OutputText.printTable(WorkoutRows.header, found.rows, left: 2)
            if found.duplicates > 0 {
                print("\(found.duplicates) likely duplicate workouts not counted (same activity, start, end and totals)")
            }
        case .csv:
            for r in [WorkoutRows.header] + found.rows { print(r.map(StatsByInterval.csvField).joined(separator: ",")) }
        case .json:
            print(found.json)
        }
    }
}
#endif
