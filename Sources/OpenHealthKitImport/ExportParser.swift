import CExpat
import Glibc
import OpenHealthKitCore

/// Streams export.xml through expat and collects its top-level
/// `<Record>`s, `<Workout>`s (with their events, statistics, activities
/// and routes) and `<Correlation>`s (with their member records);
/// everything else is counted by element name. The DTD in
/// the export's internal subset is read but no external entity is fetched.
///
/// Only the reader's thread uses a parser, one expat callback at a time,
/// so the state its callbacks change is marked `@exclusivity(unchecked)`:
/// the runtime's exclusivity checks on it, five a record, were 3 % of the
/// reading thread's instructions.
package final class ExportParser {
    private let parser: XML_Parser
    /// Records completed since the last `takeRecords()`.
    @exclusivity(unchecked) private var records: [ExportRecord] = []
    @exclusivity(unchecked) var current: ExportRecord?
    /// A correlation's member record being read (depth 3).
    @exclusivity(unchecked) private var member: ExportRecord?
    /// The child of a workout being read (depth 3), for its own children.
    @exclusivity(unchecked) var workoutChild: WorkoutChild?
    /// The event being read inside a workout's activity (depth 4).
    @exclusivity(unchecked) var activityEvent: Int?
    /// A record's beat list is open (depth 3): its beats are read.
    @exclusivity(unchecked) private var inBeatList = false
    @exclusivity(unchecked) private var depth = 0
    /// Elements not imported, by name: top-level ones the importer does
    /// not read (`VisionPrescription`, unknown ones), and nested ones it
    /// does not read where they are, as "Parent > Child".
    var otherElements: [String: Int] = [:]
    /// Elements past a per-list bound (`ImportLimits`), as "Parent > Child":
    /// the list keeps its first ones.
    var cutElements: [String: Int] = [:]
    /// The `value` of the export's `<ExportDate>`.
    var exportDate: String?
    /// The files the XML names, relative to the export's folder: routes'
    /// GPX files and clinical records' JSON files.
    var routeFiles: Set<String> = []
    var clinicalFiles: Set<String> = []
    /// The attributes of the export's `<Me>` (the person's characteristics).
    var me: [(String, String)]?
    /// One per repeating attribute (stored properties, not an array: an
    /// element changed in place cost a uniqueness check each time).
    @exclusivity(unchecked) private var types = TextInterner()
    @exclusivity(unchecked) private var units = TextInterner()
    @exclusivity(unchecked) private var sourceNames = TextInterner()
    @exclusivity(unchecked) private var sourceVersions = TextInterner()
    @exclusivity(unchecked) private var devices = TextInterner()
    /// Set when the document is not an export; parsing stops.
    private(set) var notAnExport: String?
    /// Set when the document goes past a bound (`ImportLimits`); parsing stops.
    private var refused: String?
    private let limits: ImportLimits
    /// Where the last element started or ended, and bytes fed in all.
    @exclusivity(unchecked) private var lastEvent: Int64 = 0
    private var fed: Int64 = 0

    package init(limits: ImportLimits = ImportLimits()) {
        self.limits = limits
        parser = XML_ParserCreate("UTF-8")
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(parser, { user, name, attributes in
            Unmanaged<ExportParser>.fromOpaque(user!).takeUnretainedValue().start(name!, attributes!)
        }, { user, name in
            Unmanaged<ExportParser>.fromOpaque(user!).takeUnretainedValue().end(name!)
        })
        // Exports declare no entities; expanding declared ones is how a
        // small file asks for gigabytes ("billion laughs"). Refuse them.
        XML_SetEntityDeclHandler(parser) { user, name, _, _, _, _, _, _, _ in
            let me = Unmanaged<ExportParser>.fromOpaque(user!).takeUnretainedValue()
            me.refuse("the export declares the entity \(name.map { String(cString: $0) } ?? "?"); exports declare none")
        }
    }

    deinit { XML_ParserFree(parser) }

    /// Parses `count` bytes that `fill` writes into expat's own buffer (no
    /// copy); `count` 0 ends the document. Throws `ImportError` with the
    /// line and column of malformed XML.
    package func parse(upTo capacity: Int, fill: (UnsafeMutableRawPointer, Int) throws -> Int) throws -> Int {
        guard let buffer = XML_GetBuffer(parser, Int32(capacity)) else {
            throw ImportError.damaged("export.xml: the XML parser ran out of memory")
        }
        let n = try fill(buffer, capacity)
        if fed == 0, let what = Self.notXML(UnsafeRawBufferPointer(start: buffer, count: n)) {
            throw ImportError.notAnExport(what)
        }
        fed += Int64(n)
        if XML_ParseBuffer(parser, Int32(n), n == 0 ? 1 : 0) == XML_STATUS_ERROR {
            if let notAnExport { throw ImportError.notAnExport(notAnExport) }
            if let refused { throw ImportError.damaged(refused) }
            let code = XML_GetErrorCode(parser)
            let at = "export.xml line \(XML_GetCurrentLineNumber(parser)), column \(XML_GetCurrentColumnNumber(parser) + 1)"
            let message = String(cString: XML_ErrorString(code))
            // At the end of the input, an open element or token is a cut.
            let cut = [XML_ERROR_NO_ELEMENTS, XML_ERROR_UNCLOSED_TOKEN, XML_ERROR_PARTIAL_CHAR, XML_ERROR_UNCLOSED_CDATA_SECTION]
            if n == 0 && cut.contains(code) { throw ImportError.truncated("\(at): \(message)") }
            throw ImportError.damaged("\(at): \(message)")
        }
        if fed - lastEvent > limits.stretchBytes {
            throw ImportError.damaged("export.xml line \(XML_GetCurrentLineNumber(parser)): more than \(limits.stretchBytes >> 20) MB "
                                      + "of XML in which no element starts or ends: not an export's")
        }
        return n
    }

    /// Why the first bytes of a file are no XML at all (a CSV, a JSON
    /// file), nil when they may be: XML starts with `<` after a byte-order
    /// mark and white space.
    static func notXML(_ head: UnsafeRawBufferPointer) -> String? {
        var i = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[i]) { i += 1 }
        guard i < head.count, head[i] != UInt8(ascii: "<") else { return nil }
        let line = head[i...].prefix { $0 != 0x0A && $0 != 0x0D }.prefix(60)
        let shown = String(decoding: line, as: UTF8.self)
        let kind = shown.contains(",") || shown.contains(";") ? "a CSV file" : shown.hasPrefix("{") || shown.hasPrefix("[") ? "JSON" : "not XML"
        return "this file is \(kind) (it starts with '\(shown)'), not the Health app's export: ohk imports export.zip "
            + "(Health app > profile > Export All Health Data), its unpacked folder, or the export.xml inside it"
    }

    /// Counts an element the importer does not read where it is, for the
    /// report ("Record > Surprise"; `parent` nil: by its name alone).
    func unread(_ name: UnsafePointer<CChar>, in parent: String?) {
        let child = String(cString: name)
        countOther(parent.map { "\($0) > \(child)" } ?? "\(child) (nested)")
    }

    /// Counts an element not imported under `key`; past 1,000 kinds, under
    /// one key: endless distinct names must not grow the report without end.
    func countOther(_ key: String) {
        let key = otherElements.count < 1_000 || otherElements[key] != nil ? key : "(other elements)"
        otherElements[key, default: 0] += 1
    }

    /// Stops the parse: the document went past a bound.
    private func refuse(_ why: String) {
        refused = "export.xml line \(XML_GetCurrentLineNumber(parser)): \(why)"
        XML_StopParser(parser, 0)
    }

    /// The records completed so far, handed over once.
    package func takeRecords() -> [ExportRecord] {
        defer { records.removeAll(keepingCapacity: true) }
        return records
    }

    private func start(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        depth += 1
        lastEvent = Int64(XML_GetCurrentByteIndex(parser))
        guard depth <= limits.depth else {
            if refused == nil { refuse("elements nested deeper than \(limits.depth) levels") }
            return
        }
        switch depth {
        case 1:
            if strcmp(name, "HealthData") != 0 {
                notAnExport = "the root element is <\(String(cString: name))>, not <HealthData>"
                XML_StopParser(parser, 0)
            }
        case 2:
            if strcmp(name, "Record") == 0 {
                current = ExportRecord()
                read(attributes, into: &current!)
            } else if strcmp(name, "Correlation") == 0 {
                current = record(attributes)
                current!.members = []
            } else if strcmp(name, "Workout") == 0 {
                current = record(attributes)
                current!.type = TypeCatalogue.workoutIdentifier
                current!.workout = workout(attributes)
            } else if strcmp(name, "Audiogram") == 0 {
                current = record(attributes)
                current!.sensitivityPoints = []
            } else if strcmp(name, "ActivitySummary") == 0 || strcmp(name, "ClinicalRecord") == 0 {
                // Attributes only: neither has children that matter.
                var r = ExportRecord()
                r.line = Int(XML_GetCurrentLineNumber(parser))
                var attrs: [String: String] = [:]
                forEach(attributes) { k, v in attrs[String(cString: k)] = String(cString: v) }
                if strcmp(name, "ActivitySummary") == 0 {
                    r.activitySummary = attrs
                } else {
                    r.clinicalRecord = attrs
                    // "/clinical-records/Immunization-….json": from the export's folder.
                    let file = String((attrs["resourceFilePath"] ?? "").drop { $0 == "/" })
                    if !file.isEmpty { clinicalFiles.insert(file) }
                }
                current = r
            } else if strcmp(name, "Me") == 0 {
                var attrs: [(String, String)] = []
                forEach(attributes) { k, v in attrs.append((String(cString: k), String(cString: v))) }
                me = attrs
            } else if strcmp(name, "ExportDate") == 0 {
                forEach(attributes) { k, v in if strcmp(k, "value") == 0 { exportDate = String(cString: v) } }
            } else {
                countOther(String(cString: name))
            }
        case 3 where current?.workout != nil:
            workoutChild(name, attributes)
        case 3 where current?.members != nil:
            if strcmp(name, "Record") == 0 {
                member = record(attributes)
            } else if strcmp(name, "MetadataEntry") == 0 {
                if let entry = metadataEntry(attributes) { current!.metadata.append(entry) }
            } else {
                unread(name, in: "Correlation")
            }
        case 4 where member != nil:
            if strcmp(name, "MetadataEntry") == 0 {
                if let entry = metadataEntry(attributes) { member!.metadata.append(entry) }
            } else {
                unread(name, in: "Correlation > Record")
            }
        case 3 where current != nil:
            if strcmp(name, "MetadataEntry") == 0 {
                if let entry = metadataEntry(attributes) { current!.metadata.append(entry) }
            } else if strcmp(name, "SensitivityPoint") == 0, current!.sensitivityPoints != nil {
                var point: [String: String] = [:]
                forEach(attributes) { k, v in point[String(cString: k)] = String(cString: v) }
                if current!.sensitivityPoints!.count < limits.pointsPerAudiogram {
                    current!.sensitivityPoints!.append(point)
                } else {
                    cutElements["Audiogram > SensitivityPoint", default: 0] += 1
                }
            } else if strcmp(name, "HeartRateVariabilityMetadataList") == 0 && current!.beats == nil {
                // Its beats become a heartbeat series beside the record (rule 39).
                current!.beats = []
                inBeatList = true
            } else {
                unread(name, in: current!.elementName)
            }
        case 4 where current?.workout != nil:
            workoutGrandchild(name, attributes)
        case 4 where inBeatList:
            if strcmp(name, "InstantaneousBeatsPerMinute") == 0 {
                var time: String?
                forEach(attributes) { k, v in if strcmp(k, "time") == 0 { time = String(cString: v) } }
                if current!.beats!.count >= limits.beatsPerSeries {
                    cutElements["HeartRateVariabilityMetadataList > InstantaneousBeatsPerMinute", default: 0] += 1
                } else if let time {
                    current!.beats!.append(time)
                }
            } else {
                unread(name, in: "HeartRateVariabilityMetadataList")
            }
        case 5 where current?.workout != nil:
            workoutGreatGrandchild(name, attributes)
        case 3... where current != nil:
            // Inside an element the importer does not read, or deeper
            // than any export nests: counted under its own name.
            unread(name, in: nil)
        default:
            break
        }
    }

    private func end(_ name: UnsafePointer<CChar>) {
        lastEvent = Int64(XML_GetCurrentByteIndex(parser))
        // Moved out, not copied: a record holds a dozen references.
        if depth == 2, let r = current.take() { records.append(r) }
        if depth == 4 { activityEvent = nil }
        if depth == 3 {
            workoutChild = nil
            inBeatList = false
            if let m = member.take() { current?.members?.append(m) }
        }
        depth -= 1
    }

    func metadataEntry(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> (key: String, value: String)? {
        var key: String?, value: String?
        forEach(attributes) { k, v in
            if strcmp(k, "key") == 0 { key = String(cString: v) } else if strcmp(k, "value") == 0 { value = String(cString: v) }
        }
        guard let key, let value else { return nil }
        return (key, value)
    }

    func record(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportRecord {
        var r = ExportRecord()
        read(attributes, into: &r)
        return r
    }

    /// `record(_:)` into a record in place: the one a `<Record>` starts,
    /// `current`. Returned, each record was copied (a dozen retains) and
    /// the original dropped.
    func read(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>, into r: inout ExportRecord) {
        r.line = Int(XML_GetCurrentLineNumber(parser))
        // A loop, not `forEach`: captured by its closure, the record was
        // kept in a box and copied out of it.
        var i = 0
        while let k = attributes[i], let v = attributes[i + 1] {
            i += 2
            // Dispatch on the first byte, then confirm: most names are unique by it.
            switch k[0] {
            case 116 where strcmp(k, "type") == 0: r.type = types.string(v)
            case 117 where strcmp(k, "unit") == 0: r.unit = units.string(v)
            case 118 where strcmp(k, "value") == 0: r.value = String(cString: v)
            case 115 where strcmp(k, "sourceName") == 0: r.sourceName = sourceNames.string(v)
            case 115 where strcmp(k, "sourceVersion") == 0: r.sourceVersion = sourceVersions.string(v)
            case 115 where strcmp(k, "startDate") == 0: r.start = ExportTimestamp.parse(cString: v)
            case 100 where strcmp(k, "device") == 0: r.device = devices.string(v)
            case 99 where strcmp(k, "creationDate") == 0: r.created = ExportTimestamp.parse(cString: v)?.instant
            case 101 where strcmp(k, "endDate") == 0: r.end = ExportTimestamp.parse(cString: v)?.instant
            default: break
            }
        }
    }

    /// Expat's attributes: name, value, name, value, …, NULL.
    func forEach(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>,
                         _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Void) {
        var i = 0
        while let k = attributes[i], let v = attributes[i + 1] {
            body(k, v)
            i += 2
        }
    }
}
