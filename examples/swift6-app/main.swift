// A HealthKit-style app in Swift 6 language mode, with top-level code (so
// its globals are main-actor isolated) and nested closures in every kind
// of handler: what crashed with SIGILL in _dispatch_assert_queue_fail
// when the handler types were not @Sendable and the library called them
// on its own threads. `make test` runs it; it exits 1 if a handler is not
// heard from within 30 s. The programs are those issue 31 lists: a step
// dashboard, a background sync, a blood-pressure log; and rings and an ECG.
import Foundation
import OpenHealthKit
import OpenHealthKitCore

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : NSTemporaryDirectory() + "ohk-swift6-\(getpid())"
let store = HKHealthStore(directory: directory)
let steps = HKQuantityType(.stepCount)
let start = Date(timeIntervalSince1970: 1_700_000_000)

func sample(_ count: Double, minute: Int) -> HKQuantitySample {
    HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: count),
                     start: start.addingTimeInterval(Double(minute) * 60), end: start.addingTimeInterval(Double(minute + 1) * 60))
}

/// Waits for `n` signals of `semaphore`, 30 s at most each.
func expect(_ what: String, _ semaphore: DispatchSemaphore, times n: Int = 1) {
    for _ in 0..<n where semaphore.wait(timeout: .now() + 30) == .timedOut {
        print("swift6-app: no \(what) within 30 s")
        exit(1)
    }
}

// 1. save(_:withCompletion:) with a nested closure in its handler.
let saved = DispatchSemaphore(value: 0)
store.save([sample(100, minute: 0), sample(200, minute: 1)]) { success, error in
    let words = [success ? "saved" : "not saved", error.map { "\($0)" } ?? ""].filter { !$0.isEmpty }.map { $0.uppercased() }
    print("save: \(words.joined(separator: " "))")
    saved.signal()
}
expect("save completion", saved)

// 2. An anchored query with results and update handlers, each with a nested closure.
let delivered = DispatchSemaphore(value: 0)
let query = HKAnchoredObjectQuery(type: steps, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, samples, _, _, _ in
    let counts = (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count()) }
    print("results: \(counts.sorted())")
    delivered.signal()
}
query.updateHandler = { _, samples, deleted, _, _ in
    let counts = (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count()) }
    print("update: \(counts), \((deleted ?? []).map { $0.uuid }.count) deleted")
    delivered.signal()
}
store.execute(query)
expect("anchored results", delivered)

// 3. An observer whose handler calls its completion from a nested closure:
// once when it starts (as HealthKit's), then after the save.
let observed = DispatchSemaphore(value: 0)
let observer = HKObserverQuery(sampleType: steps, predicate: nil) { _, completion, _ in
    [1].forEach { _ in completion() }
    print("observer: steps changed")
    observed.signal()
}
store.execute(observer)
expect("observer's first call", observed)
try await store.save(sample(300, minute: 2))
expect("anchored update", delivered)
expect("observer call after the save", observed)
store.stop(query)
store.stop(observer)

// 4. A sample query, the latest first, and a source query.
let listed = DispatchSemaphore(value: 0)
let latest = HKSampleQuery(sampleType: steps, predicate: nil, limit: 2,
                           sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]) { _, samples, _ in
    print("latest: \((samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count()) })")
    listed.signal()
}
store.execute(latest)
expect("sample query results", listed)
let sources = HKSourceQuery(sampleType: steps, samplePredicate: nil) { _, sources, _ in
    print("sources: \((sources ?? []).map { $0.name }.sorted())")
    listed.signal()
}
store.execute(sources)
expect("source query results", listed)

// 5. A step-count dashboard: daily totals, then an update after a save.
let charted = DispatchSemaphore(value: 0)
let daily = HKStatisticsCollectionQuery(quantityType: steps, quantitySamplePredicate: nil, options: .cumulativeSum,
                                        anchorDate: start, intervalComponents: DateComponents(day: 1))
daily.initialResultsHandler = { _, collection, _ in
    let totals = (collection?.statistics() ?? []).map { $0.sumQuantity()?.doubleValue(for: .count()) ?? 0 }
    print("daily totals: \(totals)")
    charted.signal()
}
daily.statisticsUpdateHandler = { _, _, collection, _ in
    let totals = (collection?.statistics() ?? []).map { $0.sumQuantity()?.doubleValue(for: .count()) ?? 0 }
    print("daily totals now: \(totals)")
    charted.signal()
}
store.execute(daily)
expect("statistics initial results", charted)
try await store.save(sample(400, minute: 3))
expect("statistics update", charted)
store.stop(daily)

// 6. The async descriptors, from top-level code.
let newest = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)],
                                               sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 1)
    .result(for: store)
let total = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum)
    .result(for: store)
