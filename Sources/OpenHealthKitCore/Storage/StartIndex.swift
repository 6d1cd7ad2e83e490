import CLMDB

/// The start index (format 20): for each type, the change positions of its
/// records (samples and tombstones) by start time, in buckets of
/// `Schema.startBucketSeconds`.
///
/// A bucket's positions are kept ascending in chunks of at most about
/// `chunkBytes`, each one entry: the key is the bucket and the chunk's
/// first position (16 bytes, big-endian, so that keys sort by bucket, then
/// by position); the value is the chunk's last position (8 bytes,
/// little-endian), then the difference of each next position from the
/// one before, as LEB128 varints. Positions saved in time order differ by
/// one or two, a byte each: about 1.5 bytes a sample, where format 19's
/// fixed-size duplicates took 11. A query by start date reads a seventh of
/// the pages it read, and a cold query waits on each page it touches.
/// Chunks keep the cost of a change bounded where a bucket holds many
/// samples (a day's heart rate in one hour, or samples that all start at
/// once): a save rewrites one chunk, and appends to the last one.
enum StartIndex {
    /// A chunk takes no more positions once its value is this long.
    static let chunkBytes = 256

    /// The bucket of a start time: order-preserving (`Schema.startBucketKey`,
    /// as a number).
    @inline(__always)
    static func bucket(of start: Double) -> UInt64 { UInt64(bigEndian: Schema.startBucketKey(start)) }

    /// The first start time of a bucket.
    static func bucketStart(_ bucket: UInt64) -> Double {
        withUnsafeBytes(of: bucket.bigEndian) { Schema.bucketStart(ofKey: $0) }
    }

