import Glibc
import Testing
@testable import OpenHealthKitCore

/// What a commit of this process tells its live queries (`CommitNote`),
/// and how notes of commits a busy query has not seen yet combine.
@Suite struct CommitNoteTests {
    @Test func notesOfCommitsThatFollowEachOtherCombine() {
        let first = CommitNote(startHead: 10, head: 12, horizon: 3, typeIDs: [1])
        let next = CommitNote(startHead: 12, head: 15, horizon: 3, typeIDs: [2, 1])
        let both = first.followed(by: next)
        #expect(both?.startHead == 10)
        #expect(both?.head == 15)
        #expect(both?.typeIDs == [1, 2])
        // A gap (another process committed in between) or another
        // horizon: the query has to read the store.
        #expect(first.followed(by: CommitNote(startHead: 13, head: 14, horizon: 3, typeIDs: [1])) == nil)
        #expect(first.followed(by: CommitNote(startHead: 12, head: 14, horizon: 4, typeIDs: [1])) == nil)
    }

    /// A query busy in a poll gets the notes that arrived meanwhile as one
    /// note when they follow each other, and none (read the store) when a
    /// wake-up without a note (another process's commit) came between.
    @Test func notesArrivingWhileAPollRunsAreCombinedOrDropped() throws {
        let store = try makeStore()
        defer { store.close() }
        let probe = NoteProbe()
        probe.store = store
        func note(_ from: UInt64, _ to: UInt64, _ type: UInt16) -> CommitNote {
            CommitNote(startHead: from, head: to, horizon: 0, typeIDs: [type])
        }
        probe.storeChanged(note(0, 1, 1))  // the first poll holds the thread
        #expect(probe.waiter.wait { probe.waiter.value("polls") == 1 })
        probe.storeChanged(note(1, 2, 2))
        probe.storeChanged(note(2, 3, 1))
        probe.release()
        #expect(probe.waiter.wait { probe.waiter.value("polls") == 2 })
        probe.storeChanged(note(3, 4, 1))
        probe.storeChanged()
        probe.storeChanged(note(4, 5, 2))
        probe.release()
        #expect(probe.waiter.wait { probe.waiter.value("polls") == 3 })
        probe.release()
        let seen = probe.notes.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen[0].map { [$0.startHead, $0.head] } == [0, 1])
        #expect(seen[1].map { [$0.startHead, $0.head] } == [1, 3])
        #expect(seen[1]?.typeIDs == [2, 1])
        #expect(seen[2] == nil)
        probe.stop()
    }
}

/// A live query that records the note of each poll; each poll waits until
/// the test releases it, so that wake-ups pile up meanwhile.
private final class NoteProbe: LiveQuery, @unchecked Sendable {
    let notes = Locked<[CommitNote?]>([])
    let waiter = Waiter()
    private let gate = Monitor()
    private var released = 0

    func release() { gate.locked { released += 1; gate.broadcast() } }

    override func poll(_ store: Store, note: CommitNote?) {
        let n = notes.withLock { $0.append(note); return $0.count }
        waiter.add("polls")
        gate.locked { while released < n && !isStopped { gate.wait() } }
    }
}
