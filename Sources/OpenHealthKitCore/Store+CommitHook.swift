/// One commit made through this store handle, as its commit hook sees it.
public struct StoreCommit: Sendable {
    /// The types the commit saved samples of or deleted samples from, in
    /// the order it first wrote each.
    public let types: [SampleType]
    /// The store's anchor right after the commit: a query from an anchor
    /// handed out before the commit, up to this one, sees its changes.
    public let anchor: QueryAnchor
}

/// A commit hook (`Store.setCommitHook(_:)`).
public typealias CommitHook = @Sendable (StoreCommit) -> Void

extension Store {
    /// Sets the function called after each commit made through this store
    /// handle that saved or deleted samples; nil removes it. SQLite's
    /// `sqlite3_commit_hook` and GRDB's `databaseDidCommit` are its
    /// kin, for a writer that must act on its own commits at once (a
    /// cache to invalidate, a peer to tell) without a thread hop.
    ///
    /// It runs on the thread that committed, after the commit is durable
    /// and this process's live queries have been told, before the save or
    /// delete returns; under no lock of the library, so it may call the
    /// store (a save from inside it calls it again, nested) or remove
    /// itself. Threads saving at once may run it at once: their commits'
    /// anchors give the order. A failed write, a prune, a subscription's
    /// acknowledgement and other processes' commits do not call it (an
    /// `ObserverQuery` hears other processes). Closing the store removes
    /// it; the function is released after its last call.
    public func setCommitHook(_ hook: CommitHook?) throws {
        let old = try operation { commitHook.withLock { h in defer { h = hook }; return h } }
        withExtendedLifetime(old) {}  // released outside the lock: its clean-up may call us
    }

    /// What a hook is told of a commit that appended to `typeIDs`.
    func storeCommit(_ typeIDs: [UInt16], head: UInt64, horizon: UInt64) -> StoreCommit {
        let types = cache.withLock { c in typeIDs.compactMap { c.type(id: $0) } }
        return StoreCommit(types: types, anchor: QueryAnchor(storeID: storeID, position: head, horizon: horizon))
    }
}
