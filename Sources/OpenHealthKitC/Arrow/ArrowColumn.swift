/// One column of an Arrow table (or the struct of its columns, or a
/// dictionary) as the C Data Interface lays it out: a format string, a
/// length, buffers in the format's order (validity first), children.
/// The buffers point into an `ArrowMemory` the export keeps alive.
final class ArrowColumn {
    let name: String
    /// The format string (`"g"`, `"tsu:UTC"`, `"w:16"`, `"+s"`…).
    let format: String
    let length: Int
    let nullCount: Int
    let buffers: [UnsafeRawPointer?]
    let children: [ArrowColumn]
    /// A dictionary-encoded column's values (its own buffers are the indices).
    let dictionary: ArrowColumn?
    /// Key-value pairs of the field's metadata (`unit`, the library's version).
    let metadata: [(String, String)]
    let nullable: Bool

    init(_ name: String, format: String, length: Int, nullCount: Int = 0, buffers: [UnsafeRawPointer?],
         children: [ArrowColumn] = [], dictionary: ArrowColumn? = nil, metadata: [(String, String)] = [],
         nullable: Bool = false) {
        self.name = name
        self.format = format
        self.length = length
        self.nullCount = nullCount
        self.buffers = buffers
        self.children = children
        self.dictionary = dictionary
        self.metadata = metadata
        self.nullable = nullable || nullCount > 0
    }

    /// A table: a struct column of `columns`, all of `length` rows.
    static func table(_ columns: [ArrowColumn], length: Int, metadata: [(String, String)] = []) -> ArrowColumn {
        ArrowColumn("", format: "+s", length: length, buffers: [nil], children: columns, metadata: metadata)
    }

    /// A column of UTF-8 strings (`"u"`, 32-bit offsets); nil entries are nulls.
    static func strings(_ name: String, _ values: [String?], _ memory: ArrowMemory) -> ArrowColumn {
        var bytes: [UInt8] = []
        let offsets = memory.zeroed(Int32.self, values.count + 1)
        var validity = ValidityBitmap(memory, rows: values.count)
        for (i, v) in values.enumerated() {
            if let v { bytes.append(contentsOf: v.utf8) }
            validity.set(i, valid: v != nil)
            offsets[i + 1] = Int32(bytes.count)
        }
        return ArrowColumn(name, format: "u", length: values.count, nullCount: validity.nullCount,
                           buffers: [validity.nullCount > 0 ? UnsafeRawPointer(validity.bits) : nil,
                                     UnsafeRawPointer(offsets), UnsafeRawPointer(memory.copy(bytes))])
    }

    /// A dictionary-encoded string column: `indices` (int32, `length`
    /// rows; `validity` nil when every row has a value) into `values`.
    /// A row is null through `validity`, never through its entry: Parquet
    /// writers refuse a null in a dictionary, so a nil entry (which no
    /// valid row may use) is written as "".
    static func dictionary(_ name: String, indices: UnsafeRawPointer, length: Int, validity: ValidityBitmap? = nil,
                           values: [String?], _ memory: ArrowMemory) -> ArrowColumn {
        let nulls = validity?.nullCount ?? 0
        return ArrowColumn(name, format: "i", length: length, nullCount: nulls,
                           buffers: [nulls > 0 ? UnsafeRawPointer(validity!.bits) : nil, indices],
                           dictionary: strings("", values.map { $0 ?? "" }, memory), nullable: validity != nil)
    }
}
