import Foundation
import OpenHealthKitCore

/// HealthKit's activity summary type (`HKObjectType.activitySummaryType()`).
public final class HKActivitySummaryType: HKObjectType, @unchecked Sendable {}

extension HKObjectType {
    public class func activitySummaryType() -> HKActivitySummaryType {
        HKActivitySummaryType(identifier: "HKActivitySummaryTypeIdentifier")
    }
}

/// One day's activity rings (rule 43): not a sample, one per day, read
/// with `HKActivitySummaryQuery`. Values a day has none of read as zero,
/// as HealthKit's do.
public final class HKActivitySummary: NSObject, @unchecked Sendable {
    let summary: ActivitySummary

    /// In kilocalories.
    public var activeEnergyBurned: HKQuantity { quantity(summary.activeEnergyBurned, .kilocalorie()) }
    public var activeEnergyBurnedGoal: HKQuantity { quantity(summary.activeEnergyBurnedGoal, .kilocalorie()) }
    /// In minutes.
    public var appleMoveTime: HKQuantity { quantity(summary.appleMoveTime, .minute()) }
    public var appleMoveTimeGoal: HKQuantity { quantity(summary.appleMoveTimeGoal, .minute()) }
    public var appleExerciseTime: HKQuantity { quantity(summary.appleExerciseTime, .minute()) }
    public var appleExerciseTimeGoal: HKQuantity { quantity(summary.exerciseTimeGoal, .minute()) }
    /// Nil where the day has no exercise goal.
    public var exerciseTimeGoal: HKQuantity? { summary.exerciseTimeGoal.map { HKQuantity(unit: .minute(), doubleValue: $0) } }
    /// A count of hours.
    public var appleStandHours: HKQuantity { quantity(summary.appleStandHours, .count()) }
    public var appleStandHoursGoal: HKQuantity { quantity(summary.standHoursGoal, .count()) }
    /// Nil where the day has no stand goal.
    public var standHoursGoal: HKQuantity? { summary.standHoursGoal.map { HKQuantity(unit: .count(), doubleValue: $0) } }
    public var activityMoveMode: HKActivityMoveMode { HKActivityMoveMode(rawValue: Int(summary.moveMode.rawValue)) ?? .activeEnergy }
    public var isPaused: Bool { summary.isPaused }

    init(_ s: ActivitySummary) {
        summary = s
        super.init()
    }

    private func quantity(_ v: Double?, _ unit: HKUnit) -> HKQuantity { HKQuantity(unit: unit, doubleValue: v ?? 0) }

    /// The summary's day: era, year, month and day in `calendar`.
    public func dateComponents(for calendar: Calendar) -> DateComponents {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = TimeZone(secondsFromGMT: 0)!
        let noon = gregorian.date(from: DateComponents(year: summary.day.year, month: summary.day.month,
                                                       day: summary.day.day, hour: 12))!
        var c = calendar
        c.timeZone = gregorian.timeZone
        var out = c.dateComponents([.era, .year, .month, .day], from: noon)
        out.calendar = calendar
        return out
    }

    public override var description: String { "HKActivitySummary(\(summary.day))" }
}

/// The days an activity summary query reads, as a predicate.
final class ActivitySummaryPredicate: NSPredicate {
    let days: Result<(ActivitySummary.Day?, ActivitySummary.Day?), HKError>

    init(_ start: DateComponents?, _ end: DateComponents?) {
        do throws(HKError) {
            days = .success((try start.map(Self.day), try end.map(Self.day)))
        } catch {
            days = .failure(error)
        }
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }

    /// The days an activity summary query's predicate reads (nil: every
    /// day); HealthKit's `errorInvalidArgument` for a predicate of samples.
    static func days(of predicate: NSPredicate?) throws(HKError) -> (ActivitySummary.Day?, ActivitySummary.Day?) {
        guard let predicate else { return (nil, nil) }
        guard let p = predicate as? ActivitySummaryPredicate else {
            throw .invalid("an activity summary query takes HKQuery.predicateForActivitySummary(with:) or "
                           + "predicate(forActivitySummariesBetweenStart:end:)")
        }
        return try p.days.get()
    }

