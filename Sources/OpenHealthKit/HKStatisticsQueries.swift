import Foundation
import OpenHealthKitCore

/// HKStatisticsQuery: a quantity type's figures over every sample that
/// matches the predicate, sources merged by priority. The handler runs
/// once, on a background queue: `errorNoData` when no sample matches;
/// options that do not fit the type are `errorInvalidArgument` (HealthKit
/// throws an exception).
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    public typealias CompletionHandler = @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

    private let options: HKStatisticsOptions
    private let handler: CompletionHandler

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                completionHandler handler: @escaping CompletionHandler) {
        self.options = options
        self.handler = handler
        super.init(descriptors: [HKQueryDescriptor(sampleType: quantityType, predicate: quantitySamplePredicate)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let core = try store.core(), d = descriptors[0], type = objectType as! HKQuantityType
        let result: HKStatistics
        do {
            guard let s = try core.statistics(type: d.type, predicate: d.predicate, options: options.core) else {
                throw HKError(.errorNoData, "no \(d.type.identifier) sample matches the query")
            }
            result = HKStatistics(s, type: type, separate: options.contains(.separateBySource))
        } catch let e as HKError {
            throw e
        } catch {
            throw HKError(core: error)
        }
        let handler = self.handler
        Self.onBackground { handler(self, result, nil) }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, error) }
    }
}

/// HKStatisticsCollectionQuery: a quantity type's figures per interval
/// of `intervalComponents` (one unit: minutes, hours, days, weeks, months
/// or years) from `anchorDate`, in this machine's time zone (its calendar:
/// a day is 23 or 25 hours when clocks change), over the time the type's
/// samples cover. `initialResultsHandler` runs once; with a
/// `statisticsUpdateHandler`, the query goes on and hands it the whole
/// collection again after every commit that changes the type, by any
/// process (its `HKStatistics` argument is nil), until stopped.
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
    public typealias InitialResultsHandler = @Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void
    public typealias UpdateHandler = @Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void

    public let anchorDate: Date
    public let options: HKStatisticsOptions
    public let intervalComponents: DateComponents
    public var initialResultsHandler: InitialResultsHandler?
    public var statisticsUpdateHandler: UpdateHandler?

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                anchorDate: Date, intervalComponents: DateComponents) {
        self.anchorDate = anchorDate
        self.options = options
        self.intervalComponents = intervalComponents
        super.init(descriptors: [HKQueryDescriptor(sampleType: quantityType, predicate: quantitySamplePredicate)])
    }

    /// The one calendar unit of the components.
    static func interval(_ c: DateComponents) throws(HKError) -> StatisticsInterval {
        let units: [(Int?, StatisticsInterval.Unit)] = [(c.second, .second), (c.minute, .minute), (c.hour, .hour),
                                                        (c.day, .day), (c.weekOfYear ?? c.weekOfMonth, .week),
                                                        (c.month, .month), (c.year, .year)]
        let set = units.compactMap { n, u in n.flatMap { $0 != 0 ? ($0, u) : nil } }
        guard set.count == 1, set[0].0 > 0 else {
            throw .invalid("intervalComponents needs one positive unit (minute, hour, day, weekOfYear, month or year)")
        }
        return StatisticsInterval(set[0].0, set[0].1)
    }

    /// A collection's settings, and the collection they give now: the
    /// intervals over the time the samples cover, in this machine's time
    /// zone. (Shared with `HKStatisticsCollectionQueryDescriptor`.)
    struct Plan: @unchecked Sendable {
        let core: Store
        let descriptor: QueryDescriptor
        let type: HKQuantityType
        let options: HKStatisticsOptions
        let anchorDate: Date
        let interval: StatisticsInterval
        let zone: ZoneRules?

        init(_ store: HKHealthStore, _ descriptor: QueryDescriptor, type: HKQuantityType, options: HKStatisticsOptions,
             anchorDate: Date, intervalComponents: DateComponents) throws(HKError) {
            core = try store.core()
            self.descriptor = descriptor
            self.type = type
            self.options = options
            self.anchorDate = anchorDate
            interval = try HKStatisticsCollectionQuery.interval(intervalComponents)
            // Checked now, so that a bad option fails the start, not the first update.
            try hk { try options.core.check(for: descriptor.type) }
            zone = try? ZoneRules(TimeZone.current.identifier)
        }

        func collection() throws -> HKStatisticsCollection {
            let d = descriptor
            // The time the matching samples cover: without a predicate, read
            // at the start index's two ends instead of from every sample.
            let span = try d.predicate == nil ? core.sampleSpan(of: d.type)
                : core.statistics(type: d.type, predicate: d.predicate, options: .duration).map { ($0.startDate, $0.endDate) }
            guard let span else { return HKStatisticsCollection([]) }
            let stats = try core.statisticsCollection(type: d.type, predicate: d.predicate, options: options.core,
                                                      anchor: anchorDate, interval: interval, from: span.start,
                                                      to: span.end, utcOffset: TimeZone.current.secondsFromGMT(),
                                                      timeZone: zone)
            return HKStatisticsCollection(stats.map { HKStatistics($0, type: type, separate: options.contains(.separateBySource)) })
        }
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let plan = try Plan(store, descriptors[0], type: objectType as! HKQuantityType, options: options,
                            anchorDate: anchorDate, intervalComponents: intervalComponents)
        let first: HKStatisticsCollection
        do { first = try plan.collection() } catch { throw HKError(core: error) }
        let initial = initialResultsHandler, update = statisticsUpdateHandler
        Self.onBackground { initial?(self, first, nil) }
        guard let update else { return nil }
        return ObserverQuery(descriptors: [plan.descriptor]) { _, result, _ in
            switch result {
            case .success:
                do { update(self, nil, try plan.collection(), nil) }
                catch { update(self, nil, nil, HKError(core: error)) }
            case .failure(let e):
                update(self, nil, nil, HKError(core: e))
            }
        }
    }

    override func refuse(_ error: HKError) {
        let initial = initialResultsHandler, update = statisticsUpdateHandler
        Self.onBackground {
            if let initial { initial(self, nil, error) } else { update?(self, nil, nil, error) }
        }
    }
}
