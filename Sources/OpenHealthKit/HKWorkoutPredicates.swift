import Foundation
import OpenHealthKitCore

/// HealthKit's workout predicates (rule 35) and the objects of a workout
/// (rule 36). Each compares the workout's own fields; a workout without
/// the total or statistics a predicate names does not match it.
extension HKQuery {
    /// The samples added to the workout (`add(_:to:)`) and its routes, as
    /// of when the query reads: a running query gets the ones added later.
    public class func predicateForObjects(from workout: HKWorkout) -> NSPredicate {
        SamplesPredicate(.workout(workout.uuid))
    }

    public class func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        SamplesPredicate(.workoutType([workoutActivityType.rawValue]))
    }

    /// Workouts whose duration (seconds) compares with `duration`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, duration: TimeInterval) -> NSPredicate {
        comparing(operatorType) { .workoutDuration($0, duration) }
    }

    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalEnergyBurned: HKQuantity) -> NSPredicate {
        total(.energyBurned, operatorType, totalEnergyBurned)
    }

    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalDistance: HKQuantity) -> NSPredicate {
        total(.distance, operatorType, totalDistance)
    }

    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalSwimmingStrokeCount: HKQuantity) -> NSPredicate {
        total(.swimmingStrokeCount, operatorType, totalSwimmingStrokeCount)
    }

    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalFlightsClimbed: HKQuantity) -> NSPredicate {
        total(.flightsClimbed, operatorType, totalFlightsClimbed)
    }

    /// Workouts whose statistics of `quantityType` sum to a value that
    /// compares with `sumQuantity` (for cumulative types).
    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           sumQuantity: HKQuantity) -> NSPredicate {
        statistic(.sum, operatorType, quantityType, sumQuantity)
    }

    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           minimumQuantity: HKQuantity) -> NSPredicate {
        statistic(.minimum, operatorType, quantityType, minimumQuantity)
    }

    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           maximumQuantity: HKQuantity) -> NSPredicate {
        statistic(.maximum, operatorType, quantityType, maximumQuantity)
    }

    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           averageQuantity: HKQuantity) -> NSPredicate {
        statistic(.average, operatorType, quantityType, averageQuantity)
    }

    /// Workouts with an activity that `activityPredicate` (built of the
    /// `predicateForWorkoutActivities` factories and NSCompoundPredicate)
    /// matches as a whole.
    public class func predicateForWorkouts(activityPredicate: NSPredicate) -> NSPredicate {
        do {
            return SamplesPredicate(.workoutActivity(try corePredicate(activityPredicate) ?? .and([])))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    // MARK: Activities (wrap them in predicateForWorkouts(activityPredicate:))

    public class func predicateForWorkoutActivities(workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        SamplesPredicate(.workoutType([workoutActivityType.rawValue]))
    }

    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, duration: TimeInterval) -> NSPredicate {
        comparing(operatorType) { .workoutDuration($0, duration) }
    }

    /// Activities in [startDate, endDate), with the options of
    /// `predicateForSamples(withStart:end:options:)`.
    public class func predicateForWorkoutActivities(start startDate: Date?, end endDate: Date?,
                                                    options: HKQueryOptions = []) -> NSPredicate {
        predicateForSamples(withStart: startDate, end: endDate, options: options)
    }

    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    sumQuantity: HKQuantity) -> NSPredicate {
        statistic(.sum, operatorType, quantityType, sumQuantity)
    }

    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    minimumQuantity: HKQuantity) -> NSPredicate {
        statistic(.minimum, operatorType, quantityType, minimumQuantity)
    }

    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    maximumQuantity: HKQuantity) -> NSPredicate {
        statistic(.maximum, operatorType, quantityType, maximumQuantity)
    }

    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    averageQuantity: HKQuantity) -> NSPredicate {
        statistic(.average, operatorType, quantityType, averageQuantity)
    }

    private static func comparing(_ op: HKComparisonOperator, _ make: (Comparison) -> SamplePredicate) -> NSPredicate {
        do {
            return SamplesPredicate(make(try comparison(op)))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    private static func total(_ total: WorkoutTotal, _ op: HKComparisonOperator, _ q: HKQuantity) -> NSPredicate {
        comparing(op) { .workoutTotal(total, $0, q.value, q.unit.core) }
    }

    private static func statistic(_ figure: WorkoutStatistic, _ op: HKComparisonOperator, _ type: HKQuantityType,
                                  _ q: HKQuantity) -> NSPredicate {
        comparing(op) { .workoutStatistic(figure, type.identifier, $0, q.value, q.unit.core) }
    }
}

extension HKHealthStore {
    /// Associates samples with a saved workout (rule 36), saving those the
    /// store does not hold yet, in one transaction. The workout's totals
    /// and statistics do not change. HealthKit saves the new samples
    /// without a device; here they keep the one they have.
    public func add(_ samples: [HKSample], to workout: HKWorkout,
                    completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.addNow(samples, workout) }
    }

    public func addSamples(_ samples: [HKSample], to workout: HKWorkout) async throws {
        try addNow(samples, workout)
    }

    private func addNow(_ samples: [HKSample], _ workout: HKWorkout) throws(HKError) {
        let store = try coreStore()
        var core: [Sample] = []
        for s in samples { core.append(try s.coreSample(in: store)) }
        try hk { _ = try store.add(core, to: workout.uuid) }
    }
}
