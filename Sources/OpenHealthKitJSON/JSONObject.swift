import FoundationEssentials
import OpenHealthKitCore

/// Builds one JSON object as UTF-8 bytes. Written by hand because `ohk
/// changes` may print millions of lines, a server page holds 100,000
/// samples, and the sink stores millions of rows: an encoder per line
/// would dominate, and so did appending to a `String` a piece at a time.
package struct JSONObject {
    package private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    package init() {}

    /// An empty object with room for `capacity` bytes.
    package init(reserving capacity: Int) { bytes.reserveCapacity(capacity) }

    /// An object written after what `out` holds, in `out`'s own storage
    /// (taken, not copied): give it back with `close(into:)`.
    package init(continuing out: inout [UInt8]) {
        swap(&bytes, &out)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Closes the object and hands its bytes (and what came before them) to `out`.
    package mutating func close(into out: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
        out = []
        swap(&bytes, &out)
    }

    private mutating func key(_ k: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONObject.append(string: k, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    package mutating func add(_ k: String, _ v: String?) {
        guard let v else { return }
        key(k)
        JSONObject.append(string: v, to: &bytes)
    }

    /// A UTC time as `TextForms.time` writes it, quoted.
    package mutating func add(_ k: String, time v: Date) {
        key(k)
        bytes.append(UInt8(ascii: "\""))
        TextForms.append(time: v, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A UUID in its upper-case text form, quoted.
    package mutating func add(_ k: String, uuid v: UUID) {
        key(k)
        bytes.append(UInt8(ascii: "\""))
        TextForms.append(uuid: v, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func add(_ k: String, number v: Double) {
        key(k)
        bytes.append(contentsOf: TextForms.number(v).utf8)
    }

    /// A number that reads back to exactly `v` (`TextForms.exactNumber`).
    package mutating func add(_ k: String, exact v: Double) {
        key(k)
        TextForms.append(exactNumber: v, to: &bytes)
    }

    package mutating func add(_ k: String, int v: Int) {
        key(k)
        TextForms.append(integer: Int64(v), to: &bytes)
    }

    package mutating func add(_ k: String, bool v: Bool) {
        key(k)
        bytes.append(contentsOf: v ? "true".utf8 : "false".utf8)
    }

    package mutating func add(_ k: String, object v: JSONObject) {
        key(k)
        v.appendClosed(to: &bytes)
    }

    package mutating func add(_ k: String, raw v: String) {
        key(k)
        bytes.append(contentsOf: v.utf8)
    }

    /// The object, closed, after what `out` holds.
    package func appendClosed(to out: inout [UInt8]) {
        out.append(contentsOf: bytes)
        out.append(UInt8(ascii: "}"))
    }

    package var closed: String {
        var out = bytes
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    package static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    package static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        append(string: s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    package static func append(string s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text (identifiers, UUIDs, names) needs no escape: appended
        // whole, not a scalar at a time.
        var s = s
        let plain = s.withUTF8 { text in
            guard !text.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) else { return false }
            out.append(contentsOf: text)
            return true
        }
        if !plain {
            for u in s.unicodeScalars {
                switch u {
                case "\"": out.append(contentsOf: #"\""#.utf8)
                case "\\": out.append(contentsOf: #"\\"#.utf8)
                case "\n": out.append(contentsOf: #"\n"#.utf8)
                case "\r": out.append(contentsOf: #"\r"#.utf8)
                case "\t": out.append(contentsOf: #"\t"#.utf8)
                case _ where u.value < 0x20:
                    let hex = String(u.value, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: out.append(contentsOf: String(u).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
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
        var o = JSONObject(reserving: 256)
        o.add(sample: s)
        return o
    }

    /// A sample's object after what `out` holds (a page of them).
    package static func append(sample s: Sample, to out: inout [UInt8]) {
        var o = JSONObject(continuing: &out)
        o.add(sample: s)
        o.close(into: &out)
    }

    /// A sample's fields.
    package mutating func add(sample s: Sample) {
        add(object: s.uuid, s.type, s.startDate, s.endDate)
        switch s.value {
        case .quantity(let q):
            add("value", exact: q)  // the stored value: it must read back equal
            add("unit", s.type.canonicalUnitText)
        case .category(let c):
            add("value", int: c)
            if let name = s.type.categoryValueName(c) { add("valueName", name) }
        case .workout(let w):
            // The duration is a workout's value, as through C and Python.
            add("value", exact: w.duration)
            add("unit", "s")
            add("workout", object: Self.workout(w))
        case .route(let r):
            // The number of locations is a route's value, as through C and Python.
            add("value", int: r.locations.count)
            add("route", object: Self.route(r))
        case .correlation(let c):
            add("value", int: c.members.count)
            add("members", raw: Self.array(c.members.map { Self.quoted($0.uuidString) }))
        case .audiogram(let a):
            // Each point: its frequency in Hz and each ear's level in dBHL,
            // with its masking and clamping range where known.
            add("value", int: a.points.count)
            add("sensitivityPoints", raw: Self.array(a.points.map { p in
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
            add("value", int: e.voltages.count)
            var ecg = JSONObject()
            ecg.add("classification", "\(e.classification)")
            ecg.add("symptomsStatus", "\(e.symptomsStatus)")
            if let hr = e.averageHeartRate { ecg.add("averageHeartRateBPM", exact: hr) }
            if let f = e.samplingFrequency { ecg.add("samplingFrequencyHz", exact: f) }
            ecg.add("lead", "\(e.lead)")
            ecg.add("voltagesMicrovolts", raw: Self.array(e.voltages.map(TextForms.exactNumber)))
            add("electrocardiogram", object: ecg)
        case .clinicalRecord(let c):
            // The resource's JSON as it came, as a string: its bytes are
            // kept exactly, white space and key order included.
            // A record without a resource has its display name alone.
            add("value", int: c.fhirResource?.data.count ?? 0)
            var r = JSONObject()
            r.add("displayName", c.displayName)
            if let f = c.fhirResource {
                r.add("resourceType", f.resourceType)
                r.add("identifier", f.identifier)
                r.add("fhirVersion", f.fhirVersion)
                r.add("sourceURL", f.sourceURL)
                r.add("data", String(decoding: f.data, as: UTF8.self))
            }
            add("clinicalRecord", object: r)
        case .heartbeats(let h):
            // Each beat `[seconds since the start, preceded by a gap]`.
            add("value", int: h.beats.count)
            add("beats", raw: Self.array(h.beats.map { "[\(TextForms.exactNumber($0.timeSinceStart)),\($0.precededByGap)]" }))
        }
        add("source", s.source.bundleIdentifier)
        add("sourceName", s.source.name == s.source.bundleIdentifier ? nil : s.source.name)
        add("sourceVersion", s.source.version)
        if let c = s.creationDate { add("creationDate", time: c) }
        if let offset = s.utcOffset { add("utcOffset", int: offset) }
        if let d = s.device { add("device", object: Self.device(d)) }
        if !s.metadata.isEmpty { add("metadata", object: Self.metadata(s.metadata)) }
    }

    package static func deleted(_ d: DeletedObject) -> JSONObject {
        var o = JSONObject(reserving: 192)
        o.add(object: d.uuid, d.type, d.startDate, d.endDate)
        o.add("source", d.source.bundleIdentifier)
        o.add("deleted", time: d.deletionDate)
        if !d.metadata.isEmpty { o.add("metadata", object: metadata(d.metadata)) }
        return o
    }

    /// What samples and deleted objects share.
    private mutating func add(object uuid: UUID, _ type: SampleType, _ start: Date, _ end: Date) {
        add("uuid", uuid: uuid)
        add("type", type.identifier)
        add("start", time: start)
        add("end", time: end)
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
