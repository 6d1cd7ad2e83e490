import CLMDB
import FoundationEssentials

/// A run of the UUID index and the least and greatest UUIDs it holds. A
/// UUID outside them is not looked for in it: content UUIDs are time
/// first, so an import's runs cover successive stretches of time, and a
/// new sample's UUID is seldom inside an older run's span.
struct RunSpan {
    let id: UInt32
    let first, last: PendingUUID

    func covers(_ key: PendingUUID) -> Bool { !(key < first) && !(last < key) }
}

/// Walks one run's chunks in order, in place in the map.
struct RunReader {
    let cursor: Cursor
    let id: UInt32
    private var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    private var index = 0
    private var started = false
    /// The chunks sought so far (each may fault in pages of the map).
    private(set) var seeks = 0

    init(_ cursor: Cursor, _ id: UInt32) {
        self.cursor = cursor
        self.id = id
    }

    /// The 20 bytes of a chunk's key: run id, then the first UUID.
    static func withChunkKey<T>(_ id: UInt32, high: UInt64, low: UInt64,
                                _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let words = (id.bigEndian, UInt32(truncatingIfNeeded: high >> 32).bigEndian, UInt32(truncatingIfNeeded: high).bigEndian,
                     UInt32(truncatingIfNeeded: low >> 32).bigEndian, UInt32(truncatingIfNeeded: low).bigEndian)
        return try withUnsafeBytes(of: words, body)
    }

    static func runID(_ key: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(bigEndian: key.loadUnaligned(as: UInt32.self))
    }

    /// The first UUID of a chunk, from its key.
    static func firstUUID(_ key: UnsafeRawBufferPointer) -> PendingUUID {
        PendingUUID(high: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                    low: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 12, as: UInt64.self)), value: 0)
    }

    static func entry(_ chunk: UnsafeRawBufferPointer, _ i: Int) -> PendingUUID {
        let at = i * UUIDIndex.entrySize
        return PendingUUID(high: UInt64(bigEndian: chunk.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                           low: UInt64(bigEndian: chunk.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)),
                           value: UInt64(littleEndian: chunk.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
    }

    /// The chunk of this run that would hold `key`: the last one whose
    /// first UUID is at most `key`.
    mutating func seek(_ key: PendingUUID) throws -> Bool {
        seeks += 1
        let found = try Self.withChunkKey(id, high: key.high, low: key.low) { try cursor.seekRaw(atLeast: $0) }
        var at: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)?
        if let (k, v) = found, Self.runID(k) == id,
           UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self)) == key.high,
           UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt64.self)) == key.low {
            at = (k, v)
        } else {
            at = try cursor.nextRaw(found == nil ? MDB_LAST : MDB_PREV)
        }
        guard let (k, v) = at, Self.runID(k) == id else { return false }
        chunk = v
        index = 0
        started = true
        return true
    }

    /// The value of `key` in this run, or nil.
    mutating func value(of key: PendingUUID) throws -> UInt64? {
        guard try seek(key) else { return nil }
        return find(key)
    }

    /// Moves forward to `key` (keys asked in ascending order) and returns
    /// its value in the run, nil when the run does not hold it.
    mutating func value(advancingTo key: PendingUUID) throws -> UInt64? {
        let count = chunk.count / UUIDIndex.entrySize
        if !started || count == 0 || Self.entry(chunk, count - 1) < key {
            guard try seek(key) else { return nil }
        }
        return find(key)
    }

    /// Searches the current chunk from `index` on: a few steps first (a
    /// bulk save's keys are about as dense as a run's, so the next one is
    /// usually a step or two on), then by halves.
    private mutating func find(_ key: PendingUUID) -> UInt64? {
        let count = chunk.count / UUIDIndex.entrySize
        var lo = index, steps = 0
        while lo < count, steps < 4, Self.entry(chunk, lo) < key { lo += 1; steps += 1 }
        if steps == 4 {
            var hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Self.entry(chunk, mid) < key { lo = mid + 1 } else { hi = mid }
            }
        }
        index = lo
        guard lo < count else { return nil }
        let e = Self.entry(chunk, lo)
        return e == key ? e.value : nil
    }
}

/// One run read in order, a chunk at a time copied out of the map (for
/// merging, which writes into the same tree).
struct RunCopy {
    private let cursor: Cursor
    private let id: UInt32
    private var chunk: [UInt8] = []
    private var index = 0
    private(set) var head: PendingUUID?

    /// Run `id` from its first entry, or from the first one past `after`.
    init(_ txn: Txn, _ tree: MDB_dbi, _ id: UInt32, after: PendingUUID? = nil) throws {
        cursor = try txn.cursor(tree)
        self.id = id
        guard let after else {
            try load(try RunReader.withChunkKey(id, high: 0, low: 0) { try cursor.seekRaw(atLeast: $0) })
            return
        }
        // The chunk that would hold `after` (RunReader.seek), or the run's
        // first when all of it is past `after`; then its entries past it.
        var reader = RunReader(cursor, id)
        if try reader.seek(after) {
            try load(try cursor.nextRaw(MDB_GET_CURRENT))
        } else {
            try load(try RunReader.withChunkKey(id, high: 0, low: 0) { try cursor.seekRaw(atLeast: $0) })
        }
        while let h = head, !(after < h) { try advance() }
    }

    private mutating func load(_ at: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)?) throws {
        guard let (k, v) = at, RunReader.runID(k) == id, v.count >= UUIDIndex.entrySize else {
            head = nil
            cursor.close()
            return
        }
        chunk = Array(v)
        index = 0
        head = chunk.withUnsafeBytes { RunReader.entry($0, 0) }
    }

    /// Closes the cursor of a run not read to its end (the end closes it).
    mutating func close() {
        guard head != nil else { return }
        head = nil
        cursor.close()
    }

    mutating func advance() throws {
        index += 1
        if index < chunk.count / UUIDIndex.entrySize {
            head = chunk.withUnsafeBytes { RunReader.entry($0, index) }
        } else {
            // The cursor stays on this run's last chunk; other cursors'
            // appends past it do not move it.
            try load(try cursor.nextRaw(MDB_NEXT))
        }
    }
}