print("newest: \(newest.map { $0.quantity.doubleValue(for: .count()) }), total: \(total?.sumQuantity()?.doubleValue(for: .count()) ?? 0)")
// 7. A background sync: background delivery enabled, an anchored query
// inside the observer, whose completion acknowledges what was read.
try await store.enableBackgroundDelivery(for: steps, frequency: .immediate)
let synced = DispatchSemaphore(value: 0)
nonisolated(unsafe) var syncAnchor: HKQueryAnchor?
let sync = HKObserverQuery(sampleType: steps, predicate: nil) { _, completion, _ in
    let inner = HKAnchoredObjectQuery(type: steps, predicate: nil, anchor: syncAnchor, limit: HKObjectQueryNoLimit) {
        _, added, _, newAnchor, _ in
        syncAnchor = newAnchor
        print("background sync: \((added ?? []).count) samples")
        completion()
        synced.signal()
    }
    store.execute(inner)
}
store.execute(sync)
expect("background sync at start", synced)
try await store.save(sample(500, minute: 4))
expect("background sync after a save", synced)
store.stop(sync)
try await store.disableAllBackgroundDelivery()

// 8. A blood-pressure log: a reading saved with its two samples, then the
// high ones found by a correlation query, its handler with a nested closure.
let mmHg = HKUnit.millimeterOfMercury()
let pressure = HKCorrelationType(.bloodPressure)
for (minute, (high, low)) in [(150.0, 95.0), (118.0, 76.0)].enumerated() {
    let at = start.addingTimeInterval(Double(minute) * 60)
    let objects: Set<HKSample> = [
        HKQuantitySample(type: HKQuantityType(.bloodPressureSystolic), quantity: HKQuantity(unit: mmHg, doubleValue: high), start: at, end: at),
        HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic), quantity: HKQuantity(unit: mmHg, doubleValue: low), start: at, end: at),
    ]
    try await store.save(HKCorrelation(type: pressure, start: at, end: at, objects: objects))
}
let logged = DispatchSemaphore(value: 0)
let highOnes = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: mmHg, doubleValue: 140))
store.execute(HKCorrelationQuery(type: pressure, predicate: nil,
                                 samplePredicates: [HKQuantityType(.bloodPressureSystolic): highOnes]) { _, readings, _ in
    let systolic = (readings ?? []).flatMap { $0.objects(for: HKQuantityType(.bloodPressureSystolic)) }
        .compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: mmHg) }
    print("high blood pressure: \(systolic)")
    logged.signal()
})
expect("correlation query results", logged)
// 9. Activity rings: the days, then the update handler after a change,
// each handler with a nested closure. (An import or the core saves
// summaries: HealthKit apps cannot.)
let may1 = try ActivitySummary(day: .init("2024-05-01"), activeEnergyBurned: 320, activeEnergyBurnedGoal: 400)
try store.coreStore().saveActivitySummaries([may1])
let ringed = DispatchSemaphore(value: 0)
let calendar = Calendar(identifier: .gregorian)
let rings = HKActivitySummaryQuery(predicate: nil) { _, summaries, _ in
    let days = (summaries ?? []).map { s in s.dateComponents(for: calendar).day ?? 0 }
    print("rings: days \(days)")
    ringed.signal()
}
rings.updateHandler = { _, summaries, _ in
    let moved = (summaries ?? []).map { $0.activeEnergyBurned.doubleValue(for: .kilocalorie()) }
    print("rings now: \(moved)")
    ringed.signal()
}
store.execute(rings)
expect("activity summary results", ringed)
var moreMoving = may1
moreMoving.activeEnergyBurned = 450
try store.coreStore().saveActivitySummaries([moreMoving])
expect("activity summary update", ringed)
store.stop(rings)

// 10. An ECG's voltages, the handler with a nested closure.
let recording = Electrocardiogram(classification: .sinusRhythm, samplingFrequency: 512, voltages: (0..<512).map { Double($0 % 50) })
_ = try store.coreStore().save([try OpenHealthKitCore.Sample.electrocardiogram(recording, start: start, end: start.addingTimeInterval(1),
                                                                               source: Source(bundleIdentifier: "com.apple.NanoHeartRhythm", name: "ECG"))])
let ecgs = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.electrocardiogramType())], sortDescriptors: [])
    .result(for: store).compactMap { $0 as? HKElectrocardiogram }
let traced = DispatchSemaphore(value: 0)
store.execute(HKElectrocardiogramQuery(ecgs[0]) { _, result in
    switch result {
    case .measurement: break
    case .done:
        print("ecg: \([ecgs[0]].map { $0.numberOfVoltageMeasurements }) voltages, \(ecgs.map { $0.classification })")
        traced.signal()
    case .error(let e): print("ecg: \(e)")
    }
})
expect("electrocardiogram voltages", traced)
print("swift6-app: every handler ran, none trapped")
