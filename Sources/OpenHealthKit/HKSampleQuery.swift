import Foundation
import OpenHealthKitCore

/// The sort keys HealthKit's sample queries accept.
public let HKSampleSortIdentifierStartDate = "startDate"
public let HKSampleSortIdentifierEndDate = "endDate"

extension NSSortDescriptor {
    /// HealthKit's `NSSortDescriptor(key: HKSampleSortIdentifierStartDate,
    /// ascending: false)`. swift-corelibs-foundation has no key-value
    /// coding, so its `init(key:ascending:)` is unavailable; this one knows
    /// the two sample sort keys (as key paths on `HKSample`), and a query
    /// given any other key fails with `errorInvalidArgument`.
    public convenience init(key: String, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierStartDate: self.init(keyPath: \HKSample.startDate, ascending: ascending)
        case HKSampleSortIdentifierEndDate: self.init(keyPath: \HKSample.endDate, ascending: ascending)
        default: self.init(keyPath: \HKSample.unsupportedSortKey, ascending: ascending)
        }
    }
}

extension HKSample {
    /// What `NSSortDescriptor(key:ascending:)` sorts by for a key sample
    /// queries do not sort by (queries refuse it).
    var unsupportedSortKey: Int { 0 }

    /// The core's sort key for a key path to a sample's start or end date
    /// (on any sample class); nil for any other.
    static func sortKey(_ keyPath: AnyKeyPath?) -> SampleSort.Key? {
        switch keyPath {
        case \HKSample.startDate, \HKQuantitySample.startDate, \HKCategorySample.startDate, \HKWorkout.startDate,
             \HKCorrelation.startDate: .startDate
        case \HKSample.endDate, \HKQuantitySample.endDate, \HKCategorySample.endDate, \HKWorkout.endDate,
             \HKCorrelation.endDate: .endDate
        default: nil
        }
    }
}

/// HKSampleQuery: the samples (never deleted objects) of one type or of
/// several descriptors, at most `limit` (`HKObjectQueryNoLimit`: all), in
/// the order of `sortDescriptors` (start or end date, either way; none:
/// the order they were saved in). The handler runs once, on a background
/// queue. Sorted by start date with a limit, the query reads the start
/// index from the wanted end: the latest 100 of a million samples cost
/// about what they return.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    public typealias ResultsHandler = @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

    public let limit: Int
    public let sortDescriptors: [NSSortDescriptor]?
    private let handler: ResultsHandler

    public init(sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping ResultsHandler) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        handler = resultsHandler
        super.init(descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)])
    }

    public init(queryDescriptors: [HKQueryDescriptor], limit: Int, resultsHandler: @escaping ResultsHandler) {
        self.limit = limit
        sortDescriptors = nil
        handler = resultsHandler
        super.init(descriptors: queryDescriptors)
    }

    public init(queryDescriptors: [HKQueryDescriptor], limit: Int, sortDescriptors: [NSSortDescriptor],
                resultsHandler: @escaping ResultsHandler) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        handler = resultsHandler
        super.init(descriptors: queryDescriptors)
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        guard limit >= 0 else { throw .invalid("limit must be HKObjectQueryNoLimit or positive, got \(limit)") }
        var sort: [SampleSort] = []
        for d in sortDescriptors ?? [] {
            guard let key = HKSample.sortKey(d.keyPath) else {
                throw .invalid("sample queries sort by HKSampleSortIdentifierStartDate or HKSampleSortIdentifierEndDate only")
            }
            sort.append(SampleSort(key, ascending: d.ascending))
        }
        let core = try store.core(), limit = self.limit, handler = self.handler
        Self.answer({ store.conversion.samples(try core.sampleQuery(descriptors, sort: sort, limit: limit)) }) {
            handler(self, $0, $1)
        }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, error) }
    }
}

/// HKSampleQueryDescriptor: a sample query for Swift concurrency, typed by
/// its samples, sorted by `SortDescriptor`s on `startDate` or `endDate`.
public struct HKSampleQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public var predicates: [HKSamplePredicate<Sample>]
    public var sortDescriptors: [SortDescriptor<Sample>]
    /// At most this many samples; nil for all.
    public var limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {
        self.predicates = predicates
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }

    /// The matching samples, sorted, at most `limit`.
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
        let store = try healthStore.core()
        let limit = limit ?? HKObjectQueryNoLimit
        guard limit >= 0 else { throw HKError.invalid("limit must be nil or positive, got \(limit)") }
        var descriptors: [QueryDescriptor] = []
        for p in predicates { descriptors.append(try p.core(in: store)) }
        var sort: [SampleSort] = []
        for d in sortDescriptors {
            let key: SampleSort.Key
            if d.keyPath == \Sample.startDate {
                key = .startDate
            } else if d.keyPath == \Sample.endDate {
                key = .endDate
            } else {
                throw HKError.invalid("sample queries sort by startDate or endDate only")
            }
            sort.append(SampleSort(key, ascending: d.order == .forward))
        }
        let batch = try hk { try store.sampleQuery(descriptors, sort: sort, limit: limit) }
        return healthStore.conversion.samples(batch, as: Sample.self)
    }
}

/// HKSourceQuery: the sources (apps and devices) of the samples of a type
/// that match a predicate, each once. The handler runs once, on a
/// background queue.
public final class HKSourceQuery: HKQuery, @unchecked Sendable {
    public typealias CompletionHandler = @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void

    private let handler: CompletionHandler

    public init(sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
                completionHandler: @escaping CompletionHandler) {
        handler = completionHandler
        super.init(descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: objectPredicate)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let core = try store.core(), handler = self.handler
        Self.answer({ Set(try core.sources(descriptors).map(HKSource.init(core:))) }) { handler(self, $0, $1) }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, error) }
    }
}

/// HKSourceQueryDescriptor: a source query for Swift concurrency.
public struct HKSourceQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public var predicate: HKSamplePredicate<Sample>

    public init(predicate: HKSamplePredicate<Sample>) { self.predicate = predicate }

    /// The sources of the matching samples, ordered by bundle identifier.
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> [HKSource] {
        let store = try healthStore.core()
        let descriptor = try predicate.core(in: store)
        return try hk { try store.sources([descriptor]) }.map(HKSource.init(core:))
    }
}
