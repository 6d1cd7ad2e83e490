import FoundationEssentials
import OpenHealthKitCore

/// `<ClinicalRecord>` and its JSON file (`clinical-records/*.json`) → a
/// clinical record sample (rule 42). The element names the FHIR resource
/// type; the clinical type follows from it (an Observation by its
/// category: vital signs, else a lab result); the display name comes
/// from the resource's own text; the dates are `receivedDate`, when the
/// phone downloaded it, as HealthKit's are.
extension RecordMapper {
    /// The clinical type of a FHIR resource type (and, for an
    /// Observation, its JSON); nil for a resource HealthKit keeps no
    /// clinical type of (Patient).
    static func clinicalType(resourceType: String, json: JSONValue?) -> String? {
        let name: String? = switch resourceType {
        case "AllergyIntolerance": "AllergyRecord"
        case "Condition": "ConditionRecord"
        case "Coverage": "CoverageRecord"
        case "Immunization": "ImmunizationRecord"
        case "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement": "MedicationRecord"
        case "Procedure": "ProcedureRecord"
        case "DiagnosticReport": "LabResultRecord"
        case "DocumentReference": "ClinicalNoteRecord"
        case "Observation": Self.isVitalSign(json) ? "VitalSignRecord" : "LabResultRecord"
        default: nil
        }
        return name.map { TypeCatalogue.clinicalPrefix + $0 }
    }

    /// An Observation's category (one concept in DSTU2, a list in R4)
    /// codes "vital-signs".
    private static func isVitalSign(_ json: JSONValue?) -> Bool {
        let category = json?["category"]
        let concepts = category?.array ?? (category.map { [$0] } ?? [])
        return concepts.contains { c in (c["coding"]?.array ?? []).contains { $0["code"]?.string == "vital-signs" } }
    }

    /// What the Health app would title the record: the resource's own
    /// text for what it is about, else its first coding's display, else
    /// its resource type.
    static func displayName(_ json: JSONValue?, resourceType: String) -> String {
        for key in ["code", "vaccineCode", "medicationCodeableConcept", "substance", "type"] {
            guard let concept = json?[key] else { continue }
            if let text = concept["text"]?.string, !text.isEmpty { return text }
            if let display = concept["coding"]?.array?.first?["display"]?.string, !display.isEmpty { return display }
        }
        return resourceType
    }

