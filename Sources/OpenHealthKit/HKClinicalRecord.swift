import Foundation
import OpenHealthKitCore

/// HealthKit's clinical type identifiers (`HKObjectType.clinicalType(forIdentifier: .immunizationRecord)`).
public struct HKClinicalTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let allergyRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierAllergyRecord")
    public static let clinicalNoteRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierClinicalNoteRecord")
    public static let conditionRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierConditionRecord")
    public static let coverageRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierCoverageRecord")
    public static let immunizationRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierImmunizationRecord")
    public static let labResultRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierLabResultRecord")
    public static let medicationRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierMedicationRecord")
    public static let procedureRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierProcedureRecord")
    public static let vitalSignRecord = HKClinicalTypeIdentifier("HKClinicalTypeIdentifierVitalSignRecord")
}

/// A clinical type: allergies, conditions, immunizations…
public final class HKClinicalType: HKSampleType, @unchecked Sendable {
    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .clinicalRecord else { throw .invalid("\(identifier) is not a clinical type") }
        return type
    }
}

extension HKObjectType {
    /// The clinical type, or nil when HealthKit has no such identifier.
    public class func clinicalType(forIdentifier identifier: HKClinicalTypeIdentifier) -> HKClinicalType? {
        guard let t = TypeCatalogue.standard[identifier.rawValue], t.kind == .clinicalRecord else { return nil }
        return HKClinicalType(identifier: t.identifier, known: t)
    }
}

/// HealthKit's FHIR resource types (`HKFHIRResourceType`).
public struct HKFHIRResourceType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let allergyIntolerance = HKFHIRResourceType("AllergyIntolerance")
    public static let condition = HKFHIRResourceType("Condition")
    public static let coverage = HKFHIRResourceType("Coverage")
    public static let diagnosticReport = HKFHIRResourceType("DiagnosticReport")
    public static let documentReference = HKFHIRResourceType("DocumentReference")
    public static let immunization = HKFHIRResourceType("Immunization")
    public static let medicationDispense = HKFHIRResourceType("MedicationDispense")
    public static let medicationOrder = HKFHIRResourceType("MedicationOrder")
    public static let medicationRequest = HKFHIRResourceType("MedicationRequest")
    public static let medicationStatement = HKFHIRResourceType("MedicationStatement")
    public static let observation = HKFHIRResourceType("Observation")
    public static let procedure = HKFHIRResourceType("Procedure")
}

/// The FHIR release a resource follows (`HKFHIRRelease`).
public struct HKFHIRRelease: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let dstu2 = HKFHIRRelease(rawValue: "DSTU2")
    public static let r4 = HKFHIRRelease(rawValue: "R4")
    public static let unknown = HKFHIRRelease(rawValue: "Unknown")
}

/// A FHIR version, "1.0.2" (DSTU2) or "4.0.1" (R4) (`HKFHIRVersion`).
public final class HKFHIRVersion: NSObject, @unchecked Sendable {
    public let majorVersion: Int
    public let minorVersion: Int
    public let patchVersion: Int
    public var stringRepresentation: String { "\(majorVersion).\(minorVersion).\(patchVersion)" }
    /// DSTU2 for 1.0.x, R4 for 4.0.x, unknown otherwise.
    public var fhirRelease: HKFHIRRelease {
        switch (majorVersion, minorVersion) {
        case (1, 0): .dstu2
        case (4, 0): .r4
        default: .unknown
        }
    }

    /// Reads "major.minor.patch"; HealthKit's `errorInvalidArgument` otherwise.
    public init(fromVersionString versionString: String) throws {
        let parts = versionString.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let major = parts[0], let minor = parts[1], let patch = parts[2],
              major >= 0, minor >= 0, patch >= 0 else {
            throw HKError.invalid("'\(versionString)' is not a FHIR version (major.minor.patch)")
        }
        majorVersion = major
        minorVersion = minor
        patchVersion = patch
        super.init()
    }

    /// 1.0.2, the DSTU2 version HealthKit reads.
    public class func primaryDSTU2() -> HKFHIRVersion { try! HKFHIRVersion(fromVersionString: "1.0.2") }
    /// 4.0.1, the R4 version HealthKit reads.
    public class func primaryR4() -> HKFHIRVersion { try! HKFHIRVersion(fromVersionString: "4.0.1") }
}

/// A FHIR resource as it came from the provider (`HKFHIRResource`).
public final class HKFHIRResource: NSObject, @unchecked Sendable {
    public let resourceType: HKFHIRResourceType
    public let identifier: String
    /// The resource's JSON, byte for byte.
    public let data: Data
    public let sourceURL: URL?
    /// Nil only for a stored version that does not read as major.minor.patch.
    public let fhirVersion: HKFHIRVersion?

    init(_ r: ClinicalRecord.FHIRResource) {
        resourceType = HKFHIRResourceType(r.resourceType)
        identifier = r.identifier
        data = Data(r.data)
        sourceURL = r.sourceURL.flatMap { URL(string: $0) }
        fhirVersion = try? HKFHIRVersion(fromVersionString: r.fhirVersion)
        super.init()
    }
}

/// A clinical record (rule 42), read from the store: its display name
/// and FHIR resource. Records come from imports (an export's
/// `<ClinicalRecord>` with its file in `clinical-records/`) and from the
/// core's and C's saves.
public final class HKClinicalRecord: HKSample, @unchecked Sendable {
    public let displayName: String
    public let fhirResource: HKFHIRResource?
    /// The record's clinical type.
    public var clinicalType: HKClinicalType {
        HKClinicalType(identifier: sampleType.identifier, known: TypeCatalogue.standard[sampleType.identifier])
    }

    init(_ c: ClinicalRecord, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        displayName = c.displayName
        fhirResource = c.fhirResource.map(HKFHIRResource.init)
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }
}
