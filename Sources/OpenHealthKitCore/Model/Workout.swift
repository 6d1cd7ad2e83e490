import FoundationEssentials

/// A workout's own fields (HealthKit's `HKWorkout`), beyond what every
/// sample has: the value of a sample of the workout type (rule 31).
/// Quantities are in their types' canonical units: energy in kcal,
/// distance in m, strokes and flights as counts, statistics in the unit of
/// the type they are of.
public struct Workout: Hashable, Sendable {
    /// `HKWorkoutActivityType`'s raw value (`WorkoutActivityType`).
    public var activityType: UInt
    /// Seconds of activity: the interval without its pauses, as the source
    /// says (an export's `duration`; it may differ from end − start).
    public var duration: Double
    public var totalEnergyBurned: Double?
    public var totalDistance: Double?
    public var totalSwimmingStrokeCount: Double?
    public var totalFlightsClimbed: Double?
    /// Ordered by start.
    public var events: [WorkoutEvent]
    public var activities: [WorkoutActivity]
    /// Figures per quantity type over the whole workout (an export's
    /// `WorkoutStatistics`).
    public var statistics: [WorkoutStatistics]

    public init(activityType: UInt, duration: Double, totalEnergyBurned: Double? = nil, totalDistance: Double? = nil,
                totalSwimmingStrokeCount: Double? = nil, totalFlightsClimbed: Double? = nil,
                events: [WorkoutEvent] = [], activities: [WorkoutActivity] = [], statistics: [WorkoutStatistics] = []) {
        self.activityType = activityType
        self.duration = duration
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        self.totalSwimmingStrokeCount = totalSwimmingStrokeCount
        self.totalFlightsClimbed = totalFlightsClimbed
        self.events = events.sorted { ($0.start, $0.end, $0.type) < ($1.start, $1.end, $1.type) }
        self.activities = activities
        self.statistics = statistics
    }
}

/// A workout event (`HKWorkoutEvent`): a pause, a lap, a segment…
public struct WorkoutEvent: Hashable, Sendable {
    /// `HKWorkoutEventType`'s raw value: pause 1, resume 2, lap 3, marker 4,
    /// motionPaused 5, motionResumed 6, segment 7, pauseOrResumeRequest 8.
    public var type: Int
    public var start: Date
    /// The end of its date interval: the start for an instant.
    public var end: Date
    public var metadata: [String: MetadataValue]

    public init(type: Int, start: Date, end: Date, metadata: [String: MetadataValue] = [:]) {
        self.type = type
        self.start = start
        self.end = end
        self.metadata = metadata
    }

    /// HealthKit's event types by name (`HKWorkoutEventTypeLap` or `Lap`).
    public static let typesByName: [String: Int] = [
        "Pause": 1, "Resume": 2, "Lap": 3, "Marker": 4, "MotionPaused": 5, "MotionResumed": 6,
        "Segment": 7, "PauseOrResumeRequest": 8,
    ]
}

/// A part of a workout with its own activity (`HKWorkoutActivity`).
public struct WorkoutActivity: Hashable, Sendable {
    public var uuid: UUID
    /// `HKWorkoutConfiguration.activityType`.
    public var activityType: UInt
    public var start: Date
    /// Nil while the activity is in progress.
    public var end: Date?
    public var duration: Double?
    public var metadata: [String: MetadataValue]
    public var statistics: [WorkoutStatistics]

    public init(uuid: UUID, activityType: UInt, start: Date, end: Date?, duration: Double? = nil,
                metadata: [String: MetadataValue] = [:], statistics: [WorkoutStatistics] = []) {
        self.uuid = uuid
        self.activityType = activityType
        self.start = start
        self.end = end
        self.duration = duration
        self.metadata = metadata
        self.statistics = statistics
    }
}

/// A quantity type's figures over a workout or an activity, in the type's
/// canonical unit; the ones that do not apply are nil (a sum for
/// cumulative types; average, minimum and maximum for discrete ones).
public struct WorkoutStatistics: Hashable, Sendable {
    public var type: SampleType
    public var start: Date
    public var end: Date
    public var sum: Double?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?

