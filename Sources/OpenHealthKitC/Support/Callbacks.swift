import COpenHealthKit
import Glibc

/// A C callback's user_data and destroy hook. `destroy` runs exactly once,
/// after the last call: when the query is freed (at once from another
/// thread, since stopping waits for a running callback; after the callback
/// returns when freed from inside it), or when starting the query failed.
final class CallbackContext: @unchecked Sendable {
    let userData: UnsafeMutableRawPointer?
    private let destroy: ohk_destroy_fn?
    private let lock = Lock()
    private var callingThread: pthread_t?
    private var released = false
    private var destroyed = false

    init(userData: UnsafeMutableRawPointer?, destroy: ohk_destroy_fn?) {
        self.userData = userData
        self.destroy = destroy
    }

    /// Runs one callback; the query's callbacks never overlap (the core
    /// runs them one at a time per query).
    func call(_ body: () -> Void) {
        let go = locked { () -> Bool in
            guard !released else { return false }
            callingThread = pthread_self()
            return true
        }
        guard go else { return }
        body()
        let destroyNow = locked { () -> Bool in
            callingThread = nil
            return released
        }
        if destroyNow { runDestroy() }
    }

    /// No more calls: destroy now, or after the running callback if this
    /// thread is inside it.
    func release() {
        let now = locked { () -> Bool in
            released = true
            if let t = callingThread, pthread_equal(t, pthread_self()) != 0 { return false }
            return true
        }
        if now { runDestroy() }
    }

    private func runDestroy() {
        let run = locked { () -> Bool in
            defer { destroyed = true }
            return !destroyed
        }
        if run { destroy?(userData) }
    }

    private func locked<T>(_ body: () -> T) -> T { lock.locked(body) }
}
