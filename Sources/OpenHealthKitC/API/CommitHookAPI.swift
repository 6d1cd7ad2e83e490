// openhealthkit.h section 190: Commit hooks
import COpenHealthKit
import OpenHealthKitCore

/// A C commit hook: its function, store handle, user_data and destroy.
/// The core holds the closure that holds this, and releases it after the
/// hook's last call; destroy runs then, exactly once.
private final class CommitHookContext: @unchecked Sendable {
    let hook: ohk_commit_fn
    let store: UnsafeMutablePointer<ohk_store>?
    let names: CNames
    let userData: UnsafeMutableRawPointer?
    let destroy: ohk_destroy_fn?

    init(_ hook: ohk_commit_fn, _ store: UnsafeMutablePointer<ohk_store>?, _ names: CNames,
         _ userData: UnsafeMutableRawPointer?, _ destroy: ohk_destroy_fn?) {
        (self.hook, self.store, self.names, self.userData, self.destroy) = (hook, store, names, userData, destroy)
    }

    deinit { destroy?(userData) }

    func call(_ commit: StoreCommit) {
        var anchor = AnchorValue.make(commit.anchor)
        let types: [UnsafePointer<CChar>?] = names.identifiers(commit.types)
        types.withUnsafeBufferPointer { hook(store, $0.baseAddress, UInt64($0.count), &anchor, userData) }
    }
}

/// Sets `hook`, called after each commit made through this store handle
/// that saved or deleted samples, with the types it changed and the
/// store's anchor after it (SQLite's sqlite3_commit_hook, for a writer
/// that acts on its own commits at once). It runs on the thread that
/// committed, after the commit is durable and this process's live
/// queries have been told, before ohk_store_save, ohk_store_delete_uuids
/// or ohk_store_delete_matching returns, under no lock of the library:
/// it may call the library, including saving (the hook then runs again,
/// nested) and replacing or removing itself. Threads saving at once may
/// run it at once; the anchors order their commits. Failed writes,
/// prunes, subscription acknowledgements and other processes' commits
/// do not call it (an observer query hears those). Setting a hook
/// replaces the previous one, whose destroy(user_data) runs after its
/// last call (at once unless it is running on another thread); hook NULL
/// removes it (user_data and destroy are then ignored). Closing the store
/// removes it. destroy(user_data) also runs when this call fails.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT (store NULL or not a store),
/// OHK_ERR_CLOSED. Any thread; never blocks on a write.
@c public func ohk_store_set_commit_hook(_ store: UnsafeMutablePointer<ohk_store>?, _ hook: ohk_commit_fn?,
                                         _ user_data: UnsafeMutableRawPointer?,
                                         _ destroy: ohk_destroy_fn?) -> ohk_status {
    var destroyOnFailure = hook == nil ? nil : destroy
    defer { destroyOnFailure?(user_data) }
    return cCall {
        let handle = try StoreHandle.handle(store)
        guard let hook else { return try handle.store.setCommitHook(nil) }
        let context = CommitHookContext(hook, store, handle.names, user_data, destroy)
        destroyOnFailure = nil  // the context owns user_data now
        try handle.store.setCommitHook { context.call($0) }
    }
}
