import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// `Store.setCommitHook(_:)`: a synchronous hook on this handle's own
/// commits, called on the committing thread before the call returns.
@Suite struct CommitHooks {
    /// What a hook saw, recorded from whichever thread it ran on.
    final class Calls: @unchecked Sendable {
        private let lock = Locked<[(thread: pthread_t, commit: StoreCommit)]>([])
        func add(_ c: StoreCommit) { lock.withLock { $0.append((pthread_self(), c)) } }
        var all: [(thread: pthread_t, commit: StoreCommit)] { lock.withLock { $0 } }
        var types: [[String]] { all.map { $0.commit.types.map(\.identifier) } }
    }

    /// Counts "released" when the hook that captured it is released.
    final class Token: @unchecked Sendable {
        let waiter: Waiter
        init(_ w: Waiter) { waiter = w }
        deinit { waiter.add("released") }
    }

    func heartRateSample(_ value: Double) throws -> Sample {
        try Sample.quantity(heartRate, value: value, unit: HealthUnit("count/min"), start: t0, end: t0,
                            source: appA)
    }

    @Test func aHookRunsOnTheSavingThreadBeforeTheSaveReturnsWithTheCommitsTypesAndAnchor() throws {
        let store = try makeStore()
        defer { store.close() }
        let calls = Calls()
        try store.setCommitHook { calls.add($0) }
        let first = try stepSample(1)
        try store.save([first, try heartRateSample(70), try stepSample(2)])
        // Synchronous: recorded before save returned, on this thread.
        #expect(calls.types == [[steps.identifier, heartRate.identifier]])
        #expect(pthread_equal(calls.all[0].thread, pthread_self()) != 0)
        #expect(calls.all[0].commit.anchor == (try store.currentAnchor()))
        let before = calls.all[0].commit.anchor
        try store.delete(uuids: [first.uuid])
        #expect(calls.types.last == [steps.identifier])
        let r = try store.anchoredQuery(type: steps, anchor: before)
        #expect(r.deletedUUIDs == [first.uuid])
        #expect(r.newAnchor == calls.all[1].commit.anchor)
    }

    @Test func failedWritesPrunesUnsavedVersionsAndOtherProcessesDoNotCallIt() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let kept = try stepSample(1, metadata: synced("a", 2))
        let plain = try stepSample(4)
        try store.save([kept, plain])
        let calls = Calls()
        try store.setCommitHook { calls.add($0) }
        // A save that fails (a UUID that exists) writes nothing.
        #expect(errorCode { _ = try store.save([try stepSample(5), try stepSample(6, uuid: plain.uuid)]) } == .duplicateUUID)
        // An equal version is not saved: the commit appends nothing.
        let outcome = try store.save([try stepSample(3, metadata: synced("a", 2))])
        #expect(outcome == [.notSavedOlderVersion(existing: kept.uuid)])
        #expect(calls.all.isEmpty)
        try store.delete(uuids: [kept.uuid])
        #expect(calls.all.count == 1)
        #expect(try store.pruneAll() == 1)
        let before = try store.currentAnchor()
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        #expect(try store.currentAnchor().position > before.position)
        #expect(calls.all.count == 1)
    }

    @Test func aHookMayQuerySaveAndRemoveItself() throws {
        let store = try makeStore()
        defer { store.close() }
        let calls = Calls()
        let seen = Locked<[UUID]>([])
        let start = try store.currentAnchor()
        let outer = try stepSample(1)
        let inner = try stepSample(2)
        try store.setCommitHook { commit in
            calls.add(commit)
            if calls.all.count == 1 {
                let r = try! store.anchoredQuery(type: steps, anchor: start)
                seen.withLock { $0 = r.sampleUUIDs }
                try! store.save([inner])  // nested: calls this hook again
                try! store.setCommitHook(nil)
            }
        }
        try store.save([outer])
        #expect(seen.withLock { $0 } == [outer.uuid])
        #expect(calls.all.count == 2)
        try store.save([try stepSample(3)])
        #expect(calls.all.count == 2)
        #expect(try store.anchoredQuery(type: steps, anchor: start).sampleUUIDs.count == 3)
    }

    /// The hook is released once, after its last call: on replacement
    /// (waiting for a call running on another thread) and on close.
    @Test func aReplacedOrClosedHookIsReleasedAfterItsLastCall() throws {
        let store = try makeStore()
        let events = Waiter()
        try store.setCommitHook { [token = Token(events)] _ in
            withExtendedLifetime(token) {}
            events.add("inside")
            _ = events.wait { events.value("go") == 1 }
        }
        let saver = startThread { try! store.save([try! stepSample(1)]) }
        #expect(events.wait { events.value("inside") == 1 })
        try store.setCommitHook(nil)
        #expect(events.value("released") == 0)  // its call is still running
        events.add("go")
        pthread_join(saver, nil)
        #expect(events.value("released") == 1)

        try store.setCommitHook { [token = Token(events)] _ in withExtendedLifetime(token) {} }
        store.close()
        #expect(events.value("released") == 2)
        #expect(errorCode { try store.setCommitHook(nil) } == .closed)
    }
}
