import Foundation
import OpenHealthKitCore

/// HealthKit's characteristic type identifiers (rule 38).
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    /// An identifier by its text ("HKCharacteristicTypeIdentifierBloodType").
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An identifier by its text ("HKCharacteristicTypeIdentifierBloodType").
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let dateOfBirth = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierDateOfBirth")
    public static let biologicalSex = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBiologicalSex")
    public static let bloodType = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBloodType")
    public static let fitzpatrickSkinType = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierFitzpatrickSkinType")
    public static let wheelchairUse = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierWheelchairUse")

    static let all: [HKCharacteristicTypeIdentifier] = [.dateOfBirth, .biologicalSex, .bloodType, .fitzpatrickSkinType, .wheelchairUse]
}

/// A characteristic type: what HealthKit keeps of the person, not of a
/// moment. Apps pass these where they list the types they read.
public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    /// The characteristic type of this identifier.
    public convenience init(_ identifier: HKCharacteristicTypeIdentifier) {
        self.init(identifier: identifier.rawValue)
    }
}

extension HKObjectType {
    /// The characteristic type, or nil when HealthKit has no such
    /// identifier here (the five above).
    public class func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier) -> HKCharacteristicType? {
        HKCharacteristicTypeIdentifier.all.contains(identifier) ? HKCharacteristicType(identifier) : nil
    }
}

/// The objects HealthKit wraps each characteristic in.
public final class HKBiologicalSexObject: NSObject, @unchecked Sendable {
    public let biologicalSex: HKBiologicalSex
    init(_ v: HKBiologicalSex) { biologicalSex = v }
}

public final class HKBloodTypeObject: NSObject, @unchecked Sendable {
    public let bloodType: HKBloodType
    init(_ v: HKBloodType) { bloodType = v }
}

public final class HKFitzpatrickSkinTypeObject: NSObject, @unchecked Sendable {
    public let skinType: HKFitzpatrickSkinType
    init(_ v: HKFitzpatrickSkinType) { skinType = v }
}

public final class HKWheelchairUseObject: NSObject, @unchecked Sendable {
    public let wheelchairUse: HKWheelchairUse
    init(_ v: HKWheelchairUse) { wheelchairUse = v }
}

/// Reading the person's characteristics (rule 38). As in HealthKit, a
/// characteristic that is not set reads as `.notSet`; a date of birth that
/// is not set is `errorNoData` (decision: Apple documents no value for
/// it). A store that cannot be opened is `errorDatabaseInaccessible`.
/// Apps cannot write them in HealthKit; here the importer sets them from
/// an export's `<Me>`, and `coreStore().setCharacteristics(_:)` sets them.
extension HKHealthStore {
    private func characteristics() throws(HKError) -> Characteristics {
        let store = try core()
        return try hk { try store.characteristics() }
    }

    /// The date of birth: year, month and day in the Gregorian calendar.
    public func dateOfBirthComponents() throws -> DateComponents {
        guard let d = try characteristics().dateOfBirth else {
            throw HKError(.errorNoData, "no date of birth is set in this store")
        }
        return DateComponents(calendar: Calendar(identifier: .gregorian), year: d.year, month: d.month, day: d.day)
    }

    /// The biological sex; `.notSet` until set.
    public func biologicalSex() throws -> HKBiologicalSexObject {
        HKBiologicalSexObject(HKBiologicalSex(rawValue: try characteristics().biologicalSex.rawValue) ?? .notSet)
    }

    /// The blood type; `.notSet` until set.
    public func bloodType() throws -> HKBloodTypeObject {
        HKBloodTypeObject(HKBloodType(rawValue: try characteristics().bloodType.rawValue) ?? .notSet)
    }

    /// The Fitzpatrick skin type; `.notSet` until set.
    public func fitzpatrickSkinType() throws -> HKFitzpatrickSkinTypeObject {
        HKFitzpatrickSkinTypeObject(HKFitzpatrickSkinType(rawValue: try characteristics().fitzpatrickSkinType.rawValue) ?? .notSet)
    }

    /// Whether the person uses a wheelchair; `.notSet` until set.
    public func wheelchairUse() throws -> HKWheelchairUseObject {
        HKWheelchairUseObject(HKWheelchairUse(rawValue: try characteristics().wheelchairUse.rawValue) ?? .notSet)
    }
}
