#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON

struct ObserveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "observe",
        abstract: "Print a line each time a commit (by any process) changes samples of the given types.",
        discussion: """
        Each line is {"changed": [TYPE, …], "at": TIME}: which types changed,
        not what; `ohk changes` tells what. Nothing is printed at start.
        "observing" on stderr means the observer is live.

        Examples:
          ohk observe
          ohk observe StepCount --count 1 && ohk changes --anchor-file state.anchor
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "Sample types (default: all).")
    var types: [String] = []

    @Option(help: "Exit after this many notifications (0: never).")
    var count = 0

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or positive") }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            let chosen = try types.isEmpty ? allTypes(in: store) : types.map { try sampleType($0, in: store) }
            let remaining = Counter(count)
            let query = ObserverQuery(descriptors: chosen.map { QueryDescriptor(type: $0) }) { _, result, done in
                switch result {
                case .success(let changed):
                    var o = JSONObject()
                    o.add("changed", raw: JSONObject.array(changed.map(\.identifier).sorted().map(JSONObject.quoted)))
                    o.add("at", OutputText.time(.now))
                    print(o.closed)
                    fflush(nil)  // stdout, which a pipe buffers
                    done()
                    if remaining.decrement() { Glibc.exit(0) }
                case .failure(let e):
                    printError("ohk: \(e.message)")
                    Glibc.exit(1)
                }
            }
            try store.execute(query)
            printError("ohk: observing \(chosen.count) types in \(store.directory)")
            while true { pause() }
        }
    }
}

/// Notifications left before exiting; called on the query's queue only.
final class Counter: @unchecked Sendable {
    private var left: Int
    init(_ n: Int) { left = n }
    /// True when this was the last one (never when counting is off).
    func decrement() -> Bool {
        guard left > 0 else { return false }
        left -= 1
        return left == 0
    }
}
#endif
