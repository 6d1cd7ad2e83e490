#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitPostgres

/// `ohk sink`: the store's changes delivered into another database.
struct SinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink",
        abstract: "Deliver the store's changes into another database, exactly once.",
        subcommands: [PostgresSinkCommand.self]
    )
}

struct PostgresSinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "Deliver every change of the store into PostgreSQL, exactly once (docs/postgres.md).",
        discussion: """
        Saved samples of every kind go to ohk_samples, deletions remove them,
        and every change is journaled once in ohk_changes; the tables are
        created when missing. Each batch is one transaction that also moves
        the sink's checkpoint in ohk_sink_checkpoints, so a run stopped at any
        moment (even killed) resumes where PostgreSQL says, and nothing is
        delivered twice. A second sink of the same name and person fences
        this one off: its next commit fails and it exits 1.

        URL is a libpq connection string (postgresql://user@host:port/db, or
        host=… dbname=…); passwords come from it, PGPASSWORD or ~/.pgpass.
        libpq (Debian: libpq5) is opened when the sink starts.

        Examples:
          ohk sink postgres --url postgresql://me@localhost/health
          ohk sink postgres --url 'host=db dbname=study' --person p-0042 --follow
        """
    )

    @OptionGroup var location: StoreLocation

    @Option(help: ArgumentHelp("The libpq connection string.", valueName: "url"))
    var url: String

    @Option(help: "Names the sink; one store may feed several.")
    var name = "default"

    @Option(help: ArgumentHelp("Names the person or store in the rows (default: the store's id).", valueName: "id"))
    var person: String?

    @Flag(help: "Keep delivering as commits happen, from any process, until interrupted.")
    var follow = false

    @Option(help: "Changes per PostgreSQL transaction.")
    var batch = 50_000

    @Flag(help: "No progress bar.")
    var quiet = false

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be positive") }
        guard !name.isEmpty else { throw ValidationError("--name must not be empty") }
        if let person, person.isEmpty { throw ValidationError("--person must not be empty") }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            var options = SinkOptions()
            options.name = name
            options.person = person
            options.batchSize = batch
            let started = ContinuousClock.now
            let sink: PostgresSink
            do {
                sink = try PostgresSink(store: store, url: url, options: options)
            } catch let e as SinkError {
                printError("ohk: \(e.message)")
                throw e.kind == .library ? Exit.unavailable : Exit.refused
            }
            let bar = ProgressBar(enabled: !quiet, rateUnit: "k changes/s", rateScale: 1e3)
            let onBatch = { (p: SinkProgress) in
                bar.update(done: Int64(p.position - p.startPosition), total: Int64(p.head - p.startPosition),
                           detail: "\(p.saves) samples, \(p.deletions) deletions")
            }
            do {
                if follow {
                    StopSignal.install()
                    printError("ohk: following \(store.directory) into PostgreSQL as sink '\(sink.name)' of '\(sink.person)'")
                    try sink.follow(shouldStop: StopSignal.requested, onBatch: onBatch) { e, wait in
                        printError("ohk: \(e.message); retrying in \(format(wait)) s")
                    }
                } else {
                    try sink.deliverAvailable(onBatch: onBatch)
                }
            } catch let e as SinkError {
                bar.finish()
                summary(sink.progress, since: started)
                printError("ohk: \(e.message)")
                throw Exit.refused
            }
            bar.finish()
            summary(sink.progress, since: started)
        }
    }

    /// The closing line: what this run delivered, how fast, and where it stands.
    private func summary(_ p: SinkProgress, since start: ContinuousClock.Instant) {
        let d = ContinuousClock.now - start
        let seconds = max(0.001, Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18)
        let rows = p.saves + p.deletions
        print("sink '\(name)': \(p.saves) samples and \(p.deletions) deletions in \(p.batches) transactions, "
              + "\(format(seconds)) s (\(Int(Double(rows) / seconds)) rows/s); position \(p.position)")
    }
}

/// SIGINT and SIGTERM ask a following command to stop after its batch.
enum StopSignal {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0

    static func install() {
        for s in [SIGINT, SIGTERM] { signal(s) { _ in StopSignal.flag = 1 } }
    }

    @Sendable static func requested() -> Bool { flag != 0 }
}
#endif