    /// The bucket and first position a key names.
    @inline(__always)
    static func decodeKey(_ k: UnsafeRawBufferPointer) throws -> (bucket: UInt64, first: UInt64) {
        guard k.count == 16 else { throw OHKError(.storeCorrupt, "corrupt start index key") }
        return (UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    @inline(__always)
    static func withKey<T>(_ bucket: UInt64, _ first: UInt64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: (bucket.bigEndian, first.bigEndian)) { try body($0) }
    }

    /// Calls `body` with each position of a chunk, ascending.
    @inline(__always)
    static func forEachPosition(_ value: UnsafeRawBufferPointer, first: UInt64, _ body: (UInt64) throws -> Void) throws {
        guard value.count >= 8 else { throw corrupt }
        let last = UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))
        var p = first
        try body(p)
        var i = 8
        while i < value.count {
            guard let d = LEB128.read(value, at: &i) else { throw corrupt }
            let (next, overflow) = p.addingReportingOverflow(d)
            guard d > 0, !overflow else { throw corrupt }
            p = next
            try body(p)
        }
        guard p == last else { throw corrupt }
    }

    static var corrupt: OHKError { OHKError(.storeCorrupt, "corrupt start index entry") }

    /// A chunk's value for `positions` (ascending, not empty).
    static func encode(_ positions: ArraySlice<UInt64>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: positions.last!.littleEndian) { out.append(contentsOf: $0) }
        var prev = positions.first!
        for p in positions.dropFirst() {
            LEB128.append(p - prev, to: &out)
            prev = p
        }
    }


    // MARK: Writing

    /// Changes a type's start index through one cursor (a write
    /// transaction's), remembering the chunk a save last appended to.
    ///
    /// Positions appended to that chunk are kept in memory, and the chunk
    /// is written once: when a position goes elsewhere, when it is full,
    /// or at `flush`, which the owner calls before anything else reads or
    /// changes the tree. Rewriting the chunk in the tree at each save (a
    /// put that moves the rest of its page) was a sixth of a bulk save.
    struct Writer {
        let cursor: Cursor
        /// A chunk being written: a chunk is rewritten whole.
        private var scratch: [UInt8] = []
        /// The chunk last appended to, when it is its bucket's last one
        /// (no chunk of the bucket starts after it): the next save's
        /// position in that bucket is appended to it without a search.
        private var tail: (bucket: UInt64, first: UInt64, last: UInt64)?
        /// Whether `scratch` holds the tail chunk's value as it now is.
        private var tailInScratch = false
        /// Whether that value has positions the tree has not.
        private var unwritten = false

        init(cursor: Cursor) { self.cursor = cursor }

        /// Adds position `seq` of a record starting at `start`; nothing
        /// when it is there already. A position past every other of its
        /// bucket (every save's) is appended to the bucket's last chunk.
        mutating func insert(start: Double, seq: UInt64) throws {
            let b = bucket(of: start)
            if let t = tail, tailInScratch, t.bucket == b, seq > t.last, scratch.count < chunkBytes {
                appendToScratch(last: t.last, seq)
                tail!.last = seq
                unwritten = true
                return
            }
            try writeTail()
            tailInScratch = false
            if try appendToTail(b, seq) { return }
            tail = nil
            let at = try withKey(b, seq) { try cursor.seekRaw(atLeast: $0) }
            if let (k, _) = at, try decodeKey(k) == (b, seq) { return }
            // Whether no chunk of the bucket starts after `seq`.
            let atEnd = try at.map { try decodeKey($0.0).bucket != b } ?? true
            // The chunk before: the bucket's last whose first is below `seq`.
            if let (k, v) = try (at == nil ? cursor.lastEntry() : cursor.nextRaw(MDB_PREV)) {
                let (pb, first) = try decodeKey(k)
                if pb == b {
                    guard v.count >= 8 else { throw corrupt }
                    let last = UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))
                    if seq > last && v.count < chunkBytes {
                        // Copied before the write: the value's page may move.
                        scratch.removeAll(keepingCapacity: true)
                        scratch.append(contentsOf: v)
                        appendToScratch(last: last, seq)
                        if atEnd {
                            // The bucket's tail: written when it is left.
                            tail = (b, first, seq)
                            (tailInScratch, unwritten) = (true, true)
                        } else {
                            try withKey(b, first) { k in try scratch.withUnsafeBytes { _ = try cursor.put(k, $0) } }
                        }
                        return
                    }
                    if seq < last {
                        var positions: [UInt64] = []
                        try forEachPosition(v, first: first) { positions.append($0) }
                        var lo = 0, hi = positions.count  // where `seq` goes
                        while lo < hi { let mid = (lo + hi) / 2; if positions[mid] < seq { lo = mid + 1 } else { hi = mid } }
                        if lo < positions.count && positions[lo] == seq { return }
                        positions.insert(seq, at: lo)
                        try write(positions[...], bucket: b)
                        return
                    }
                    if seq == last { return }
                }
            }
            // A chunk of its own: the bucket's first, or its last one is full.
            try write([seq], bucket: b)
            if atEnd {
                tail = (b, seq, seq)
                tailInScratch = true  // `write` left its value there
            }
        }

        /// Appends `seq` to the remembered chunk when it goes there: the
        /// cursor is still on it (another cursor's change may have moved
        /// it), and it is not full. Its value is read again, as another
        /// cursor may have changed it since the last `flush`; no chunk of
        /// the bucket can have come after it but when it was full.
        private mutating func appendToTail(_ b: UInt64, _ seq: UInt64) throws -> Bool {
            guard let t = tail, t.bucket == b, seq > t.last,
                  let (k, v) = try cursor.current(), try decodeKey(k) == (b, t.first),
                  v.count >= 8, v.count < chunkBytes else { return false }
            let last = UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))
            guard seq > last else { return false }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: v)
            appendToScratch(last: last, seq)
            tail!.last = seq
            (tailInScratch, unwritten) = (true, true)
            return true
        }

        /// Appends `seq` to the chunk in `scratch`, whose last position is `last`.
        private mutating func appendToScratch(last: UInt64, _ seq: UInt64) {
            withUnsafeBytes(of: seq.littleEndian) { h in
                scratch.withUnsafeMutableBytes { $0.copyMemory(from: h) }
            }
            LEB128.append(seq - last, to: &scratch)
        }

        /// Writes the tail chunk when it has positions the tree has not.
        private mutating func writeTail() throws {
            guard unwritten, let t = tail else { return }
            unwritten = false
            let cursor = self.cursor
            try withKey(t.bucket, t.first) { k in try scratch.withUnsafeBytes { _ = try cursor.put(k, $0) } }
        }

        /// Writes what the writer keeps in memory, and reads the tree again
        /// from the next change on: call before anything else reads or
        /// changes the tree in this transaction, and before it commits.
        mutating func flush() throws {
            try writeTail()
            tailInScratch = false
        }

        /// Removes position `seq` of a record starting at `start`; nothing
        /// when it is not there.
        mutating func remove(start: Double, seq: UInt64) throws {
            try flush()
            tail = nil
            let b = bucket(of: start)
            let at = try withKey(b, seq) { try cursor.seekRaw(atLeast: $0) }
            if let (k, v) = at, try decodeKey(k) == (b, seq) {
                // The chunk's first: the rest goes under its next position.
                var rest: [UInt64] = []
                try forEachPosition(v, first: seq) { rest.append($0) }
                try cursor.deleteCurrent()
                if rest.count > 1 { try write(rest[1...], bucket: b) }
                return
            }
            guard let (k, v) = try (at == nil ? cursor.lastEntry() : cursor.nextRaw(MDB_PREV)) else { return }
            let (pb, first) = try decodeKey(k)
            guard pb == b else { return }
            var positions: [UInt64] = []
            try forEachPosition(v, first: first) { positions.append($0) }
            guard let i = positions.firstIndex(of: seq) else { return }
            positions.remove(at: i)
            try write(positions[...], bucket: b)
        }

        /// Writes `positions` as the chunk under their first (two chunks
        /// when they have grown past twice a chunk's bytes).
        private mutating func write(_ positions: ArraySlice<UInt64>, bucket b: UInt64) throws {
            encode(positions, into: &scratch)
            if scratch.count > 2 * chunkBytes && positions.count > 1 {
                let mid = positions.startIndex + positions.count / 2
                try write(positions[..<mid], bucket: b)
                try write(positions[mid...], bucket: b)
                return
            }
            let cursor = self.cursor
            try withKey(b, positions.first!) { k in try scratch.withUnsafeBytes { _ = try cursor.put(k, $0) } }
        }
    }

    /// Fills a type's empty start index from its records.
    static func build(_ txn: Txn, records: MDB_dbi, starts: MDB_dbi) throws {
        let cursor = try txn.cursor(records)
        defer { cursor.close() }
        let c = try txn.cursor(starts)
        defer { c.close() }
        var writer = Writer(cursor: c)
        var entry = try cursor.first()
        while let (seq, raw) = entry {
            try writer.insert(start: RecordView(stored: raw).start, seq: seq)
            entry = try cursor.next()
        }
        try writer.flush()
    }

    // MARK: Reading

    /// Reads a type's start index bucket by bucket through a cursor.
    struct Reader {
        let cursor: Cursor

        /// The first bucket at or after `bucket` that has positions.
        func bucket(atLeast bucket: UInt64) throws -> UInt64? {
            guard let (k, _) = try withKey(bucket, 0, { try cursor.seekRaw(atLeast: $0) }) else { return nil }
            return try decodeKey(k).bucket
        }

        /// The last bucket at or before `bucket` that has positions.
        func bucket(atMost bucket: UInt64) throws -> UInt64? {
            let next = bucket == .max ? nil : try withKey(bucket + 1, 0) { try cursor.seekRaw(atLeast: $0) }
            guard let (k, _) = try (next == nil ? cursor.lastEntry() : cursor.nextRaw(MDB_PREV)) else { return nil }
            return try decodeKey(k).bucket
        }

        func firstBucket() throws -> UInt64? { try cursor.firstEntry().map { try decodeKey($0.0).bucket } }
        func lastBucket() throws -> UInt64? { try cursor.lastEntry().map { try decodeKey($0.0).bucket } }

        /// The bucket after `bucket` that has positions.
        func bucket(after bucket: UInt64) throws -> UInt64? {
            bucket == .max ? nil : try self.bucket(atLeast: bucket + 1)
        }

        /// The bucket before `bucket` that has positions.
        func bucket(before bucket: UInt64) throws -> UInt64? {
            bucket == 0 ? nil : try self.bucket(atMost: bucket - 1)
        }

        /// Calls `body` with each bucket of `first...last` and position in
        /// it, bucket by bucket, each bucket's positions ascending.
        func forEachPosition(buckets first: UInt64, _ last: UInt64, _ body: (UInt64, UInt64) throws -> Void) throws {
            var entry = try withKey(first, 0) { try cursor.seekRaw(atLeast: $0) }
            while let (k, v) = entry {
                let (b, p) = try decodeKey(k)
                guard b <= last else { break }
                try StartIndex.forEachPosition(v, first: p) { try body(b, $0) }
                entry = try cursor.nextEntry()
            }
        }

        /// The positions of one bucket, ascending.
        func positions(inBucket bucket: UInt64) throws -> [UInt64] {
            var out: [UInt64] = []
            try forEachPosition(buckets: bucket, bucket) { out.append($1) }
            return out
        }
    }
}
