/// Calls a closure after each commit to the store, by this process or
/// another, on the listener's own thread: what an asynchronous server
/// needs to wake its waiters (long polls, event streams) without a
/// thread of its own blocked per waiter. Commits close together may be
/// told once. Run it with `Store.execute(_:)`; `stop()` ends it.
public final class CommitListener: LiveQuery, @unchecked Sendable {
    private let onCommit: @Sendable () -> Void

    public init(_ onCommit: @escaping @Sendable () -> Void) {
        self.onCommit = onCommit
        super.init()
    }

    override func poll(_ store: Store, note: CommitNote?) {
        deliver { onCommit() }
    }
}
