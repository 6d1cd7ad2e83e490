// HKSampleQuery, HKSampleQueryDescriptor, HKSourceQuery, the observer's
// call at start, the statistics descriptors and preferredUnits(for:).
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct SampleQueryKindsTests {
    /// Runs a one-shot query built by `make` and waits for its handler.
    private func run<T>(_ store: HKHealthStore, _ make: (@escaping @Sendable (T?, (any Error)?) -> Void) -> HKQuery) async -> (T?, (any Error)?) {
        let done = Transcript()
        let got = Shared<(T?, (any Error)?)>((nil, nil))
        store.execute(make { value, error in
            got.value = (value, error)
            done.record("done")
        })
        #expect(await done.wait(forLinesStartingWith: "done"))
        return got.value
    }

    private func savedSteps(_ store: HKHealthStore) async throws -> [HKQuantitySample] {
        // Saved out of time order: a sorted query must not return save order.
        let samples = [steps(5, at: 3), steps(1, at: 0), steps(9, at: 7), steps(3, at: 1), steps(7, at: 5)]
        try await store.save(samples)
        try await store.delete(samples[2])  // the latest: deleted objects are never returned
        return samples
    }

    @Test func rule30_hkSampleQuerySortsWithNSSortDescriptorAndLimits() async throws {
        let store = try freshHealthStore()
        let saved = try await savedSteps(store)
        let latestFirst = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]
        let (samples, error) = await run(store) { done in
            HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil, limit: 2, sortDescriptors: latestFirst) {
                _, samples, error in done(samples, error)
            }
        }
        #expect(error == nil)
        #expect(samples?.map(\.uuid) == [saved[4].uuid, saved[0].uuid])
        let (all, _) = await run(store) { done in
            HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil, limit: HKObjectQueryNoLimit,
                          sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: true)]) {
                _, samples, error in done(samples, error)
            }
        }
        #expect(all?.map(\.uuid) == [saved[1], saved[3], saved[0], saved[4]].map(\.uuid))
        // Without sort descriptors: the order they were saved in.
        let (unsorted, _) = await run(store) { done in
            HKSampleQuery(queryDescriptors: [HKQueryDescriptor(sampleType: HKQuantityType(.stepCount), predicate: nil)],
                          limit: HKObjectQueryNoLimit) { _, samples, error in done(samples, error) }
        }
        #expect(unsorted?.map(\.uuid) == [saved[0], saved[1], saved[3], saved[4]].map(\.uuid))
    }

    @Test func rule30_hkSampleQueryRefusesOtherSortKeysAndNegativeLimits() async throws {
        let store = try freshHealthStore()
        let (_, byValue) = await run(store) { (done: @escaping @Sendable ([HKSample]?, (any Error)?) -> Void) in
            HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil, limit: 1,
                          sortDescriptors: [NSSortDescriptor(key: "quantity", ascending: true)]) { _, s, e in done(s, e) }
        }
        #expect((byValue as? HKError)?.code == .errorInvalidArgument)
        let (_, negative) = await run(store) { (done: @escaping @Sendable ([HKSample]?, (any Error)?) -> Void) in
            HKSampleQuery(sampleType: HKQuantityType(.stepCount), predicate: nil, limit: -1, sortDescriptors: nil) { _, s, e in done(s, e) }
        }
        #expect((negative as? HKError)?.code == .errorInvalidArgument)
    }

    @Test func rule30_hkSampleQueryDescriptorSortsWithSortDescriptor() async throws {
        let store = try freshHealthStore()
        let saved = try await savedSteps(store)
        let descriptor = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                 sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 3)
        let latest = try await descriptor.result(for: store)
        #expect(latest.map(\.uuid) == [saved[4], saved[0], saved[3]].map(\.uuid))
        #expect(latest.first?.quantity.doubleValue(for: .count()) == 7)
        let byEnd = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                            sortDescriptors: [SortDescriptor(\.endDate)])
        #expect(try await byEnd.result(for: store).map(\.uuid) == [saved[1], saved[3], saved[0], saved[4]].map(\.uuid))
    }

    @Test func hkSourceQueryReportsEachSourceOnce() async throws {
        let store = try freshHealthStore()
        let phone = Source(bundleIdentifier: "com.example.phone", name: "Phone")
        let watch = Source(bundleIdentifier: "com.example.watch", name: "Watch")
        let type = try SampleType.named("StepCount")
        let sample = { (s: Source, m: Double) in
            try OpenHealthKitCore.Sample.quantity(type, value: 1, unit: HealthUnit("count"), start: day0 + m * 60,
                                                  end: day0 + m * 60 + 60, source: s)
        }
        try store.coreStore().save([try sample(phone, 0), try sample(watch, 1), try sample(phone, 2)])
        let (sources, error) = await run(store) { done in
            HKSourceQuery(sampleType: HKQuantityType(.stepCount), samplePredicate: nil) { _, sources, error in done(sources, error) }
        }
        #expect(error == nil)
        #expect(sources?.map(\.bundleIdentifier).sorted() == ["com.example.phone", "com.example.watch"])
        let late = HKQuery.predicateForSamples(withStart: day0 + 90, end: nil, options: .strictStartDate)
        let recent = try await HKSourceQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.stepCount), predicate: late))
            .result(for: store)
        #expect(recent.map(\.name) == ["Phone"])
    }

    /// Rule 10b: HKObserverQuery calls its handler once when it starts,
    /// with every type it observes, then only after changes.
    @Test func rule10b_observerQueryCallsItsHandlerOnceAtStart() async throws {
        let store = try freshHealthStore()
        let calls = Transcript()
        let query = HKObserverQuery(queryDescriptors: [HKQueryDescriptor(sampleType: HKQuantityType(.stepCount), predicate: nil),
                                                       HKQueryDescriptor(sampleType: HKQuantityType(.bodyMass), predicate: nil)]) {
            _, types, completion, error in
            calls.record("\(types.map { $0.map(\.identifier).sorted() } ?? []) \(error == nil)")
            completion()
        }
        store.execute(query)
        defer { store.stop(query) }
        #expect(query.waitForCompletions(1))
        #expect(calls.lines == ["[\"HKQuantityTypeIdentifierBodyMass\", \"HKQuantityTypeIdentifierStepCount\"] true"])
        try await store.save(bodyMass(70, at: 0))
        #expect(query.waitForCompletions(2))
        #expect(calls.lines.last == "[\"HKQuantityTypeIdentifierBodyMass\"] true")
        #expect(calls.lines.count == 2)
    }

    @Test func hkStatisticsQueryDescriptorsComputeAndFollowChanges() async throws {
        let store = try freshHealthStore()
        try await store.save([steps(100, at: 0), steps(50, at: 1)])
        let predicate = HKSamplePredicate.quantitySample(type: HKQuantityType(.stepCount))
        let total = try await HKStatisticsQueryDescriptor(predicate: predicate, options: .cumulativeSum).result(for: store)
        #expect(total?.sumQuantity()?.doubleValue(for: .count()) == 150)
        let none = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.pushCount)),
                                                         options: .cumulativeSum).result(for: store)
        #expect(none == nil)

        let daily = HKStatisticsCollectionQueryDescriptor(predicate: predicate, options: .cumulativeSum, anchorDate: day0,
                                                          intervalComponents: DateComponents(day: 1))
        #expect(try await daily.result(for: store).statistics().map { $0.sumQuantity()?.doubleValue(for: .count()) } == [150])
        var updates = daily.results(for: store).makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.updatedStatistics == nil)
        #expect(first.statisticsCollection.statistics().first?.sumQuantity()?.doubleValue(for: .count()) == 150)
        try await store.save(steps(25, at: 2))
        let second = try #require(try await updates.next())
        #expect(second.updatedStatistics?.map { $0.sumQuantity()?.doubleValue(for: .count()) } == [175])

        let wrong = HKStatisticsCollectionQueryDescriptor(predicate: predicate, options: .discreteAverage, anchorDate: day0,
                                                          intervalComponents: DateComponents(day: 1))
        await #expect(throws: HKError.self) { try await wrong.result(for: store) }
    }

    @Test func preferredUnitsFollowTheMeasurementSystem() async throws {
        let store = try freshHealthStore()
        let types: Set = [HKQuantityType(.heartRate), HKQuantityType(.bodyMass), HKQuantityType(.distanceWalkingRunning),
                          HKQuantityType(.bodyTemperature), HKQuantityType(.stepCount), HKQuantityType(.height)]
        let metric = try store.preferredUnitsNow(types, usesUSUnits: false)
        let us = try store.preferredUnitsNow(types, usesUSUnits: true)
        let show = { (units: [HKQuantityType: HKUnit], id: HKQuantityTypeIdentifier) in units[HKQuantityType(id)]?.unitString }
        #expect(show(metric, .heartRate) == "count/min")
        #expect(show(us, .heartRate) == "count/min")
        #expect(show(metric, .bodyMass) == "kg")
        #expect(show(us, .bodyMass) == "lb")
        #expect(show(metric, .distanceWalkingRunning) == "km")
        #expect(show(us, .distanceWalkingRunning) == "mi")
        #expect(show(metric, .bodyTemperature) == "degC")
        #expect(show(us, .bodyTemperature) == "degF")
        #expect(show(metric, .height) == "cm")
        #expect(show(us, .height) == "in")
        #expect(show(us, .stepCount) == "count")
        let now = try await store.preferredUnits(for: types)
        #expect(Set(now.keys) == types)
    }
}
