import COHKSystem
import Glibc

/// One thread per store with live queries: it sleeps on the store's
/// change signal and, after a commit of another process, tells each
/// registered query to look for changes (this process's commits tell them
/// directly). It never runs a handler and never waits for one, so no
/// handler can block it.
final class ChangeWatcher: @unchecked Sendable {
    private let signal: ChangeSignal
    private let state = Locked<(queries: [ObjectIdentifier: LiveQuery], stopping: Bool, looks: Int)>(([:], false, 0))
    private var thread: pthread_t?

    /// Starts watching. The counter is read here, before any query can
    /// register, so a commit after registration always wakes the thread.
    init(signal: ChangeSignal) {
        self.signal = signal
        let seen = signal.value
        thread = startThread { [self] in run(from: seen) }
    }

    private func run(from start: UInt32) {
        var seen = start
        while true {
            signal.wait(whileValueIs: seen)
            let (queries, stopping) = state.withLock { (Array($0.queries.values), $0.stopping) }
            if stopping { return }
            let now = signal.value
            guard now != seen else { continue }  // spurious wake
            seen = now
            state.withLock { $0.looks += 1 }
            for q in queries { q.storeChanged() }
        }
    }

    func register(_ q: LiveQuery) { state.withLock { $0.queries[ObjectIdentifier(q)] = q } }
    func unregister(_ q: LiveQuery) { state.withLock { _ = $0.queries.removeValue(forKey: ObjectIdentifier(q)) } }
    var registered: [LiveQuery] { state.withLock { Array($0.queries.values) } }
    /// How many times the thread woke to a changed counter (for tests).
    var looks: Int { state.withLock { $0.looks } }

    /// Stops the thread and waits for it (never call from the thread).
    /// Bumps the counter rather than only waking: a wake sent before the
    /// thread enters FUTEX_WAIT would be lost, a changed value is not.
    /// Other processes' watchers then look once and find nothing new.
    /// A read-only signal cannot change the counter: it wakes again until
    /// the thread has ended, each wake after a millisecond's wait for it,
    /// so a wake that came before the thread slept is sent once more.
    func stop() {
        state.withLock { $0.stopping = true }
        guard let t = thread else { return }
        thread = nil
        if signal.writable {
            signal.bumpAll()
            pthread_join(t, nil)
            return
        }
        repeat { signal.wakeAll() } while ohk_join_within_ms(t, 1) == ETIMEDOUT
    }
}