    /// A `<ClinicalRecord>` with its file's JSON `data`, or without it
    /// (nil: the export lacks the file): then a record without a resource,
    /// as HealthKit's `fhirResource` may be, titled by its resource type,
    /// its UUID made from its attributes (`withoutResourceUUID`).
    mutating func clinicalRecord(_ a: [String: String], data: [UInt8]?) -> Result<Sample, SkipReason> {
        let given = a["type"] ?? ""
        let json = data.flatMap(JSONValue.read)
        // The attribute names the resource type ("Procedure") or, in newer
        // exports, the clinical type (HKClinicalTypeIdentifierLabResultRecord).
        let typeID = given.hasPrefix(TypeCatalogue.clinicalPrefix) ? given : Self.clinicalType(resourceType: given, json: json)
        guard let typeID, let type = TypeCatalogue.standard[typeID] else {
            return .failure(SkipReason(kind: .unknownType, subject: "ClinicalRecord of \(given.isEmpty ? "no type" : given)"))
        }
        if data != nil { guard json?.object != nil else { return .failure(SkipReason(kind: .badValue, subject: "FHIR JSON of \(typeID)")) } }
        guard let sourceName = a["sourceName"], !sourceName.isEmpty else {
            return .failure(SkipReason(kind: .missingField, subject: "sourceName of \(typeID)"))
        }
        for key in ["identifier", "fhirVersion"] where (a[key] ?? "").isEmpty {
            return .failure(SkipReason(kind: .missingField, subject: "\(key) of \(typeID)"))
        }
        guard let received = a["receivedDate"].flatMap(ExportTimestamp.parseWithOffset) else {
            return .failure(SkipReason(kind: .badDate, subject: typeID))
        }
        let resourceType = json?["resourceType"]?.string ?? (given.hasPrefix(TypeCatalogue.clinicalPrefix) ? "" : given)
        let source = source(sourceName, nil)
        let at = received.instant
        let record: ClinicalRecord
        let uuid: UUID
        if let data {
            record = ClinicalRecord(displayName: Self.displayName(json, resourceType: resourceType),
                                    fhirResource: .init(resourceType: resourceType, identifier: a["identifier"] ?? "",
                                                        fhirVersion: a["fhirVersion"] ?? "", sourceURL: a["sourceURL"],
                                                        data: data))
            uuid = contentUUID(type, source, nil, at, at, nil, .clinicalRecord(record), [:])
        } else {
            let title = resourceType.isEmpty ? String(typeID.dropFirst(TypeCatalogue.clinicalPrefix.count)) : resourceType
            record = ClinicalRecord(displayName: title, fhirResource: nil)
            uuid = withoutResourceUUID(a, type: type, source: source, at: at)
        }
        do {
            let when = Date(timeIntervalSinceReferenceDate: at)
            return .success(try Sample.clinicalRecord(type, record, start: when, end: when, source: source, uuid: uuid,
                                                      utcOffset: received.offset))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: typeID))
        }
    }

    /// The UUID of a record saved without its resource: that of the same
    /// attributes with empty JSON, which no record with its file has. An
    /// import that later reads the file replaces it (`ImportSaver`).
    mutating func withoutResourceUUID(_ a: [String: String], type: SampleType, source: Source, at: Double) -> UUID {
        let stand = ClinicalRecord(displayName: "", fhirResource: .init(resourceType: a["type"] ?? "",
                                                                        identifier: a["identifier"] ?? "",
                                                                        fhirVersion: a["fhirVersion"] ?? "",
                                                                        sourceURL: a["sourceURL"], data: []))
        return contentUUID(type, source, nil, at, at, nil, .clinicalRecord(stand), [:])
    }

    /// `<ActivitySummary>` → the day's summary (rule 43): energy in the
    /// export's unit (`activeEnergyBurnedUnit`, kcal by default) made
    /// kilocalories, exercise and move time in minutes, stand hours a
    /// count. The move ring counts move time when its goal is set and the
    /// energy goal is not (decision: exports do not say the mode).
    static func activitySummary(_ a: [String: String]) -> Result<ActivitySummary, SkipReason> {
        guard let day = a["dateComponents"].flatMap({ try? ActivitySummary.Day($0) }) else {
            return .failure(SkipReason(kind: .badDate, subject: "ActivitySummary"))
        }
        var bad = false
        func number(_ key: String, _ unit: String? = nil, _ canonical: String? = nil) -> Double? {
            guard let text = a[key] else { return nil }
            guard var v = Double(text), v.isFinite, v >= 0 else { bad = true; return nil }
            if let unit, let canonical {
                guard let from = try? HealthUnit(unit), let to = try? HealthUnit(canonical),
                      let converted = try? from.convert(v, to: to) else { bad = true; return nil }
                v = converted
            }
            return v
        }
        let energyUnit = a["activeEnergyBurnedUnit"] ?? "kcal"
        var s = ActivitySummary(day: day,
                                activeEnergyBurned: number("activeEnergyBurned", energyUnit, "kcal"),
                                activeEnergyBurnedGoal: number("activeEnergyBurnedGoal", energyUnit, "kcal"),
                                appleMoveTime: number("appleMoveTime"), appleMoveTimeGoal: number("appleMoveTimeGoal"),
                                appleExerciseTime: number("appleExerciseTime"), exerciseTimeGoal: number("appleExerciseTimeGoal"),
                                appleStandHours: number("appleStandHours"), standHoursGoal: number("appleStandHoursGoal"))
        guard !bad else { return .failure(SkipReason(kind: .badValue, subject: "ActivitySummary")) }
        if (s.appleMoveTimeGoal ?? 0) > 0 && (s.activeEnergyBurnedGoal ?? 0) == 0 { s.moveMode = .appleMoveTime }
        return .success(s)
    }
}
