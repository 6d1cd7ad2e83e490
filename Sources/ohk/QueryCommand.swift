import ArgumentParser
import OpenHealthKitCore

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run an anchored object query: samples and deleted objects after an anchor, and the new anchor.",
        discussion: """
        Types are HealthKit identifiers, with or without their prefix. The
        predicate is OpenHealthKit's predicate text (docs/predicates.md).
        Quantities print in the type's canonical unit unless --unit says
        otherwise. The last line (table) or the "anchor" field (JSON) is the
        anchor to pass next time.

        Examples:
          ohk query BodyMass
          ohk query StepCount DistanceWalkingRunning --where 'source == "DonorTwo'"'"'s iPhone"'
          ohk query BodyMass --anchor "$ANCHOR" --format json
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

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    enum OutputFormat: String, ExpressibleByArgument { case table, json }

    func validate() throws {
        guard !types.isEmpty || !descriptorTexts.isEmpty else {
            throw ValidationError("name at least one sample type or --descriptor")
        }
        guard limit >= 0 else { throw ValidationError("--limit must be 0 (no limit) or positive") }
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
            let display = try unit.map { try HealthUnit($0) }
            let result = try store.anchoredQuery(descriptors, anchor: try parseAnchor(anchor), limit: limit)
            switch format {
            case .json: print(try json(result, display))
            case .table: try table(result, display)
            }
        }
    }

    private func json(_ r: AnchoredQueryResult, _ display: HealthUnit?) throws -> String {
        var samples: [String] = []
        for s in r.samples {
            var o = JSONObject.sample(s)
            if let display, let canonical = s.type.canonicalUnit, display.isCompatible(with: canonical) {
                o.add("displayValue", number: try s.quantity(in: display))
                o.add("displayUnit", display.description)
            }
            samples.append(o.closed)
        }
        var o = JSONObject()
        o.add("samples", raw: JSONObject.array(samples))
        o.add("deletedObjects", raw: JSONObject.array(r.deletedObjects.map { JSONObject.deleted($0).closed }))
        o.add("anchor", r.newAnchor.base64)
        return o.closed
    }

    private func table(_ r: AnchoredQueryResult, _ display: HealthUnit?) throws {
        for s in r.samples {
            let value: String
            switch s.value {
            case .quantity(let q):
                // --unit applies to the types it fits; the others keep their canonical unit.
                let canonical = s.type.canonicalUnit!
                if let display, display.isCompatible(with: canonical) {
                    value = "\(try s.quantity(in: display)) \(display)"
                } else {
                    value = "\(q) \(canonical)"
                }
            case .category(let c):
                guard case .category(let values) = s.type.kind else { continue }
                value = values.filter { $0.value == c }.map(\.key).sorted().first ?? "\(c)"
            }
            print([ISODate.format(s.startDate), ISODate.format(s.endDate), shortName(s.type), value,
                   s.source.bundleIdentifier, s.uuid.uuidString].joined(separator: "  "))
        }
        for d in r.deletedObjects {
            print(["deleted", ISODate.format(d.deletionDate), shortName(d.type), d.uuid.uuidString].joined(separator: "  "))
        }
        print("\(r.samples.count) samples, \(r.deletedObjects.count) deleted objects")
        print("anchor \(r.newAnchor.base64)")
    }

    private func shortName(_ t: SampleType) -> String { TypeCatalogue.shortName(t) }
}
