import Glibc

/// What long-running queries share (rules 9, 10 and 12 of docs/semantics.md).
///
/// Threading model: the store's `ChangeWatcher` thread calls
/// `storeChanged()` after another process's commit (this process's own
/// commits call it directly); that only marks the query pending and wakes
/// the query's own thread (one per running query: a condition-variable
/// wake is the shortest path to the handler, measured against a dispatch
/// queue). There the query reads what changed since its anchor (a read
/// transaction, no lock held; an observer that its own process's commit
/// told what changed, `CommitNote`, need not) and calls its handler. So
/// handlers run on library threads, one at a time per query, and never
/// under a lock: a handler may save, query, start another query, stop its
/// own, or close the store. `stop()` from another thread
/// waits for a running handler to return; from inside the handler it
/// returns at once (the handler is the one running). Two handlers must
/// not stop each other's queries at the same moment: each would wait for
/// the other.
public class LiveQuery: @unchecked Sendable {
    private let monitor = Monitor()
    private var executed = false
    private var stopped = false
    private var pending = false
    /// What the pending commits changed, when this process made them and
    /// each began where the one before ended; nil: read the store.
    private var pendingNote: CommitNote?
    private var threadStarted = false
    /// The thread running a handler of this query, if any.
    private var handlerThread: pthread_t?
    weak var store: Store?

    /// True once `stop()` was called (or the query stopped on an error).
    public var isStopped: Bool { monitor.locked { stopped } }

    /// Checks the query's own arguments (subclasses).
    func validate() throws {}

    /// Reads what the query needs before its first poll, in `execute`.
    func prepare(_ store: Store) throws {}

    /// Marks the query as executed by `store`; a query runs once.
    func begin(on store: Store) throws {
        try validate()
        try monitor.locked {
            guard !executed else { throw OHKError(.invalidArgument, "a query executes once; create a new one") }
            guard !stopped else { throw OHKError(.invalidArgument, "the query was stopped before it executed") }
            executed = true
        }
        self.store = store
        try prepare(store)
    }

    /// Called by the watcher after a commit, and once at start; by this
    /// process's commits with what they changed.
    final func storeChanged(_ note: CommitNote? = nil) {
        monitor.locked {
            guard !stopped else { return }
            if pending {
                pendingNote = pendingNote.flatMap { earlier in note.flatMap { earlier.followed(by: $0) } }
            } else {
                pendingNote = note
            }
            pending = true
            if !threadStarted {
                threadStarted = true
                pthread_detach(startThread { self.run() })
            } else {
                monitor.broadcast()
            }
        }
    }

    /// The query's thread: polls after each change until stopped.
    private func run() {
        while true {
            let (go, note) = monitor.locked { () -> (Bool, CommitNote?) in
                while !stopped && !pending { monitor.wait() }
                pending = false
                defer { pendingNote = nil }
                return (!stopped, pendingNote)
            }
            guard go, let store else { return }
            poll(store, note: note)
        }
    }

    /// Reads what changed and delivers it (subclasses); `note`, when
    /// there is one, says what this process's commits changed.
    func poll(_ store: Store, note: CommitNote?) {}

    /// Runs `body` (a handler call) unless the query is stopped; returns
    /// false when it did not run.
    @discardableResult
    final func deliver(_ body: () -> Void) -> Bool {
        let run = monitor.locked { () -> Bool in
            guard !stopped else { return false }
            handlerThread = pthread_self()
            return true
        }
        guard run else { return false }
        body()
        monitor.locked {
            handlerThread = nil
            monitor.broadcast()
        }
        return true
    }

    /// Waits until the query is stopped, at most `seconds`; whether it is
    /// (tests wait on a query that stops itself).
    func waitUntilStopped(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        return monitor.locked {
            while !stopped {
                if !monitor.wait(until: deadline) { return stopped }
            }
            return true
        }
    }

    /// Stops the query: no handler of it runs after this returns (except
    /// the one calling it). Idempotent.
    public func stop() {
        monitor.locked {
            stopped = true
            monitor.broadcast()  // the query's thread exits
            while let t = handlerThread, pthread_equal(t, pthread_self()) == 0 { monitor.wait() }
        }
        store?.liveQueryStopped(self)
    }
}
