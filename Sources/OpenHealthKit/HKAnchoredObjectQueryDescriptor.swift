import Foundation
import OpenHealthKitCore

/// A sample type and an optional predicate, typed by the samples they
/// match: `.quantitySample(type:)`, `.categorySample(type:)`, `.sample(type:)`.
public struct HKSamplePredicate<Sample: HKSample>: @unchecked Sendable {
    public let sampleType: HKSampleType
    public let nsPredicate: NSPredicate?

    init(sampleType: HKSampleType, nsPredicate: NSPredicate?) {
        self.sampleType = sampleType
        self.nsPredicate = nsPredicate
    }

    /// The core's descriptor, its type resolved in `store`.
    func core(in store: Store) throws(HKError) -> QueryDescriptor {
        try HKQueryDescriptor.core(sampleType, nsPredicate, in: store)
    }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
    public static func quantitySample(type: HKQuantityType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKQuantitySample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCategorySample {
    public static func categorySample(type: HKCategoryType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKCategorySample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKSample {
    public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKSample> {
        HKSamplePredicate(sampleType: type, nsPredicate: predicate)
    }
}

/// An anchored object query for Swift concurrency: `result(for:)` reads
/// what changed after `anchor` once; `results(for:)` reads that, then
/// every later change, as an async sequence.
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public var predicates: [HKSamplePredicate<Sample>]
    public var anchor: HKQueryAnchor?
    /// At most this many samples and deleted objects per result; nil for all.
    public var limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
    }

    /// What one run returns.
    public struct Result: CustomStringConvertible, @unchecked Sendable {
        public let addedSamples: [Sample]
        public let deletedObjects: [HKDeletedObject]
        public let newAnchor: HKQueryAnchor

        public var description: String {
            "Result(addedSamples: \(addedSamples), deletedObjects: \(deletedObjects), newAnchor: \(newAnchor))"
        }
    }

    /// The samples saved and objects deleted after `anchor`, and the anchor
    /// to start from next time. The read does not suspend, so it runs on
    /// the caller's executor (`nonisolated(nonsending)`): no hop to the
    /// global pool and back, which would cost more than a small query.
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> Result {
        let (store, descriptors, limit) = try prepare(healthStore)
        let r = try hk { try store.anchoredQuery(descriptors, anchor: anchor?.core, limit: limit) }
        return Self.convert(r, healthStore.conversion)
    }

    /// The snapshot after `anchor`, then each later change set, as they
    /// are committed. Ending the iteration (or cancelling its task) stops
    /// the query; an error ends the sequence.
    public func results(for healthStore: HKHealthStore) -> Results {
        do {
            let (store, descriptors, limit) = try prepare(healthStore)
            return Results(stream: store.results(descriptors, anchor: anchor?.core, limit: limit, maxBatchSize: limit),
                           conversion: healthStore.conversion)
        } catch {
            return Results(stream: AsyncThrowingStream { $0.finish(throwing: error) }, conversion: healthStore.conversion)
        }
    }

    /// The updates of `results(for:)`.
    public struct Results: AsyncSequence, @unchecked Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<AnchoredQueryResult, any Error>
        let conversion: ResultConversion

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<AnchoredQueryResult, any Error>.AsyncIterator
            let conversion: ResultConversion

            public mutating func next() async throws -> Result? {
                do {
                    return try await base.next().map { HKAnchoredObjectQueryDescriptor.convert($0, conversion) }
                } catch {
                    throw HKError(core: error)
                }
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), conversion: conversion)
        }
    }

    // Specialized for the three sample classes: unspecialized, this generic
    // code looked up generic metadata on every call.
    @_specialize(where Sample == HKQuantitySample)
    @_specialize(where Sample == HKCategorySample)
    @_specialize(where Sample == HKSample)
    private func prepare(_ healthStore: HKHealthStore) throws(HKError) -> (Store, [QueryDescriptor], Int) {
        let store = try healthStore.core()
        let limit = limit ?? HKObjectQueryNoLimit
        guard limit >= 0 else { throw .invalid("limit must be nil or positive, got \(limit)") }
        // A loop, not `map`: this generic type's `map` with a typed-throws
        // closure instantiated generic metadata on every call (a fifth of
        // a delta query through this API).
        var descriptors: [QueryDescriptor] = []
        descriptors.reserveCapacity(predicates.count)
        for p in predicates { descriptors.append(try p.core(in: store)) }
        return (store, descriptors, limit)
    }

    @_specialize(where Sample == HKQuantitySample)
    @_specialize(where Sample == HKCategorySample)
    @_specialize(where Sample == HKSample)
    static func convert(_ r: AnchoredQueryResult, _ conversion: ResultConversion) -> Result {
        // Every sample matches one of the predicates, so it is a `Sample`.
        Result(addedSamples: conversion.samples(r.samples, as: Sample.self),
               deletedObjects: ResultConversion.deleted(r.deletedObjects), newAnchor: HKQueryAnchor(r.newAnchor))
    }
}
