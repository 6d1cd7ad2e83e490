import Foundation
import OpenHealthKitCore

// HealthKit's metadata keys, with the strings HealthKit stores (and Apple
// Health exports write) under them.
public let HKMetadataKeySyncIdentifier = "HKMetadataKeySyncIdentifier"
public let HKMetadataKeySyncVersion = "HKMetadataKeySyncVersion"
public let HKMetadataKeyWasUserEntered = "HKWasUserEntered"
public let HKMetadataKeyExternalUUID = "HKExternalUUID"
public let HKMetadataKeyTimeZone = "HKTimeZone"
public let HKMetadataKeyDeviceSerialNumber = "HKDeviceSerialNumber"
public let HKMetadataKeyUDIDeviceIdentifier = "HKUDIDeviceIdentifier"
public let HKMetadataKeyUDIProductionIdentifier = "HKUDIProductionIdentifier"
public let HKMetadataKeyDigitalSignature = "HKDigitalSignature"
public let HKMetadataKeyDeviceName = "HKDeviceName"
public let HKMetadataKeyDeviceManufacturerName = "HKDeviceManufacturerName"
public let HKMetadataKeyWasTakenInLab = "HKWasTakenInLab"
public let HKMetadataKeyReferenceRangeLowerLimit = "HKReferenceRangeLowerLimit"
public let HKMetadataKeyReferenceRangeUpperLimit = "HKReferenceRangeUpperLimit"
public let HKMetadataKeyBodyTemperatureSensorLocation = "HKBodyTemperatureSensorLocation"
public let HKMetadataKeyHeartRateSensorLocation = "HKHeartRateSensorLocation"
public let HKMetadataKeyHeartRateMotionContext = "HKHeartRateMotionContext"
public let HKMetadataKeyBloodGlucoseMealTime = "HKBloodGlucoseMealTime"
public let HKMetadataKeyVO2MaxTestType = "HKVO2MaxTestType"
public let HKMetadataKeyIndoorWorkout = "HKIndoorWorkout"
public let HKMetadataKeyCoachedWorkout = "HKCoachedWorkout"
public let HKMetadataKeyGroupFitness = "HKGroupFitness"
public let HKMetadataKeyWeatherTemperature = "HKWeatherTemperature"
public let HKMetadataKeyWeatherHumidity = "HKWeatherHumidity"
public let HKMetadataKeyWeatherCondition = "HKWeatherCondition"
public let HKMetadataKeySexualActivityProtectionUsed = "HKSexualActivityProtectionUsed"
public let HKMetadataKeyMenstrualCycleStart = "HKMenstrualCycleStart"
public let HKMetadataKeyAudioExposureLevel = "HKAudioExposureLevel"
public let HKMetadataKeyHeartRateEventThreshold = "HKHeartRateEventThreshold"
public let HKMetadataKeyAverageSpeed = "HKAverageSpeed"
public let HKMetadataKeyMaximumSpeed = "HKMaximumSpeed"
public let HKMetadataKeyElevationAscended = "HKElevationAscended"
public let HKMetadataKeyElevationDescended = "HKElevationDescended"
public let HKMetadataKeyAverageMETs = "HKAverageMETs"
public let HKMetadataKeyLapLength = "HKLapLength"
public let HKMetadataKeySwimmingLocationType = "HKSwimmingLocationType"
public let HKMetadataKeySwimmingStrokeStyle = "HKSwimmingStrokeStyle"
public let HKMetadataKeyFoodType = "HKFoodType"
public let HKMetadataKeyInsulinDeliveryReason = "HKInsulinDeliveryReason"
public let HKMetadataKeyAlgorithmVersion = "HKAlgorithmVersion"
public let HKMetadataKeyDevicePlacementSide = "HKMetadataKeyDevicePlacementSide"
public let HKMetadataKeyAppleDeviceCalibrated = "HKMetadataKeyAppleDeviceCalibrated"
public let HKMetadataKeyUserMotionContext = "HKMetadataKeyUserMotionContext"
public let HKMetadataKeyBarometricPressure = "HKMetadataKeyBarometricPressure"

/// HealthKit's metadata (`[String: Any]`) ↔ the core's typed values.
/// Values are strings, numbers, booleans and dates, as in HealthKit;
/// quantities (HealthKit allows a few keys to hold one) are refused for
/// now.
/// An object's metadata: as this program gave it, or as the store keeps
/// it (decoded when read: building a dictionary for every sample a query
/// returns cost more than the rest of the sample).
enum ObjectMetadata {
    case given([String: Any]?)
    case stored(StoredMetadata)
}

enum MetadataBridge {
    static func core(_ metadata: [String: Any]?) throws(HKError) -> [String: MetadataValue] {
        guard let metadata else { return [:] }
        var out: [String: MetadataValue] = [:]
        out.reserveCapacity(metadata.count)
        for (key, value) in metadata {
            switch value {
            case let v as Bool: out[key] = .bool(v)
            case let v as String: out[key] = .string(v)
            case let v as Date: out[key] = .date(v)
            case let v as Int: out[key] = .number(Double(v))
            case let v as Double: out[key] = .number(v)
            case let v as Float: out[key] = .number(Double(v))
            case let v as NSNumber: out[key] = .number(v.doubleValue)
            case is HKQuantity:
                throw .invalid("metadata '\(key)': quantity values are not supported yet; store a number in the key's unit")
            default:
                throw .invalid("metadata '\(key)' has a value of type \(type(of: value)); HealthKit allows strings, numbers, booleans and dates")
            }
        }
        return out
    }

    static func healthKit(_ metadata: [String: MetadataValue]) -> [String: Any]? {
        guard !metadata.isEmpty else { return nil }
        var out: [String: Any] = [:]
        out.reserveCapacity(metadata.count)
        for (key, value) in metadata { out[key] = any(value) }
        return out
    }

    /// A stored sample's metadata, decoded from its entries.
    static func healthKit(_ stored: StoredMetadata) -> [String: Any]? {
        var out: [String: Any] = [:]
        stored.forEach { key, value in out[key] = any(value) }
        return out.isEmpty ? nil : out
    }

    private static func any(_ value: MetadataValue) -> Any {
        switch value {
        case .string(let s): s
        case .number(let n): n
        case .bool(let b): b
        case .date(let d): d
        }
    }
}
