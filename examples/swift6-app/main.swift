// A HealthKit-style app in Swift 6 language mode, with top-level code (so
// its globals are main-actor isolated) and nested closures in every kind
// of handler: what crashed with SIGILL in _dispatch_assert_queue_fail
// when the handler types were not @Sendable and the library called them
// on its own threads. `make test` runs it; it exits 1 if a handler is not
// heard from within 30 s.
import Foundation
import OpenHealthKit

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : NSTemporaryDirectory() + "ohk-swift6-\(getpid())"
let store = try HKHealthStore(directory: directory)
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

// 3. An observer whose handler calls its completion from a nested closure.
let observed = DispatchSemaphore(value: 0)
let observer = HKObserverQuery(sampleType: steps, predicate: nil) { _, completion, _ in
    [1].forEach { _ in completion() }
    print("observer: steps changed")
    observed.signal()
}
store.execute(observer)
try await store.save(sample(300, minute: 2))
expect("anchored update", delivered)
expect("observer call", observed)
store.stop(query)
store.stop(observer)
print("swift6-app: every handler ran, none trapped")
