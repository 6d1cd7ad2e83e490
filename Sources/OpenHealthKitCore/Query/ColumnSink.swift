import FoundationEssentials
import Glibc

/// Where a columns query writes its samples: straight into the caller's
/// column arrays as the scan meets them, with no copy of the records in
/// between (`Store.anchoredQuery(_:anchor:limit:into:capacity:)`). Half
/// the memory traffic of a query and a fill, which is what a full read
/// into NumPy costs. A large read writes on a second thread
/// (`ColumnPipeline`) while the scan walks on.
struct ColumnSink {
    /// Writes the rows itself until a pipeline starts.
    private var writer: ColumnWriter
    /// Rows the arrays have; the scan stops when they are full.
    let capacity: Int
    /// Rows taken (written, or handed to the pipeline).
    private(set) var rows = 0
    /// Where the pipeline goes once the read proves large (a delta of a
    /// few rows starts no thread); nil when the read may not have one.
    private let holder: ColumnPipeline.Holder?
    /// The pipeline's chunk being filled.
    private var chunk: UnsafeMutablePointer<ColumnPipeline.Entry>?
    private var filled = 0

    /// `holder`: where a pipeline may be started; its owner finishes it
    /// before the read ends, however the scan ends.
    init(_ writer: ColumnWriter, capacity: Int, holder: ColumnPipeline.Holder?) {
        self.writer = writer
        self.capacity = capacity
        self.holder = holder
    }

    var isFull: Bool { rows >= capacity }

    /// Takes one sample as the next row; returns whether the columns are
    /// full.
    @inline(__always)
    mutating func take(_ r: RecordView, typeIndex: Int) -> Bool {
        rows += 1
        if let chunk {
            chunk[filled] = ColumnPipeline.Entry(base: r.bytes.baseAddress!, count: UInt32(r.bytes.count),
                                                 typeIndex: UInt32(typeIndex))
            filled += 1
            if filled == ColumnPipeline.chunkSize { handOff() }
        } else {
            writer.write(r, typeIndex: typeIndex)
            if rows == ColumnPipeline.chunkSize, holder != nil { start() }
        }
        return isFull
    }

    /// The read has filled a chunk on its own thread: the rest goes to a
    /// pipeline, which carries on with the writer's numbering.
    @inline(never)
    private mutating func start() {
        let pipeline = ColumnPipeline(writer)
        holder!.pipeline = pipeline
        chunk = pipeline.nextChunk()
    }

    @inline(never)
    private mutating func handOff() {
        holder!.pipeline!.submit(filled)
        chunk = holder!.pipeline!.nextChunk()
        filled = 0
    }

    /// The writer once every row is written: after the scan, inside its
    /// read (the pipeline reads records in the map).
    mutating func finish() -> ColumnWriter {
        guard let pipeline = holder?.pipeline else { return writer }
        defer { (chunk, filled) = (nil, 0) }
        return pipeline.finish(last: filled)
    }
}

/// The rows a columns query has written, and the numbering of their
/// sources (the source column holds positions in `sourceOrder`).
struct ColumnWriter {
    let out: SampleColumnPointers
    private(set) var count = 0
    /// The store's source ids in the order the samples first use them.
    private(set) var sourceOrder: [UInt32] = []
    /// Position in `sourceOrder` + 1 by store source id (0: not used yet).
    private var numbers: [UInt32] = []
    private(set) var maxSourceID: UInt32 = 0

    init(_ out: SampleColumnPointers) { self.out = out }

    /// Writes one sample as row `count`.
    @inline(__always)
    mutating func write(_ r: RecordView, typeIndex: Int) {
        out.write(r, at: count, typeIndex: UInt32(typeIndex), source: number(r.sourceID))
        count += 1
    }

    @inline(__always)
    private mutating func number(_ id: UInt32) -> UInt32 {
        let i = Int(id)
        if i < numbers.count, numbers[i] != 0 { return numbers[i] - 1 }
        return firstUse(id)
    }

