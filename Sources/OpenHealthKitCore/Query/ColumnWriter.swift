import COHKSystem
import FoundationEssentials
import Glibc

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
    /// Whether the rows are the standard layout's (every C query's),
    /// which `writeRow` writes with constant offsets.
    private let standardRows: Bool

    init(_ out: SampleColumnPointers) {
        self.out = out
        standardRows = out.rows != nil && out.rowLayout == .standard
    }

    /// Writes one sample as row `count`.
    @inline(__always)
    mutating func write(_ r: RecordView, typeIndex: Int) {
        if let rows = out.rows {
            // The number first: as an argument of `writeRow`, a mutation
            // during the call's access, it made Swift copy the writer.
            let source = number(r.sourceID)
            writeRow(r, rows, count, typeIndex: UInt32(truncatingIfNeeded: typeIndex), source: source)
        } else {
            out.write(r, at: count, typeIndex: UInt32(typeIndex), source: number(r.sourceID))
        }
        count += 1
    }

    /// Writes the records `entries` point at as the next rows (the
    /// pipeline's writer), a column at a time over runs of rows short
    /// enough that their records stay in the first-level cache from one
    /// column to the next: a tight loop per column, where a row at a time
    /// tested every column and spilled its pointers.
    mutating func write(_ entries: UnsafePointer<ColumnPipeline.Entry>, count n: Int) {
        var k = 0
        while k < n {
            let m = min(Self.run, n - k)
            writeRun(entries + k, m, ahead: n - k - m)
            k += m
        }
    }

    private static let run = 128
    /// How many rows ahead a record's memory is asked for: it was last
    /// read on the scan's processor.
    private static let lookahead = 24

    /// Rows `e[0..<m]`; `ahead` entries follow them (their records may be
    /// asked for early).
    private mutating func writeRun(_ e: UnsafePointer<ColumnPipeline.Entry>, _ m: Int, ahead: Int) {
        let row = count
        @inline(__always) func record(_ i: Int) -> RecordView {
            RecordView(bytes: UnsafeRawBufferPointer(start: e[i].base, count: Int(e[i].count)))
        }
        let reach = min(m + ahead, m + Self.lookahead)
        if let rows = out.rows {
            // Rows: each record read once, its row written whole.
            for i in 0..<m {
                if i + Self.lookahead < reach {
                    ohk_prefetch(e[i + Self.lookahead].base)
                    ohk_prefetch(e[i + Self.lookahead].base + 40)
                }
                let r = record(i)
                let source = number(r.sourceID)
                writeRow(r, rows, row &+ i, typeIndex: e[i].typeIndex, source: source)
            }
            count += m
            return
        }
        // The sources first, with the records' memory asked for ahead:
        // their numbering is the result's even without a source column.
        let source = out.sourceID
        for i in 0..<m {
            if i + Self.lookahead < reach {
                ohk_prefetch(e[i + Self.lookahead].base)
                ohk_prefetch(e[i + Self.lookahead].base + 40)
            }
            let n = number(record(i).sourceID)
            source?[row &+ i] = n
        }
        // Rows are below `capacity`, so their sums cannot overflow: the
        // wrapping operators leave out a test per row.
        if let p = out.uuid {
            for i in 0..<m { (p + 16 &* (row &+ i)).copyMemory(from: e[i].base, byteCount: 16) }
        }
        if let p = out.startUnixMicroseconds {
            for i in 0..<m { p[row &+ i] = SampleColumnPointers.unixMicroseconds(record(i).start) }
        }
        if let p = out.endUnixMicroseconds {
            for i in 0..<m { p[row &+ i] = SampleColumnPointers.unixMicroseconds(record(i).end) }
        }
        if let p = out.value {
            for i in 0..<m { p[row &+ i] = SampleColumnPointers.value(record(i)) }
        }
        if let p = out.typeIndex {
            for i in 0..<m { p[row &+ i] = e[i].typeIndex }
        }
        if out.flags != nil || out.creationUnixMicroseconds != nil || out.utcOffset != nil
            || out.deviceID != nil || out.metadata != nil {
            for i in 0..<m { out.writeDetails(record(i), at: row &+ i) }
        }
        count += m
    }

    /// Writes `r` as row `i` of `rows`.
    @inline(__always)
    private func writeRow(_ r: RecordView, _ rows: UnsafeMutableRawPointer, _ i: Int, typeIndex: UInt32, source: UInt32) {
        if standardRows {
            let l = SampleRowLayout.standard
            l.write(r, into: rows + i &* l.stride, typeIndex: typeIndex, source: source)
        } else {
            let l = out.rowLayout
            l.write(r, into: rows + i &* l.stride, typeIndex: typeIndex, source: source)
        }
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

extension SampleColumnPointers {
    /// Writes record `r` as row `i`, with `source` in the source column.
    @inline(__always)
    func write(_ r: RecordView, at i: Int, typeIndex: UInt32, source: UInt32) {
        if let p = uuid { (p + 16 * i).copyMemory(from: r.bytes.baseAddress!, byteCount: 16) }
        if let p = startUnixMicroseconds { p[i] = Self.unixMicroseconds(r.start) }
        if let p = endUnixMicroseconds { p[i] = Self.unixMicroseconds(r.end) }
        if let p = value { p[i] = Self.value(r) }
        if let p = self.typeIndex { p[i] = typeIndex }
        if let p = sourceID { p[i] = source }
        writeDetails(r, at: i)
    }

    /// The value column's number for `r`: the quantity in its canonical
    /// unit, or the category value.
    @inline(__always)
    static func value(_ r: RecordView) -> Double { r.isCategory ? Double(r.category) : r.quantity }

    /// The flags column's bits for `r`.
    @inline(__always)
    static func flags(_ r: RecordView) -> UInt32 {
        (r.isCategory ? category : 0) | (r.deviceID != 0 ? hasDevice : 0) | (r.hasMetadata ? hasMetadata : 0)
            | (r.hasCreation ? hasCreationDate : 0) | (r.hasUTCOffset ? hasUTCOffset : 0)
    }

    /// Writes the flags, creation date and UTC offset of `r` as row `i`,
    /// where those columns are asked for.
    @inline(__always)
    func writeDetails(_ r: RecordView, at i: Int) {
        if let p = flags { p[i] = Self.flags(r) }
        if let p = creationUnixMicroseconds {
            p[i] = r.creation.map(Self.unixMicroseconds) ?? Self.noCreationDate
        }
        if let p = utcOffset { p[i] = Int32(r.utcOffset ?? Int(Self.noUTCOffset)) }
        if let p = deviceID { p[i] = r.deviceID }
        if let m = metadata, r.hasMetadata {
            m.write(row: i) { body in try? r.forEachMetadata { k, v in body(k, v); return false } }
        }
    }

    /// Gives the pages of `rows` of every column now, in one call each
    /// (`MADV_POPULATE_WRITE`, Linux 5.14), rather than a fault per page
    /// as the rows are written: a fresh block's pages cost a third less.
    /// Only a hint: the contents stay as they are, and a kernel without it
    /// (or memory that refuses it) leaves the faults to the writes.
    func populate(rows: Range<Int>) {
        func give(_ p: UnsafeMutableRawPointer?, _ size: Int) {
            guard let p, !rows.isEmpty else { return }
            let page = UInt(getpagesize())
            let low = (UInt(bitPattern: p) + UInt(rows.lowerBound * size)) & ~(page - 1)
            let high = UInt(bitPattern: p) + UInt(rows.upperBound * size)
            _ = madvise(UnsafeMutableRawPointer(bitPattern: low), Int(high - low), 23)  // MADV_POPULATE_WRITE
        }
        give(self.rows, rowLayout.stride)
        give(uuid, 16)
        give(startUnixMicroseconds.map(UnsafeMutableRawPointer.init), 8)
        give(endUnixMicroseconds.map(UnsafeMutableRawPointer.init), 8)
        give(value.map(UnsafeMutableRawPointer.init), 8)
        give(typeIndex.map(UnsafeMutableRawPointer.init), 4)
        give(sourceID.map(UnsafeMutableRawPointer.init), 4)
        give(flags.map(UnsafeMutableRawPointer.init), 4)
        give(creationUnixMicroseconds.map(UnsafeMutableRawPointer.init), 8)
        give(utcOffset.map(UnsafeMutableRawPointer.init), 4)
        give(deviceID.map(UnsafeMutableRawPointer.init), 4)
    }

    /// Seconds since 2001 as Unix microseconds, rounded to the nearest.
    @inline(__always)
    static func unixMicroseconds(_ reference: Double) -> Int64 {
        roundedHalfAway((reference + Date.timeIntervalBetween1970AndReferenceDate) * 1e6)
    }

    /// `Int64(x.rounded())` without the libm call (a tenth of a full read
    /// into columns) and without a trap: see `ohk_round_half_away`.
    @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Int64 { ohk_round_half_away(x) }
}
