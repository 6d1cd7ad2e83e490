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
package struct DeletedRows: @unchecked Sendable {
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
}

/// Writes `DeletedRows` during a scan, into a block its `RowsBlock`
/// owns until the result takes it (so a scan that throws frees it).
struct DeletedRowsWriter {
    let layout: DeletedRowLayout
    /// Nil for the writer of a query without deleted rows, which is
    /// never written to (a query's `Taken` holds one either way: an
    /// optional writer was copied, with a retain of its arrays, per row).
    private unowned(unsafe) let owner: RowsBlock?
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0
    private var count = 0
    private var sourceIDs: [UInt32] = []
    /// Whether a store source id below 64 is in `sourceIDs`, a bit each
    /// (larger ids are looked for in it).
    private var seen: UInt64 = 0
    private(set) var maxSourceID: UInt32 = 0
    private var recordRows: [UInt32] = []
    /// How many rows the first block holds: a part of a read in parts at
    /// most, so that its block is the spare one, which then never grows.
    private let first: Int

    init(_ layout: DeletedRowLayout, owner: RowsBlock, bound: Int) {
        self.layout = layout
        self.owner = owner
        first = max(16, min(bound, 4_096))
    }

    /// A writer that writes nothing: a query without deleted rows.
    init() {
        (layout, owner, first) = (DeletedRowLayout(), nil, 0)
    }

    /// Writes tombstone `r` as the next row; one that kept metadata goes
    /// to `kept` too. A damaged one is an error, as in a records query.
    @inline(__always)
    mutating func write(_ r: RecordView, typeIndex: Int, keeping kept: inout SampleBatchBuilder?,
                        multiType: Bool) throws {
        if r.hasMetadata || r.hasPayload {
            if kept == nil { kept = SampleBatchBuilder(multiType: multiType, expected: 16) }
            try kept!.append(r, typeIndex: typeIndex)
            recordRows.append(UInt32(count))
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

    @inline(never)
    private mutating func firstUse(_ id: UInt32) {
        if id < 64 {
            seen |= 1 << UInt64(id)
        } else if sourceIDs.contains(id) {
            return
        }
        sourceIDs.append(id)
        maxSourceID = max(maxSourceID, id)
    }

    /// The first block, then one twice as large each time it is full.
    @inline(never)
    private mutating func grow() {
        capacity = block == nil ? first : capacity * 2
        block = owner!.deletedBlock(bytes: capacity * layout.stride)
    }

    /// The rows written; the block goes with them (back to the spare when
    /// there are none).
    mutating func finish() -> DeletedRows? {
        guard let owner else { return nil }
        let rows = owner.takeDeletedBlock()
        block = nil
        guard count > 0, let rows else {
            if let rows { owner.deletedSpare.give(rows) }
            return DeletedRows(rows: nil, count: 0, sourceIDs: [], recordRows: [], spare: owner.deletedSpare)
        }
        return DeletedRows(rows: rows, count: count, sourceIDs: sourceIDs, recordRows: recordRows,
                           spare: owner.deletedSpare)
    }
}
