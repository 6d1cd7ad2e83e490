import Dispatch
import Glibc

/// A bounded queue between two threads: `put` waits while `capacity`
/// items are in flight, so the reader can run ahead of the writer by a
/// few chunks but memory stays bounded whatever the export's size.
///
/// The queue is guarded by a pthread mutex rather than Synchronization's
/// `Mutex`: ThreadSanitizer sees the pthread lock's ordering, and reported
/// `put` and `take` as racing under the other (make test-sanitize).
final class Handoff<Item: Sendable>: @unchecked Sendable {
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var queue: [Item] = []

    init(capacity: Int) {
        slots = DispatchSemaphore(value: capacity)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func put(_ item: Item) {
        slots.wait()
        pthread_mutex_lock(lock)
        queue.append(item)
        pthread_mutex_unlock(lock)
        items.signal()
    }

    /// Adds the last item without waiting for a slot (it holds little):
    /// the putting thread goes on to other work while the taker catches up.
    func putLast(_ item: Item) {
        pthread_mutex_lock(lock)
        queue.append(item)
        pthread_mutex_unlock(lock)
        items.signal()
    }

    func take() -> Item {
        items.wait()
        pthread_mutex_lock(lock)
        let item = queue.removeFirst()
        pthread_mutex_unlock(lock)
        slots.signal()
        return item
    }
}
