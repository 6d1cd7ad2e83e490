import FoundationEssentials
import OpenHealthKitCore

/// Builds one JSON object as text. Written by hand because `ohk changes`
/// may print millions of lines, and the sink store millions of rows: an
/// encoder per line would dominate.
package struct JSONObject {
    package private(set) var text = "{"
    private var first = true

    package init() {}

    private mutating func key(_ k: String) {
        if !first { text += "," }
        first = false
        JSONObject.append(string: k, to: &text)
        text += ":"
    }

    package mutating func add(_ k: String, _ v: String?) {
        guard let v else { return }
        key(k)
        JSONObject.append(string: v, to: &text)
    }

    package mutating func add(_ k: String, number v: Double) {
        key(k)
        text += TextForms.number(v)
    }

    /// A number that reads back to exactly `v` (`TextForms.exactNumber`).
    package mutating func add(_ k: String, exact v: Double) {
        key(k)
        text += TextForms.exactNumber(v)
    }

    package mutating func add(_ k: String, int v: Int) {
        key(k)
        text += String(v)
    }

    package mutating func add(_ k: String, bool v: Bool) {
        key(k)
        text += v ? "true" : "false"
    }

    package mutating func add(_ k: String, object v: JSONObject) {
        key(k)
        text += v.closed
    }

    package mutating func add(_ k: String, raw v: String) {
        key(k)
        text += v
    }

    package var closed: String { text + "}" }

    package static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    package static func quoted(_ s: String) -> String {
        var out = ""
        append(string: s, to: &out)
        return out
    }

    package static func append(string s: String, to out: inout String) {
        out += "\""
        // Most text (identifiers, UUIDs, names) needs no escape: appended
        // whole, not a scalar at a time (that was most of a page's cost).
        var s = s
        if s.withUTF8({ !$0.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

extension JSONObject {
    /// A sample: dates in UTC ISO 8601, the value in the type's canonical
    /// unit (named beside it), device and metadata when present.
    /// Adds `displayValue` and `displayUnit`: a quantity sample's value
    /// in `unit` (nothing when nil), beside its canonical `value`.
    package mutating func addDisplay(_ s: Sample, in unit: HealthUnit?) throws {
        guard let unit else { return }
        add("displayValue", number: try s.quantity(in: unit))
        add("displayUnit", unit.description)
    }

    package static func sample(_ s: Sample) -> JSONObject {
        var o = object(s.uuid, s.type, s.startDate, s.endDate)
        switch s.value {
        case .quantity(let q):
            o.add("value", exact: q)  // the stored value: it must read back equal
            o.add("unit", s.type.canonicalUnit?.description)
        case .category(let c):
            o.add("value", int: c)
            if let name = s.type.categoryValueName(c) { o.add("valueName", name) }
        case .workout(let w):
            // The duration is a workout's value, as through C and Python.
            o.add("value", exact: w.duration)
            o.add("unit", "s")
            o.add("workout", object: workout(w))
        case .route(let r):
            // The number of locations is a route's value, as through C and Python.
            o.add("value", int: r.locations.count)
            o.add("route", object: route(r))
        case .correlation(let c):
            o.add("value", int: c.members.count)
            o.add("members", raw: array(c.members.map { quoted($0.uuidString) }))
        case .audiogram(let a):
            // Each point: its frequency in Hz and each ear's level in dBHL,
            // with its masking and clamping range where known.
            o.add("value", int: a.points.count)
            o.add("sensitivityPoints", raw: array(a.points.map { p in
                var q = JSONObject()
                q.add("frequencyHz", exact: p.frequency)
                for (side, ear) in [("left", p.left), ("right", p.right)] {
                    guard let ear else { continue }
                    q.add(side + "EarDBHL", exact: ear.sensitivity)
                    if let m = ear.masked { q.add(side + "EarMasked", bool: m) }
                    if let lower = ear.clampingRange?.lowerBound { q.add(side + "EarClampingLowerBoundDBHL", exact: lower) }
                    if let upper = ear.clampingRange?.upperBound { q.add(side + "EarClampingUpperBoundDBHL", exact: upper) }
                }
                return q.closed
            }))
        case .electrocardiogram(let e):
            // The recording's fields, then its voltages in µV.
            o.add("value", int: e.voltages.count)
            var ecg = JSONObject()
            ecg.add("classification", "\(e.classification)")
            ecg.add("symptomsStatus", "\(e.symptomsStatus)")
            if let hr = e.averageHeartRate { ecg.add("averageHeartRateBPM", exact: hr) }
            if let f = e.samplingFrequency { ecg.add("samplingFrequencyHz", exact: f) }
            ecg.add("lead", "\(e.lead)")
            ecg.add("voltagesMicrovolts", raw: array(e.voltages.map(TextForms.exactNumber)))
            o.add("electrocardiogram", object: ecg)
        case .clinicalRecord(let c):
            // The resource's JSON as it came, as a string: its bytes are
            // kept exactly, white space and key order included.
            o.add("value", int: c.fhirResource.data.count)
            var r = JSONObject()
            r.add("displayName", c.displayName)
            r.add("resourceType", c.fhirResource.resourceType)
            r.add("identifier", c.fhirResource.identifier)
            r.add("fhirVersion", c.fhirResource.fhirVersion)
            r.add("sourceURL", c.fhirResource.sourceURL)
            r.add("data", String(decoding: c.fhirResource.data, as: UTF8.self))
            o.add("clinicalRecord", object: r)
        case .heartbeats(let h):
            // Each beat `[seconds since the start, preceded by a gap]`.
            o.add("value", int: h.beats.count)
            o.add("beats", raw: array(h.beats.map { "[\(TextForms.exactNumber($0.timeSinceStart)),\($0.precededByGap)]" }))
        }
        o.add("source", s.source.bundleIdentifier)
        o.add("sourceName", s.source.name == s.source.bundleIdentifier ? nil : s.source.name)
        o.add("sourceVersion", s.source.version)
        if let c = s.creationDate { o.add("creationDate", TextForms.time(c)) }
        if let offset = s.utcOffset { o.add("utcOffset", int: offset) }
        if let d = s.device { o.add("device", object: device(d)) }
        if !s.metadata.isEmpty { o.add("metadata", object: metadata(s.metadata)) }
        return o
    }

    package static func deleted(_ d: DeletedObject) -> JSONObject {
        var o = object(d.uuid, d.type, d.startDate, d.endDate)
        o.add("source", d.source.bundleIdentifier)
        o.add("deleted", TextForms.time(d.deletionDate))
        if !d.metadata.isEmpty { o.add("metadata", object: metadata(d.metadata)) }
        return o
    }

    /// What samples and deleted objects share.
    private static func object(_ uuid: UUID, _ type: SampleType, _ start: Date, _ end: Date) -> JSONObject {
        var o = JSONObject()
        o.add("uuid", uuid.uuidString)
        o.add("type", type.identifier)
        o.add("start", TextForms.time(start))
        o.add("end", TextForms.time(end))
        return o
    }

    package static func device(_ d: Device) -> JSONObject {
        var o = JSONObject()
        for f in Device.Field.allCases { o.add("\(f)", d[f]) }
        return o
    }

    package static func metadata(_ m: [String: MetadataValue]) -> JSONObject {
        var o = JSONObject()
        for (k, v) in m.sorted(by: { $0.key < $1.key }) {
            switch v {
            case .string(let s): o.add(k, s)
            case .number(let n): o.add(k, exact: n)
            case .bool(let b): o.add(k, bool: b)
            case .date(let d): o.add(k, TextForms.time(d))
            }
        }
        return o
    }
}
