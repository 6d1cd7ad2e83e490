import Glibc
import COHKSystem
import Synchronization

/// A second thread that writes a large columns query's rows while the
/// scan walks the store: the walk (LMDB's cursor, waiting on the records'
/// memory) and the writing (the columns' fresh memory) each take about
/// half of a full read. The scan hands over chunks of record pointers,
/// valid while its read lasts; `finish` waits for the last row. The
/// columns' fresh pages are asked for a step ahead of the rows, by the
/// writer or, while it is behind, by the scan instead of waiting.
final class ColumnPipeline: @unchecked Sendable {
    struct Entry {
        let base: UnsafeRawPointer
        let count: UInt32
        let typeIndex: UInt32
    }
    static let chunkSize = 4096
    /// Chunks in flight: enough that neither side waits on the other's
    /// hiccups, few enough to stay in the caches (64 KB each).
    private static let slots = 4
    /// Columns with room for fewer rows than this are written on the
    /// scan's thread (a thread costs some 50 µs; 64 K rows take
    /// milliseconds); larger ones start a pipeline after their first chunk.
    static let threshold = 1 << 16

    /// Where a read's pipeline is, once started.
    final class Holder {
        var pipeline: ColumnPipeline?
    }

    private let entries: UnsafeMutablePointer<Entry>
    /// Entries in each slot; -1 marks the end.
    private let counts: UnsafeMutablePointer<Int>
    /// Free slots and filled ones (allocated: both threads use them at once).
    private let free = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var produced = 0
    private var writer: ColumnWriter
    private var thread: pthread_t?
    /// The columns, of `capacity` rows.
    private let out: SampleColumnPointers
    private let capacity: Int
    /// The rows the scan wrote itself before the pipeline started.
    private let firstRow: Int
    /// Rows whose pages a thread has asked for (`populateStep`).
    private let populated = Atomic<Int>(0)
    /// Rows whose pages are asked for in one step: one call per column
    /// rather than a fault per page.
    private static let populateRows = 1 << 12

    /// A holder when columns of `capacity` rows may have a pipeline: room
    /// for a large read, and a second processor.
    static func holder(capacity: Int) -> Holder? {
        capacity >= threshold && Processors.several ? Holder() : nil
    }

    /// Starts the writing thread, which carries on from `writer` in
    /// columns of `capacity` rows.
    init(_ writer: ColumnWriter, capacity: Int) {
        self.writer = writer
        out = writer.out
        self.capacity = capacity
        firstRow = writer.count
        populated.store(firstRow, ordering: .relaxed)
        entries = .allocate(capacity: Self.slots * Self.chunkSize)
        counts = .allocate(capacity: Self.slots)
        sem_init(free, 0, UInt32(Self.slots))
        sem_init(ready, 0, 0)
        thread = startThread { [unowned self] in self.consume() }
    }

    deinit {
        sem_destroy(free)
        sem_destroy(ready)
        free.deallocate()
        ready.deallocate()
        entries.deallocate()
        counts.deallocate()
    }

    /// The next slot to fill, once the writer is done with it.
    func nextChunk() -> UnsafeMutablePointer<Entry> {
        // While the writer is behind, the scan gives the pages of the rows
        // it has handed over (a fresh block's faults are a third of the
        // writer's time): the two threads share that work, whichever is free.
        // (Not past the rows of this chunk and one step: a query with a
        // predicate may fill few of its rows.)
        let soon = firstRow + (produced + 1) * Self.chunkSize + Self.populateRows
        while sem_trywait(free) != 0 {
            if !populateStep(below: soon) {
                while sem_wait(free) != 0 {}  // EINTR
                break
            }
        }
        return entries + (produced % Self.slots) * Self.chunkSize
    }

    /// Asks for the pages of the next rows not asked for yet, below
    /// `limit`; false when there are none.
    private func populateStep(below limit: Int) -> Bool {
        let from = populated.load(ordering: .relaxed)
        let to = min(capacity, limit, from + Self.populateRows)
        guard to > from else { return false }
        if populated.compareExchange(expected: from, desired: to, ordering: .relaxed).exchanged {
            out.populate(rows: from..<to)
        }
        return true
    }

    /// Hands over the slot `nextChunk` gave, with `count` entries.
    func submit(_ count: Int) {
        counts[produced % Self.slots] = count
        produced += 1
        sem_post(ready)
    }

    /// Hands over the `last` entries of the slot `nextChunk` gave (none
    /// when a read fails), ends the rows and waits for the writer (once;
    /// later calls return its state at once).
    func finish(last: Int = 0) -> ColumnWriter {
        if let t = thread {
            // The end mark goes in a slot the writer is done with: after a
            // partial chunk, the next slot may still hold unwritten rows.
            if last > 0 { submit(last); _ = nextChunk() }
            counts[produced % Self.slots] = -1
            sem_post(ready)
            pthread_join(t, nil)
            thread = nil
        }
        return writer
    }

    private func consume() {
        var w = writer
        var k = 0
        while true {
            while sem_wait(ready) != 0 {}
            let slot = k % Self.slots
            let n = counts[slot]
            guard n >= 0 else { break }
            let chunk = entries + slot * Self.chunkSize
            // The pages of these rows and of the next step's, unless the
            // scan has given them.
            while populateStep(below: w.count + n + Self.populateRows) {}
            w.write(chunk, count: n)
            k += 1
            sem_post(free)
        }
        writer = w
    }
}
