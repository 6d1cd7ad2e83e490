import FoundationEssentials

/// What HealthKit keeps of the person rather than of a moment (its
/// characteristic types, rule 38): date of birth, biological sex, blood
/// type, Fitzpatrick skin type and wheelchair use. They are values of the
/// store, not samples: no change order, no deleted objects. Each enum's
/// raw values are HealthKit's (`HKBiologicalSex.female` is 1, and so on).
public struct Characteristics: Hashable, Sendable {

    /// A calendar date of birth, as HealthKit's `dateOfBirthComponents()`
    /// gives it: year, month and day, no time and no zone.
    public struct DateOfBirth: Hashable, Sendable {
        public let year: Int
        public let month: Int
        public let day: Int

        /// Refuses what is not a date between the years 1 and 9999
        /// (`invalidValue`).
        public init(year: Int, month: Int, day: Int) throws {
            let lengths = [31, Self.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...9999).contains(year), (1...12).contains(month), (1...lengths[month - 1]).contains(day) else {
                throw OHKError(.invalidValue, "\(year)-\(month)-\(day) is not a date of birth (a day of the years 1 to 9999)")
            }
            self.year = year
            self.month = month
            self.day = day
        }

        private static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

        /// "1980-05-04", the export's form.
        public var text: String {
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let y = String(year)
            return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + two(month) + "-" + two(day)
        }

        /// Reads "YYYY-MM-DD" (the export's `HKCharacteristicTypeIdentifierDateOfBirth`).
        public init(text: String) throws {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
                throw OHKError(.invalidValue, "\"\(text)\" is not a date of birth (YYYY-MM-DD)")
            }
            try self.init(year: y, month: m, day: d)
        }
    }

    public var dateOfBirth: DateOfBirth?
    public var biologicalSex: BiologicalSex
    public var bloodType: BloodType
    public var fitzpatrickSkinType: FitzpatrickSkinType
    public var wheelchairUse: WheelchairUse

    /// Characteristics with these values; each not set by default.
    public init(dateOfBirth: DateOfBirth? = nil, biologicalSex: BiologicalSex = .notSet, bloodType: BloodType = .notSet,
                fitzpatrickSkinType: FitzpatrickSkinType = .notSet, wheelchairUse: WheelchairUse = .notSet) {
        self.dateOfBirth = dateOfBirth
        self.biologicalSex = biologicalSex
        self.bloodType = bloodType
        self.fitzpatrickSkinType = fitzpatrickSkinType
        self.wheelchairUse = wheelchairUse
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == Characteristics() }

    /// `self` with each value `other` sets (an import's) put in place of
    /// ours; what `other` leaves not set stays as it was.
    public func merging(_ other: Characteristics) -> Characteristics {
        var c = self
        if let d = other.dateOfBirth { c.dateOfBirth = d }
        if other.biologicalSex != .notSet { c.biologicalSex = other.biologicalSex }
        if other.bloodType != .notSet { c.bloodType = other.bloodType }
        if other.fitzpatrickSkinType != .notSet { c.fitzpatrickSkinType = other.fitzpatrickSkinType }
        if other.wheelchairUse != .notSet { c.wheelchairUse = other.wheelchairUse }
        return c
    }
}

/// The names HealthKit's headers and Apple's exports give the values:
/// `HKBiologicalSexFemale`, `HKBloodTypeAPositive`,
/// `HKFitzpatrickSkinTypeIII`, `HKWheelchairUseYes`.
extension Characteristics {
    public static let biologicalSexNames: [BiologicalSex: String] = [
        .notSet: "HKBiologicalSexNotSet", .female: "HKBiologicalSexFemale", .male: "HKBiologicalSexMale",
        .other: "HKBiologicalSexOther",
    ]
    public static let bloodTypeNames: [BloodType: String] = [
        .notSet: "HKBloodTypeNotSet", .aPositive: "HKBloodTypeAPositive", .aNegative: "HKBloodTypeANegative",
        .bPositive: "HKBloodTypeBPositive", .bNegative: "HKBloodTypeBNegative", .abPositive: "HKBloodTypeABPositive",
        .abNegative: "HKBloodTypeABNegative", .oPositive: "HKBloodTypeOPositive", .oNegative: "HKBloodTypeONegative",
    ]
    public static let skinTypeNames: [FitzpatrickSkinType: String] = [
        .notSet: "HKFitzpatrickSkinTypeNotSet", .I: "HKFitzpatrickSkinTypeI", .II: "HKFitzpatrickSkinTypeII",
        .III: "HKFitzpatrickSkinTypeIII", .IV: "HKFitzpatrickSkinTypeIV", .V: "HKFitzpatrickSkinTypeV",
        .VI: "HKFitzpatrickSkinTypeVI",
    ]
    public static let wheelchairUseNames: [WheelchairUse: String] = [
        .notSet: "HKWheelchairUseNotSet", .no: "HKWheelchairUseNo", .yes: "HKWheelchairUseYes",
    ]

