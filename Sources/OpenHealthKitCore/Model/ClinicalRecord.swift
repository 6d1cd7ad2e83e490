import FoundationEssentials

/// A clinical record (HealthKit's `HKClinicalRecord`, rule 42): the value
/// of a sample of one of HealthKit's clinical types (allergies,
/// conditions, immunizations…), its display name and its FHIR resource,
/// whose JSON is kept byte for byte as it came.
public struct ClinicalRecord: Hashable, Sendable {
    /// HealthKit's `HKFHIRResource`.
    public struct FHIRResource: Hashable, Sendable {
        /// The FHIR resource type (`HKFHIRResourceType`): "Immunization",
        /// "Observation", "Procedure"…
        public var resourceType: String
        /// The resource's id at its source.
        public var identifier: String
        /// The FHIR release ("1.0.2" is DSTU2, "4.0.1" is R4).
        public var fhirVersion: String
        /// Where the source serves it; nil where unknown.
        public var sourceURL: String?
        /// The resource's JSON, exactly as it came.
        public var data: [UInt8]

        /// A resource of `resourceType` with its JSON `data`.
        public init(resourceType: String, identifier: String, fhirVersion: String, sourceURL: String? = nil, data: [UInt8]) {
            self.resourceType = resourceType
            self.identifier = identifier
            self.fhirVersion = fhirVersion
            self.sourceURL = sourceURL
            self.data = data
        }
    }

    /// What a person reads as the record's title.
    public var displayName: String
    /// The FHIR resource; nil for a record whose resource is unknown, as
    /// HealthKit's `fhirResource` may be (an export's `<ClinicalRecord>`
    /// whose file is missing).
    public var fhirResource: FHIRResource?

    /// A record named `displayName` holding `fhirResource` (nil: none).
    public init(displayName: String, fhirResource: FHIRResource?) {
        self.displayName = displayName
        self.fhirResource = fhirResource
    }

    /// The FHIR resource types HealthKit reads (`HKFHIRResourceType`).
    public static let resourceTypes: Set<String> = [
        "AllergyIntolerance", "Condition", "Coverage", "DiagnosticReport", "DocumentReference", "Immunization",
        "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement", "Observation", "Procedure",
    ]

    /// What a save refuses (rule 42): an empty display name; for a record
    /// with a resource, a resource type HealthKit does not read, an empty
    /// identifier or FHIR version, data that is not one JSON object
    /// (parsed whole: it is read back as JSON).
    func validate(_ uuid: UUID) throws {
        guard !displayName.isEmpty else { throw OHKError(.invalidValue, "clinical record \(uuid) lacks its display name") }
        guard let r = fhirResource else { return }
        guard Self.resourceTypes.contains(r.resourceType) else {
            throw OHKError(.invalidValue, "clinical record \(uuid): '\(r.resourceType)' is not a FHIR resource type HealthKit reads")
        }
        guard !r.identifier.isEmpty, !r.fhirVersion.isEmpty, !displayName.isEmpty else {
            throw OHKError(.invalidValue, "clinical record \(uuid) lacks its identifier, FHIR version or display name")
        }
        guard r.data.count <= Int(UInt32.max) else {
            throw OHKError(.invalidValue, "clinical record \(uuid): \(r.data.count) bytes of FHIR data; a record holds at most 4 GiB")
        }
        guard JSONValue.read(r.data)?.object != nil else {
            throw OHKError(.invalidValue, "clinical record \(uuid): its FHIR data is not a JSON object")
        }
    }
}

/// A clinical record's stored form (a record payload): a version, the
/// display name, the resource's type, identifier, FHIR version and
/// source URL as strings, then its JSON bytes. A record without a
/// resource has an empty type and no bytes (which a record with one
/// never has): the same layout, which every version of the library reads.
enum ClinicalRecordCodec {
    static let version: UInt8 = 1

    static func encode(_ c: ClinicalRecord, into out: inout ByteWriter) {
        out.u8(version)
        out.string(c.displayName)
        let r = c.fhirResource
        out.string(r?.resourceType ?? "")
        out.string(r?.identifier ?? "")
        out.string(r?.fhirVersion ?? "")
        out.optionalString(r?.sourceURL)
        out.u32(UInt32(r?.data.count ?? 0))
        out.bytes.append(contentsOf: r?.data ?? [])
    }

    static func decode(_ r: inout ByteReader) throws -> ClinicalRecord {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "a clinical record of an unknown version") }
        let name = try r.string(), type = try r.string(), id = try r.string(), fhir = try r.string()
        let url = try r.optionalString()
        let data = try r.bytes(Int(try r.u32()))
        guard !type.isEmpty || !data.isEmpty else { return ClinicalRecord(displayName: name, fhirResource: nil) }
        return ClinicalRecord(displayName: name, fhirResource: .init(resourceType: type, identifier: id, fhirVersion: fhir,
                                                                      sourceURL: url, data: data))
    }
}
