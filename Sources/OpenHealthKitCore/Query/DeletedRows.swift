import COHKSystem
import FoundationEssentials
import Glibc

/// Where each field of a deleted object's row goes, in bytes from the
/// row's start: the layout of a caller's struct (the C library's
/// `ohk_deleted_record`), which the core does not know.
package struct DeletedRowLayout {
    package var stride = 0
    /// 16 bytes.
    package var uuid = 0
    /// Unix seconds (Double).
    package var start = 0, end = 0, deletion = 0
    /// UInt32 each. The source field holds the store's source id: the
    /// caller numbers the sources (`DeletedRows.sourceIDs`).
    package var typeIndex = 0, sourceIndex = 0
    /// A pointer, written NULL, and a Double, written NaN: the sync
    /// identifier and version, which the caller reads from the kept
    /// records of the rows in `DeletedRows.recordRows`.
    package var syncIdentifier = 0, syncVersion = 0

    package init() {}
}

/// A rows query's deleted objects, written as rows as the scan meets
/// their tombstones: a large deleted read (80,000 objects after a purge)
/// copied each tombstone into a buffer, then laid it out from the copy,
/// twice the memory traffic and twice the fresh pages. Only tombstones
/// that kept metadata (a sync identifier or version) are kept as records
/// too, as a rows query keeps the samples whose rows leave fields out.
/// (A class: every rows query's result holds an optional one, a pointer
/// to copy rather than five fields.)
package final class DeletedRows: @unchecked Sendable {
    /// The rows, malloc'd (from the store's spare deleted-rows block, to
    /// which the owner gives them back); nil when there are none.
    package let rows: UnsafeMutableRawPointer?
    package let count: Int
    /// The store source ids the rows use, in the order they first do.
    package let sourceIDs: [UInt32]
    /// The row of each tombstone in the result's `deletedObjects`, ascending.
    package let recordRows: [UInt32]
    /// Where `rows` goes back to.
    package let spare: SpareBlock

    init(rows: UnsafeMutableRawPointer?, count: Int, sourceIDs: [UInt32], recordRows: [UInt32], spare: SpareBlock) {
        (self.rows, self.count, self.sourceIDs, self.recordRows, self.spare) = (rows, count, sourceIDs, recordRows, spare)
    }
}

/// What a scan's deleted rows keep beside their writer: the layout, the
/// block (freed with this when no result took it, so a scan that throws
/// frees it), the sources and the kept tombstones' rows. Its `RowsBlock`
/// holds it for the scan.
final class DeletedRowsBlock {
    let layout: DeletedRowLayout
    let spare: SpareBlock
    /// How many rows the first block holds: a part of a read in parts at
    /// most, so that its block is the spare one, which then never grows.
    let first: Int
    fileprivate var block: UnsafeMutableRawPointer?
    fileprivate var sourceIDs: [UInt32] = []
    fileprivate var recordRows: [UInt32] = []
    /// The scan's writer, here rather than in its query state (`Taken`),
    /// which only points at it: every query's state, copied a few times
    /// per query, stays as small as before deleted rows.
    let writer: UnsafeMutablePointer<DeletedRowsWriter>

    init(_ layout: DeletedRowLayout, spare: SpareBlock, bound: Int) {
        (self.layout, self.spare) = (layout, spare)
        first = max(16, min(bound, 4_096))
        writer = .allocate(capacity: 1)
        writer.initialize(to: DeletedRowsWriter(owner: self))
    }

    deinit {
        writer.deinitialize(count: 1)
        writer.deallocate()
        if let block { spare.give(block) }
    }

    /// The block grown to `bytes` (the spare one first).
    fileprivate func grow(to bytes: Int) -> UnsafeMutableRawPointer {
        if let block, ohk_malloc_size(block) >= bytes { return block }
        let grown = block.map { realloc($0, bytes)! } ?? spare.take(bytes)
        block = grown
        return grown
    }

    /// Whether a store source id is in `sourceIDs`, by id (the writer
    /// asks for every row of a source from 64 on).
    private var noted: [Bool] = []

    /// Notes a store source id the rows use, unless noted already.
    fileprivate func note(source id: UInt32) {
        let i = Int(id)
        if i >= noted.count { noted += repeatElement(false, count: i + 1 - noted.count) }
        guard !noted[i] else { return }
        noted[i] = true
        sourceIDs.append(id)
    }