    /// The `<Me>` attributes the five characteristics are read from; any
    /// other (a newer export's `…CardioFitnessMedicationsUse`) is not kept.
    public static let exportAttributeNames: Set = [
        "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
        "HKCharacteristicTypeIdentifierBloodType", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
        "HKCharacteristicTypeIdentifierWheelchairUse",
    ]

    /// The characteristics an export's `<Me>` element gives, from its
    /// attributes (`HKCharacteristicTypeIdentifierDateOfBirth="1980-05-04"`,
    /// `HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"`,
    /// …). Attributes it does not know are ignored; a value it cannot read
    /// is refused (`invalidValue`), naming it.
    public init(exportAttributes attributes: [(String, String)]) throws {
        self.init()
        func value<E>(_ names: [E: String], _ text: String, _ what: String) throws -> E {
            guard let e = names.first(where: { $0.value == text })?.key else {
                throw OHKError(.invalidValue, "<Me> \(what) \"\(text)\" is not one of HealthKit's values")
            }
            return e
        }
        for (key, text) in attributes {
            switch key {
            case "HKCharacteristicTypeIdentifierDateOfBirth":
                if !text.isEmpty { dateOfBirth = try DateOfBirth(text: text) }
            case "HKCharacteristicTypeIdentifierBiologicalSex": biologicalSex = try value(Self.biologicalSexNames, text, key)
            case "HKCharacteristicTypeIdentifierBloodType": bloodType = try value(Self.bloodTypeNames, text, key)
            case "HKCharacteristicTypeIdentifierFitzpatrickSkinType":
                fitzpatrickSkinType = try value(Self.skinTypeNames, text, key)
            case "HKCharacteristicTypeIdentifierWheelchairUse": wheelchairUse = try value(Self.wheelchairUseNames, text, key)
            default: break
            }
        }
    }
}

/// Stored form: a version, the date of birth (year 0: not set) and the
/// four enums' raw values, one byte each.
enum CharacteristicsCodec {
    static let version: UInt8 = 1

    static func encode(_ c: Characteristics) -> [UInt8] {
        var out = ByteWriter(capacity: 9)
        out.u8(version)
        out.u16(UInt16(c.dateOfBirth?.year ?? 0))
        out.u8(UInt8(c.dateOfBirth?.month ?? 0))
        out.u8(UInt8(c.dateOfBirth?.day ?? 0))
        for raw in [c.biologicalSex.rawValue, c.bloodType.rawValue, c.fitzpatrickSkinType.rawValue, c.wheelchairUse.rawValue] {
            out.u8(UInt8(raw))
        }
        return out.bytes
    }

    static func decode(_ raw: UnsafeRawBufferPointer) throws -> Characteristics {
        var r = ByteReader(raw)
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "characteristics of an unknown version") }
        let year = Int(try r.u16()), month = Int(try r.u8()), day = Int(try r.u8())
        func e<E: RawRepresentable<Int>>(_: E.Type) throws -> E {
            guard let v = E(rawValue: Int(try r.u8())) else { throw OHKError(.storeCorrupt, "a corrupt characteristic") }
            return v
        }
        let born: Characteristics.DateOfBirth?
        do {
            born = year == 0 ? nil : try Characteristics.DateOfBirth(year: year, month: month, day: day)
        } catch {
            throw OHKError(.storeCorrupt, "the stored date of birth \(year)-\(month)-\(day) is not a date")
        }
        return Characteristics(dateOfBirth: born,
                               biologicalSex: try e(Characteristics.BiologicalSex.self), bloodType: try e(Characteristics.BloodType.self),
                               fitzpatrickSkinType: try e(Characteristics.FitzpatrickSkinType.self),
                               wheelchairUse: try e(Characteristics.WheelchairUse.self))
    }
}

extension Store {
    /// The store's characteristics (rule 38); every one not set in a store
    /// that has none.
    public func characteristics() throws -> Characteristics {
        try operation {
            try env.read { txn in
                guard let raw = try txn.get(trees.meta, Schema.MetaKey.characteristics.bytes) else { return Characteristics() }
                return try CharacteristicsCodec.decode(raw)
            }
        }
    }

    /// Replaces the store's characteristics, in one transaction (HealthKit
    /// has the person set them in the Health app; here the importer and
    /// the program set them).
    public func setCharacteristics(_ c: Characteristics) throws {
        try write { w in
            _ = try w.txn.put(trees.meta, Schema.MetaKey.characteristics.bytes, CharacteristicsCodec.encode(c))
        }
    }
}
