#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// `--store DIR`, shared by every command.
struct StoreLocation: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory (created when missing).", valueName: "dir"))
    var store: String?

    @Flag(name: .long, help: ArgumentHelp("Open the store for reading only: writes are refused, and read access to its files is enough."))
    var readOnly = false

    /// --store, else $OHK_STORE, else the user's data directory; a leading
    /// `~` is the home directory, as a shell would have it unquoted.
    var directory: String { expandingTilde(store ?? Store.defaultDirectory) }

    func open() throws -> Store {
        var options = StoreOptions()
        options.readOnly = readOnly
        return try Store(directory: directory, options: options)
    }
}

/// `path` with a leading `~` or `~/` made $HOME (`~user` stays as it is).
func expandingTilde(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }) else { return path }
    return home + path.dropFirst()
}

/// The documented exit codes (see `ohk --help`).
enum Exit {
    static let refused = ExitCode(1)
    static let damagedInput = ExitCode(65)
    static let noInput = ExitCode(66)
    /// A library the command needs is not installed (EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
}

/// Runs a command body, turning the store's errors into a message on
/// stderr and exit code 1 instead of a stack of Swift error text.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let e as OHKError {
        printError("ohk: \(e.message)")
        throw Exit.refused
    }
}

func printError(_ text: String) {
    writeStderr(text + "\n")
}

/// Straight to file descriptor 2: unbuffered, and safe from any thread.
func writeStderr(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Types named on the command line: HealthKit's identifiers, the short
/// form without the prefix (`StepCount`, `SleepAnalysis`), or a custom
/// type of the store.
func sampleType(_ name: String, in store: Store) throws -> SampleType {
    do {
        return try store.sampleType(name)
    } catch let e as OHKError where e.code == .unknownType {
        // The core's message names the types meant; `ohk types` lists them all.
        throw OHKError(.unknownType, e.message.replacing("unknown sample type identifier", with: "unknown sample type")
                       + "; `ohk types` lists them")
    }
}

/// Every type a query over "everything" should name: HealthKit's and the
/// store's custom ones that hold samples.
func allTypes(in store: Store) throws -> [SampleType] {
    let custom = try store.counts().types.map(\.type).filter(\.isCustom)
    return TypeCatalogue.all + custom
}

/// An anchor from the command line: base64, or `none` for the start.
func parseAnchor(_ text: String) throws -> QueryAnchor? {
    if text == "none" { return nil }
    // Rule 2: an empty anchor is a truncated one, never "no anchor".
    guard !text.isEmpty else { throw ValidationError("the anchor is empty (truncated?); for no anchor say 'none'") }
    do {
        return try QueryAnchor(base64: text)
    } catch {
        throw ValidationError("'\(text)' is not an anchor (the base64 text that queries print, or 'none')")
    }
}

/// An ISO 8601 date or date-time given as option `what`; nil when absent.
func parseDate(_ text: String?, _ what: String) throws -> Date? {
    guard let text else { return nil }
    guard let d = ISODate.parse(Substring(text)) else {
        if ISODate.parse(Substring(text + "Z")) != nil {
            throw ValidationError("\(what) '\(text)' has no UTC offset: write \(text)Z for UTC, or \(text)+01:00")
        }
        throw ValidationError("\(what) '\(text)' is not an ISO 8601 date (2020-11-01) or date-time (2020-11-01T08:00:00Z)")
    }
    return d
}
#endif
