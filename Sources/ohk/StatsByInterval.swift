#if CommandLineTool
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
        guard let table = try StatisticsRows.compute(store, type: type, options: options, interval: interval,
                                                     from: from, to: to, time: time, unit: unit) else {
            // Without --from/--to, the span is the type's samples': there are none.
            print(format == .json ? "[]" : "no \(TypeCatalogue.shortName(type)) samples")
            return
        }
        let separate = table.separate, columns = table.columns
        switch format {
        case .table:
            // The end is the next start: the table shows starts only.
            let header = ["start"] + (separate ? ["source"] : [])
                + columns.map { $0.isQuantity ? "\($0.name) (\(table.shown))" : $0.name }
            OutputText.printTable(header, table.rows.map { [$0[0]] + $0.dropFirst(2) }, left: separate ? 2 : 1)
        case .csv:
            // One unit column, as every frame and CSV has (rule 44).
            for r in [table.names + columns.map(\.name) + ["unit"]] + table.rows.map({ $0 + [table.shown.description] }) {
                print(r.map(Self.csvField).joined(separator: ","))
            }
        case .json:
            print(table.json)
        }
    }

    static func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replacing("\"", with: "\"\"") + "\"" : s
    }
}
#endif
