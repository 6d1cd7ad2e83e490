import FoundationEssentials
import COHKSystem
import Glibc

/// Where each field of a sample's row goes, in bytes from the row's
/// start: the layout of a caller's record struct (the C library's
/// `ohk_sample_record`), which the core does not know.
package struct SampleRowLayout {
    package var stride = 0
    /// 16 bytes.
    package var uuid = 0
    /// Unix seconds (Double).
    package var start = 0, end = 0
    /// The quantity in its canonical unit, or the category value (Double).
    package var value = 0
    /// UInt32 each.
    package var typeIndex = 0, sourceIndex = 0, flags = 0
    /// Seconds east of UTC (Int32), 0 when the sample has none.
    package var utcOffset = 0
    /// Unix seconds (Double), NaN when the sample has none.
    package var creation = 0

    package init() {}

    /// The C library's row (`ohk_sample_record`, which its ABI fixes; the
    /// C module checks that its layout is this one). A computed value, so
    /// that a write through it has its offsets as constants: read from the
    /// layout each row, they were ten loads and as many spills a sample.
    @inline(__always)
    package static var standard: SampleRowLayout {
        var l = SampleRowLayout()
        (l.stride, l.uuid, l.start, l.end, l.value) = (64, 0, 16, 24, 32)
        (l.typeIndex, l.sourceIndex, l.flags, l.utcOffset, l.creation) = (40, 44, 48, 52, 56)
        return l
    }
}

extension SampleRowLayout: Equatable {}

extension SampleBatch {
    /// Writes the samples of `range` as rows of `layout` from `out` on, in
    /// one tight pass over their records: the flags are the columns'
    /// (`SampleColumnPointers.category` …) and a source id becomes
    /// `sourceNumbers[id]`. Through `forEach`, each field's optional and
    /// each UUID's conversion were a sixth of a batched read through C.
    package func writeRows(_ range: Range<Int>, into out: UnsafeMutableRawPointer, _ layout: SampleRowLayout,
                           sourceNumbers: UnsafePointer<UInt32>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        // A large batch is laid out by two threads, half each: the rows'
        // fresh pages (the kernel's zeroing and faults) are most of it.
        guard range.count >= Self.rowsForTwoThreads, Processors.several else {
            writeRowsHere(range, into: out, layout, sourceNumbers: sourceNumbers)
            return
        }
        let middle = range.lowerBound + range.count / 2
        let second = startThread {
            self.writeRowsHere(middle..<range.upperBound, into: out + (middle - range.lowerBound) * layout.stride, layout,
                               sourceNumbers: sourceNumbers)
        }
        writeRowsHere(range.lowerBound..<middle, into: out, layout, sourceNumbers: sourceNumbers)
        pthread_join(second, nil)
    }

    /// Rows from this many on are written by two threads (a thread costs
    /// some 50 µs; 64 K rows take milliseconds).
    static let rowsForTwoThreads = 1 << 16

    private func writeRowsHere(_ range: Range<Int>, into out: UnsafeMutableRawPointer, _ layout: SampleRowLayout,
                               sourceNumbers: UnsafePointer<UInt32>) {
        let l = layout
        typeIndex.withUnsafeBufferPointer { types in
            records.forEachRecord(in: range) { i, raw in
                let r = RecordView(bytes: raw)
                l.write(r, into: out + (i &- range.lowerBound) &* l.stride, typeIndex: types.isEmpty ? 0 : UInt32(types[i]),
                        source: sourceNumbers[Int(r.sourceID)])
            }
        }
    }
}

