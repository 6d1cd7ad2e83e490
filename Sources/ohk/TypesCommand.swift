#if CommandLineTool
import ArgumentParser
import OpenHealthKitCore
import OpenHealthKitJSON

struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the sample types: HealthKit's and the store's own.",
        discussion: """
        Quantity types show their canonical unit (the stored values are in
        it) and, where it differs, the display unit that query and stats
        print in by default; category types show their values.

        Examples:
          ohk types
          ohk types --json | jq -r '.identifier'
        """
    )

    @OptionGroup var location: StoreLocation

    @Flag(help: "One JSON object per line.")
    var json = false

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            for t in try allTypes(in: store) {
                var o = JSONObject()
                o.add("identifier", t.identifier)
                var line = t.identifier
                switch t.kind {
                case .quantity(let unit, let aggregation):
                    o.add("kind", "quantity")
                    o.add("unit", unit.description)
                    o.add("aggregation", "\(aggregation)")
                    line += "  quantity  \(unit)  \(aggregation)"
                    // What query, stats and to_pandas() show by default, where it differs.
                    if let shown = t.displayUnit, shown != unit {
                        o.add("displayUnit", shown.description)
                        line += "  shown in \(shown)"
                    }
                case .category(let values):
                    o.add("kind", "category")
                    var v = JSONObject()
                    for (name, n) in values.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) { v.add(name, int: n) }
                    o.add("values", object: v)
                    line += "  category  " + values.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                        .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                case .workout, .route, .correlation, .heartbeatSeries, .audiogram, .electrocardiogram, .clinicalRecord:
                    o.add("kind", t.kindName)
                    line += "  " + t.kindName
                }
                if t.isCustom { o.add("custom", bool: true) }
                print(json ? o.closed : line)
            }
        }
    }
}
#endif