    /// The `count` rows written; the block goes with them (back to the
    /// spare when there are none).
    fileprivate func finish(count: Int) -> DeletedRows {
        let rows = block
        block = nil
        guard count > 0, let rows else {
            if let rows { spare.give(rows) }
            return DeletedRows(rows: nil, count: 0, sourceIDs: [], recordRows: [], spare: spare)
        }
        return DeletedRows(rows: rows, count: count, sourceIDs: sourceIDs, recordRows: recordRows, spare: spare)
    }
}

/// Writes `DeletedRows` during a scan, from its `DeletedRowsBlock`
/// (plain values only: an optional writer with arrays, held in the query
/// state, was copied with their retains per tombstone).
struct DeletedRowsWriter {
    /// Copied from the owner: read for every row.
    private let layout: DeletedRowLayout
    /// The `DeletedRowsBlock` that holds this writer, unretained.
    private let owner: UnsafeMutableRawPointer
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0
    private var count = 0
    /// Whether a store source id below 64 was noted, a bit each.
    private var seen: UInt64 = 0

    fileprivate init(owner: DeletedRowsBlock) {
        layout = owner.layout
        self.owner = Unmanaged.passUnretained(owner).toOpaque()
    }

    @inline(__always)
    private func withOwner<T>(_ body: (DeletedRowsBlock) throws -> T) rethrows -> T {
        try Unmanaged<DeletedRowsBlock>.fromOpaque(owner)._withUnsafeGuaranteedRef(body)
    }

    /// Writes tombstone `r` as the next row; one that kept metadata goes
    /// to `kept` too. A damaged one is an error, as in a records query.
    @inline(__always)
    mutating func write(_ r: RecordView, typeIndex: Int, keeping kept: inout SampleBatchBuilder?,
                        multiType: Bool) throws {
        if r.hasMetadata || r.hasPayload {
            try keep(r, typeIndex: typeIndex, in: &kept, multiType: multiType)
        } else if r.bytes.count != r.payloadOffset + (r.isChecked ? RecordCheck.size : 0) {
            throw OHKError(.storeCorrupt, "corrupt record in the store")
        }
        if count == capacity { grow() }
        let unix = Date.timeIntervalBetween1970AndReferenceDate
        let row = block! + count &* layout.stride
        (row + layout.uuid).copyMemory(from: r.bytes.baseAddress!, byteCount: 16)
        row.storeBytes(of: r.start + unix, toByteOffset: layout.start, as: Double.self)
        row.storeBytes(of: r.end + unix, toByteOffset: layout.end, as: Double.self)
        row.storeBytes(of: r.deletionDate + unix, toByteOffset: layout.deletion, as: Double.self)
        row.storeBytes(of: UInt32(truncatingIfNeeded: typeIndex), toByteOffset: layout.typeIndex, as: UInt32.self)
        let source = r.sourceID
        row.storeBytes(of: source, toByteOffset: layout.sourceIndex, as: UInt32.self)
        row.storeBytes(of: UInt(0), toByteOffset: layout.syncIdentifier, as: UInt.self)
        row.storeBytes(of: Double.nan, toByteOffset: layout.syncVersion, as: Double.self)
        if source >= 64 || seen & 1 << UInt64(source) == 0 { firstUse(source) }
        count += 1
    }

    /// A tombstone that kept metadata: its record too, for the sync fields.
    @inline(never)
    private func keep(_ r: RecordView, typeIndex: Int, in kept: inout SampleBatchBuilder?, multiType: Bool) throws {
        if kept == nil { kept = SampleBatchBuilder(multiType: multiType, expected: 16) }
        try kept!.append(r, typeIndex: typeIndex)
        withOwner { $0.recordRows.append(UInt32(count)) }
    }

    @inline(never)
    private mutating func firstUse(_ id: UInt32) {
        if id < 64 { seen |= 1 << UInt64(id) }
        withOwner { $0.note(source: id) }
    }

    /// The first block, then one twice as large each time it is full.
    @inline(never)
    private mutating func grow() {
        capacity = block == nil ? withOwner { $0.first } : capacity * 2
        let bytes = capacity * layout.stride
        block = withOwner { $0.grow(to: bytes) }
    }

    /// The rows written; the block goes with them.
    mutating func finish() -> DeletedRows {
        block = nil
        let n = count
        return withOwner { $0.finish(count: n) }
    }
}
