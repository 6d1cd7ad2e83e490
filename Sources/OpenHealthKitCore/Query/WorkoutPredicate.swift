import FoundationEssentials

/// A workout's total, as HealthKit's `predicateForWorkouts(with:totalEnergyBurned:)`
/// and its siblings name them (rule 35).
public enum WorkoutTotal: String, Hashable, Sendable, CaseIterable {
    case energyBurned = "totalEnergyBurned"
    case distance = "totalDistance"
    case swimmingStrokeCount = "totalSwimmingStrokeCount"
    case flightsClimbed = "totalFlightsClimbed"

    /// The unit the workout keeps the total in (`Workout`'s fields).
    var unit: HealthUnit {
        switch self {
        case .energyBurned: Self.units.kcal
        case .distance: Self.units.m
        case .swimmingStrokeCount, .flightsClimbed: Self.units.count
        }
    }

    private static let units = (kcal: try! HealthUnit("kcal"), m: try! HealthUnit("m"), count: try! HealthUnit("count"))

    func value(of w: Workout) -> Double? {
        switch self {
        case .energyBurned: w.totalEnergyBurned
        case .distance: w.totalDistance
        case .swimmingStrokeCount: w.totalSwimmingStrokeCount
        case .flightsClimbed: w.totalFlightsClimbed
        }
    }
}

/// Which figure of a workout's (or an activity's) statistics of one
/// quantity type a predicate compares: HealthKit's
/// `predicateForWorkouts(operatorType:quantityType:sumQuantity:)` and its
/// minimum, maximum and average forms.
public enum WorkoutStatistic: String, Hashable, Sendable, CaseIterable {
    case sum = "sumQuantity"
    case minimum = "minimumQuantity"
    case maximum = "maximumQuantity"
    case average = "averageQuantity"

    /// The figure and the type name of a key such as
    /// `sumQuantity.DistanceWalkingRunning`; nil for other keys.
    static func split(key: String) -> (WorkoutStatistic, String)? {
        guard let figure = allCases.first(where: { key.hasPrefix($0.rawValue + ".") }) else { return nil }
        return (figure, String(key.dropFirst(figure.rawValue.count + 1)))
    }

    func value(of s: WorkoutStatistics) -> Double? {
        switch self {
        case .sum: s.sum
        case .minimum: s.minimum
        case .maximum: s.maximum
        case .average: s.average
        }
    }
}

/// How the workout terms of a predicate hold for a workout or one of its
/// activities (rule 35). A missing figure (no total, no statistics of the
/// type) makes the comparison false, as a comparison with nil is in
/// NSPredicate and NULL is in SQL.
enum WorkoutTerms {
    /// The truth of a workout term for a stored record: unknown for a
    /// deleted object (it keeps no fields), false for anything but a
    /// workout.
    static func evaluate(_ p: SamplePredicate, _ r: RecordView, _ type: SampleType) -> Truth {
        if r.isTombstone { return .unknown }
        guard type.kind == .workout, r.hasPayload, case .workout(let w)? = try? r.payloadValue(type) else { return .no }
        return Truth(holds(p, workout: w))
    }

    /// Whether a workout term holds for workout `w`.
    static func holds(_ p: SamplePredicate, workout w: Workout) -> Bool {
        switch p {
        case .workoutType(let set): return set.contains(w.activityType)
        case .workoutDuration(let op, let seconds): return op.holds(w.duration, seconds)
        case .workoutTotal(let total, let op, let v, let unit):
            guard let stored = total.value(of: w), let threshold = try? unit.convert(v, to: total.unit) else { return false }
            return op.holds(stored, threshold)
        case .workoutStatistic(let figure, let identifier, let op, let v, let unit):
            return statistic(w.statistics, figure, identifier, op, v, unit)
        case .workoutActivity(let inner):
            return w.activities.contains { activityHolds(inner, $0) }
        default: return false
        }
    }

