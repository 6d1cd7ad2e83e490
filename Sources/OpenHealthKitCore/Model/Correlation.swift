import FoundationEssentials

/// A correlation (HealthKit's `HKCorrelation`): the value of a sample of
/// a correlation type, the UUIDs of its member samples (rule 33).
public struct Correlation: Hashable, Sendable {
    /// Sorted (a set, kept in a fixed order).
    public var members: [UUID]

    public init(members: [UUID]) {
        self.members = Array(Set(members)).sorted { $0.uuidString < $1.uuidString }
    }
}

extension TypeCatalogue {
    public static let bloodPressureIdentifier = "HKCorrelationTypeIdentifierBloodPressure"
    public static let foodIdentifier = "HKCorrelationTypeIdentifierFood"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"

    /// The member types each correlation type allows (documented: blood
    /// pressure holds a systolic and a diastolic sample; food, dietary
    /// samples).
    public static func correlationMembers(_ identifier: String) -> Set<String> {
        if identifier == bloodPressureIdentifier { return [systolic, diastolic] }
        return Set(standard.values.filter { $0.isQuantity && $0.identifier.hasPrefix(quantityPrefix + "Dietary") }.map(\.identifier))
    }
}

extension Correlation {
    /// What a save refuses, given each member's type (absent: not a live
    /// sample of the store or of this save before it): no member, a member
    /// that is missing or of a type the correlation does not allow, a blood
    /// pressure without exactly one systolic and one diastolic sample.
    public func validate(_ uuid: UUID, type: SampleType, memberTypes: [UUID: SampleType]) throws {
        guard !members.isEmpty else { throw OHKError(.invalidValue, "correlation \(uuid) has no member") }
        let allowed = TypeCatalogue.correlationMembers(type.identifier)
        var types: [String] = []
        for m in members {
            guard let t = memberTypes[m] else {
                throw OHKError(.notFound, "correlation \(uuid): member \(m) is not a sample of the store (save members first, in the same save or before)")
            }
            guard allowed.contains(t.identifier) else {
                throw OHKError(.invalidArgument, "correlation \(uuid): a \(type.identifier) cannot hold \(t.identifier)")
            }
            types.append(t.identifier)
        }
        if type.identifier == TypeCatalogue.bloodPressureIdentifier, types.sorted() != [TypeCatalogue.diastolic, TypeCatalogue.systolic] {
            throw OHKError(.invalidArgument, "correlation \(uuid): a blood pressure holds one systolic and one diastolic sample")
        }
    }
}

/// A correlation's stored form (a record payload).
enum CorrelationCodec {
    static let version: UInt8 = 1

    static func encode(_ c: Correlation, into out: inout ByteWriter) {
        out.u8(version)
        out.u32(UInt32(c.members.count))
        for m in c.members { out.uuid(m) }
    }

    static func decode(_ r: inout ByteReader) throws -> Correlation {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "a correlation of an unknown version") }
        let n = Int(try r.u32())
        guard n <= r.remaining / 16 else { throw OHKError(.storeCorrupt, "a corrupt correlation") }
        var members: [UUID] = []
        for _ in 0..<n { members.append(try r.uuid()) }
        var c = Correlation(members: [])
        c.members = members
        return c
    }
}
