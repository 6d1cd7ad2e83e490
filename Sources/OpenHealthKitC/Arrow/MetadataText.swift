import OpenHealthKitCore
import OpenHealthKitJSON

/// The metadata column of an Arrow table: each row's metadata as a JSON
/// object (`large_utf8`: 64-bit offsets, no limit on the total), null for
/// rows without. The query's writer names only the rows that have some,
/// in increasing order; the rows between get empty, null entries.
final class MetadataText: MetadataColumnWriter, @unchecked Sendable {
    private let offsets: UnsafeMutablePointer<Int64>
    private let validity: UnsafeMutablePointer<UInt8>
    private var bytes: [UInt8] = []
    /// The first row whose start offset is not written yet.
    private var next = 0
    private var written = 0

    init(_ memory: ArrowMemory, capacity: Int) {
        offsets = memory.zeroed(Int64.self, capacity + 1)
        validity = memory.zeroed(UInt8.self, (capacity + 7) / 8)
    }

    func write(row: Int, entries: ((_ key: String, _ value: MetadataValue) -> Void) -> Void) {
        advance(to: row)
        var o = JSONObject(continuing: &bytes)
        entries { k, v in
            switch v {
            case .string(let s): o.add(k, s)
            case .number(let n): o.add(k, exact: n)
            case .bool(let b): o.add(k, bool: b)
            case .date(let d): o.add(k, time: d)
            }
        }
        o.close(into: &bytes)
        validity[row >> 3] |= UInt8(1) << UInt8(row & 7)
        written += 1
        next = row + 1
    }

    /// Start offsets of rows up to `row`.
    private func advance(to row: Int) {
        while next <= row {
            offsets[next] = Int64(bytes.count)
            next += 1
        }
    }

    /// The column of the first `rows` rows.
    func column(_ name: String, rows: Int, _ memory: ArrowMemory) -> ArrowColumn {
        advance(to: rows)
        offsets[rows] = Int64(bytes.count)
        let nulls = rows - written
        return ArrowColumn(name, format: "U", length: rows, nullCount: nulls,
                           buffers: [nulls > 0 ? UnsafeRawPointer(validity) : nil, UnsafeRawPointer(offsets),
                                     UnsafeRawPointer(memory.copy(bytes))], nullable: true)
    }
}
