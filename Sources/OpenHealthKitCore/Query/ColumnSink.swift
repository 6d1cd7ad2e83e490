import Glibc

/// Where a columns query writes its samples: straight into the caller's
/// column arrays as the scan meets them, with no copy of the records in
/// between (`Store.anchoredQuery(_:anchor:limit:into:capacity:)`). Half
/// the memory traffic of a query and a fill, which is what a full read
/// into NumPy costs. A large read writes on a second thread
/// (`ColumnPipeline`) while the scan walks on. A class, which the
/// query's state (`Store.Taken`) refers to: as a 256-byte value inside
/// that state it was copied a dozen times by every delta, which has none.
final class ColumnSink {
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
    func take(_ r: RecordView, typeIndex: Int) -> Bool {
        rows += 1
        if let chunk {
            chunk[filled] = ColumnPipeline.Entry(base: r.bytes.baseAddress!, count: UInt32(truncatingIfNeeded: r.bytes.count),
                                                 typeIndex: UInt32(truncatingIfNeeded: typeIndex))
            filled += 1
            if filled == ColumnPipeline.chunkSize { handOff() }
        } else {
            write(r, typeIndex: typeIndex)
        }
        return isFull
    }

    /// A row written on the scan's thread (kept out of `take`, which the
    /// scan inlines: a pipeline's rows are only a pointer each).
    @inline(never)
    private func write(_ r: RecordView, typeIndex: Int) {
        writer.write(r, typeIndex: typeIndex)
        if rows == ColumnPipeline.chunkSize, holder != nil { start() }
    }

    /// The read has filled a chunk on its own thread: the rest goes to a
    /// pipeline, which carries on with the writer's numbering.
    @inline(never)
    private func start() {
        let pipeline = ColumnPipeline(writer, capacity: capacity)
        holder!.pipeline = pipeline
        chunk = pipeline.nextChunk()
    }

    @inline(never)
    private func handOff() {
        holder!.pipeline!.submit(filled)
        chunk = holder!.pipeline!.nextChunk()
        filled = 0
    }

