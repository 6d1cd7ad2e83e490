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
        let bytes = try opened(key, raw)
        var r = Reader(bytes: bytes)
        var hash = UInt64(key)
        while r.at < bytes.count {
            hash += try r.difference()
            let type = try r.varint(), seq = try r.varint()
            guard hash <= UInt64(UInt32.max), type <= UInt64(UInt16.max), seq < 1 << 48 else { throw corrupt }
            if try body(Entry(hash: UInt32(hash), value: Schema.pack(type: UInt16(type), seq: seq))) { return }
        }
    }

    /// The entries' bytes of the bucket under `key` stored as `raw`, its
    /// check tested.
    private static func opened(_ key: UInt32, _ raw: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        guard let v = withKey(key, { EntryCheck.valid($0, raw) }) else { throw corrupt }
        return v
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
            appendEntry(UInt64(e.hash - previous), e.value, to: &out)
            previous = e.hash
        }
        EntryCheck.seal(keyBytes(key), &out)
        return out
    }

    /// One entry's varints: its hash's difference from the one before,
    /// then its value's type id and position.
    private static func appendEntry(_ difference: UInt64, _ value: UInt64, to out: inout [UInt8]) {
        let (type, seq) = Schema.unpack(value)
        LEB128.append(difference, to: &out)
        LEB128.append(UInt64(type), to: &out)
        LEB128.append(seq, to: &out)
    }

    /// The bucket under `key` stored as `raw` (nil: none yet) with `e`
    /// inserted after the entries whose hash is not above its own, as
    /// `encode` would write it, spliced into the stored bytes: the
    /// entries before it copied, the next one's difference written
    /// again, the rest copied (a save's insert, where decoding and
    /// encoding the whole bucket cost 9k instructions). `same` is called
    /// with the value of each entry of `e`'s hash, to find a duplicate.
    static func inserting(_ e: Entry, key: UInt32, into raw: UnsafeRawBufferPointer?,
                          same: (UInt64) throws -> Void) throws -> [UInt8] {
        guard let raw else { return encode(key, [e]) }
        let bytes = try opened(key, raw)
        var r = Reader(bytes: bytes)
        var hash = UInt64(key)
        // Where the first entry above `e`'s hash begins, and its hash.
        var at = bytes.count, next: UInt64?
        while r.at < bytes.count {
            let start = r.at
            let h = hash + (try r.difference())
            guard h <= UInt64(UInt32.max) else { throw corrupt }
            if h > UInt64(e.hash) {
                (at, next) = (start, h)
                break
            }
            if h == UInt64(e.hash) {
                let type = try r.varint(), seq = try r.varint()
                guard type <= UInt64(UInt16.max), seq < 1 << 48 else { throw corrupt }
                try same(Schema.pack(type: UInt16(type), seq: seq))
            } else {
                try r.skipVarint()
                try r.skipVarint()
            }
            hash = h
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16 + EntryCheck.size)
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<at]))
        appendEntry(UInt64(e.hash) - hash, e.value, to: &out)
        if let next {
            LEB128.append(next - UInt64(e.hash), to: &out)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[r.at...]))
        }
        EntryCheck.seal(keyBytes(key), &out)
        return out
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

        /// Most of a bucket's varints are one or two bytes: those stay inline.
        @inline(__always)
        mutating func varint() throws -> UInt64 {
            if at + 1 < bytes.count {
                let b0 = bytes[at]
                if b0 < 0x80 { at += 1; return UInt64(b0) }
                let b1 = bytes[at + 1]
                if b1 < 0x80 { at += 2; return UInt64(b0 & 0x7f) | UInt64(b1) << 7 }
            }
            return try longVarint()
        }

        /// A hash's difference from the one before: at most 32 bits, so
        /// that adding it cannot overflow.
        mutating func difference() throws -> UInt64 {
            let d = try varint()
            guard d <= UInt64(UInt32.max) else { throw UUIDHashBucket.corrupt }
            return d
        }

        mutating func skipVarint() throws {
            var n = 0
            while at < bytes.count, n < 10 {
                let b = bytes[at]
                at += 1
                if b < 0x80 { return }
                n += 1
            }
            throw UUIDHashBucket.corrupt
        }

        private mutating func longVarint() throws -> UInt64 {
            guard let v = LEB128.read(bytes, at: &at) else { throw UUIDHashBucket.corrupt }
            return v
        }
    }
}
