import COHKSystem
import Glibc

/// Records copied out of the store back to back in one malloc'd block,
/// with the offset of each: the storage of a `SampleBatch`. Filled by a
/// `RecordBufferWriter` while a query runs, immutable afterwards.
final class RecordBuffer: @unchecked Sendable {
    fileprivate(set) var base: UnsafeMutableRawPointer
    /// Start of each record, plus the end of the last (set by the writer's
    /// `finish`).
    fileprivate(set) var offsets: [UInt32] = []

    fileprivate init(capacity: Int) { base = malloc(capacity)! }
    deinit { FreedMemory.free(base) }

    var count: Int { max(offsets.count - 1, 0) }

    /// Record `i`'s bytes, valid while the buffer lives.
    @inline(__always)
    func record(_ i: Int) -> UnsafeRawBufferPointer {
        let base = self.base
        return offsets.withUnsafeBufferPointer { off in
            UnsafeRawBufferPointer(start: base + Int(off[i]), count: Int(off[i + 1] &- off[i]))
        }
    }

    /// Calls `body` with every record in order.
    @inline(__always)
    func forEachRecord(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        try forEachRecord(in: 0..<count, body)
    }

    /// Calls `body` with the records of `range` (within `0..<count`) in order.
    @inline(__always)
    func forEachRecord(in range: Range<Int>, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        let base = self.base
        try offsets.withUnsafeBufferPointer { off in
            for i in range {
                try body(i, UnsafeRawBufferPointer(start: base + Int(off[i]), count: Int(off[i + 1] &- off[i])))
            }
        }
    }
}

/// Appends to a `RecordBuffer`. The hot state lives in this struct (no
/// dynamic exclusivity checks per record); the buffer owns the memory
/// from the start, so an abandoned writer leaks nothing.
struct RecordBufferWriter {
    let buffer: RecordBuffer
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    private var offsets: [UInt32]

    init(expectedRecords n: Int) {
        capacity = max(n, 4) * RecordCodec.headSize
        buffer = RecordBuffer(capacity: capacity)
        base = buffer.base
        // One allocation (a `[0]` literal and then reserving made two).
        offsets = []
        offsets.reserveCapacity(n + 1)
        offsets.append(0)
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if used + bytes.count > capacity { grow(to: used + bytes.count) }
        (base + used).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        used += bytes.count
        offsets.append(UInt32(used))
    }

    private mutating func grow(to needed: Int) {
        capacity = max(needed, capacity * 2)
        base = realloc(base, capacity)!
        buffer.base = base
    }

    /// The filled buffer; the writer must not be used afterwards.
    func finish() -> RecordBuffer {
        buffer.offsets = offsets
        return buffer
    }
}
