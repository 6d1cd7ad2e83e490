/// One bucket of the UUID index's hashed part (`uuid_hash_buckets`, format
/// 21; `UUIDIndex`): its entries, each a UUID's 32-bit hash and the packed
/// type id and position of its record, in hash order.
///
/// Stored as one value per bucket: per entry, the hash's difference from
/// the one before (the first's from the bucket's key, which no hash of the
/// bucket is below), the type id and the position, each a LEB128 varint;
/// then an `EntryCheck` of the key and those bytes. About 6 bytes an entry
/// at a million samples, where format 20's fixed-size duplicates took 10
/// and their sub-pages' slack more: the hashed part went from 17 to about
/// 9 bytes a UUID.
enum UUIDHashBucket {
    struct Entry: Equatable {
        var hash: UInt32
        /// `Schema.pack(type:seq:)`.
        var value: UInt64
    }

    static let corrupt = OHKError(.storeCorrupt, "a bucket of the UUID index is damaged (ohk check tells what is damaged)")

    /// Calls `body` with each entry of the bucket under `key` stored as
    /// `raw`, in hash order, until it returns true. Throws `.storeCorrupt`
    /// when the check does not match or the bytes do not parse.
    static func forEach(_ key: UInt32, _ raw: UnsafeRawBufferPointer, _ body: (Entry) throws -> Bool) throws {
        let bytes = try withKey(key) { k -> UnsafeRawBufferPointer in
            guard let v = EntryCheck.valid(k, raw) else { throw corrupt }
            return v
        }
        var r = Reader(bytes: bytes)
        var hash = UInt64(key)
        while r.at < bytes.count {
            hash += try r.varint()
            let type = try r.varint(), seq = try r.varint()
            guard hash <= UInt64(UInt32.max), type <= UInt64(UInt16.max), seq < 1 << 48 else { throw corrupt }
            if try body(Entry(hash: UInt32(hash), value: Schema.pack(type: UInt16(type), seq: seq))) { return }
        }
    }

    /// The entries of the bucket under `key` stored as `raw`.
    static func decode(_ key: UInt32, _ raw: UnsafeRawBufferPointer) throws -> [Entry] {
        var out: [Entry] = []
        out.reserveCapacity(raw.count / 5)
        try forEach(key, raw) { out.append($0); return false }
        return out
    }

    /// The stored form of `entries` (in hash order, none below `key`).
    static func encode(_ key: UInt32, _ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 7 + EntryCheck.size)
        var previous = key
        for e in entries {
            precondition(e.hash >= previous, "UUID bucket entries out of order")
            let (type, seq) = Schema.unpack(e.value)
            StartIndex.appendVarint(UInt64(e.hash - previous), to: &out)
            StartIndex.appendVarint(UInt64(type), to: &out)
            StartIndex.appendVarint(seq, to: &out)
            previous = e.hash
        }
        return EntryCheck.sealed(keyBytes(key), out)
    }

    /// Inserts `e` after the entries whose hash is not above its own.
    static func insert(_ e: Entry, into entries: inout [Entry]) {
        var i = entries.count
        while i > 0, entries[i - 1].hash > e.hash { i -= 1 }
        entries.insert(e, at: i)
    }

    static func keyBytes(_ key: UInt32) -> [UInt8] { withKey(key) { Array($0) } }

    /// A bucket's 4-byte key: its top bits, big-endian.
    static func withKey<T>(_ key: UInt32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: key.bigEndian, body)
    }

    /// Bounds-checked LEB128 varints.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        @inline(__always)
        mutating func varint() throws -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while at < bytes.count, shift < 64 {
                let b = bytes[at]
                at += 1
                v |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return v }
                shift += 7
            }
            throw UUIDHashBucket.corrupt
        }
    }
}
