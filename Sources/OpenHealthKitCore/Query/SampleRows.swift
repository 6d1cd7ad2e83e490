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
}

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
        guard range.count >= Self.rowsForTwoThreads, sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 else {
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
        let unix = Date.timeIntervalBetween1970AndReferenceDate
        let l = layout
        typeIndex.withUnsafeBufferPointer { types in
            records.forEachRecord(in: range) { i, raw in
                let r = RecordView(bytes: raw)
                let row = out + (i &- range.lowerBound) &* l.stride
                (row + l.uuid).copyMemory(from: raw.baseAddress!, byteCount: 16)
                row.storeBytes(of: r.start + unix, toByteOffset: l.start, as: Double.self)
                row.storeBytes(of: r.end + unix, toByteOffset: l.end, as: Double.self)
                row.storeBytes(of: SampleColumnPointers.value(r), toByteOffset: l.value, as: Double.self)
                row.storeBytes(of: types.isEmpty ? 0 : UInt32(types[i]), toByteOffset: l.typeIndex, as: UInt32.self)
                row.storeBytes(of: sourceNumbers[Int(r.sourceID)], toByteOffset: l.sourceIndex, as: UInt32.self)
                row.storeBytes(of: SampleColumnPointers.flags(r), toByteOffset: l.flags, as: UInt32.self)
                row.storeBytes(of: Int32(truncatingIfNeeded: r.utcOffset ?? 0), toByteOffset: l.utcOffset, as: Int32.self)
                row.storeBytes(of: r.creation.map { $0 + unix } ?? .nan, toByteOffset: l.creation, as: Double.self)
            }
        }
    }
}
