#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitRemote

/// `ohk sync SOURCE DEST`: replication between two stores (docs/sync.md).
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Copy every change of one store into another, resumably, and verify it (docs/sync.md).",
        discussion: """
        Copies each change of SOURCE since DEST's checkpoint for it (samples of
        every kind with their UUIDs and metadata, deletions, sync-identifier
        replacements) into DEST, which is created when missing. Each batch is
        one transaction of DEST that also moves the checkpoint, so a run
        stopped at any moment (even killed) resumes where it stood, and an
        anchored reader of DEST sees each change once. At the end, the digest
        the received changes rebuild is compared with SOURCE's: "verified",
        or the types that differ (exit 1).

        Run it both ways to keep two stores alike: a deletion wins over the
        same sample anywhere, the higher sync version wins, and a UUID whose
        content differs is reported as a conflict and left alone.

        A checkpoint that no longer fits SOURCE (another store in its place,
        deletions pruned past it, or a SOURCE older than what was copied) is
        an error; --from-scratch copies SOURCE in full again.

        Either side may be a person's store on `ohk serve`,
        http(s)://HOST:PORT/v1/people/PERSON, with --token (or $OHK_TOKEN): a
        token that reads every type copied from it, and a --relay token that
        writes every type copied into it. libcurl is opened for it.

        Examples:
          ohk sync ~/health/laptop /srv/health/backup
          ohk sync site-a central --name study-7 --types StepCount,HeartRate
          ohk sync ~/health/laptop http://127.0.0.1:8080/v1/people/p-0042 --token "$TOKEN" --follow
        """
    )

    @Argument(help: ArgumentHelp("The store to copy from: a store directory, or a URL of ohk serve.", valueName: "source"))
    var source: String

    @Argument(help: ArgumentHelp("The store to copy into: a store directory (created when missing), or a URL of ohk serve.",
                                 valueName: "dest"))
    var dest: String

    @Option(help: ArgumentHelp("The bearer token for the side that is a URL (default: $OHK_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: "Names the replication; DEST keeps one checkpoint per SOURCE and name.")
    var name = "default"

    @Option(help: ArgumentHelp("Copy only these types, comma-separated (default: every type).", valueName: "types"))
    var types: String?

    @Flag(help: "Forget the checkpoint and copy every change SOURCE retains.")
    var fromScratch = false

    @Flag(help: "Keep copying as SOURCE commits, from any process, until interrupted.")
    var follow = false

    @Option(help: "Changes per transaction of DEST.")
    var batch = 20_000

    @Flag(help: "No progress bar.")
    var quiet = false

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be positive") }
        guard !name.isEmpty else { throw ValidationError("--name must not be empty") }
        if let types, types.split(separator: ",", omittingEmptySubsequences: false).contains(where: { $0.allSatisfy(\.isWhitespace) }) {
            throw ValidationError("--types: an empty type name in '\(types)'")
        }
    }

    func run() throws {
        try reportingErrors {
            let token = self.token ?? getenv("OHK_TOKEN").map { String(cString: $0) }
            let from = try side(source, isSource: true, token: token)
            let into = try side(dest, isSource: false, token: token)
            if case .local(let a) = from, case .local(let b) = into, a.directory == b.directory {
                throw OHKError(.invalidArgument, "SOURCE and DEST are the same directory, \(source)")
            }
            var options = SyncOptions()
            options.name = name
            options.types = types.map { $0.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) } }
            options.fromScratch = fromScratch
            options.batchSize = batch
            options.sourceLocation = from.location
            var verified = try runOnce(from, into, options)
            guard follow else {
                if !verified { throw Exit.refused }
                return
            }
            options.fromScratch = false
            StopSignal.install()
            printError("ohk: following \(source) into \(dest) as sync '\(name)'")
            switch from {
            case .local(let store):
                let waiter = CommitWaiter()
                try store.execute(waiter)
                defer { waiter.stop() }
                while !StopSignal.requested() {
                    // A commit between the run and the wait is not missed: the waiter counts it.
                    guard waiter.wait(seconds: 1) else { continue }
                    verified = try runOnce(from, into, options) && verified
                }
            case .remote(let remote):
                while !StopSignal.requested() {
                    // A long poll of the server's changes, a few seconds at a time so that a signal is noticed.
                    let at = try into.destination.syncCheckpoints().first { $0.sourceStoreID == remote.syncStoreID && $0.name == name }
                    try remote.waitForChange(after: at?.anchor, seconds: 2)
                    verified = try runOnce(from, into, options) && verified
                }
            }
            if !verified { throw Exit.refused }
        }
    }

    /// One run up to SOURCE's head, with its progress bar and summary;
    /// false when the digests differ.
    private func runOnce(_ from: Side, _ into: Side, _ options: SyncOptions) throws -> Bool {
        let bar = ProgressBar(enabled: !quiet, rateUnit: "k changes/s", rateScale: 1e3)
        let started = ContinuousClock.now
        let report = try synchronize(from: from.source, into: into.destination, options) { p in
            bar.update(done: Int64(p.position - p.startPosition), total: Int64(p.sourceHead - p.startPosition),
                       detail: "\(p.changesRead) changes")
        }
        bar.finish()
        for u in report.newConflicts {
            printError("ohk: conflict: \(u) has other content in \(source) than in \(dest); both kept as they are")
        }
        if follow && report.changesRead == 0 { return true }
        print(Self.summary(report, name: name, seconds: elapsed(since: started)))
        if case .differs(let types) = report.verification {
            for (t, d) in types.sorted(by: { $0.key < $1.key }) {
                printError("ohk: \(t): \(source) holds \(d.source.count) live samples, the changes received give "
                           + "\(d.received.count) (digests \(d.source) and \(d.received))")
            }
            return false
        }
        return true
    }

    /// A side: a store directory (SOURCE must hold a store), or a URL.
    private func side(_ text: String, isSource: Bool, token: String?) throws -> Side {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            return .remote(try RemoteStore(url: text, token: token))
        }
        let path = expandingTilde(text)
        if isSource, access(path + "/data.mdb", F_OK) != 0 {
            throw OHKError(.invalidArgument, "\(text): no store there (no data.mdb)")
        }
        return .local(try Store(directory: path))
    }

    /// The closing line: what the run moved, how fast, and the check.
    static func summary(_ r: SyncReport, name: String, seconds: Double) -> String {
        let a = r.applied
        var parts = ["sync '\(name)': \(r.changesRead) changes in \(format(seconds)) s"
                     + " (\(Int(Double(r.changesRead) / max(seconds, 0.001))) changes/s)"]
        parts.append("\(a.added) added (\(a.replaced) replacing an older version), \(a.deleted) deleted")
        let skipped = [("already held", a.alreadyStored + a.alreadyDeleted), ("older versions", a.olderVersions),
                       ("deleted here before", a.deletedBefore), ("deletions kept for later", a.deletedBeforeArrival),
                       ("conflicts", r.newConflicts.count)].filter { $0.1 > 0 }
        if !skipped.isEmpty { parts.append(skipped.map { "\($0.1) \($0.0)" }.joined(separator: ", ")) }
        parts.append("position \(r.checkpoint.position)")
        switch r.verification {
        case .verified(let d): parts.append("verified (\(d.count) live samples)" + (r.converged ? ", stores alike" : ""))
        case .differs(let t): parts.append("NOT verified: \(t.count) types differ")
        }
        return parts.joined(separator: "; ")
    }

    private func elapsed(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

/// One side of a sync: a store in this process, or a person's store on `ohk serve`.
enum Side {
    case local(Store)
    case remote(RemoteStore)

    var source: any SyncSource {
        switch self {
        case .local(let s): s
        case .remote(let r): r
        }
    }

    var destination: any SyncDestination {
        switch self {
        case .local(let s): s
        case .remote(let r): r
        }
    }

    /// Where it is, for the checkpoint: the directory's real path, or the URL.
    var location: String {
        switch self {
        case .local(let s): realpath(s.directory, nil).map { p in defer { free(p) }; return String(cString: p) } ?? s.directory
        case .remote(let r): r.url
        }
    }
}
#endif
