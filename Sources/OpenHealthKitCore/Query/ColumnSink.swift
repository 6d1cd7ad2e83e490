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
    private mutating func write(_ r: RecordView, typeIndex: Int) {
        writer.write(r, typeIndex: typeIndex)
        if rows == ColumnPipeline.chunkSize, holder != nil { start() }
    }

    /// The read has filled a chunk on its own thread: the rest goes to a
    /// pipeline, which carries on with the writer's numbering.
    @inline(never)
    private mutating func start() {
        let pipeline = ColumnPipeline(writer, capacity: capacity)
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
