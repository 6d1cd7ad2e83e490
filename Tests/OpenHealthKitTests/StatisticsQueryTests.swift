// HKStatisticsQuery and HKStatisticsCollectionQuery (rules 25–29).
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct StatisticsQueryTests {
    let noon = Date(timeIntervalSince1970: 1_709_294_400)  // 2024-03-01T12:00:00Z
    let watch = Source(bundleIdentifier: "com.apple.health.watch", name: "Ann's Apple Watch")
    let phone = Source(bundleIdentifier: "com.apple.health.phone", name: "Ann's iPhone")

    private func steps(_ value: Double, _ from: Double, _ to: Double, _ source: Source) throws -> OpenHealthKitCore.Sample {
        try OpenHealthKitCore.Sample.quantity(try SampleType.named("HKQuantityTypeIdentifierStepCount"), value: value,
                                              unit: HealthUnit("count"), start: noon + from * 3600, end: noon + to * 3600,
                                              source: source)
    }

    /// Runs `query` and waits for its first handler call.
    private func statistics(_ store: HKHealthStore, _ options: HKStatisticsOptions,
                            type: HKQuantityType = HKQuantityType(.stepCount)) async -> (HKStatistics?, (any Error)?) {
        let done = Transcript()
        nonisolated(unsafe) var got: (HKStatistics?, (any Error)?) = (nil, nil)
        let query = HKStatisticsQuery(quantityType: type, quantitySamplePredicate: nil, options: options) { _, s, e in
            got = (s, e)
            done.record("done")
        }
        store.execute(query)
        #expect(await done.wait(forLinesStartingWith: "done"))
        return got
    }

    @Test func rule26_hkStatisticsQueryMergesSourcesAndKeepsEachOnesOwn() async throws {
        let store = try freshHealthStore()
        try store.coreStore().save([try steps(1000, 0, 1, watch), try steps(1200, 0.5, 1.5, phone)])
        let (s, error) = await statistics(store, [.cumulativeSum, .separateBySource])
        #expect(error == nil)
        let merged = try #require(s)
        #expect(merged.sumQuantity()?.doubleValue(for: .count()) == 1600)
        let sources = try #require(merged.sources)
        let watchSource = try #require(sources.first { $0.bundleIdentifier == watch.bundleIdentifier })
        #expect(merged.sumQuantity(for: watchSource)?.doubleValue(for: .count()) == 1000)
        #expect(merged.averageQuantity() == nil && merged.startDate == noon && merged.endDate == noon + 5400)
    }

    @Test func rule25_28_noDataAndWrongOptionsAreErrors() async throws {
        let store = try freshHealthStore()
        let (none, noData) = await statistics(store, .cumulativeSum)
        #expect(none == nil && (noData as? HKError)?.code == .errorNoData)
        let (wrong, invalid) = await statistics(store, .cumulativeSum, type: HKQuantityType(.heartRate))
        #expect(wrong == nil && (invalid as? HKError)?.code == .errorInvalidArgument)
    }

    @Test func rule28_aCollectionHasInitialResultsThenUpdatesAfterEachCommit() async throws {
        let store = try freshHealthStore()
        try store.coreStore().save([try steps(100, 0, 0.5, watch), try steps(40, 24, 24.5, watch)])
        let seen = Transcript()
        let midnight = noon - 12 * 3600
        let query = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: nil,
                                                options: .cumulativeSum, anchorDate: midnight,
                                                intervalComponents: DateComponents(day: 1))
        query.initialResultsHandler = { _, collection, _ in
            var days: [String] = []
            collection?.enumerateStatistics(from: midnight, to: midnight + 86_400) { s, _ in
                days.append("\(s.sumQuantity()?.doubleValue(for: .count()) ?? -1)")
            }
            seen.record("initial " + days.joined(separator: " "))
        }
        query.statisticsUpdateHandler = { _, _, collection, _ in
            let total = collection?.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }.reduce(0, +)
            seen.record("update \(total ?? -1)")
        }
        store.execute(query)
        #expect(await seen.wait(forLinesStartingWith: "initial"))
        #expect(seen.lines.first == "initial 100.0 40.0")
        try store.coreStore().save([try steps(7, 1, 1.5, phone)])
        #expect(await seen.wait { $0.contains("update 147.0") }, "\(seen.lines)")
        store.stop(query)
        let bad = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: nil,
                                              options: .cumulativeSum, anchorDate: midnight,
                                              intervalComponents: DateComponents(day: 1, hour: 1))
        bad.initialResultsHandler = { _, _, e in seen.record("bad \((e as? HKError)?.code == .errorInvalidArgument)") }
        store.execute(bad)
        #expect(await seen.wait(forLinesStartingWith: "bad true"))
    }
}
