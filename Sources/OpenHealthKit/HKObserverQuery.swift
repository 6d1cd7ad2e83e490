import Foundation
import OpenHealthKitCore

/// Call it when the changes an observer reported are dealt with.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// A query that is told when something matching it is saved or deleted,
/// by this process or another; it reads nothing itself (run an anchored
/// query from the handler). As HealthKit's, it calls its handler once
/// when it starts, with every type it observes (apps do their first sync
/// from that call), then after each change (rules 10 and 10b of
/// docs/semantics.md). Handlers run on a background thread, one at a time.
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    public typealias UpdateHandler = @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void
    public typealias DescriptorsUpdateHandler = @Sendable (HKObserverQuery, Set<HKSampleType>?, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void

    private let handler: DescriptorsUpdateHandler
    private let counters = NSCondition()
    private var completions = 0

    /// How many times a handler called its completion.
    var completionCount: Int { counters.withLock { completions } }

    /// Waits until handlers have called their completion `n` times in
    /// all; false when `seconds` passed first (tests wait on it).
    func waitForCompletions(_ n: Int, seconds: Double = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return counters.withLock {
            while completions < n {
                if !counters.wait(until: deadline) { return completions >= n }
            }
            return true
        }
    }

    public init(sampleType: HKSampleType, predicate: NSPredicate?, updateHandler: @escaping UpdateHandler) {
        handler = { query, _, completion, error in updateHandler(query, completion, error) }
        super.init(descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)])
    }

    /// Observes several types; the handler gets the ones that changed.
    public init(queryDescriptors: [HKQueryDescriptor], updateHandler: @escaping DescriptorsUpdateHandler) {
        handler = updateHandler
        super.init(descriptors: queryDescriptors)
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let counted: @Sendable () -> Void = {
            self.counters.withLock {
                self.completions += 1
                self.counters.broadcast()
            }
        }
        if descriptors.count == 1, descriptors[0].predicate == nil, let frequency = try store.backgroundFrequency(descriptors[0].type) {
            return backgroundDelivery(descriptors[0], frequency, store, counted)
        }
        let completion: HKObserverQueryCompletionHandler = counted
        return ObserverQuery(descriptors: descriptors, firesOnStart: true) { _, result, _ in
            switch result {
            case .success(let types):
                self.handler(self, Set(types.map(store.conversion.type)), completion, nil)
            case .failure(let e):
                self.handler(self, nil, completion, HKError(core: e))
            }
        }
    }

    /// The observer of a type with background delivery enabled: driven by
    /// its durable subscription, and the completion handler acknowledges
    /// what the call reported (HKBackgroundDelivery.swift).
    private func backgroundDelivery(_ d: QueryDescriptor, _ frequency: DeliveryFrequency, _ store: HKHealthStore,
                                    _ counted: @escaping @Sendable () -> Void) -> LiveQuery {
        let types: Set<HKSampleType> = [store.conversion.type(d.type)]
        return DurableSubscription(name: HKHealthStore.backgroundDeliveryName(d.type.identifier), descriptors: [d],
                                   frequency: frequency, firesOnStart: true) { _, result, acknowledge in
            // The core's acknowledgement may be called from any thread. A
            // second call of the completion finds nothing to acknowledge.
            nonisolated(unsafe) let acknowledge = acknowledge
            let completion: HKObserverQueryCompletionHandler = {
                try? acknowledge()
                counted()
            }
            switch result {
            case .success: self.handler(self, types, completion, nil)
            case .failure(let e): self.handler(self, nil, completion, HKError(core: e))
            }
        }
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, {}, error) }
    }
}