    public init(type: SampleType, start: Date, end: Date, sum: Double? = nil, average: Double? = nil,
                minimum: Double? = nil, maximum: Double? = nil) {
        self.type = type
        self.start = start
        self.end = end
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// HealthKit's workout activity types (`HKWorkoutActivityType`), by name
/// and by number, from Apple's HKWorkoutActivityType.h (there is no 81;
/// 2998 and 2999 are unavailable in the API but may be in data).
public enum WorkoutActivityType {
    public static let byName: [String: UInt] = [
        "AmericanFootball": 1, "Archery": 2, "AustralianFootball": 3, "Badminton": 4, "Baseball": 5,
        "Basketball": 6, "Bowling": 7, "Boxing": 8, "Climbing": 9, "Cricket": 10,
        "CrossTraining": 11, "Curling": 12, "Cycling": 13, "Dance": 14, "DanceInspiredTraining": 15,
        "Elliptical": 16, "EquestrianSports": 17, "Fencing": 18, "Fishing": 19, "FunctionalStrengthTraining": 20,
        "Golf": 21, "Gymnastics": 22, "Handball": 23, "Hiking": 24, "Hockey": 25,
        "Hunting": 26, "Lacrosse": 27, "MartialArts": 28, "MindAndBody": 29, "MixedMetabolicCardioTraining": 30,
        "PaddleSports": 31, "Play": 32, "PreparationAndRecovery": 33, "Racquetball": 34, "Rowing": 35,
        "Rugby": 36, "Running": 37, "Sailing": 38, "SkatingSports": 39, "SnowSports": 40,
        "Soccer": 41, "Softball": 42, "Squash": 43, "StairClimbing": 44, "SurfingSports": 45,
        "Swimming": 46, "TableTennis": 47, "Tennis": 48, "TrackAndField": 49, "TraditionalStrengthTraining": 50,
        "Volleyball": 51, "Walking": 52, "WaterFitness": 53, "WaterPolo": 54, "WaterSports": 55,
        "Wrestling": 56, "Yoga": 57, "Barre": 58, "CoreTraining": 59, "CrossCountrySkiing": 60,
        "DownhillSkiing": 61, "Flexibility": 62, "HighIntensityIntervalTraining": 63, "JumpRope": 64,
        "Kickboxing": 65, "Pilates": 66, "Snowboarding": 67, "Stairs": 68, "StepTraining": 69,
        "WheelchairWalkPace": 70, "WheelchairRunPace": 71, "TaiChi": 72, "MixedCardio": 73, "HandCycling": 74,
        "DiscSports": 75, "FitnessGaming": 76, "CardioDance": 77, "SocialDance": 78, "Pickleball": 79,
        "Cooldown": 80, "SwimBikeRun": 82, "Transition": 83, "UnderwaterDiving": 84,
        "Rest": 2998, "Group": 2999, "Other": 3000,
    ]

    public static let prefix = "HKWorkoutActivityType"

    /// The number of `HKWorkoutActivityTypeRunning`, `Running` or `37`;
    /// nil for anything else.
    public static func number(_ text: String) -> UInt? {
        let name = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        if let n = byName[name] { return n }
        if let n = UInt(text), names[n] != nil { return n }
        return nil
    }

    /// Each number's name (`Running` for 37).
    public static let names: [UInt: String] = Dictionary(uniqueKeysWithValues: byName.map { ($1, $0) })
}

extension Workout {
    /// What a save refuses in a workout (rule 31).
    func validate(_ uuid: UUID) throws {
        guard WorkoutActivityType.names[activityType] != nil else {
            throw OHKError(.invalidValue, "workout \(uuid): \(activityType) is not an HKWorkoutActivityType")
        }
        guard duration.isFinite, duration >= 0 else {
            throw OHKError(.invalidValue, "workout \(uuid): duration must be finite and not negative, got \(duration)")
        }
        for (name, total) in [("totalEnergyBurned", totalEnergyBurned), ("totalDistance", totalDistance),
                              ("totalSwimmingStrokeCount", totalSwimmingStrokeCount),
                              ("totalFlightsClimbed", totalFlightsClimbed)] {
            if let t = total, !(t.isFinite && t >= 0) {
                throw OHKError(.invalidValue, "workout \(uuid): \(name) must be finite and not negative, got \(t)")
            }
        }
        for e in events {
            guard (1...8).contains(e.type) else { throw OHKError(.invalidValue, "workout \(uuid): \(e.type) is not an HKWorkoutEventType") }
            try Self.checkInterval(e.start, e.end, "an event of workout \(uuid)")
        }
        for a in activities {
            guard WorkoutActivityType.names[a.activityType] != nil else {
                throw OHKError(.invalidValue, "workout \(uuid): activity \(a.uuid) has \(a.activityType), not an HKWorkoutActivityType")
            }
            try Self.checkInterval(a.start, a.end ?? a.start, "activity \(a.uuid) of workout \(uuid)")
            for s in a.statistics { try s.validate("activity \(a.uuid) of workout \(uuid)") }
        }
        for s in statistics { try s.validate("workout \(uuid)") }
    }

    static func checkInterval(_ start: Date, _ end: Date, _ what: String) throws {
        let s = start.timeIntervalSinceReferenceDate, e = end.timeIntervalSinceReferenceDate
        guard s.isFinite, e.isFinite, s <= e else {
            throw OHKError(.invalidDateRange, "\(what) ends (\(end)) before it starts (\(start)), or a date is not finite")
        }
    }
}

extension WorkoutStatistics {
    func validate(_ what: String) throws {
        guard type.isQuantity, !type.isCustom else {
            throw OHKError(.invalidArgument, "\(what): statistics of \(type.identifier), not one of HealthKit's quantity types")
        }
        try Workout.checkInterval(start, end, "statistics of \(type.identifier) in \(what)")
        for v in [sum, average, minimum, maximum] {
            if let v, !v.isFinite { throw OHKError(.invalidValue, "\(what): statistics of \(type.identifier) must be finite") }
        }
    }
}