    /// The Gregorian day of date components (in their calendar, or the
    /// Gregorian one); HealthKit's `errorInvalidArgument` without a day.
    private static func day(_ c: DateComponents) throws(HKError) -> ActivitySummary.Day {
        var c = c
        if let calendar = c.calendar, calendar.identifier != .gregorian {
            guard let date = calendar.date(from: c) else { throw .invalid("the date components \(c) name no day") }
            var g = Calendar(identifier: .gregorian)
            g.timeZone = calendar.timeZone
            c = g.dateComponents([.year, .month, .day], from: date)
        }
        guard let y = c.year, let m = c.month, let d = c.day else {
            throw .invalid("activity summaries are found by year, month and day; \(c) lacks one")
        }
        do { return try ActivitySummary.Day(year: y, month: m, day: d) } catch { throw .invalid("\(error)") }
    }
}

extension HKQuery {
    /// The summary of one day.
    public class func predicateForActivitySummary(with dateComponents: DateComponents) -> NSPredicate {
        ActivitySummaryPredicate(dateComponents, dateComponents)
    }

    /// The summaries of the days from `start` through `end`.
    public class func predicate(forActivitySummariesBetweenStart start: DateComponents, end: DateComponents) -> NSPredicate {
        ActivitySummaryPredicate(start, end)
    }
}

/// HKActivitySummaryQuery (rule 43): the summaries of the predicate's days
/// in calendar order; with an update handler set before it runs, it goes
/// on, and the update handler gets the summaries saved or changed since,
/// by any process, until the query is stopped. Handlers run on a
/// background thread, one at a time.
public final class HKActivitySummaryQuery: HKQuery, @unchecked Sendable {
    public typealias Handler = @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void

    private let resultsHandler: Handler
    private let lock = NSLock()
    private var update: Handler?

    /// Called with the new or changed summaries after the first results;
    /// set it before the query runs.
    public var updateHandler: Handler? {
        get { lock.withLock { update } }
        set { lock.withLock { update = newValue } }
    }

    /// The summaries of `predicate`'s days (nil: every day).
    public init(predicate: NSPredicate?, resultsHandler handler: @escaping Handler) {
        resultsHandler = handler
        super.init(objectType: HKObjectType.activitySummaryType(), predicate: predicate)
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let (start, end) = try ActivitySummaryPredicate.days(of: predicate)
        let results = resultsHandler, updates = updateHandler
        return ActivitySummaryQuery(from: start, through: end, updates: updates != nil) { _, result, isUpdate in
            let handler = isUpdate ? updates ?? results : results
            switch result {
            case .success(let s): handler(self, s.map(HKActivitySummary.init), nil)
            case .failure(let e): handler(self, nil, HKError(core: e))
            }
        }
    }

    override func refuse(_ error: HKError) {
        let handler = resultsHandler
        Self.onBackground { handler(self, nil, error) }
    }
}

/// HKActivitySummaryQueryDescriptor (rule 43): the summaries of a
/// predicate's days for Swift concurrency. `result(for:)` reads them once,
/// in calendar order; `results(for:)` gives them, then each later set of
/// new or changed ones, until the iteration ends.
public struct HKActivitySummaryQueryDescriptor: @unchecked Sendable {
    public var predicate: NSPredicate?

    /// The summaries of `predicate`'s days (nil: every day).
    public init(predicate: NSPredicate?) { self.predicate = predicate }

    /// Every summary of the days, in calendar order.
    public func result(for healthStore: HKHealthStore) async throws -> [HKActivitySummary] {
        let (start, end) = try ActivitySummaryPredicate.days(of: predicate)
        let store = try healthStore.core()
        return try hk { try store.activitySummaries(from: start, through: end) }.map(HKActivitySummary.init)
    }

    /// The summaries, then each set of new or changed ones.
    public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<[HKActivitySummary], any Error> {
        AsyncThrowingStream { continuation in
            do {
                let (start, end) = try ActivitySummaryPredicate.days(of: predicate)
                let task = Task {
                    do {
                        for try await s in try healthStore.core().activitySummaryResults(from: start, through: end) {
                            continuation.yield(s.map(HKActivitySummary.init))
                        }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: HKError(core: error))
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}
