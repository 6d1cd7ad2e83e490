import ArgumentParser
import OpenHealthKitCore

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise the store: samples and deleted objects per type, sources, the current anchor.",
        discussion: """
        The anchor printed is where `ohk changes --since` starts to see only
        what changes from now on.

        Examples:
          ohk stats
          ohk stats --json
        """
    )

    @OptionGroup var location: StoreLocation

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let s = try store.statistics()
            if json {
                var types = JSONObject()
                for t in s.types {
                    var o = JSONObject()
                    o.add("samples", int: t.samples)
                    o.add("deletedObjects", int: t.deletedObjects)
                    types.add(t.type.identifier, object: o)
                }
                var o = JSONObject()
                o.add("store", store.directory)
                o.add("samples", int: s.samples)
                o.add("deletedObjects", int: s.deletedObjects)
                o.add("sources", int: s.sources)
                o.add("devices", int: s.devices)
                o.add("types", object: types)
                o.add("anchor", s.anchor.base64)
                print(o.closed)
                return
            }
            print("store \(store.directory)")
            print("  \(s.samples) samples, \(s.deletedObjects) deleted objects, \(s.types.count) types, \(s.sources) sources, \(s.devices) devices")
            let width = s.types.map(\.type.identifier.count).max() ?? 0
            for t in s.types {
                let pad = String(repeating: " ", count: width - t.type.identifier.count)
                print("  \(t.type.identifier)\(pad)  \(t.samples)" + (t.deletedObjects > 0 ? " (+\(t.deletedObjects) deleted)" : ""))
            }
            print("anchor \(s.anchor.base64)")
        }
    }
}
