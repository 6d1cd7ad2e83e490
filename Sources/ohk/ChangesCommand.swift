#if CommandLineTool
import ArgumentParser
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON

struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print what changed after an anchor, one JSON object per line; with --follow, keep printing changes as they are committed.",
        discussion: """
        Lines are {"added": SAMPLE}, {"deleted": DELETED-OBJECT} and
        {"anchor": "…"}. An anchor line follows the snapshot and, with
        --follow, every change set; pass its value to the next run (or let
        --anchor-file keep it). Changes written by any process are seen.
        Without types, every type is followed.

        Examples:
          ohk changes --since none
          ohk changes --since "$ANCHOR" StepCount SleepAnalysis
          ohk changes --anchor-file state.anchor --follow
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "Sample types (default: all).")
    var types: [String] = []

    @Option(help: "Start after this anchor ('none': everything retained). Default: the anchor in --anchor-file.")
    var since: String?

    @Option(help: ArgumentHelp("Read the start anchor from this file when --since is absent; write each new anchor to it.", valueName: "file"))
    var anchorFile: String?

    @Flag(help: "After the snapshot, print each change as it is committed, until interrupted.")
    var follow = false

    @Option(name: [.customLong("where")], help: "Predicate text applied to every type.")
    var predicate: String?

    func validate() throws {
        if since == nil && anchorFile == nil {
            throw ValidationError("say where to start: --since ANCHOR, --since none, or --anchor-file FILE")
        }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            let chosen = try types.isEmpty ? allTypes(in: store) : types.map { try sampleType($0, in: store) }
            // Parsed for each type, so that what the type refuses is reported at its offset.
            let descriptors = try chosen.map { type in
                QueryDescriptor(type: type, predicate: try predicate.map { try SamplePredicate($0, for: type) })
            }
            var anchor = try startAnchor()
            // The snapshot in pages, so a large store streams in bounded memory.
            while true {
                let page = try store.anchoredQuery(descriptors, anchor: anchor, limit: 10_000)
                emit(page, anchorLine: false)
                anchor = page.newAnchor
                if page.samples.count + page.deletedObjects.count < 10_000 { break }
            }
            guard follow else {
                emitAnchor(anchor!)
                store.close()
                return
            }
            let query = AnchoredObjectQuery(descriptors: descriptors, anchor: anchor, maxBatchSize: 10_000,
                                            resultsHandler: { _, r in handle(r) }, updateHandler: { _, r in handle(r) })
            try store.execute(query)
            while true { pause() }  // until a signal ends the process
        }
    }

    private func handle(_ r: Result<AnchoredQueryResult, OHKError>) {
        switch r {
        case .success(let page): emit(page, anchorLine: true)
        case .failure(let e):
            printError("ohk: \(e.message)")
            Glibc.exit(1)
        }
    }

    private func startAnchor() throws -> QueryAnchor? {
        if let since { return try parseAnchor(since) }
        guard let file = anchorFile else { throw ValidationError("say where to start: --since or --anchor-file") }
        guard let text = readFile(file) else {
            // The first run of a resumable feed: there is nothing to resume.
            guard access(file, F_OK) != 0 else { throw ValidationError("--anchor-file \(file) cannot be read") }
            printError("ohk: --anchor-file \(file) does not exist yet: starting from the beginning")
            return nil
        }
        guard let first = text.split(whereSeparator: \.isWhitespace).first else {
            throw ValidationError("--anchor-file \(file) is empty (truncated?); remove it, or start with --since none")
        }
        return try parseAnchor(String(first))
    }

    private func emit(_ page: AnchoredQueryResult, anchorLine: Bool) {
        for s in page.samples {
            var sample = JSONObject.sample(s)
            // As `query` prints it; a quantity always converts to its type's display unit.
            try? sample.addDisplay(s, in: s.type.canonicalUnit == nil ? nil : s.type.displayUnit)
            var o = JSONObject()
            o.add("added", object: sample)
            print(o.closed)
        }
        for d in page.deletedObjects {
            var o = JSONObject()
            o.add("deleted", object: .deleted(d))
            print(o.closed)
        }
        if anchorLine { emitAnchor(page.newAnchor) }
    }

    private func emitAnchor(_ anchor: QueryAnchor) {
        var o = JSONObject()
        o.add("anchor", anchor.base64)
        print(o.closed)
        fflush(nil)  // stdout, which a pipe buffers
        if let anchorFile { writeFileAtomically(anchorFile, anchor.base64 + "\n") }
    }
}

func readFile(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n == 0 { break }
        out += buffer[..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

/// Writes through a temporary file and rename, so a reader (or a crash)
/// sees the old anchor or the new one, never half of one.
func writeFileAtomically(_ path: String, _ text: String) {
    let temporary = path + ".tmp"
    guard let f = fopen(temporary, "w") else {
        printError("ohk: cannot write \(temporary): \(String(cString: strerror(errno)))")
        Glibc.exit(1)
    }
    fputs(text, f)
    fflush(f)
    fsync(fileno(f))
    fclose(f)
    if rename(temporary, path) != 0 {
        printError("ohk: cannot replace \(path): \(String(cString: strerror(errno)))")
        Glibc.exit(1)
    }
}
#endif
