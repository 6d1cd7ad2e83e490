import Dispatch
import Synchronization

/// A bounded queue between two threads: `put` waits while `capacity`
/// items are in flight, so the reader can run ahead of the writer by a
/// few chunks but memory stays bounded whatever the export's size.
final class Handoff<Item: Sendable>: Sendable {
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private let queue = Mutex<[Item]>([])

    init(capacity: Int) {
        slots = DispatchSemaphore(value: capacity)
    }

    func put(_ item: Item) {
        slots.wait()
        queue.withLock { $0.append(item) }
        items.signal()
    }

    func take() -> Item {
        items.wait()
        let item = queue.withLock { $0.removeFirst() }
        slots.signal()
        return item
    }
}