    @inline(never)
    private mutating func firstUse(_ id: UInt32) -> UInt32 {
        let i = Int(id)
        if i >= numbers.count { numbers += repeatElement(0, count: i + 1 - numbers.count) }
        sourceOrder.append(id)
        numbers[i] = UInt32(sourceOrder.count)
        maxSourceID = max(maxSourceID, id)
        return numbers[i] - 1
    }
}

/// A second thread that writes a large columns query's rows while the
/// scan walks the store: the walk (LMDB's cursor, waiting on the records'
/// memory) and the writing (the columns' fresh memory) each take about
/// half of a full read. The scan hands over chunks of record pointers,
/// valid while its read lasts; `finish` waits for the last row.
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

    /// A holder when columns of `capacity` rows may have a pipeline: room
    /// for a large read, and a second processor.
    static func holder(capacity: Int) -> Holder? {
        capacity >= threshold && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? Holder() : nil
    }

    /// Starts the writing thread, which carries on from `writer`.
    init(_ writer: ColumnWriter) {
        self.writer = writer
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
        while sem_wait(free) != 0 {}  // EINTR
        return entries + (produced % Self.slots) * Self.chunkSize
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
            for i in 0..<n {
                let e = chunk[i]
                w.write(RecordView(bytes: UnsafeRawBufferPointer(start: e.base, count: Int(e.count))), typeIndex: Int(e.typeIndex))
            }
            k += 1
            sem_post(free)
        }
        writer = w
    }
}

/// What a columns query returns besides its columns.
package struct ColumnsQueryResult: Sendable {
    /// The deleted objects, the new anchor, and (in `samples`, which holds
    /// no records) the types and the names the source ids resolve through.
    package let result: AnchoredQueryResult
    /// Rows written to the columns.
    package let count: Int
    /// The store source ids the source column's numbers stand for.
    package let sourceOrder: [UInt32]
}

extension SampleColumnPointers {
    /// Writes record `r` as row `i`, with `source` in the source column.
    @inline(__always)
    func write(_ r: RecordView, at i: Int, typeIndex: UInt32, source: UInt32) {
        if let p = uuid { (p + 16 * i).copyMemory(from: r.bytes.baseAddress!, byteCount: 16) }
        if let p = startUnixMicroseconds { p[i] = Self.unixMicroseconds(r.start) }
        if let p = endUnixMicroseconds { p[i] = Self.unixMicroseconds(r.end) }
        if let p = value { p[i] = r.isCategory ? Double(r.category) : r.quantity }
        if let p = self.typeIndex { p[i] = typeIndex }
        if let p = sourceID { p[i] = source }
        if let p = flags {
            p[i] = (r.isCategory ? Self.category : 0)
                | (r.deviceID != 0 ? Self.hasDevice : 0)
                | (r.hasMetadata ? Self.hasMetadata : 0)
                | (r.hasCreation ? Self.hasCreationDate : 0)
                | (r.hasUTCOffset ? Self.hasUTCOffset : 0)
        }
        if let p = creationUnixMicroseconds {
            p[i] = r.creation.map(Self.unixMicroseconds) ?? Self.noCreationDate
        }
        if let p = utcOffset { p[i] = Int32(r.utcOffset ?? Int(Self.noUTCOffset)) }
    }

    /// Seconds since 2001 as Unix microseconds, rounded to the nearest.
    @inline(__always)
    static func unixMicroseconds(_ reference: Double) -> Int64 {
        roundedHalfAway((reference + Date.timeIntervalBetween1970AndReferenceDate) * 1e6)
    }

    /// `Int64(x.rounded())` without the libm call (a tenth of a full read
    /// into columns): adding the double just below ½ and truncating rounds
    /// every value half away from zero, as `rounded()` does.
    @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Int64 {
        Int64(x + (x < 0 ? -0.49999999999999994 : 0.49999999999999994))
    }
}
