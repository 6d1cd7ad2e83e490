import FoundationEssentials

// The fields of the kinds beyond quantity and category, in the JSON `ohk
// changes` prints (docs/ohk.md, "Output"): decoded as they are written,
// checked and converted in UploadDecoding+Kinds.swift.

/// A workout's `workout` object.
public struct UploadedWorkout: Decodable, Sendable {
    public var activityType: String?
    public var activityTypeNumber: UInt?
    public var duration: Double
    public var totalEnergyBurnedKcal: Double?
    public var totalDistanceM: Double?
    public var totalSwimmingStrokeCount: Double?
    public var totalFlightsClimbed: Double?
    public var events: [UploadedWorkoutEvent]?
    public var activities: [UploadedWorkoutActivity]?
    public var statistics: [UploadedWorkoutStatistics]?
}

public struct UploadedWorkoutEvent: Decodable, Sendable {
    /// HealthKit's name (`Pause`, `Lap`…) or its number as text.
    public var type: String
    public var start: String
    public var end: String?
    public var metadata: [String: UploadedMetadataValue]?
}

public struct UploadedWorkoutActivity: Decodable, Sendable {
    public var uuid: String
    public var activityType: String
    public var start: String
    public var end: String?
    public var duration: Double?
    public var statistics: [UploadedWorkoutStatistics]?
    public var metadata: [String: UploadedMetadataValue]?
}

public struct UploadedWorkoutStatistics: Decodable, Sendable {
    public var type: String
    public var start: String
    public var end: String
    public var sum: Double?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    /// The figures' unit; the type's canonical unit when absent.
    public var unit: String?
}

/// A route's `route` object: its workout and its locations.
public struct UploadedRoute: Decodable, Sendable {
    public var workout: String?
    public var locations: [UploadedLocation]
}

/// `[unix seconds, latitude, longitude, altitude, horizontal accuracy,
/// vertical accuracy, course, speed]`, the last five null where unknown
/// and the trailing ones optional.
public struct UploadedLocation: Decodable, Sendable {
    public var fields: [Double?]

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        fields = []
        while !c.isAtEnd, fields.count < 8 {
            fields.append(try c.decodeNil() ? nil : c.decode(Double.self))
        }
        guard c.isAtEnd, fields.count >= 3, fields[0] != nil, fields[1] != nil, fields[2] != nil else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription:
                "a location is [unix seconds, latitude, longitude] then up to five numbers or nulls")
        }
    }
}

/// A heartbeat: `[seconds since the start, preceded by a gap]`.
public struct UploadedBeat: Decodable, Sendable {
    public var timeSinceStart: Double
    public var precededByGap: Bool

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        timeSinceStart = try c.decode(Double.self)
        precededByGap = c.isAtEnd ? false : try c.decode(Bool.self)
        guard c.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a beat is [seconds since the start, preceded by a gap]")
        }
    }
}

/// One of an audiogram's `sensitivityPoints`.
public struct UploadedAudiogramPoint: Decodable, Sendable {
    public var frequencyHz: Double
    public var leftEarDBHL: Double?
    public var leftEarMasked: Bool?
    public var leftEarClampingLowerBoundDBHL: Double?
    public var leftEarClampingUpperBoundDBHL: Double?
    public var rightEarDBHL: Double?
    public var rightEarMasked: Bool?
    public var rightEarClampingLowerBoundDBHL: Double?
    public var rightEarClampingUpperBoundDBHL: Double?
}

/// An electrocardiogram's `electrocardiogram` object.
public struct UploadedElectrocardiogram: Decodable, Sendable {
    public var classification: String?
    public var symptomsStatus: String?
    public var averageHeartRateBPM: Double?
    public var samplingFrequencyHz: Double?
    public var lead: String?
    public var voltagesMicrovolts: [Double]?
}

/// A clinical record's `clinicalRecord` object; `data` is the FHIR
/// resource's JSON as a string. A record without a resource has its
/// display name alone.
public struct UploadedClinicalRecord: Decodable, Sendable {
    public var displayName: String
    public var resourceType: String?
    public var identifier: String?
    public var fhirVersion: String?
    public var sourceURL: String?
    public var data: String?
}
