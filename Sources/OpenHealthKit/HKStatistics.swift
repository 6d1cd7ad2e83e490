import Foundation
import OpenHealthKitCore

/// HKStatisticsOptions, with HealthKit's values.
public struct HKStatisticsOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let separateBySource = HKStatisticsOptions(rawValue: 1)
    public static let discreteAverage = HKStatisticsOptions(rawValue: 2)
    public static let discreteMin = HKStatisticsOptions(rawValue: 4)
    public static let discreteMax = HKStatisticsOptions(rawValue: 8)
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 16)
    public static let mostRecent = HKStatisticsOptions(rawValue: 32)
    public static let duration = HKStatisticsOptions(rawValue: 64)

    var core: StatisticsOptions { StatisticsOptions(rawValue: Int(rawValue)) }
}

/// HKStatistics: a quantity type's figures over one interval, sources
/// merged by priority (rules 25–29 of docs/semantics.md). A figure whose
/// option was not asked for, or without data, is nil.
public final class HKStatistics: NSObject, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    /// The sources with a matching sample here; nil without `separateBySource`.
    public let sources: [HKSource]?
    private let values: StatisticsValues
    private let bySource: [String: StatisticsValues]
    private let unit: HKUnit
    /// The core's figures (what an update compares).
    let core: Statistics

    init(_ s: Statistics, type: HKQuantityType, separate: Bool) {
        core = s
        quantityType = type
        startDate = s.startDate
        endDate = s.endDate
        values = s.values
        bySource = s.bySource
        sources = separate ? s.sources.map(HKSource.init(core:)) : nil
        unit = HKUnit(core: s.type.canonicalUnit!)
        super.init()
    }

    private func quantity(_ v: Double?) -> HKQuantity? { v.map { HKQuantity(unit: unit, doubleValue: $0) } }
    private func own(_ source: HKSource) -> StatisticsValues? { bySource[source.bundleIdentifier] }

    public func sumQuantity() -> HKQuantity? { quantity(values.sum) }
    public func averageQuantity() -> HKQuantity? { quantity(values.average) }
    public func minimumQuantity() -> HKQuantity? { quantity(values.minimum) }
    public func maximumQuantity() -> HKQuantity? { quantity(values.maximum) }
    public func mostRecentQuantity() -> HKQuantity? { quantity(values.mostRecent) }
    public func mostRecentQuantityDateInterval() -> DateInterval? {
        guard let s = values.mostRecentStart, let e = values.mostRecentEnd else { return nil }
        return DateInterval(start: s, end: e)
    }
    /// The time the samples cover, as a time quantity.
    public func duration() -> HKQuantity? { values.duration.map { HKQuantity(unit: .second(), doubleValue: $0) } }

    /// A source's own figures, unmerged (`separateBySource`).
    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(own(source)?.sum) }
    public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(own(source)?.average) }
    public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(own(source)?.minimum) }
    public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(own(source)?.maximum) }
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(own(source)?.mostRecent) }
    public func duration(for source: HKSource) -> HKQuantity? {
        own(source)?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
    }
}

/// HKStatisticsCollection: one `HKStatistics` per interval.
public final class HKStatisticsCollection: NSObject, @unchecked Sendable {
    private let all: [HKStatistics]

    init(_ all: [HKStatistics]) {
        self.all = all
        super.init()
    }

    /// The intervals with data, in order.
    public func statistics() -> [HKStatistics] {
        all.filter { $0.sumQuantity() != nil || $0.averageQuantity() != nil || $0.minimumQuantity() != nil
            || $0.maximumQuantity() != nil || $0.mostRecentQuantity() != nil || $0.duration() != nil }
    }

    /// The interval that contains `date`; nil outside the query's range.
    public func statistics(for date: Date) -> HKStatistics? {
        all.first { $0.startDate <= date && date < $0.endDate }
    }

    /// Every interval from the one containing `startDate` to the one
    /// containing `endDate`, empty ones included (nil quantities); set
    /// `stop` to true to end early.
    public func enumerateStatistics(from startDate: Date, to endDate: Date,
                                    with block: (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void) {
        var stop: ObjCBool = false
        for s in all where s.endDate > startDate && s.startDate <= endDate {
            block(s, &stop)
            if stop.boolValue { return }
        }
    }

    /// The sources of every interval (`separateBySource`).
    public func sources() -> Set<HKSource> { Set(all.flatMap { $0.sources ?? [] }) }
}
