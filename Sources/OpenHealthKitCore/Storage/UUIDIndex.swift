import CLMDB
import FoundationEssentials

/// The UUID index (UUID → type id and change sequence, packed), kept in
/// two parts:
///
/// - `uuids`, a B-tree. Saves of a few samples insert here, and every
///   later change of an entry goes here: a deletion's new position, or
///   `absent` once the deleted object is pruned.
/// - `uuid_runs`: sorted runs. A save of many samples writes its entries
///   as one new run, packed in chunks of `chunkEntries` (key: run id and
///   the chunk's first UUID, big-endian; value: 24-byte entries, the UUID's
///   bytes then the packed value, little-endian).
///
/// Why runs: random UUIDs land on every leaf of a B-tree, so a save with
/// more UUIDs than the tree has leaves copied (and the kernel faulted in)
/// the whole tree, once per transaction: 40–50 % of a bulk import of a
/// million samples. A run is written once, packed, in new pages. More
/// than `maxRuns` runs are merged into one.
///
/// Reads look in `uuids` first, whose entry for a UUID is always the
/// newest (a save into a run first removes an `absent` mark of the same
/// UUID), then in the runs, newest first.
struct UUIDIndex {
    let txn: Txn
    let main: MDB_dbi
    let runTree: MDB_dbi
    /// The runs' ids, oldest first; read on first use.
    private var ids: [UInt32]?

    let tuning: Tuning

    /// When runs are written and merged (tests make both small).
    struct Tuning: Sendable {
        /// Saves of at least this many new UUIDs write a run.
        var runThreshold = 20_000
        /// More runs than this are merged into one.
        var maxRuns = 8
    }

    /// The value of a pruned UUID in `uuids`, hiding a stale run entry.
    static let absent = UInt64.max
    static let chunkEntries = 2048
    static let entrySize = 24

    init(_ txn: Txn, _ trees: FixedTrees, tuning: Tuning = Tuning()) {
        self.txn = txn
        self.tuning = tuning
        main = trees.uuids
        runTree = trees.uuidRuns
    }

    // MARK: Reading

    /// The value the index holds for `key`, nil when none.
    mutating func get(_ key: PendingUUID) throws -> UInt64? {
        if let v = try mainValue(key) { return v == Self.absent ? nil : v }
        return try runValue(key)
    }

    private func mainValue(_ key: PendingUUID) throws -> UInt64? {
        try key.withKeyBytes { k in try txn.get(main, k).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }
    }

    /// The newest run's value for `key`.
    private mutating func runValue(_ key: PendingUUID) throws -> UInt64? {
        let ids = try runIDs()
        guard !ids.isEmpty else { return nil }
        let c = try txn.cursor(runTree)
        defer { c.close() }
        for id in ids.reversed() {
            var r = RunReader(c, id)
            if let v = try r.value(of: key) { return v }
        }
        return nil
    }

    mutating func runIDs() throws -> [UInt32] {
        if let ids { return ids }
        var found: [UInt32] = []
        // Most stores never saw a bulk save: no cursor for them.
        guard txn.entries(runTree) > 0 else { ids = found; return found }
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var next = try c.nextRaw(MDB_FIRST)
        while let (k, _) = next {
            let id = RunReader.runID(k)
            found.append(id)
            guard id < UInt32.max else { break }
            next = try RunReader.withChunkKey(id + 1, high: 0, low: 0) { try c.seekRaw(atLeast: $0) }
        }
        ids = found
        return found
    }

    // MARK: Writing

    /// Adds `pending`, sorted by UUID, as new entries. A UUID the index
    /// holds, or twice in `pending`, fails with `.duplicateUUID`.
    mutating func insert(_ pending: [PendingUUID]) throws {
        for i in pending.indices.dropFirst() where pending[i - 1] == pending[i] {
            throw Self.duplicate(pending[i])
        }
        if pending.count >= tuning.runThreshold {
            try insertRun(pending)
        } else {
            try insertInMain(pending)
        }
    }

