import Glibc

/// Lets a loop sleep until the store commits, in this process or another:
/// what a follower (`ohk sink --follow`) needs between reads of the change
/// feed, without a handler or a poll interval. Run it with
/// `Store.execute(_:)`, then call `wait(seconds:)` after each read; a
/// commit between the read and the wait is not missed (the count moves).
public final class CommitWaiter: LiveQuery, @unchecked Sendable {
    private let state = Monitor()
    private var commits = 0
    private var seen = 0

    public override init() { super.init() }

    override func poll(_ store: Store, note: CommitNote?) {
        state.locked {
            commits += 1
            state.broadcast()
        }
    }

    /// Returns when the store committed since the last call returned (or
    /// since `execute`), or after `seconds`, or when the waiter stops;
    /// true when there was a commit.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let whole = seconds.rounded(.down)
        deadline.tv_sec += Int(whole)
        deadline.tv_nsec += Int((seconds - whole) * 1e9)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return state.locked {
            while commits == seen && !isStopped {
                if !state.wait(until: deadline) { break }
            }
            defer { seen = commits }
            return commits != seen
        }
    }

    /// Wakes a `wait` in progress (stopping the waiter from another thread).
    public override func stop() {
        super.stop()
        state.locked { state.broadcast() }
    }
}
