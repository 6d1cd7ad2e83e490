import Foundation
import OpenHealthKitCore

/// HKStatisticsQueryDescriptor: a statistics query for Swift concurrency.
public struct HKStatisticsQueryDescriptor: @unchecked Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions = []) {
        self.predicate = predicate
        self.options = options
    }

    /// The figures over every matching sample; nil when none matches
    /// (HealthKit's result is optional where its handler has
    /// `errorNoData`).
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
        let store = try healthStore.core()
        let d = try predicate.core(in: store)
        guard let type = predicate.sampleType as? HKQuantityType else { throw HKError.invalid("statistics need a quantity type") }
        return try hk {
            try store.statistics(type: d.type, predicate: d.predicate, options: options.core)
                .map { HKStatistics($0, type: type, separate: options.contains(.separateBySource)) }
        }
    }
}

/// HKStatisticsCollectionQueryDescriptor: a statistics collection query
/// for Swift concurrency. `result(for:)` computes the collection once;
/// `results(for:)` yields it, then again after each commit that changes
/// the type, by any process, with the intervals whose figures changed.
public struct HKStatisticsCollectionQueryDescriptor: @unchecked Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions
    public var anchorDate: Date
    public var intervalComponents: DateComponents

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions, anchorDate: Date,
                intervalComponents: DateComponents) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
    }

    /// One element of `results(for:)`.
    public struct Result: @unchecked Sendable {
        public let statisticsCollection: HKStatisticsCollection
        /// The intervals that are new or whose figures changed since the
        /// previous element; nil in the first.
        public let updatedStatistics: [HKStatistics]?
    }

    /// The collection now.
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
        let plan = try self.plan(healthStore)
        return try hk { try plan.collection() }
    }

    /// The collection now, then after each change. Ending the iteration
    /// (or cancelling its task) stops the query; an error ends it.
    public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<Result, any Error> {
        AsyncThrowingStream { continuation in
            do {
                let plan = try self.plan(healthStore)
                var previous = try hk { try plan.collection() }
                continuation.yield(Result(statisticsCollection: previous, updatedStatistics: nil))
                let observer = ObserverQuery(descriptors: [plan.descriptor]) { _, result, _ in
                    do {
                        _ = try result.get()
                        let now = try plan.collection()
                        let before = Set(previous.statistics().map(\.core))
                        continuation.yield(Result(statisticsCollection: now,
                                                  updatedStatistics: now.statistics().filter { !before.contains($0.core) }))
                        previous = now
                    } catch {
                        continuation.finish(throwing: HKError(core: error))
                    }
                }
                continuation.onTermination = { _ in observer.stop() }
                try hk { try plan.core.execute(observer) }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    private func plan(_ healthStore: HKHealthStore) throws(HKError) -> HKStatisticsCollectionQuery.Plan {
        let store = try healthStore.core()
        guard let type = predicate.sampleType as? HKQuantityType else { throw .invalid("statistics need a quantity type") }
        return try HKStatisticsCollectionQuery.Plan(healthStore, try predicate.core(in: store), type: type, options: options,
                                                    anchorDate: anchorDate, intervalComponents: intervalComponents)
    }
}
