#if CommandLineTool
import ArgumentParser
import Glibc
import OpenHealthKitCore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read the whole store and hold its records, indexes and positions to each other.",
        discussion: """
        Like SQLite's PRAGMA integrity_check: it reports and repairs nothing.
        Prints `ok` and the counts, or one line per problem and exits 1.
        It first walks LMDB's pages without LMDB (a damaged page would
        stop LMDB), then reads every object once and looks each up in the
        UUID index.

        Examples:
          ohk check
          ohk check --store /var/lib/app/health
        """
    )

    @OptionGroup var location: StoreLocation

    func run() throws {
        try reportingErrors {
            // A store too damaged for LMDB must not be opened: pages first.
            let exists = access(location.directory + "/data.mdb", F_OK) == 0
            let pages = exists ? Store.verifyPages(directory: location.directory) : []
            guard pages.isEmpty else {
                for p in pages { print(p) }
                throw Exit.refused
            }
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
#endif
