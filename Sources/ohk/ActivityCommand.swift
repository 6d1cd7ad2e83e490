#if CommandLineTool
import ArgumentParser
import OpenHealthKitCore
import OpenHealthKitJSON

struct ActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Print the activity summaries: one row a day of the move, exercise and stand rings.",
        discussion: """
        HealthKit's HKActivitySummary (rule 43 of docs/semantics.md): energy
        in kcal, exercise and move time in minutes, stand hours a count,
        each with its goal; an empty cell where the day has no value.

        Examples:
          ohk activity --from 2024-05-01 --to 2024-05-31
          ohk activity --format csv > rings.csv
        """
    )

    @OptionGroup var location: StoreLocation

    @Option(help: "The first day (YYYY-MM-DD).")
    var from: String?

    @Option(help: "The last day (YYYY-MM-DD).")
    var to: String?

    @Option(help: "table, csv or json (one object per line).")
    var format: QueryCommand.OutputFormat = .table

    private static let columns = ["day", "activeEnergyBurned", "activeEnergyBurnedGoal", "appleMoveTime", "appleMoveTimeGoal",
                                  "appleExerciseTime", "exerciseTimeGoal", "appleStandHours", "standHoursGoal",
                                  "moveMode", "paused"]

    func run() throws {
        try reportingErrors {
            let start = try from.map { try ActivitySummary.Day($0) }, end = try to.map { try ActivitySummary.Day($0) }
            let store = try location.open()
            defer { store.close() }
            let all = try store.activitySummaries(from: start, through: end)
            let rows = all.map { s in
                ["\(s.day)"] + s.values.map { $0.map(OutputText.number) ?? "" }
                    + [s.moveMode == .activeEnergy ? "activeEnergy" : "appleMoveTime", "\(s.isPaused)"]
            }
            switch format {
            case .json:
                for s in all {
                    var o = JSONObject()
                    o.add("day", "\(s.day)")
                    for (name, v) in zip(Self.columns.dropFirst(), s.values) { if let v { o.add(name, number: v) } }
                    o.add("moveMode", s.moveMode == .activeEnergy ? "activeEnergy" : "appleMoveTime")
                    o.add("paused", bool: s.isPaused)
                    print(o.closed)
                }
            case .csv:
                print(Self.columns.joined(separator: ","))
                for r in rows { print(r.joined(separator: ",")) }
            case .table:
                let table = [Self.columns] + rows
                let widths = Self.columns.indices.map { c in table.map { $0[c].count }.max() ?? 0 }
                for r in table {
                    let line = zip(r, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                    print(String(line.reversed().drop { $0 == " " }.reversed()))
                }
                print("\(all.count) day\(all.count == 1 ? "" : "s")")
            }
        }
    }
}
#endif
