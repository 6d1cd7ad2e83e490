// enableBackgroundDelivery as a durable subscription (rule 11): the
// observer's completion handler acknowledges, durably.
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct BackgroundDeliveryTests {
    private let stepType = HKQuantityType(.stepCount)

    private func subscription(_ store: HKHealthStore) throws -> SubscriptionInfo? {
        let name = HKHealthStore.backgroundDeliveryName(stepType.identifier)
        return try store.coreStore().subscriptions().first { $0.name == name }
    }

    /// An observer whose handler records each call and completes it when
    /// `completes` says so.
    private func observer(_ calls: Transcript, completes: Bool) -> HKObserverQuery {
        HKObserverQuery(sampleType: stepType, predicate: nil) { _, completion, error in
            calls.record(error.map { "error \($0)" } ?? "call")
            if completes { completion() }
        }
    }

    @Test func rule11_theObserversCompletionAcknowledgesWhatChangedWhileAway() async throws {
        let store = try freshHealthStore()
        try await store.enableBackgroundDelivery(for: stepType, frequency: .immediate)
        #expect(try subscription(store)?.frequency == .immediate)
        let registered = try #require(try subscription(store)).acknowledged.position

        // Saved while no observer runs ("the app is not running").
        try await store.save([steps(10, at: 0), steps(20, at: 1)])
        let head = try store.coreStore().currentAnchor().position

        // An observer that does not complete: nothing is acknowledged.
        let calls = Transcript()
        let forgetful = observer(calls, completes: false)
        store.execute(forgetful)
        #expect(await calls.wait(forLinesStartingWith: "call"))
        store.stop(forgetful)
        #expect(try subscription(store)?.acknowledged.position == registered)

        // The next one's first call carries the same changes; completing it
        // acknowledges them in the store.
        let calls2 = Transcript()
        let diligent = observer(calls2, completes: true)
        store.execute(diligent)
        defer { store.stop(diligent) }
        #expect(diligent.waitForCompletions(1))
        #expect(try subscription(store)?.acknowledged.position == head)

        // A later save: one more call, acknowledged in turn.
        try await store.save(steps(30, at: 2))
        #expect(diligent.waitForCompletions(2))
        #expect(try subscription(store)?.acknowledged.position == store.coreStore().currentAnchor().position)
    }

    @Test func enablingAgainSetsTheFrequencyAndDisablingRemovesIt() async throws {
        let store = try freshHealthStore()
        try await store.enableBackgroundDelivery(for: stepType, frequency: .immediate)
        try await store.enableBackgroundDelivery(for: stepType, frequency: .hourly)
        #expect(try subscription(store)?.frequency == .hourly)
        try await store.enableBackgroundDelivery(for: HKQuantityType(.bodyMass), frequency: .daily)
        // Another program's subscription is not this program's to disable.
        try store.coreStore().registerSubscription(named: "someone-else", descriptors: [QueryDescriptor(type: SampleType.named("StepCount"))],
                                                   frequency: .weekly)
        try await store.disableBackgroundDelivery(for: stepType)
        #expect(try subscription(store) == nil)
        try await store.disableBackgroundDelivery(for: stepType)  // not enabled: succeeds, as HealthKit
        let done = Transcript()
        store.disableAllBackgroundDelivery { ok, error in done.record("\(ok) \(error == nil)") }
        #expect(await done.wait { $0 == ["true true"] })
        #expect(try store.coreStore().subscriptions().map(\.name) == ["someone-else"])
    }
}
