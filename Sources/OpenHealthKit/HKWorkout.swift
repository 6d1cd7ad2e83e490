import Foundation
import OpenHealthKitCore

/// The workout type: `HKObjectType.workoutType()`.
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .workout else { throw .invalid("\(identifier) is not the workout type") }
        return type
    }
}

extension HKObjectType {
    /// HealthKit's one workout type.
    public class func workoutType() -> HKWorkoutType {
        HKWorkoutType(identifier: TypeCatalogue.workoutIdentifier, known: TypeCatalogue.workoutType)
    }
}

/// A workout event: a pause, a resume, a lap, a segment… with its date
/// interval (zero-length for an instant).
public final class HKWorkoutEvent: NSObject, @unchecked Sendable {
    public let type: HKWorkoutEventType
    public let dateInterval: DateInterval
    public let metadata: [String: Any]?

    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = metadata
        super.init()
    }

    @available(*, deprecated, message: "Use init(type:dateInterval:metadata:)")
    public convenience init(type: HKWorkoutEventType, date: Date) {
        self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
    }

    @available(*, deprecated, renamed: "dateInterval")
    public var date: Date { dateInterval.start }

    var core: WorkoutEvent {
        get throws(HKError) {
            WorkoutEvent(type: type.rawValue, start: dateInterval.start, end: dateInterval.end,
                         metadata: try MetadataBridge.core(metadata))
        }
    }
}

/// A workout's configuration; here, its activity type.
public final class HKWorkoutConfiguration: NSObject, @unchecked Sendable {
    public var activityType: HKWorkoutActivityType = .other
    public override init() { super.init() }
}

/// The statistics of a workout or an activity by quantity type, as saved
/// (an export's `<WorkoutStatistics>`; rule 31).
private func statisticsByType(_ all: [WorkoutStatistics]) -> [HKQuantityType: HKStatistics] {
    var out: [HKQuantityType: HKStatistics] = [:]
    for s in all where s.type.isQuantity {
        let type = HKQuantityType(identifier: s.type.identifier, known: s.type)
        out[type] = HKStatistics(Statistics(s), type: type, separate: false)
    }
    return out
}

/// A part of a workout with its own activity (read from the store).
public final class HKWorkoutActivity: NSObject, @unchecked Sendable {
    public let uuid: UUID
    public let workoutConfiguration: HKWorkoutConfiguration
    /// Its statistics by quantity type, as saved (rule 31).
    public let allStatistics: [HKQuantityType: HKStatistics]

    /// Its statistics of `quantityType`, as saved; nil without.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { allStatistics[quantityType] }
    public let startDate: Date
    public let endDate: Date?
    public let duration: TimeInterval
    public let metadata: [String: Any]?

    init(_ a: WorkoutActivity) {
        uuid = a.uuid
        let c = HKWorkoutConfiguration()
        c.activityType = HKWorkoutActivityType(rawValue: a.activityType) ?? .other
        workoutConfiguration = c
        startDate = a.start
        endDate = a.end
        duration = a.duration ?? a.end.map { $0.timeIntervalSince(a.start) } ?? 0
        metadata = MetadataBridge.healthKit(a.metadata)
        allStatistics = statisticsByType(a.statistics)
        super.init()
    }
}

/// A workout (rule 31): its activity type, duration, totals, events,
/// activities and statistics. `allStatistics` are the statistics it was
/// saved with (an export's `<WorkoutStatistics>`), not figures computed
/// from its associated samples (decision: HealthKit's come from the
/// workout builder, which is not here; adding samples to a workout
/// changes none of its properties, rule 36).
public final class HKWorkout: HKSample, @unchecked Sendable {
    /// Its statistics by quantity type, as saved.
    public let allStatistics: [HKQuantityType: HKStatistics]

    /// Its statistics of `quantityType`, as saved; nil without.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { allStatistics[quantityType] }

    public let workoutActivityType: HKWorkoutActivityType
    public let duration: TimeInterval
    public let totalEnergyBurned: HKQuantity?
    public let totalDistance: HKQuantity?
    public let totalSwimmingStrokeCount: HKQuantity?
    public let totalFlightsClimbed: HKQuantity?
    public let workoutEvents: [HKWorkoutEvent]?
    public let workoutActivities: [HKWorkoutActivity]

    /// A new workout of this program; `duration` is end − start.
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                  totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
    }

    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                            duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                            metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil, duration: duration,
                  totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, device: nil, metadata: metadata)
    }

    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                            workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?,
                            totalDistance: HKQuantity?, metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: workoutEvents,
                  duration: endDate.timeIntervalSince(startDate), totalEnergyBurned: totalEnergyBurned,
                  totalDistance: totalDistance, device: nil, metadata: metadata)
    }

    public init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                workoutEvents: [HKWorkoutEvent]?, duration: TimeInterval, totalEnergyBurned: HKQuantity?,
                totalDistance: HKQuantity?, device: HKDevice?, metadata: [String: Any]?) {
        workoutActivityType = activityType
        self.duration = duration
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        totalSwimmingStrokeCount = nil
        totalFlightsClimbed = nil
        self.workoutEvents = workoutEvents
        workoutActivities = []
        allStatistics = [:]
        super.init(type: HKObjectType.workoutType(), start: startDate, end: endDate, uuid: RandomUUID.make(),
                   sourceRevision: .local, device: device, metadata: .given(metadata))
    }

    /// A workout read from the store.
    init(_ w: Workout, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        workoutActivityType = HKWorkoutActivityType(rawValue: w.activityType) ?? .other
        duration = w.duration
        totalEnergyBurned = w.totalEnergyBurned.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) }
        totalDistance = w.totalDistance.map { HKQuantity(unit: .meter(), doubleValue: $0) }
        totalSwimmingStrokeCount = w.totalSwimmingStrokeCount.map { HKQuantity(unit: .count(), doubleValue: $0) }
        totalFlightsClimbed = w.totalFlightsClimbed.map { HKQuantity(unit: .count(), doubleValue: $0) }
        workoutEvents = w.events.map { e in
            HKWorkoutEvent(type: HKWorkoutEventType(rawValue: e.type) ?? .marker, dateInterval: DateInterval(start: e.start, end: e.end),
                           metadata: e.metadata.isEmpty ? nil : MetadataBridge.healthKit(e.metadata))
        }
        workoutActivities = w.activities.map(HKWorkoutActivity.init)
        allStatistics = statisticsByType(w.statistics)
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }

    override func coreSample(in store: Store) throws(HKError) -> Sample {
        var events: [WorkoutEvent] = []
        for e in workoutEvents ?? [] { events.append(try e.core) }
        let fields = Workout(activityType: workoutActivityType.rawValue, duration: duration,
                             totalEnergyBurned: totalEnergyBurned?.doubleValue(for: .kilocalorie()),
                             totalDistance: totalDistance?.doubleValue(for: .meter()), events: events)
        let metadata = try MetadataBridge.core(metadata)
        return try hk {
            try Sample.workout(fields, start: startDate, end: endDate, source: sourceRevision.core, device: device?.core,
                               metadata: metadata, uuid: uuid, creationDate: creationDate, utcOffset: utcOffset)
        }
    }

    public override var description: String {
        "\(uuid) HKWorkout \(workoutActivityType) \(duration) s \"\(sourceRevision.source.name)\" (\(startDate) - \(endDate))"
    }
}