    /// Whether `p` (built of activity terms, AND, OR and NOT) holds for
    /// activity `a`. An activity in progress has no end: an end-date term
    /// is false for it.
    static func activityHolds(_ p: SamplePredicate, _ a: WorkoutActivity) -> Bool {
        switch p {
        case .and(let ps): return ps.allSatisfy { activityHolds($0, a) }
        case .or(let ps): return ps.contains { activityHolds($0, a) }
        case .not(let q): return !activityHolds(q, a)
        case .workoutType(let set): return set.contains(a.activityType)
        case .workoutDuration(let op, let seconds):
            guard let d = a.duration ?? a.end.map({ $0.timeIntervalSince(a.start) }) else { return false }
            return op.holds(d, seconds)
        case .startDate(let op, let d): return op.holds(a.start, d)
        case .endDate(let op, let d): return a.end.map { op.holds($0, d) } ?? false
        case .dateRange(let s, let e, let options):
            let start = a.start.timeIntervalSinceReferenceDate
            guard let end = a.end?.timeIntervalSinceReferenceDate ?? (options.contains(.strictEndDate) ? nil : start) else { return false }
            // Rule 8b, as for samples.
            if let s = s?.timeIntervalSinceReferenceDate, !(options.contains(.strictStartDate) ? start >= s : end >= s) { return false }
            if let e = e?.timeIntervalSinceReferenceDate, !(options.contains(.strictEndDate) ? end < e : start < e) { return false }
            return true
        case .workoutStatistic(let figure, let identifier, let op, let v, let unit):
            return statistic(a.statistics, figure, identifier, op, v, unit)
        default: return false
        }
    }

    private static func statistic(_ all: [WorkoutStatistics], _ figure: WorkoutStatistic, _ identifier: String,
                                  _ op: Comparison, _ v: Double, _ unit: HealthUnit) -> Bool {
        guard let s = all.first(where: { $0.type.identifier == identifier }), let stored = figure.value(of: s),
              let canonical = s.type.canonicalUnit, let threshold = try? unit.convert(v, to: canonical) else { return false }
        return op.holds(stored, threshold)
    }

    /// Refuses a workout term where it cannot apply: on a type other than
    /// the workout type, with a unit of another dimension, with a number
    /// that is not finite, or (inside ACTIVITY) a term activities lack.
    static func validate(_ p: SamplePredicate, for type: SampleType) throws {
        guard type.kind == .workout else {
            throw OHKError(.invalidPredicate, "'\(p)' applies to workouts only, not to \(type.identifier)")
        }
        try validateTerm(p, inActivity: false)
    }

    private static func validateTerm(_ p: SamplePredicate, inActivity: Bool) throws {
        switch p {
        case .workoutType: break
        case .workoutDuration(_, let seconds):
            guard seconds.isFinite else { throw OHKError(.invalidValue, "a workout duration must be finite") }
        case .workoutTotal(let total, _, let v, let unit):
            guard !inActivity else { throw OHKError(.invalidPredicate, "\(total.rawValue) is a workout's, not an activity's, in '\(p)'") }
            guard unit.isCompatible(with: total.unit) else {
                throw OHKError(.incompatibleUnit, "'\(unit)' is not a unit of \(total.rawValue) ('\(total.unit)') in '\(p)'")
            }
            guard v.isFinite else { throw OHKError(.invalidValue, "predicate quantity must be finite") }
        case .workoutStatistic(_, let identifier, _, let v, let unit):
            guard let t = TypeCatalogue.standard[identifier], let canonical = t.canonicalUnit else {
                throw OHKError(.invalidPredicate, "workout statistics are of HealthKit's quantity types, not '\(identifier)'")
            }
            guard unit.isCompatible(with: canonical) else {
                throw OHKError(.incompatibleUnit, "'\(unit)' is not a unit of \(identifier) ('\(canonical)') in '\(p)'")
            }
            guard v.isFinite else { throw OHKError(.invalidValue, "predicate quantity must be finite") }
        case .workoutActivity(let inner):
            guard !inActivity else { throw OHKError(.invalidPredicate, "ACTIVITY does not nest") }
            try validateActivity(inner)
        default:
            throw OHKError(.invalidPredicate, "'\(p)' is not a workout term")
        }
    }

    /// What ACTIVITY(…) may hold: activity type, duration, dates and
    /// statistics, with AND, OR and NOT.
    private static func validateActivity(_ p: SamplePredicate) throws {
        switch p {
        case .and(let ps), .or(let ps): for q in ps { try validateActivity(q) }
        case .not(let q): try validateActivity(q)
        case .startDate, .endDate, .dateRange: break
        case .workoutType, .workoutDuration, .workoutStatistic: try validateTerm(p, inActivity: true)
        default:
            throw OHKError(.invalidPredicate, "ACTIVITY(…) takes workoutType, duration, startDate, endDate, DATERANGE and statistics terms, not '\(p)'")
        }
    }
}
