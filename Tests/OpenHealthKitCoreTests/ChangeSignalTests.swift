import Testing
import TestSupport
@testable import OpenHealthKitCore

/// The store's change signal: how commits reach live queries (rules 9
/// and 10 of docs/semantics.md) in this process and in others.
@Suite struct ChangeSignalTests {
    /// Every opener of a store holds a wake bit of its own while it has
    /// the store open, so that a commit can wake every watcher but its
    /// own. Openers past the 31st share one bit that every commit wakes.
    /// (Locks of open file descriptions conflict within one process too,
    /// so one process can stand in for many here.)
    @Test func eachOpenerHoldsAWakeBitOfItsOwnUntilItCloses() throws {
        let dir = temporaryDirectory()
        var signals = try (0..<31).map { _ in try ChangeSignal(directory: dir) }
        let bits = signals.map(\.bit)
        #expect(Set(bits).count == 31)
        #expect(bits.allSatisfy { $0.nonzeroBitCount == 1 && $0 != ChangeSignal.sharedBit })
        let extra = try ChangeSignal(directory: dir)
        #expect(extra.bit == ChangeSignal.sharedBit)
        let freed = signals.remove(at: 7).bit  // closed: its lock is released
        // ...once no other reference to its open file description is left.
        // Another test spawning a process at that moment lends the child a
        // copy of every descriptor until the child's exec closes them, so
        // the freed bit comes back within a bound, not at once.
        var next = try ChangeSignal(directory: dir)
        let deadline = monotonic() + 20
        while next.bit != freed && monotonic() < deadline { next = try ChangeSignal(directory: dir) }
        #expect(next.bit == freed)
        // Another store's file has bits of its own.
        #expect(try ChangeSignal(directory: temporaryDirectory()).bit == bits[0])
    }
}
