import CLMDB

/// The zone map (format 3): for each type and each block of 4,096
/// positions of the change order, the least and the greatest start time of
/// the type's records appended in that block. A query from an anchor with
/// a start range walks only the blocks whose range meets it (a block range
/// index, BRIN in PostgreSQL's words): the changes since an anchor far from
/// the range cost a lookup per block instead of a read per change, and a
/// range in time-ordered data is read as one contiguous walk. A block's
/// range only widens: a deleted or pruned record leaves it as it was, and
/// it still holds every record that remains there.
enum ZoneMap {
    /// log2 of the positions per block.
    static let shift: UInt64 = 12

    static func block(of seq: UInt64) -> UInt64 { seq >> shift }
    static func firstPosition(of block: UInt64) -> UInt64 { block << shift }

    /// The `zones` key of a type's block: type id, then block, big-endian.
    static func key(type: UInt16, block: UInt64) -> [UInt8] {
        var w = [UInt8]()
        w.reserveCapacity(10)
        withUnsafeBytes(of: type.bigEndian) { w.append(contentsOf: $0) }
        withUnsafeBytes(of: block.bigEndian) { w.append(contentsOf: $0) }
        return w
    }

    static func decodeKey(_ k: UnsafeRawBufferPointer) throws -> (type: UInt16, block: UInt64) {
        guard k.count == 10 else { throw OHKError(.storeCorrupt, "corrupt zone map key") }
        return (UInt16(bigEndian: k.loadUnaligned(as: UInt16.self)),
                UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 2, as: UInt64.self)))
    }

    static func decodeRange(_ v: UnsafeRawBufferPointer) throws -> ClosedRange<Double> {
        guard v.count == 16 else { throw OHKError(.storeCorrupt, "corrupt zone map entry") }
        let lo = Double(bitPattern: UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)))
        let hi = Double(bitPattern: UInt64(littleEndian: v.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        guard lo <= hi else { throw OHKError(.storeCorrupt, "corrupt zone map entry") }
        return lo...hi
    }

    /// Widens a block's range to hold `range`.
    static func widen(_ txn: Txn, _ zones: MDB_dbi, type: UInt16, block: UInt64, _ range: ClosedRange<Double>) throws {
        try key(type: type, block: block).withUnsafeBytes { key in
            var lo = range.lowerBound, hi = range.upperBound
            if let v = try txn.get(zones, key) {
                let stored = try decodeRange(v)
                lo = min(lo, stored.lowerBound)
                hi = max(hi, stored.upperBound)
            }
            try withUnsafeBytes(of: (lo.bitPattern.littleEndian, hi.bitPattern.littleEndian)) { v in
                _ = try txn.put(zones, key, v)
            }
        }
    }

    /// Maps a type's records at `from` or later (all of them for a store
    /// written before format 3; those a format-2 library appended past
    /// the zone head otherwise).
    static func build(_ txn: Txn, _ zones: MDB_dbi, type: UInt16, records: MDB_dbi, from: UInt64 = 0) throws {
        let cursor = try txn.cursor(records)
        defer { cursor.close() }
        var current: (block: UInt64, range: ClosedRange<Double>)?
        var entry = try cursor.seek(atLeast: from)
        while let (seq, raw) = entry {
            let start = try RecordView(stored: raw).start
            let b = block(of: seq)
            // A start that is not a number (only a damaged record has one)
            // meets no start range: leave it out rather than trap.
            if start.isNaN { entry = try cursor.next(); continue }
            if let c = current, c.block == b {
                current = (b, min(c.range.lowerBound, start)...max(c.range.upperBound, start))
            } else {
                if let c = current { try widen(txn, zones, type: type, block: c.block, c.range) }
                current = (b, start...start)
            }
            entry = try cursor.next()
        }
        if let c = current { try widen(txn, zones, type: type, block: c.block, c.range) }
    }
}

/// The blocks a write transaction appended to, per type, with the range
/// of starts it appended there; written to the zone map when it ends.
struct PendingZones {
    private var entries: [(type: UInt16, block: UInt64, range: ClosedRange<Double>)] = []

    /// Notes a record of `type` appended at `seq` with `start`.
    @inline(__always)
    mutating func note(type: UInt16, seq: UInt64, start: Double) {
        let b = ZoneMap.block(of: seq)
        // Appends go forward, so the block is among the last few entries.
        var i = entries.count - 1
        while i >= 0 && i >= entries.count - 4 {
            if entries[i].type == type && entries[i].block == b {
                let r = entries[i].range
                if !r.contains(start) { entries[i].range = min(r.lowerBound, start)...max(r.upperBound, start) }
                return
            }
            i -= 1
        }
        entries.append((type, b, start...start))
    }

    mutating func flush(_ txn: Txn, _ zones: MDB_dbi) throws {
        // A block met twice (types interleaving beyond the last four) widens twice: same result.
        for e in entries { try ZoneMap.widen(txn, zones, type: e.type, block: e.block, e.range) }
        entries.removeAll(keepingCapacity: true)
    }
}
