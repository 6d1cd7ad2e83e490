#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run an anchored object query: samples and deleted objects after an anchor, and the new anchor.",
        discussion: """
        Types are HealthKit identifiers, with or without their prefix. The
        predicate is OpenHealthKit's predicate text (docs/predicates.md).
        Quantities print in the type's display unit (count/min for heart
        rate, km for distances) unless --unit says otherwise; JSON also
        keeps the canonical value and unit. The last line (table) or the "anchor" field (JSON) is the
        anchor to pass next time.

        Examples:
          ohk query BodyMass
          ohk query StepCount DistanceWalkingRunning --where 'source == "DonorTwo'"'"'s iPhone"'
          ohk query BodyMass --anchor "$ANCHOR" --format json
          ohk query HeartRate --latest 10 --unit bpm
          ohk query StepCount --since 2024-03-01 --until 2024-03-08 --sort start --format csv
          ohk query --descriptor 'BodyMass:source == "Renpho"' --descriptor 'Height'
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "Sample types to query.")
    var types: [String] = []

    @Option(name: .customLong("descriptor"),
            help: ArgumentHelp("A type with its own predicate, TYPE:PREDICATE (or TYPE); repeatable. Objects matching any descriptor are returned.",
                               valueName: "type[:predicate]"))
    var descriptorTexts: [String] = []

    @Option(name: [.customLong("where")], help: "Predicate text applied to every type.")
    var predicate: String?

    @Option(help: "Start after this anchor ('none': everything retained).")
    var anchor = "none"

    @Option(help: "At most this many objects (0: no limit).")
    var limit = 0

    @Option(help: "Print quantities in this unit (for the types it fits).")
    var unit: String?

    @Option(help: "table, csv or json.")
    var format: OutputFormat = .table

    enum OutputFormat: String, ExpressibleByArgument { case table, csv, json }

    @Option(help: "Samples that end at or after this date (ISO 8601).")
    var since: String?

    @Option(help: "Samples that start before this date (ISO 8601).")
    var until: String?

    @Option(help: "Print samples in order of start or end (default: the store's change order).")
    var sort: SortKey?

    enum SortKey: String, ExpressibleByArgument { case start, end }

    @Flag(help: "The latest first: by --sort's date, or by start without --sort.")
    var desc = false

    @Option(help: "Only the N samples that start last, the latest first (reads every match).")
    var latest: Int?

    func validate() throws {
        guard !types.isEmpty || !descriptorTexts.isEmpty else {
            throw ValidationError("name at least one sample type or --descriptor")
        }
        guard limit >= 0 else { throw ValidationError("--limit must be 0 (no limit) or positive") }
        guard (latest ?? 1) > 0 else { throw ValidationError("--latest must be positive") }
        guard latest == nil || (limit == 0 && sort == nil && !desc) else {
            throw ValidationError("--latest reads every match and sorts them: it goes without --limit, --sort and --desc")
        }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            // Parsed for each type, so that what the type refuses is reported at its offset.
            var descriptors = try types.map { name in
                let type = try sampleType(name, in: store)
                return QueryDescriptor(type: type, predicate: try predicate.map { try SamplePredicate($0, for: type) })
            }
            for text in descriptorTexts {
                // Type names hold no ':', so the first one ends the type.
                let parts = text.split(separator: ":", maxSplits: 1)
                let type = try sampleType(String(parts.first ?? ""), in: store)
                descriptors.append(QueryDescriptor(type: type,
                                                   predicate: try parts.count > 1 ? SamplePredicate(String(parts[1]), for: type) : nil))
            }
            if since != nil || until != nil {
                // Overlap with [since, until): HealthKit's date predicate without strict options.
                let range = SamplePredicate.dateRange(start: try parseDate(since, "--since"), end: try parseDate(until, "--until"),
                                                      options: [])
                descriptors = descriptors.map { d in
                    QueryDescriptor(type: d.type, predicate: d.predicate.map { .and([$0, range]) } ?? range)
                }
            }
            let display = try unit.map { try HealthUnit($0) }
            let result = try store.anchoredQuery(descriptors, anchor: try parseAnchor(anchor), limit: limit)
            var samples = Array(result.samples)
            if let latest {
                samples = Array(samples.sorted { ($0.startDate, $0.endDate) > ($1.startDate, $1.endDate) }.prefix(latest))
            } else if let sort = sort ?? (desc ? .start : nil) {
                let key: (Sample) -> Date = sort == .start ? { $0.startDate } : { $0.endDate }
                samples.sort { desc ? key($0) > key($1) : key($0) < key($1) }
            }
            let out = Output(samples: samples, deleted: Array(result.deletedObjects), anchor: result.newAnchor, display: display)
            switch format {
            case .json: print(try json(out))
            case .csv: try csv(out)
            case .table: try table(out)
            }
        }
    }

    private struct Output {
        let samples: [Sample]
        let deleted: [DeletedObject]
        let anchor: QueryAnchor
        let display: HealthUnit?

        /// The unit a quantity prints in: --unit for the types it fits, else
        /// the type's display unit (count/min for heart rate, km for distances).
        func shownUnit(_ t: SampleType) -> HealthUnit? {
            guard let canonical = t.canonicalUnit else { return nil }
            if let display, display.isCompatible(with: canonical) { return display }
            return t.displayUnit
        }

        /// The value and its unit as printed, a category's case name, a
        /// workout's activity and minutes, or a route's number of locations.
        func value(_ s: Sample) throws -> (String, String) {
            switch s.value {
            case .quantity(let q):
                // A workout, route or correlation whose payload does not
                // read (damage) has its count or duration alone.
                guard let canonical = s.type.canonicalUnit else { return (OutputText.number(q), "") }
                if let unit = shownUnit(s.type), unit != canonical {
                    return (OutputText.number(try s.quantity(in: unit)), unit.description)
                }
                return (OutputText.number(q), canonical.description)
            case .category(let c):
                return (s.type.categoryValueName(c) ?? "\(c)", "")
            case .workout(let w):
                // The activity and its duration: "Walking 53.05 min".
                let minutes = OutputText.number((w.duration / 60 * 100).rounded() / 100)
                return ("\(WorkoutActivityType.names[w.activityType] ?? "\(w.activityType)") \(minutes)", "min")
            case .route(let r):
                return ("\(r.locations.count)", "locations")
            case .correlation(let c):
                return ("\(c.members.count)", "members")
            case .heartbeats(let h):
                return ("\(h.beats.count)", "beats")
            case .audiogram(let a):
                return ("\(a.points.count)", "points")
            case .electrocardiogram(let e):
                return ("\(e.classification) \(e.voltages.count)", "voltages")
            case .clinicalRecord(let c):
                return (c.displayName, c.fhirResource?.resourceType ?? "no FHIR resource")
            }
        }
    }

    private func json(_ r: Output) throws -> String {
        var samples: [String] = []
        for s in r.samples {
            var o = JSONObject.sample(s)
            try o.addDisplay(s, in: r.shownUnit(s.type))
            samples.append(o.closed)
        }
        var o = JSONObject()
        o.add("samples", raw: JSONObject.array(samples))
        o.add("deletedObjects", raw: JSONObject.array(r.deleted.map { JSONObject.deleted($0).closed }))
        o.add("anchor", r.anchor.base64)
        return o.closed
    }

    /// One row per sample, then one per deleted object (its deletion date
    /// in `deleted`); no anchor, which a program reads from JSON.
    private func csv(_ r: Output) throws {
        print("start,end,type,value,unit,source,uuid,deleted")
        for s in r.samples {
            let (value, unit) = try r.value(s)
            print([OutputText.time(s.startDate), OutputText.time(s.endDate), shortName(s.type), value, unit,
                   s.source.bundleIdentifier, s.uuid.uuidString, ""].map(StatsByInterval.csvField).joined(separator: ","))
        }
        for d in r.deleted {
            print([OutputText.time(d.startDate), OutputText.time(d.endDate), shortName(d.type), "", "",
                   d.source.bundleIdentifier, d.uuid.uuidString, OutputText.time(d.deletionDate)]
                .map(StatsByInterval.csvField).joined(separator: ","))
        }
    }

    private func table(_ r: Output) throws {
        for s in r.samples {
            let (value, unit) = try r.value(s)
            print([OutputText.time(s.startDate), OutputText.time(s.endDate), shortName(s.type),
                   unit.isEmpty ? value : "\(value) \(unit)", s.source.bundleIdentifier, s.uuid.uuidString]
                .joined(separator: "  "))
        }
        for d in r.deleted {
            print(["deleted", OutputText.time(d.deletionDate), shortName(d.type), d.uuid.uuidString].joined(separator: "  "))
        }
        print("\(r.samples.count) samples, \(r.deleted.count) deleted objects")
        print("anchor \(r.anchor.base64)")
    }

    private func shortName(_ t: SampleType) -> String { TypeCatalogue.shortName(t) }
}
#endif
