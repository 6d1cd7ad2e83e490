#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk export --format fhir`: the store's samples as FHIR R4 resources in
/// Bulk Data NDJSON, one file per resource type (`Observation.ndjson`,
/// `Immunization.ndjson`…), one resource a line (docs/fhir.md). Each file
/// is written under a temporary name and renamed into place when the
/// export ends, the anchor last.
final class FHIRExport {
    let folder: String
    private let mapping = FHIRMapping.shared
    private var files: [String: RowFile] = [:]
    private(set) var written: [String: Int] = [:]
    /// Samples not written, by reason.
    private(set) var skipped: [String: Int] = [:]
    /// Correlations wait for their members' values until the end.
    private var correlations: [Sample] = []

    init(folder: String) throws {
        self.folder = folder
        try makeExportFolders([folder], for: folder)
    }

    func add(_ page: AnchoredQueryResult) throws {
        for s in page.samples { try add(s) }
    }

    private func add(_ s: Sample) throws {
        switch s.value {
        case .quantity(let q):
            let e = mapping.quantity[s.type.identifier] ?? FHIRMapping.fallback(s.type)
            try write("Observation", observation(s, e, value: ("valueQuantity", quantity(q, of: s.type, e.unit))))
        case .category(let c):
            let e = mapping.category[s.type.identifier] ?? FHIRMapping.fallback(s.type)
            try write("Observation", observation(s, e, value: categoryValue(c, of: s.type)))
        case .correlation:
            correlations.append(s)
        case .workout(let w):
            try write("Observation", workout(s, w))
        case .electrocardiogram(let ecg):
            try write("Observation", electrocardiogram(s, ecg))
        case .clinicalRecord(let r):
            guard let resource = r.fhirResource else {
                skipped["clinical records without a FHIR resource", default: 0] += 1
                return
            }
            guard resource.fhirVersion.hasPrefix("4.") else {
                skipped["clinical records of FHIR \(resource.fhirVersion)\(resource.fhirVersion == "1.0.2" ? " (DSTU2)" : ""), not R4", default: 0] += 1
                return
            }
            let type = JSONValue.read(resource.data)?["resourceType"]?.string ?? resource.resourceType
            try write(type, String(decoding: Self.compact(resource.data), as: UTF8.self))
        case .route, .heartbeats, .audiogram:
            skipped["\(s.type.identifier) samples (no FHIR mapping)", default: 0] += 1
        }
    }

