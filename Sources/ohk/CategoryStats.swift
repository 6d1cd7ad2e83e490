#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk stats SleepAnalysis --by day`: the time each value of a category
/// type covers per interval (`CategoryRows`), as a table, CSV or JSON.
struct CategoryStats {
    let type: SampleType
    let interval: StatisticsInterval
    let from: String?
    let to: String?
    let time: StatsTime
    let format: StatsCommand.OutputFormat

    func run(_ store: Store) throws {
        guard let table = try CategoryRows.compute(store, type: type, interval: interval, from: from, to: to, time: time) else {
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        switch format {
        case .table:
            OutputText.printTable(table.header, table.rows, left: 2)
        case .csv:
            for r in [table.header] + table.rows { print(r.map(StatsByInterval.csvField).joined(separator: ",")) }
        case .json:
            print(table.json)
        }
    }
}
#endif
