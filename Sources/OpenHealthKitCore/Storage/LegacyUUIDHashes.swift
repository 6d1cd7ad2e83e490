import CLMDB

/// The UUID index of older stores, moved into the hashed part's buckets
/// (`UUIDHashBucket`) when such a store is opened: format 2–4's B-tree
/// keyed by UUID (`uuids`), and format 5–20's fixed-size duplicates
/// (`uuid_hashes`).
extension UUIDIndex {
    /// Moves the entries of a format 2–4 store's `uuids` tree (a B-tree
    /// keyed by UUID, with `UInt64.max` for a pruned UUID a run holds) into
    /// the hashed part and `uuid_gone`, then deletes the tree.
    static func adopt(_ txn: Txn, _ trees: FixedTrees, hash: UUIDHash) throws {
        guard let old = try txn.openTree("uuids", create: false) else { return }
        // As many buckets as the entries need: no splits.
        let buckets = UUIDBuckets(count: max(UUIDBuckets.minimum, UInt64(txn.entries(old)) / Tuning().bucketLoad))
        try txn.setMetaU64(trees, .uuidBuckets, buckets.count)
        var grouped: [UInt32: [UUIDHashBucket.Entry]] = [:]
        try txn.forEach(old) { k, v in
            guard k.count == 16, v.count == 8 else { throw OHKError(.storeCorrupt, "corrupt entry in the UUID index") }
            let value = UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))
            if value == UInt64.max {
                try txn.put(trees.uuidGone, k, UnsafeRawBufferPointer(start: nil, count: 0))
                return
            }
            let h = hash(PendingUUID(high: UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)),
                                     low: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt64.self)), value: value))
            UUIDHashBucket.insert(.init(hash: h, value: value), into: &grouped[buckets.key(of: h), default: []])
        }
        try writeBuckets(grouped, txn, trees)
        try lmdbCheck(mdb_drop(txn.txn, old, 1), "cannot delete the old UUID index")
    }

    /// Moves the entries of a format 5–20 store's `uuid_hashes` (under a
    /// bucket's key, 10-byte fixed-size duplicates: an 80-bit big-endian
    /// number, the hash's low 22 bits above the packed type id and
    /// position) into the hashed part's buckets, then deletes the tree.
    /// The bucket's key holds the hash's top bits, at least 10 (there were
    /// never fewer than 1,024 buckets), so with the 22 kept the whole hash
    /// is known again.
    static func packLegacyHashes(_ txn: Txn, _ trees: FixedTrees) throws {
        guard let old = try txn.openTree("uuid_hashes", create: false, fixedDuplicates: true) else { return }
        let c = try txn.cursor(old)
        defer { c.close() }
        // A bucket's duplicates come in hash order, one bucket after another.
        var bucket: (key: UInt32, entries: [UUIDHashBucket.Entry])?
        var count: UInt64 = 0
        func flush() throws {
            guard let (key, entries) = bucket else { return }
            _ = try txn.put(trees.uuidHashes, UUIDHashBucket.keyBytes(key), UUIDHashBucket.encode(key, entries))
            count += UInt64(entries.count)
        }
        var next = try c.nextRaw(MDB_FIRST)
        while let (k, e) = next {
            guard k.count == 4, e.count == 10 else { throw OHKError(.storeCorrupt, "corrupt entry in the UUID index") }
            let key = UInt32(bigEndian: k.loadUnaligned(as: UInt32.self))
            let low = UInt64(bigEndian: e.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
            let kept = UInt32(UInt16(bigEndian: e.loadUnaligned(as: UInt16.self))) << 6 | UInt32(low >> 58)
            let entry = UUIDHashBucket.Entry(hash: key & ~UUIDHash.keptMask | kept, value: low & (1 << 58 - 1))
            // Its kept bits agree with the key's, in a sound store.
            guard entry.hash >= key else { throw OHKError(.storeCorrupt, "corrupt entry in the UUID index") }
            if bucket?.key != key {
                try flush()
                bucket = (key, [])
            }
            UUIDHashBucket.insert(entry, into: &bucket!.entries)
            next = try c.nextRaw(MDB_NEXT)
        }
        try flush()
        try txn.setMetaU64(trees, .uuidHashed, count)
        try txn.drop(old)
    }

    private static func writeBuckets(_ grouped: [UInt32: [UUIDHashBucket.Entry]], _ txn: Txn, _ trees: FixedTrees) throws {
        var count: UInt64 = 0
        for key in grouped.keys.sorted() {
            let entries = grouped[key]!
            count += UInt64(entries.count)
            _ = try txn.put(trees.uuidHashes, UUIDHashBucket.keyBytes(key), UUIDHashBucket.encode(key, entries))
        }
        try txn.setMetaU64(trees, .uuidHashed, count)
    }
}
