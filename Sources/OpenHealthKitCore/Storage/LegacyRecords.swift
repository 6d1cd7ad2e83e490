import FoundationEssentials

/// Records in the layout of formats 2–18, rewritten in today's when a
/// store of that layout is opened (`Schema.MetaKey.recordLayout`).
///
/// The old head was 48 bytes: uuid, start, end, value, source (UInt32),
/// then the device and flags word at offset 44. Today's puts the word at
/// offset 24, before the fields whose width it announces
/// (`RecordCodec.flagCompact`). What follows the head (creation date, UTC
/// offset, payload, metadata) is the same; the check is computed again.
enum LegacyRecords {
    /// The layout `record_layout` names for today's records: 3, a compact
    /// head's device id in 22 bits and the value's scale in 2. (Layout 2,
    /// formats 19 and 20, kept the device id in 24: `narrowDevices`.)
    static let currentLayout: UInt64 = 3
    private static let oldHead = 48

    /// Rewrites every record of every type, in place through a cursor
    /// (one record in memory at a time).
    static func convert(_ txn: Txn, _ cache: StoreCache) throws {
        for (_, t) in cache.typeTrees {
            let c = try txn.cursor(t.records)
            defer { c.close() }
            var entry = try c.firstEntry()
            while let (k, v) = entry {
                guard k.count == 8 else { throw OHKError(.storeCorrupt, "a record key of \(k.count) bytes") }
                let key = Array(k), bytes = try record(v)
                try key.withUnsafeBytes { k in try bytes.withUnsafeBytes { v in _ = try c.put(k, v) } }
                entry = try c.nextEntry()
            }
        }
    }

    /// Brings layout 2's records to layout 3: a compact head whose device
    /// id needs more than 22 bits is rewritten as a full head (its other
    /// fields as they were). None does unless the store has interned more
    /// than 2^22 devices, which its counter says, so nothing is read.
    static func narrowDevices(_ txn: Txn, _ trees: FixedTrees, _ cache: StoreCache) throws {
        guard try txn.metaU64(trees, .nextDevice) > UInt64(RecordCodec.compactDeviceMask) else { return }
        for (_, t) in cache.typeTrees {
            let c = try txn.cursor(t.records)
            defer { c.close() }
            var entry = try c.firstEntry()
            while let (k, v) = entry {
                if let bytes = try widened(v) {
                    let key = Array(k)
                    try key.withUnsafeBytes { k in try bytes.withUnsafeBytes { v in _ = try c.put(k, v) } }
                }
                entry = try c.nextEntry()
            }
        }
    }

    /// A layout-2 compact record whose device id needs 24 bits, with a
    /// full head; nil for any other record.
    static func widened(_ old: UnsafeRawBufferPointer) throws -> [UInt8]? {
        let head = RecordCodec.compactHeadSize
        guard old.count >= head else { throw OHKError(.storeCorrupt, "a record of \(old.count) bytes in the store") }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: old.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        let word = u32(24)
        guard word & RecordCodec.flagCompact != 0, word & RecordCodec.deviceMask > RecordCodec.compactDeviceMask else { return nil }
        let tail = old.count - (word & RecordCodec.flagChecked != 0 ? RecordCheck.size : 0)
        guard tail >= head else { throw OHKError(.storeCorrupt, "a record of \(old.count) bytes in the store") }
        let start = Double(bitPattern: UInt64(littleEndian: old.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
        let value = word & RecordCodec.flagCategory != 0 ? UInt64(bitPattern: Int64(Int32(bitPattern: u32(32))))
            : Double(Float(bitPattern: u32(32))).bitPattern
        var w = ByteWriter(capacity: old.count + 10)
        RecordCodec.appendHead(&w, uuid: old.loadUnaligned(as: uuid_t.self), start: start,
                               end: start + Double(Float(bitPattern: u32(28))), value: value,
                               sourceID: UInt32(UInt16(littleEndian: old.loadUnaligned(fromByteOffset: 36, as: UInt16.self))),
                               word: word & ~RecordCodec.flagCompact | RecordCodec.flagChecked)
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: old[head..<tail]))
        RecordCodec.appendCheck(&w, from: 0)
        return w.bytes
    }

    /// One record in today's layout.
    static func record(_ old: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard old.count >= oldHead else { throw OHKError(.storeCorrupt, "a record of \(old.count) bytes in the store") }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: old.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: old.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        let word = u32(44)
        let tail = old.count - (word & RecordCodec.flagChecked != 0 ? RecordCheck.size : 0)
        guard tail >= oldHead else { throw OHKError(.storeCorrupt, "a record of \(old.count) bytes in the store") }
        var w = ByteWriter(capacity: old.count)
        RecordCodec.appendHead(&w, uuid: old.loadUnaligned(as: uuid_t.self), start: Double(bitPattern: u64(16)),
                               end: Double(bitPattern: u64(24)), value: u64(32), sourceID: u32(40),
                               word: word | RecordCodec.flagChecked)
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: old[oldHead..<tail]))
        RecordCodec.appendCheck(&w, from: 0)
        return w.bytes
    }
}
