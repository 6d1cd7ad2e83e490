/// A stored sample's metadata as it is encoded in its record, decoded
/// only when read: most readers never look at metadata, and building a
/// dictionary per sample cost more than the rest of making the sample.
public struct StoredMetadata: Sendable {
    /// The whole record (its head, then the metadata entries), as the
    /// decoder reads it.
    private let record: [UInt8]

    init(record: UnsafeRawBufferPointer) { self.record = Array(record) }

    /// Each entry in turn (in key order), without building a dictionary.
    public func forEach(_ body: (_ key: String, _ value: MetadataValue) -> Void) {
        record.withUnsafeBytes { raw in
            try? RecordView(bytes: raw).forEachMetadata { k, v in body(k, v); return false }
        }
    }
}