    /// Writes the correlations (their members read from `store`), renames
    /// every file into place, removes the files of resource types this
    /// export has none of, and writes the anchor.
    func finish(store: Store, anchor: String) throws {
        try writeCorrelations(store)
        for (type, file) in files.sorted(by: { $0.key < $1.key }) { try file.close(renamingTo: "\(folder)/\(type).ndjson") }
        if let dir = opendir(folder) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".ndjson"), !name.hasPrefix("."), files[String(name.dropLast(7))] == nil {
                    unlink("\(folder)/\(name)")
                }
            }
        }
        writeFileAtomically(folder + "/anchor", anchor + "\n")
    }

    private func write(_ resourceType: String, _ line: String) throws {
        let file = try files[resourceType] ?? {
            let f = try RowFile("\(folder)/.\(resourceType).ndjson.partial")
            files[resourceType] = f
            return f
        }()
        file.write(line + "\n")
        written[resourceType, default: 0] += 1
    }

    // MARK: resources

    /// An Observation of sample `s`: its id is the sample's UUID.
    private func observation(_ s: Sample, _ e: FHIRMapping.Entry, categories: String? = nil,
                             value: (String, String)?, components: [String] = []) -> String {
        var o = JSONObject()
        o.add("resourceType", "Observation")
        o.add("id", s.uuid.uuidString.lowercased())
        o.add("identifier", raw: "[{\"system\":\"urn:ietf:rfc:3986\",\"value\":\"urn:uuid:\(s.uuid.uuidString.lowercased())\"}]")
        o.add("status", "final")
        if let c = categories ?? e.categoryList { o.add("category", raw: c) }
        o.add("code", raw: e.concept)
        // A moment when start and end agree, else the period (as HealthKitOnFHIR writes it).
        if s.startDate == s.endDate {
            o.add("effectiveDateTime", time: s.startDate)
        } else {
            var p = JSONObject()
            p.add("start", time: s.startDate)
            p.add("end", time: s.endDate)
            o.add("effectivePeriod", object: p)
        }
        if let created = s.creationDate { o.add("issued", time: created) }
        if let (key, json) = value { o.add(key, raw: json) }
        if !components.isEmpty { o.add("component", raw: JSONObject.array(components)) }
        return o.closed
    }

    /// A Quantity of a stored value in the mapping's unit: converted
    /// (rounded to 15 significant digits), or in the canonical unit when
    /// the mapping names none or one that does not convert.
    private func quantity(_ stored: Double, of type: SampleType, _ unit: FHIRMapping.UnitMap?) -> String {
        if let unit, let target = quantityValue(stored, type, unit) { return Self.quantity(target, unit) }
        var o = JSONObject()
        o.add("value", raw: TextForms.exactNumber(stored))
        o.add("unit", type.canonicalUnitText)
        return o.closed
    }

    /// A Quantity of `value` (number text) in the mapping's `unit`: its
    /// UCUM system and code where it has a code.
    private static func quantity(_ value: String, _ unit: FHIRMapping.UnitMap) -> String {
        var o = JSONObject()
        o.add("value", raw: value)
        o.add("unit", unit.unit)
        o.add("system", unit.code == nil ? nil : unit.system ?? "http://unitsofmeasure.org")
        o.add("code", unit.code)
        return o.closed
    }

    private func quantityValue(_ stored: Double, _ type: SampleType, _ unit: FHIRMapping.UnitMap) -> String? {
        // HealthKit's percent unit is a fraction (HKUnit.percent(): 0.97 is
        // 97 %), as the store keeps it; UCUM's % is a hundredth.
        if unit.hkunit == "%" { return TextForms.number(stored * 100) }
        guard let canonical = type.canonicalUnit, let target = try? HealthUnit(unit.hkunit),
              let v = try? canonical.convert(stored, to: target) else { return nil }
        return canonical == target ? TextForms.exactNumber(stored) : TextForms.number(v)
    }

    /// A category value: its name as a coding of HealthKit's value enum
    /// (`HKCategoryValueSleepAnalysis`), or, without a name, the type's
    /// identifier as text (as HealthKitOnFHIR writes both).
    private func categoryValue(_ c: Int, of type: SampleType) -> (String, String) {
        guard let name = type.categoryValueName(c) else { return ("valueString", JSONObject.quoted(type.identifier)) }
        let enumName = "HKCategoryValue" + type.identifier.dropFirst("HKCategoryTypeIdentifier".count)
        let coding = FHIRMapping.Coding(system: FHIRMapping.apple + "/" + enumName.lowercased(), code: String(c), display: name)
        return ("valueCodeableConcept", "{\"coding\":[\(coding.json)]}")
    }

    /// A workout after the Physical Activity IG, as HealthKitOnFHIR
    /// writes it (73985-4, the activity as the value), with its duration
    /// (55411-3, minutes) and energy (55424-6, kcal) as components: codes
    /// of the IG's value set pa-observation-code-activity.
    private func workout(_ s: Sample, _ w: Workout) -> String {
        let name = WorkoutActivityType.names[w.activityType] ?? String(w.activityType)
        let code = name.prefix(1).lowercased() + name.dropFirst()
        let value = "{\"coding\":[\(FHIRMapping.Coding(system: FHIRMapping.apple, code: code, display: name).json)]}"
        var components = [Self.component(loinc: "55411-3", "Exercise duration", value: w.duration / 60, "min")]
        if let kcal = w.totalEnergyBurned {
            components.append(Self.component(loinc: "55424-6", "Calories burned in unspecified time Pedometer", value: kcal, "kcal"))
        }
        return observation(s, mapping.workout, value: ("valueCodeableConcept", value), components: components)
    }

    private static func component(loinc: String, _ display: String, value: Double, _ ucum: String) -> String {
        let coding = FHIRMapping.Coding(system: "http://loinc.org", code: loinc, display: display)
        return "{\"code\":{\"coding\":[\(coding.json)]},\"valueQuantity\":{\"value\":\(TextForms.number(value)),"
            + "\"unit\":\(JSONObject.quoted(ucum)),\"system\":\"http://unitsofmeasure.org\",\"code\":\(JSONObject.quoted(ucum))}}"
    }

    /// An electrocardiogram: its figures as components, and its voltages
    /// in SampledData components of ten seconds each (µV, to 3 decimals;
    /// the period in milliseconds), as HealthKitOnFHIR writes them.
    private func electrocardiogram(_ s: Sample, _ ecg: Electrocardiogram) -> String {
        var components: [String] = []
        func part(_ name: String, _ value: (String, String)) {
            guard let e = mapping.electrocardiogramParts[name] else { return }
            components.append("{\"code\":\(e.concept),\"\(value.0)\":\(value.1)}")
        }
        func measured(_ name: String, _ v: Double) {
            guard let unit = mapping.electrocardiogramParts[name]?.unit else { return }
            part(name, ("valueQuantity", Self.quantity(TextForms.number(v), unit)))
        }
        measured("numberOfVoltageMeasurements", Double(ecg.voltages.count))
        if let f = ecg.samplingFrequency { measured("samplingFrequency", f) }
        if let hr = ecg.averageHeartRate { measured("averageHeartRate", hr) }  // beats per minute, as stored
        for (name, value) in [("classification", "\(ecg.classification)"), ("symptomsStatus", "\(ecg.symptomsStatus)")] {
            part(name, ("valueCodeableConcept",
                        "{\"coding\":[\(FHIRMapping.Coding(system: FHIRMapping.apple, code: value, display: nil).json)]}"))
        }
        if let f = ecg.samplingFrequency, f > 0, let volts = mapping.electrocardiogramParts["voltageMeasurements"] {
            let step = max(1, Int(f * 10))
            var first = 0
            while first < ecg.voltages.count {
                let slice = ecg.voltages[first..<min(first + step, ecg.voltages.count)]
                let data = slice.map { Self.fixed3($0) }.joined(separator: " ")
                let origin = "{\"value\":0,\"unit\":\"uV\",\"system\":\"http://unitsofmeasure.org\",\"code\":\"uV\"}"
                components.append("{\"code\":\(volts.concept),\"valueSampledData\":{\"origin\":\(origin),"
                                   + "\"period\":\(TextForms.number(1000 / f)),\"dimensions\":1,\"data\":\"\(data)\"}}")
                first += step
            }
        }
        return observation(s, mapping.electrocardiogram, value: nil, components: components)
    }

    private static func fixed3(_ v: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 48)
        _ = withVaList([v]) { vsnprintf(&buffer, buffer.count, "%.3f", $0) }
        return buffer.withUnsafeBytes { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Blood pressure and food: one Observation each, its members' values
    /// as components (read from the store, whose quantities they are).
    private func writeCorrelations(_ store: Store) throws {
        guard !correlations.isEmpty else { return }
        var wanted = Set<UUID>()
        for c in correlations { if case .correlation(let k) = c.value { wanted.formUnion(k.members) } }
        let types = try store.counts().types.map(\.type).filter(\.isQuantity)
        var members: [UUID: Sample] = [:]
        if !types.isEmpty {
            let page = try store.anchoredQuery(types.map { QueryDescriptor(type: $0, predicate: .uuids(wanted)) }, anchor: nil)
            for s in page.samples { members[s.uuid] = s }
        }
        for s in correlations {
            guard case .correlation(let k) = s.value else { continue }
            let e = mapping.correlation[s.type.identifier] ?? FHIRMapping.fallback(s.type)
            let components = k.members.compactMap { members[$0] }.compactMap { m -> String? in
                guard case .quantity(let q) = m.value else { return nil }
                let me = mapping.quantity[m.type.identifier] ?? FHIRMapping.fallback(m.type)
                return "{\"code\":\(me.concept),\"valueQuantity\":\(quantity(q, of: m.type, me.unit))}"
            }
            try write("Observation", observation(s, e, value: nil, components: components))
        }
    }

    /// JSON without the white space between its tokens (a resource a
    /// line), its strings and numbers as they were.
    static func compact(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false, escaped = false
        for b in bytes {
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
            } else if b == 0x22 {
                inString = true
                out.append(b)
            } else if b != 0x20 && b != 0x0A && b != 0x0D && b != 0x09 {
                out.append(b)
            }
        }
        return out
    }
}
#endif
