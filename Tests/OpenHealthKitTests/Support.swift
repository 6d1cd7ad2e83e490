import Foundation
@testable import OpenHealthKit
import TestSupport

/// A store in a fresh temporary directory.
func freshHealthStore() throws -> HKHealthStore {
    HKHealthStore(directory: temporaryDirectory())
}

/// What handlers saw, line by line, and a wait for the line a test needs
/// (never a sleep standing in for the event).
final class Transcript: @unchecked Sendable {
    private let condition = NSCondition()
    private var recorded: [String] = []

    var lines: [String] { condition.withLock { recorded } }

    func record(_ line: String) {
        condition.withLock {
            recorded.append(line)
            condition.broadcast()
        }
    }

    func clear() { condition.withLock { recorded.removeAll() } }

    /// True when `predicate` held within `seconds`. Blocking: called only
    /// on a thread of its own (see `wait(seconds:until:)`).
    private func blockingWait(seconds: Double, until predicate: ([String]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while !predicate(recorded) {
                if !condition.wait(until: deadline) { return predicate(recorded) }
            }
            return true
        }
    }

    /// True when `predicate` held within `seconds`.
    ///
    /// It blocks a thread of its own, not one of Dispatch's pool. On two
    /// cores that pool has two threads, shared by Swift concurrency and
    /// `DispatchQueue.global()`: a test blocking one while another test
    /// runs on the other starved the very handler or async-sequence task it
    /// waited for, past the 30 s bound (CI, 2026-11-26).
    func wait(seconds: Double = 30, until predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await withCheckedContinuation { done in
            Thread.detachNewThread { done.resume(returning: self.blockingWait(seconds: seconds, until: predicate)) }
        }
    }

    /// Waits until `count` lines have `prefix`.
    func wait(forLinesStartingWith prefix: String, count: Int = 1) async -> Bool {
        await wait { $0.filter { $0.hasPrefix(prefix) }.count >= count }
    }
}

let minute: TimeInterval = 60
let day0 = Date(timeIntervalSince1970: 1_700_000_000)

func bodyMass(_ kg: Double, at m: Int, metadata: [String: Any]? = nil) -> HKQuantitySample {
    HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: kg),
                     start: day0 + Double(m) * minute, end: day0 + Double(m) * minute, metadata: metadata)
}

func steps(_ n: Double, at m: Int, type: HKQuantityTypeIdentifier = .stepCount) -> HKQuantitySample {
    HKQuantitySample(type: HKQuantityType(type), quantity: HKQuantity(unit: .count(), doubleValue: n),
                     start: day0 + Double(m) * minute, end: day0 + Double(m + 1) * minute)
}

/// A value handlers (which are `@Sendable`, as HealthKit's) share with the
/// test, behind a lock.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