    private mutating func insertInMain(_ pending: [PendingUUID]) throws {
        let hasRuns = !(try runIDs().isEmpty)
        let c = try txn.cursor(main)
        defer { c.close() }
        for p in pending {
            try p.withKeyBytes { k in
                try withUnsafeBytes(of: p.value.littleEndian) { v in
                    if try c.put(k, v, noOverwrite: true) {
                        // Not in `uuids`: a run may hold it.
                        if hasRuns, try runValue(p) != nil { throw Self.duplicate(p) }
                    } else {
                        // Only a pruned UUID's mark may be replaced.
                        guard try mainValue(p) == Self.absent else { throw Self.duplicate(p) }
                        try c.put(k, v)
                    }
                }
            }
        }
    }

    private mutating func insertRun(_ pending: [PendingUUID]) throws {
        let ids = try runIDs()
        // Which of `pending` does `uuids` hold? An `absent` mark frees the
        // UUID (and must go, or it would hide the new entry); any other
        // value is a duplicate. Sorted keys keep the cursor on its page.
        var marked: [Bool] = []
        if txn.entries(main) > 0 {
            marked = Array(repeating: false, count: pending.count)
            let c = try txn.cursor(main)
            defer { c.close() }
            for (i, p) in pending.enumerated() {
                guard let v = try p.withKeyBytes({ try c.findRaw($0) }) else { continue }
                guard UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) == Self.absent else { throw Self.duplicate(p) }
                marked[i] = true
            }
        }
        // The rest must be in no run; each run is walked once, in order.
        if !ids.isEmpty {
            let c = try txn.cursor(runTree)
            defer { c.close() }
            for id in ids {
                var r = RunReader(c, id)
                for (i, p) in pending.enumerated() where marked.isEmpty || !marked[i] {
                    if try r.advance(to: p) { throw Self.duplicate(p) }
                }
            }
        }
        for (i, p) in pending.enumerated() where !marked.isEmpty && marked[i] {
            _ = try p.withKeyBytes { try txn.delete(main, $0) }
        }
        let id = (ids.last ?? 0) + 1
        try pending.withUnsafeBufferPointer { try writeRun(id, $0) }
        self.ids = ids + [id]
        if ids.count + 1 > tuning.maxRuns { try mergeRuns() }
    }

    /// Sets the value of a UUID the index holds (a deletion's new position).
    func update(_ key: PendingUUID) throws {
        try key.withKeyBytes { k in
            try withUnsafeBytes(of: key.value.littleEndian) { v in _ = try txn.put(main, k, v) }
        }
    }

    /// Forgets `key` (a pruned deleted object): its `uuids` entry goes, or
    /// becomes `absent` when a run still holds the UUID.
    mutating func remove(_ key: PendingUUID) throws {
        if try runValue(key) != nil {
            try update(PendingUUID(high: key.high, low: key.low, value: Self.absent))
        } else {
            _ = try key.withKeyBytes { try txn.delete(main, $0) }
        }
    }

    /// Writes `entries` (sorted) as run `id`, which is greater than every
    /// run's, so each chunk appends.
    private func writeRun(_ id: UInt32, _ entries: UnsafeBufferPointer<PendingUUID>) throws {
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var start = 0
        while start < entries.count {
            let n = min(Self.chunkEntries, entries.count - start)
            let first = entries[start]
            let chunk = try RunReader.withChunkKey(id, high: first.high, low: first.low) { k in
                try c.reserve(k, count: n * Self.entrySize, append: true)
            }
            for j in 0..<n {
                let e = entries[start + j]
                chunk.storeBytes(of: e.high.bigEndian, toByteOffset: j * Self.entrySize, as: UInt64.self)
                chunk.storeBytes(of: e.low.bigEndian, toByteOffset: j * Self.entrySize + 8, as: UInt64.self)
                chunk.storeBytes(of: e.value.littleEndian, toByteOffset: j * Self.entrySize + 16, as: UInt64.self)
            }
            start += n
        }
    }

    /// Merges the newest runs into one (the newest entry of a UUID wins),
    /// then deletes them: at least two, and on while their total reaches
    /// the next older run's size. Runs so grow older and larger, about
    /// doubling, and an entry is rewritten a few times in all, not once
    /// per merge (merging every run each time made a 10 M-sample import
    /// half as fast as a 1 M one).
    private mutating func mergeRuns() throws {
        let all = try runIDs()
        guard all.count > 1 else { return }
        let sizes = try runSizes()
        var first = all.count - 2
        var total = sizes[all[first], default: 0] + sizes[all[first + 1], default: 0]
        while first > 0, total >= sizes[all[first - 1], default: 0] {
            first -= 1
            total += sizes[all[first], default: 0]
        }
        let ids = Array(all[first...])
        // Each run is read into memory chunk by chunk: the merged run's
        // appends may rewrite the leaf that holds a small chunk.
        var readers: [RunCopy] = []
        let c = try txn.cursor(runTree)
        defer { c.close() }
        for id in ids { readers.append(try RunCopy(txn, runTree, id)) }
        let newID = ids.last! + 1
        var out: [PendingUUID] = []
        out.reserveCapacity(Self.chunkEntries)
        while true {
            // The least UUID at the readers' heads; the newest run's wins.
            var best = -1
            for (i, r) in readers.enumerated() {
                guard let e = r.head else { continue }
                if best < 0 || !(readers[best].head! < e) { best = i }
            }
            guard best >= 0 else { break }
            let e = readers[best].head!
            for i in readers.indices where readers[i].head.map({ $0 == e }) == true { try readers[i].advance() }
            out.append(e)
            if out.count == Self.chunkEntries {
                try out.withUnsafeBufferPointer { try writeRun(newID, $0) }
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { try out.withUnsafeBufferPointer { try writeRun(newID, $0) } }
        let seekFirst = { try RunReader.withChunkKey(ids[0], high: 0, low: 0) { try c.seekRaw(atLeast: $0) } }
        while let (k, _) = try seekFirst(), RunReader.runID(k) < newID {
            try c.deleteCurrent()
        }
        self.ids = Array(all[..<first]) + [newID]
    }

    /// The number of entries of each run.
    private func runSizes() throws -> [UInt32: Int] {
        var sizes: [UInt32: Int] = [:]
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var op = MDB_FIRST
        while let (k, v) = try c.nextRaw(op) {
            op = MDB_NEXT
            sizes[RunReader.runID(k), default: 0] += v.count / Self.entrySize
        }
        return sizes
    }

    static func duplicate(_ p: PendingUUID) -> OHKError {
        OHKError(.duplicateUUID, "a sample with UUID \(p.uuid) already exists in the store")
    }
}

extension PendingUUID {
    /// A UUID to look up (the value is not part of the key).
    init(_ uuid: UUID, value: UInt64 = 0) {
        let halves = withUnsafeBytes(of: uuid.uuid) { b in
            (UInt64(bigEndian: b.loadUnaligned(as: UInt64.self)),
             UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        self.init(high: halves.0, low: halves.1, value: value)
    }

    /// Same UUID (the values aside).
    static func == (a: PendingUUID, b: PendingUUID) -> Bool { a.high == b.high && a.low == b.low }

    func withKeyBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: (high.bigEndian, low.bigEndian), body)
    }
}

/// Walks one run's chunks in order, in place in the map.
struct RunReader {
    let cursor: Cursor
    let id: UInt32
    private var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    private var index = 0
    private var started = false

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

    static func entry(_ chunk: UnsafeRawBufferPointer, _ i: Int) -> PendingUUID {
        let at = i * UUIDIndex.entrySize
        return PendingUUID(high: UInt64(bigEndian: chunk.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                           low: UInt64(bigEndian: chunk.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)),
                           value: UInt64(littleEndian: chunk.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
    }

    /// The chunk of this run that would hold `key`: the last one whose
    /// first UUID is at most `key`.
    mutating func seek(_ key: PendingUUID) throws -> Bool {
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

    /// Moves forward to `key` (keys asked in ascending order) and says
    /// whether the run holds it.
    mutating func advance(to key: PendingUUID) throws -> Bool {
        let count = chunk.count / UUIDIndex.entrySize
        if !started || count == 0 || Self.entry(chunk, count - 1) < key {
            guard try seek(key) else { return false }
        }
        return find(key) != nil
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

    init(_ txn: Txn, _ tree: MDB_dbi, _ id: UInt32) throws {
        cursor = try txn.cursor(tree)
        self.id = id
        let first = try RunReader.withChunkKey(id, high: 0, low: 0) { try cursor.seekRaw(atLeast: $0) }
        try load(first)
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
