import Glibc

/// A mutex with one condition variable, for the live queries' small state
/// machines (stop waits until a running handler returns).
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// A recursive monitor may be locked again by the thread holding it
    /// (never while waiting).
    init(recursive: Bool = false) {
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        if recursive { pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked`: releases the lock until `broadcast`, then retakes it.
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Inside `locked`: like `wait`, but gives up at `deadline`
    /// (CLOCK_REALTIME); false when it timed out.
    func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(cond, mutex, &d) != ETIMEDOUT
    }

    /// Inside `locked`.
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// Starts a detached-from-Swift pthread running `body`; join it with
/// `pthread_join`.
func startThread(_ body: @escaping () -> Void) -> pthread_t {
    final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}
