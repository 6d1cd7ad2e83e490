#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save one sample and print its UUID.",
        discussion: """
        A quantity takes a number and --unit, which may be left out only
        where the type's display and canonical units agree (steps: count);
        a category takes a value name (Stood, AsleepCore) or integer. Dates
        are ISO 8601; both default to now.

        Examples:
          ohk add BodyMass 72.5 --unit kg --start 2024-03-01T08:00:00Z
          ohk add AppleStandHour Stood --source com.example.app
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "The sample type.")
    var type: String

    @Argument(help: "The value.")
    var value: String

    @Option(help: "The value's unit (quantity types).")
    var unit: String?

    @Option(help: "Start date (ISO 8601).")
    var start: String?

    @Option(help: "End date (ISO 8601; default: the start).")
    var end: String?

    @Option(help: "The source's bundle identifier.")
    var source = "ohk"

    @Option(name: .customLong("metadata"), help: ArgumentHelp("A metadata entry; repeatable.", valueName: "key=value"))
    var metadata: [String] = []

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let t = try sampleType(type, in: store)
            let startDate = try parseDate(start, "--start") ?? .now
            let endDate = try parseDate(end, "--end") ?? startDate
            let src = Source(bundleIdentifier: source, name: source)
            var meta: [String: MetadataValue] = [:]
            for entry in metadata {
                guard let eq = entry.firstIndex(of: "=") else { throw ValidationError("--metadata takes key=value, got '\(entry)'") }
                meta[String(entry[..<eq])] = typedMetadataValue(entry[entry.index(after: eq)...])
            }
            let sample: Sample
            if let canonical = t.canonicalUnit {
                guard let v = Double(value) else { throw ValidationError("'\(value)' is not a number") }
                // HealthKit has no unitless quantity: a bare 60 would be 60 count/s (rule 55).
                if unit == nil, let shown = t.displayUnit, shown != canonical {
                    throw ValidationError("\(TypeCatalogue.shortName(t)) needs --unit: \(shown) (how it is shown) or \(canonical) (how it is stored)")
                }
                sample = try .quantity(t, value: v, unit: try unit.map { try HealthUnit($0) } ?? canonical,
                                       start: startDate, end: endDate, source: src, metadata: meta)
            } else {
                guard let v = t.categoryValue(named: value) ?? Int(value) else {
                    throw OHKError(.invalidValue, "\(t.identifier) has no value '\(value)'")
                }
                sample = try .category(t, value: v, start: startDate, end: endDate, source: src, metadata: meta)
            }
            try store.save([sample])
            print(sample.uuid.uuidString)
        }
    }
}

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete samples by UUID (all or none).",
        discussion: """
        Deleted samples come back from queries as deleted objects until pruned.

        Example:
          ohk delete 6F1C2B1E-0D2A-4C59-9E1B-2C3D4E5F6A7B
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "UUIDs of samples.")
    var uuids: [String]

    func run() throws {
        let parsed = try uuids.map { text in
            guard let u = UUID(uuidString: text) else { throw ValidationError("'\(text)' is not a UUID") }
            return u
        }
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            try store.delete(uuids: parsed)
            print("deleted \(Set(parsed).count)")  // a UUID listed twice is deleted once (rule 15)
        }
    }
}

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Drop deleted objects: those deleted more than --older-than days ago, or --all.",
        discussion: """
        Anchors from before the newest dropped deletion then expire: their
        queries fail and must start again from 'none' (HealthKit's rule).

        Examples:
          ohk prune --older-than 90
          ohk prune --all
        """
    )

    @OptionGroup var location: StoreLocation

    @Option(help: "Drop objects deleted more than this many days ago.")
    var olderThan: Double?

    @Flag(help: "Drop every deleted object.")
    var all = false

    func validate() throws {
        guard (olderThan != nil) != all else { throw ValidationError("give exactly one of --older-than DAYS and --all") }
        if let d = olderThan, !(d >= 0) { throw ValidationError("--older-than must be 0 or more days") }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let dropped = all ? try store.pruneAll()
                : try store.prune(deletedBefore: Date.now.addingTimeInterval(-olderThan! * 86_400))
            print("pruned \(dropped) deleted objects")
        }
    }
}

/// A metadata value from the command line, typed as HealthKit stores it:
/// `true`/`false` a boolean, a decimal number as JSON writes one a number,
/// an ISO 8601 date or date-time a date, anything else text
/// (`HKWasUserEntered=true` is the boolean the importer and HealthKit
/// write, not the string "true"). Text that a number would change stays
/// text: a leading zero (`007`), hexadecimal, or a whole number beyond
/// 2^53, which a double does not hold exactly.
func typedMetadataValue(_ text: Substring) -> MetadataValue {
    switch text {
    case "true": return .bool(true)
    case "false": return .bool(false)
    default: break
    }
    if let n = decimalNumber(text) { return .number(n) }
    if let d = ISODate.parse(text) { return .date(d) }
    return .string(String(text))
}

/// `text` as a number when it is one as JSON writes it
/// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`), finite, and exact
/// when whole; else nil.
private func decimalNumber(_ text: Substring) -> Double? {
    var digits = text.utf8[...]
    if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
    let whole = digits.prefix { $0 >= 48 && $0 <= 57 }
    guard !whole.isEmpty, whole.count == 1 || whole.first != 48 else { return nil }
    var rest = digits.dropFirst(whole.count)
    if rest.first == UInt8(ascii: ".") {
        let fraction = rest.dropFirst().prefix { $0 >= 48 && $0 <= 57 }
        guard !fraction.isEmpty else { return nil }
        rest = rest.dropFirst(1 + fraction.count)
    }
    if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
        rest = rest.dropFirst()
        if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let exponent = rest.prefix { $0 >= 48 && $0 <= 57 }
        guard !exponent.isEmpty else { return nil }
        rest = rest.dropFirst(exponent.count)
    }
    guard rest.isEmpty, let n = Double(text), n.isFinite else { return nil }
    let isWhole = whole.count == digits.count
    return isWhole && n.magnitude > 9_007_199_254_740_992 ? nil : n
}
#endif
