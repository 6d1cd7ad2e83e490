#if CommandLineTool
import ArgumentParser
import Glibc
import OpenHealthKitCore

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store into a folder of files and keep it current: CSV, NDJSON or Parquet per type, or FHIR R4.",
        discussion: """
        DIR gets samples/<type identifier>.<format> (one row per sample),
        deletions.<format> (the deleted objects seen) and anchor (what the
        folder is current to). The first run writes every sample; a later
        run reads only what changed since the folder's anchor (or --since
        FILE's) and rewrites only the files of the types that changed: a
        deleted sample's row goes, a new one comes. Each file is written
        beside its final name and renamed over it, and the anchor last: an
        interrupted run leaves whole files, and the next run repeats it.

        CSV columns: uuid, start_date, end_date (UTC, ISO 8601), value
        (the canonical unit's; a workout's duration), unit, type, source,
        source_bundle, device, metadata (JSON), utc_offset (seconds),
        creation_date. NDJSON lines are the samples as `ohk changes`
        prints them. Parquet goes through Python: it needs the
        openhealthkit package with its arrow extra
        (pip install 'openhealthkit[arrow]'; OHK_PYTHON names the Python).

        FHIR writes Bulk Data NDJSON, one file per resource type
        (Observation.ndjson, Immunization.ndjson…): samples as
        Observations with LOINC and Apple codings and UCUM units, clinical
        records of FHIR R4 as the resources they hold (docs/fhir.md). Each
        run writes the whole folder anew; with --since FILE, only the
        samples added after its anchor, as Bulk Data's _since does
        (deletions have no FHIR form).

        Examples:
          ohk export --format csv --out ~/health-csv
          ohk export --format parquet --out ~/health StepCount HeartRate
          ohk export --format ndjson --out feed --since feed.anchor
          ohk export --format fhir --out ~/health-fhir
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, ndjson, parquet, fhir }

    @OptionGroup var location: StoreLocation

    @Argument(help: "Sample types (default: every type the store has held).")
    var types: [String] = []

    @Option(help: "csv, ndjson, parquet or fhir.")
    var format: Format

    @Option(name: .customLong("out"), help: ArgumentHelp("The folder to write (created when missing).", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Start after the anchor in this file when it exists, and write the new anchor to it.",
                               valueName: "file"))
    var since: String?

    func run() throws {
        if format == .parquet { return try ParquetThroughPython(command: self).run() }
        if format == .fhir { return try runFHIR() }
        try reportingErrors {
            let store = try location.open()
            let chosen = try types.isEmpty ? store.counts().types.map(\.type) : types.map { try sampleType($0, in: store) }
            let folder = expandingTilde(out)
            let start = try startAnchor(folder)
            let export = try TextExport(folder: folder, format: format, incremental: start != nil)
            let (end, changes) = try readChanges(store, chosen, after: start, into: export.add)
            let written = try export.finish(anchor: end.base64, types: chosen)
            if let since { writeFileAtomically(expandingTilde(since), end.base64 + "\n") }
            store.close()
            print("\(start == nil ? "wrote" : "updated") \(written) file\(written == 1 ? "" : "s") in \(folder) "
                  + "(\(changes) change\(changes == 1 ? "" : "s")); anchor \(end.base64)")
        }
    }

    /// The FHIR folder: the samples after --since FILE's anchor, else all.
    private func runFHIR() throws {
        try reportingErrors {
            let store = try location.open()
            let chosen = try types.isEmpty ? store.counts().types.map(\.type) : types.map { try sampleType($0, in: store) }
            let folder = expandingTilde(out)
            let start = try since.flatMap { try startAnchor(nil, sinceFile: expandingTilde($0)) }
            let export = try FHIRExport(folder: folder)
            let (end, _) = try readChanges(store, chosen, after: start, into: export.add)
            try export.finish(store: store, anchor: end.base64)
            if let since { writeFileAtomically(expandingTilde(since), end.base64 + "\n") }
            store.close()
            let total = export.written.values.reduce(0, +)
            let files = export.written.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("wrote \(total) FHIR resource\(total == 1 ? "" : "s") in \(folder)\(files.isEmpty ? "" : ": " + files)")
            for (reason, n) in export.skipped.sorted(by: { $0.key < $1.key }) { print("not written: \(n) \(reason)") }
        }
    }

    /// Hands every change of `types` after `start` to `take`, in pages of
    /// 10,000 (bounded memory however large the store), with a count on a
    /// terminal; returns the anchor after the last and how many there were.
    private func readChanges(_ store: Store, _ types: [SampleType], after start: QueryAnchor?,
                             into take: (AnchoredQueryResult) throws -> Void) throws -> (QueryAnchor, Int) {
        var anchor = start
        var changes = 0
        if !types.isEmpty {
            let descriptors = types.map { QueryDescriptor(type: $0) }
            while true {
                let page = try store.anchoredQuery(descriptors, anchor: anchor, limit: 10_000)
                try take(page)
                changes += page.samples.count + page.deletedObjects.count
                anchor = page.newAnchor
                if isatty(2) != 0 { writeStderr("\rohk: \(changes) changes read") }
                if page.samples.count + page.deletedObjects.count < 10_000 { break }
            }
            if isatty(2) != 0 { writeStderr("\n") }
        }
        return (try anchor ?? store.currentAnchor(), changes)
    }

    /// --since FILE's anchor when the file exists, else the folder's, else
    /// none (everything).
    private func startAnchor(_ folder: String?, sinceFile: String? = nil) throws -> QueryAnchor? {
        for file in [sinceFile ?? since.map(expandingTilde), folder.map { $0 + "/anchor" }].compactMap({ $0 }) {
            guard let text = readFile(file) else { continue }
            guard let first = text.split(whereSeparator: \.isWhitespace).first else {
                throw ValidationError("\(file) is empty (truncated?); remove it to export everything again")
            }
            return try parseAnchor(String(first))
        }
        return nil
    }

    /// The arguments the Python side takes, the same as ours.
    var pythonArguments: [String] {
        var a = ["-m", "openhealthkit", "export-parquet", "--store", location.directory, "--out", expandingTilde(out)]
        if let since { a += ["--since", expandingTilde(since)] }
        return a + types
    }
}

/// `ohk export --format parquet`: pyarrow writes Parquet, so this hands
/// the same arguments to the Python package's own export, after checking
/// that Python has what it needs.
struct ParquetThroughPython {
    let command: ExportCommand

    func run() throws {
        let python = getenv("OHK_PYTHON").map { String(cString: $0) } ?? "python3"
        guard spawn(python, ["-c", "import openhealthkit, pyarrow.parquet"], quiet: true) == 0 else {
            printError("""
                ohk: --format parquet writes through Python's pyarrow, and \(python) lacks the openhealthkit \
                package or pyarrow: pip install 'openhealthkit[arrow]' (or set OHK_PYTHON to a Python that has \
                both); --format csv and ndjson need nothing more
                """)
            throw Exit.unavailable
        }
        let status = spawn(python, command.pythonArguments, quiet: false)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs `program` with `arguments` (its output ours unless `quiet`)
    /// and returns its exit status; 127 when it cannot start.
    private func spawn(_ program: String, _ arguments: [String], quiet: Bool) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, program, &actions, nil, argv, environ) == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
#endif