extension SampleRowLayout {
    /// Writes `r` as the row at `row`.
    @inline(__always)
    func write(_ r: RecordView, into row: UnsafeMutableRawPointer, typeIndex: UInt32, source: UInt32) {
        // Every field read before the first store: the row might overlap
        // the record as far as the compiler knows, so a store between two
        // reads made it load the record's word again for each field.
        let unix = Date.timeIntervalBetween1970AndReferenceDate
        let (s, e, v) = (r.start + unix, r.end + unix, SampleColumnPointers.value(r))
        let f = SampleColumnPointers.flags(r)
        let offset = Int32(truncatingIfNeeded: r.utcOffset ?? 0)
        let c = r.creation.map { $0 + unix } ?? .nan
        (row + uuid).copyMemory(from: r.bytes.baseAddress!, byteCount: 16)
        row.storeBytes(of: s, toByteOffset: start, as: Double.self)
        row.storeBytes(of: e, toByteOffset: end, as: Double.self)
        row.storeBytes(of: v, toByteOffset: value, as: Double.self)
        row.storeBytes(of: typeIndex, toByteOffset: self.typeIndex, as: UInt32.self)
        row.storeBytes(of: source, toByteOffset: sourceIndex, as: UInt32.self)
        row.storeBytes(of: f, toByteOffset: flags, as: UInt32.self)
        row.storeBytes(of: offset, toByteOffset: utcOffset, as: Int32.self)
        row.storeBytes(of: c, toByteOffset: creation, as: Double.self)
    }
}

extension SampleColumnPointers {
    /// Writes the columns of rows `0..<count` of a rows query
    /// (`RowsQueryResult`): from each row, or for the rows in
    /// `recordRows` from their record in `records` (which has what the row
    /// leaves out), in row order. The source column gets the rows' numbers.
    package func fill(rows: UnsafeRawPointer, _ layout: SampleRowLayout, count: Int,
                      records: SampleBatch, recordRows: [UInt32]) {
        var k = 0
        for i in 0..<count {
            let row = rows + i &* layout.stride
            let source = row.loadUnaligned(fromByteOffset: layout.sourceIndex, as: UInt32.self)
            if k < recordRows.count, Int(recordRows[k]) == i {
                records.writeColumns(record: k, into: self, at: i, source: source)
                k += 1
                continue
            }
            let flags = row.loadUnaligned(fromByteOffset: layout.flags, as: UInt32.self)
            if let p = uuid { (p + 16 * i).copyMemory(from: row + layout.uuid, byteCount: 16) }
            if let p = startUnixMicroseconds { p[i] = Self.roundedHalfAway(row.loadUnaligned(fromByteOffset: layout.start, as: Double.self) * 1e6) }
            if let p = endUnixMicroseconds { p[i] = Self.roundedHalfAway(row.loadUnaligned(fromByteOffset: layout.end, as: Double.self) * 1e6) }
            if let p = value { p[i] = row.loadUnaligned(fromByteOffset: layout.value, as: Double.self) }
            if let p = typeIndex { p[i] = row.loadUnaligned(fromByteOffset: layout.typeIndex, as: UInt32.self) }
            if let p = sourceID { p[i] = source }
            if let p = self.flags { p[i] = flags }
            if let p = creationUnixMicroseconds {
                let c = row.loadUnaligned(fromByteOffset: layout.creation, as: Double.self)
                p[i] = flags & Self.hasCreationDate != 0 ? Self.roundedHalfAway(c * 1e6) : Self.noCreationDate
            }
            if let p = utcOffset {
                p[i] = flags & Self.hasUTCOffset != 0 ? row.loadUnaligned(fromByteOffset: layout.utcOffset, as: Int32.self) : Self.noUTCOffset
            }
            if let p = deviceID { p[i] = 0 }  // a sample with a device is kept as a record
        }
    }
}

extension SampleBatch {
    /// Writes record `k` as row `row` of `c`, with `source` in its source column.
    func writeColumns(record k: Int, into c: SampleColumnPointers, at row: Int, source: UInt32) {
        withExtendedLifetime(records) {
            c.write(RecordView(bytes: records.record(k)), at: row, typeIndex: typeIndex.isEmpty ? 0 : UInt32(typeIndex[k]),
                    source: source)
        }
    }
}
