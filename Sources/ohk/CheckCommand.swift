import ArgumentParser
import OpenHealthKitCore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read the whole store and hold its records, indexes and positions to each other.",
        discussion: """
        Like SQLite's PRAGMA integrity_check: it reports and repairs nothing.
        Prints `ok` and the counts, or one line per problem and exits 1.
        It reads every object once and looks each up in the UUID index.

        Examples:
          ohk check
          ohk check --store /var/lib/app/health
        """
    )

    @OptionGroup var location: StoreLocation

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let report = try store.verify()
            guard report.isClean else {
                for p in report.problems { print(p) }
                if report.moreProblems > 0 { print("and \(report.moreProblems) more problems") }
                throw Exit.refused
            }
            print("ok: \(report.samples) samples and \(report.deletedObjects) deleted objects checked")
        }
    }
}
