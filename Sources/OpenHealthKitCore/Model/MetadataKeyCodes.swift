/// HealthKit's own metadata keys, stored as a one-byte code rather than
/// their text (format 21): a record's metadata entry then begins with a
/// key length of 0, which no saved key has (an empty key is refused),
/// and the code. `HKWasUserEntered` took 18 bytes and takes 3;
/// `HKMetadataKeySyncIdentifier`, which every synced sample carries, 29.
///
/// The list is part of the store format: codes are its index plus one,
/// and a key, once listed, keeps its code. New keys go at the end.
enum MetadataKeyCodes {
    static let keys: [String] = [
        MetadataKey.syncIdentifier, MetadataKey.syncVersion, "HKWasUserEntered", "HKExternalUUID", "HKTimeZone",
        "HKDeviceSerialNumber", "HKUDIDeviceIdentifier", "HKUDIProductionIdentifier", "HKDigitalSignature", "HKDeviceName",
        "HKDeviceManufacturerName", "HKWasTakenInLab", "HKReferenceRangeLowerLimit", "HKReferenceRangeUpperLimit",
        "HKBodyTemperatureSensorLocation", "HKHeartRateSensorLocation", "HKHeartRateMotionContext", "HKBloodGlucoseMealTime",
        "HKIndoorWorkout", "HKCoachedWorkout", "HKGroupFitness", "HKWeatherTemperature", "HKWeatherHumidity",
        "HKWeatherCondition", "HKSexualActivityProtectionUsed", "HKMenstrualCycleStart", "HKAudioExposureLevel",
        "HKHeartRateEventThreshold", "HKAverageSpeed", "HKMaximumSpeed", "HKElevationAscended", "HKElevationDescended",
        "HKAverageMETs", "HKLapLength", "HKSwimmingLocationType", "HKSwimmingStrokeStyle", "HKFoodType",
        "HKInsulinDeliveryReason", "HKAlgorithmVersion", "HKMetadataKeyDevicePlacementSide",
        "HKMetadataKeyAppleDeviceCalibrated", "HKMetadataKeyUserMotionContext", "HKMetadataKeyBarometricPressure",
        // As Apple's exports spell them.
        "HKMetadataKeyHeartRateMotionContext", "HKVO2MaxTestType", "HKMetadataKeyHeadphoneGain",
        "HKMetadataKeyAppleECGAlgorithmVersion", "HKMetadataKeySessionEstimate",
    ]

    private static let codes: [String: UInt8] = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, UInt8($0 + 1)) })

    /// The code of `key`, nil when it has none.
    static func code(of key: String) -> UInt8? { codes[key] }

    /// The key of `code`, nil when no key has it (damage).
    static func key(of code: UInt8) -> String? { code >= 1 && Int(code) <= keys.count ? keys[Int(code) - 1] : nil }
}
