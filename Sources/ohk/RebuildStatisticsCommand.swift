#if CommandLineTool
import ArgumentParser
import OpenHealthKitCore

struct RebuildStatisticsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild-statistics",
        abstract: "Rebuild the statistics the store keeps current, from its samples.",
        discussion: """
        Every write keeps hourly and daily figures per type and source, which
        statistics collections read instead of the samples. Opening a store
        whose figures miss changes rebuilds them already; this does it on
        demand, in one transaction, and prints how many samples it read.

        Examples:
          ohk rebuild-statistics
          ohk rebuild-statistics --store /var/lib/app/health
        """
    )

    @OptionGroup var location: StoreLocation

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let read = try store.rebuildStatistics()
            print("rebuilt from \(read) samples")
        }
    }
}
#endif