    /// The writer once every row is written: after the scan, inside its
    /// read (the pipeline reads records in the map).
    func finish() -> ColumnWriter {
        guard let pipeline = holder?.pipeline else { return writer }
        defer { (chunk, filled) = (nil, 0) }
        return pipeline.finish(last: filled)
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

/// What a rows query returns (`Store.anchoredQuery(_:anchor:limit:rows:rowsFrom:)`).
package struct RowsQueryResult: @unchecked Sendable {
    /// The deleted objects, the new anchor, and in `samples` the records
    /// of the samples whose rows leave fields out (metadata, a device, a
    /// payload), with the types and names; every sample's record when
    /// `rows` is nil.
    package let result: AnchoredQueryResult
    /// The rows, malloc'd (the caller gives them to `spare` when done);
    /// nil when the query kept its records instead (a few samples at most).
    package let rows: UnsafeMutableRawPointer?
    /// The store's spare block, which takes `rows` back.
    package let spare: SpareBlock?
    package let count: Int
    /// The store source ids the rows' source numbers stand for.
    package let sourceOrder: [UInt32]
    /// The row of each record in `result.samples`, ascending.
    package let recordRows: [UInt32]
    /// The deleted objects as rows of the query's deleted-row layout, when
    /// it had one and rows: then `result.deletedObjects` holds only the
    /// tombstones of the rows in `deleted.recordRows`.
    package let deleted: DeletedRows?

    /// A result that kept its records.
    init(records: AnchoredQueryResult) {
        (result, rows, spare, count, sourceOrder, recordRows) = (records, nil, nil, records.samples.count, [], [])
        deleted = nil
    }

    init(result: AnchoredQueryResult, rows: UnsafeMutableRawPointer, spare: SpareBlock, count: Int,
         sourceOrder: [UInt32], recordRows: [UInt32], deleted: DeletedRows?) {
        (self.result, self.rows, self.spare) = (result, rows, spare)
        (self.count, self.sourceOrder, self.recordRows, self.deleted) = (count, sourceOrder, recordRows, deleted)
    }

    /// The samples and deleted objects it holds.
    package var objects: Int { count + (deleted?.count ?? result.deletedObjects.count) }

    /// Gives its blocks back to their spares: for a result dropped
    /// unread, as a read in parts drops those read ahead of a stop.
    func giveBack() {
        if let rows { spare?.give(rows) }
        if let d = deleted, let rows = d.rows { d.spare.give(rows) }
    }
}

/// The block of a rows query (`Store.anchoredQuery(_:anchor:limit:rows:rowsFrom:)`):
/// made with its sink once the plan bounds the samples, and freed unless
/// a result takes it.
final class RowsBlock {
    let layout: SampleRowLayout
    /// Where the deleted objects' rows put their fields; nil: the query
    /// keeps its deleted objects as records. (Not a field of the samples'
    /// layout, which every query's state holds a copy of: a delta's state
    /// grew past what the compiler copies inline.)
    let deletedLayout: DeletedRowLayout?
    let rowsFrom: Int
    /// Where the block, and the deleted objects' (`DeletedRowsWriter`),
    /// come from and go back to.
    let spare: SpareBlock
    private var block: UnsafeMutableRawPointer?
    /// The deleted rows' block and what they keep, held here while the
    /// scan writes (its writer holds it unretained).
    private var deleted: DeletedRowsBlock?
    /// The bound the sink was made for.
    private var bound = 0
    /// A pipeline's thread writes into the block: finished before it is freed.
    private var holder: ColumnPipeline.Holder?

    init(_ layout: SampleRowLayout, deleted: DeletedRowLayout?, from rowsFrom: Int, spare: SpareBlock) {
        self.layout = layout
        deletedLayout = deleted
        self.rowsFrom = rowsFrom
        self.spare = spare
    }

    deinit {
        _ = holder?.pipeline?.finish()
        if let block { spare.give(block) }
    }

    /// The sink of a query that returns at most `bound` samples; nil below
    /// `rowsFrom`. Room for one more: a full block would end the result as
    /// a limit does.
    func sink(bound: Int) -> ColumnSink? {
        guard bound >= rowsFrom else { return nil }
        self.bound = bound
        let capacity = bound + 1
        block = spare.take(capacity * layout.stride)
        var out = SampleColumnPointers()
        out.rows = block
        out.rowLayout = layout
        holder = ColumnPipeline.holder(capacity: capacity)
        return ColumnSink(ColumnWriter(out), capacity: capacity, holder: holder)
    }

    /// The result of the read that filled the block (inside the read: the
    /// pipeline reads records in the map); the block goes with it.
    func result(_ taken: Store.Taken, _ store: Store) throws -> RowsQueryResult {
        var taken = taken
        guard let sink = taken.columns, var rows = block else { return RowsQueryResult(records: try store.result(taken)) }
        let written = sink.finish()
        let deleted = taken.deletedRows?.pointee.finish()
        taken.batch.noteSource(through: max(written.maxSourceID, deleted?.sourceIDs.max() ?? 0))
        let result = try store.result(taken)
        block = nil
        if written.count == 0 {
            // A part of deleted objects only: its block goes back now, for
            // the next part's rows, not with the batch (the workload's
            // delete's query kept twice the blocks in hand, 256 of them
            // fresh pages). A row's room stands in; the spare frees it.
            spare.give(rows)
            rows = malloc(max(layout.stride, 1))!
        }
        return RowsQueryResult(result: result, rows: rows, spare: spare, count: written.count,
                               sourceOrder: written.sourceOrder, recordRows: taken.extraRows ?? [], deleted: deleted)
    }

    /// The writer of the deleted objects' rows, when the layout has them
    /// (after `sink` made a sink).
    func deletedWriter() -> UnsafeMutablePointer<DeletedRowsWriter>? {
        guard let l = deletedLayout else { return nil }
        let d = DeletedRowsBlock(l, spare: spare, bound: bound)
        deleted = d
        return d.writer
    }
}
