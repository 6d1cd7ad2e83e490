import CLMDB
import FoundationEssentials

/// The UUID index (UUID → type id and change sequence, packed), kept in
/// three parts:
///
/// - `uuid_hash_buckets` (the hashed part): saves of a few samples insert
///   here, and every later change of an entry goes here (a deletion's new
///   position). A UUID's hash (`UUIDHash`) picks a bucket, the tree's
///   4-byte key; the buckets grow in number with the entries, `bucketLoad`
///   entries each on average at most (`UUIDBuckets`, linear hashing), so
///   that a bucket stays inside its leaf. A bucket is one value: its
///   entries (hash, type id, position) as varints in hash order, and a
///   check (`UUIDHashBucket`). The UUID itself is not stored: an entry
///   whose hash matches is confirmed by reading its record, which begins
///   with the UUID (a tombstone's too). About 9 bytes a UUID on disk at a
///   million (format 21), where fixed-size duplicates took 17 and a B-tree
///   keyed by the UUID 50 (random keys fill its leaves to about 70 %, and
///   each entry carried a 16-byte key and an 8-byte node header).
/// - `uuid_runs`: sorted runs. A save of many samples writes its entries
///   as one new run, packed in chunks of `chunkEntries` (key: run id and
///   the chunk's first UUID, big-endian; value: 24-byte entries, the UUID's
///   bytes then the packed value, little-endian).
/// - `uuid_gone`: UUIDs a run holds whose deleted objects were pruned,
///   hiding the runs' stale entries (key: the UUID; empty value).
///
/// Why runs: random UUIDs land on every leaf of a B-tree, so a save with
/// more UUIDs than the tree has leaves copied (and the kernel faulted in)
/// the whole tree, once per transaction: 40–50 % of a bulk import of a
/// million samples. A run is written once, packed, in new pages. More
/// than `maxRuns` runs are merged into one, a step of at most
/// `mergeStepEntries` entries per run written (`MergePlan`).
///
/// Reads look in the hashed part first, whose entry for a UUID is always
/// the newest, then in `uuid_gone`, then in the runs, newest first.
struct UUIDIndex {
    let txn: Txn
    let trees: FixedTrees
    let hash: UUIDHash
    /// The record tree of a type id, to confirm a hash's match; nil when
    /// the caller has no use for entries of that type (they are then never
    /// reported as found).
    let records: (UInt16) throws -> MDB_dbi?
    /// The runs, oldest first; read on first use.
    private var spans: [RunSpan]?
    /// The buckets of the hashed part; read on first use.
    private var buckets: UUIDBuckets?

    let tuning: Tuning
    /// Called now and then as entries are inserted and runs merged
    /// (`MappedPageBound.check`): a merge reads whole runs, tens of
    /// megabytes at a million samples, and scattered inserts fault in a
    /// page each, all of which would otherwise stay mapped until the
    /// writer lets go.
    var boundMappedPages: () -> Void = {}

    /// When runs are written and merged, and buckets split (tests make
    /// them small).
    struct Tuning: Sendable {
        /// Saves of at least this many new UUIDs write a run.
        var runThreshold = 20_000
        /// More runs than this are merged into one.
        var maxRuns = 8
        /// The most entries one transaction adds to a merge: a merge's
        /// new pages stay in memory until its transaction commits, and a
        /// merge of whole runs grew with the index (tens of megabytes at
        /// a few million samples). 6 MB of entries, whole chunks.
        var mergeStepEntries = 128 * UUIDIndex.chunkEntries
        /// A bucket splits when there are more entries than this many per
        /// bucket.
        var bucketLoad: UInt64 = 64
    }

    static let chunkEntries = 2048
    static let entrySize = 24

    init(_ txn: Txn, _ trees: FixedTrees, hash: UUIDHash, tuning: Tuning = Tuning(),
         records: @escaping (UInt16) throws -> MDB_dbi?) {
        self.txn = txn
        self.trees = trees
        self.hash = hash
        self.tuning = tuning
        self.records = records
    }

    private var hashes: MDB_dbi { trees.uuidHashes }
    private var gone: MDB_dbi { trees.uuidGone }
    private var runTree: MDB_dbi { trees.uuidRuns }

    // MARK: Reading

    /// The value the index holds for `key`, nil when none.
    mutating func get(_ key: PendingUUID) throws -> UInt64? {
        if let v = try hashedValue(key) { return v }
        if try isGone(key) { return nil }
        return try runValue(key)
    }

    /// Which of `keys` (sorted by UUID) the index holds, as `get` says
    /// one at a time: a large `saveNew` asks for all its UUIDs at once,
    /// where a lookup each cost a cursor seek in every run covering it.
    mutating func holds(sorted keys: [PendingUUID]) throws -> [Bool] {
        try lookup(sorted: keys).values.map { $0 != nil }
    }

    /// The value the index holds for each of `keys` (sorted by UUID), as
    /// `get` says one at a time: what `Store.verify` asks of every record,
    /// where a lookup each was two thirds of its time at a million samples.
    mutating func values(sorted keys: [PendingUUID]) throws -> [UInt64?] {
        try lookup(sorted: keys).values
    }

    /// What the index has for each of `keys` (sorted by UUID): its value,
    /// and whether it is marked gone (pruned: a run's entry of it is
    /// stale). Looked up in the hashed part and `uuid_gone` one by one, then
    /// in one walk of each run, newest first, over the keys its span covers.
    private mutating func lookup(sorted keys: [PendingUUID]) throws -> (values: [UInt64?], gone: [Bool]) {
        var values = [UInt64?](repeating: nil, count: keys.count)
        var gone = [Bool](repeating: false, count: keys.count)
        if txn.entries(hashes) > 0 || txn.entries(self.gone) > 0 {
            for (i, k) in keys.enumerated() {
                if i % 8 == 7 { boundMappedPages() }
                if let v = try hashedValue(k) { values[i] = v } else if try isGone(k) { gone[i] = true }
            }
        }
        let spans = try runSpans()
        guard !spans.isEmpty else { return (values, gone) }
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var seeks = 0
        for s in spans.reversed() {
            var r = RunReader(c, s.id)
            var i = keys.firstIndex(notBelow: s.first)
            while i < keys.count, !(s.last < keys[i]) {
                if values[i] == nil && !gone[i] {
                    let before = r.seeks
                    values[i] = try r.value(advancingTo: keys[i])
                    // A seek to another chunk may fault in a large folio.
                    seeks += r.seeks - before
                    if seeks >= 2 { seeks = 0; boundMappedPages() }
                }
                i += 1
            }
        }
        return (values, gone)
    }

    /// `key`'s entry in the hashed part: of its bucket's entries with its
    /// hash, the one whose record has its UUID.
    private mutating func hashedValue(_ key: PendingUUID) throws -> UInt64? {
        let h = hash(key)
        let b = try bucketKey(of: h)
        guard let raw = try UUIDHashBucket.withKey(b, { try txn.get(hashes, $0) }) else { return nil }
        var found: UInt64?
        try UUIDHashBucket.forEach(b, raw) { e in
            if e.hash > h { return true }
            if e.hash == h, try recordHolds(key, e.value) { found = e.value }
            return found != nil
        }
        return found
    }

    /// The entries of the bucket under `key` (none when it is absent).
    private func bucketEntries(_ key: UInt32) throws -> [UUIDHashBucket.Entry] {
        guard let raw = try UUIDHashBucket.withKey(key, { try txn.get(hashes, $0) }) else { return [] }
        return try UUIDHashBucket.decode(key, raw)
    }

    /// Stores the bucket under `key` as `entries`; an empty one goes.
    private func writeBucket(_ key: UInt32, _ entries: [UUIDHashBucket.Entry]) throws {
        try UUIDHashBucket.withKey(key) { k in
            if entries.isEmpty {
                _ = try txn.delete(hashes, k)
            } else {
                try UUIDHashBucket.encode(key, entries).withUnsafeBytes { _ = try txn.put(hashes, k, $0) }
            }
        }
    }

    /// What is wrong with the hashed part's buckets, for `Store.verify`:
    /// a bucket whose check fails or whose bytes do not parse, an entry
    /// under a bucket its hash does not pick, a count in meta that is not
    /// the entries'.
    static func problems(_ txn: Txn, _ trees: FixedTrees) throws -> [String] {
        var out: [String] = []
        let buckets = UUIDBuckets(count: max(UUIDBuckets.minimum, try txn.metaU64(trees, .uuidBuckets)))
        var count: UInt64 = 0
        try txn.forEach(trees.uuidHashes) { k, v in
            guard k.count == 4 else { out.append("the UUID index has a bucket key of \(k.count) bytes"); return }
            let key = UInt32(bigEndian: k.loadUnaligned(as: UInt32.self))
            var strays = 0
            do {
                try UUIDHashBucket.forEach(key, v) { e in
                    count += 1
                    if buckets.key(of: e.hash) != key { strays += 1 }
                    return false
                }
            } catch {
                out.append("UUID index bucket \(EntryCheck.hex(k)) is damaged: its check or its entries do not hold")
            }
            if strays > 0 { out.append("UUID index bucket \(EntryCheck.hex(k)) holds \(strays) entries of other buckets") }
        }
        let kept = try hashedCount(txn, trees)
        if out.isEmpty && count != kept {
            out.append("the UUID index counts \(kept) hashed entries, its buckets hold \(count)")
        }
        return out
    }

    /// How many entries the hashed part holds (meta keeps the count: its
    /// tree's entries are buckets).
    static func hashedCount(_ txn: Txn, _ trees: FixedTrees) throws -> UInt64 {
        try txn.metaU64(trees, .uuidHashed)
    }

    private func addToHashedCount(_ delta: Int) throws {
        guard delta != 0 else { return }
        let now = Int64(try Self.hashedCount(txn, trees)) + Int64(delta)
        guard now >= 0 else { throw OHKError(.storeCorrupt, "the UUID index's count of hashed entries went below zero") }
        try txn.setMetaU64(trees, .uuidHashed, UInt64(now))
    }

    /// Whether the record at `value` (packed type id and sequence) is `key`'s.
    private func recordHolds(_ key: PendingUUID, _ value: UInt64) throws -> Bool {
        let (typeID, seq) = Schema.unpack(value)
        guard let tree = try records(typeID) else { return false }
        guard let r = try txn.get(tree, u64: seq), r.count >= 16 else {
            throw OHKError(.storage, "the UUID index points at a missing record (type \(typeID), position \(seq))")
        }
        return UInt64(bigEndian: r.loadUnaligned(as: UInt64.self)) == key.high
            && UInt64(bigEndian: r.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) == key.low
    }

    private mutating func bucketKey(of h: UInt32) throws -> UInt32 {
        try currentBuckets().key(of: h)
    }

    /// The buckets of the hashed part, read from meta on first use.
    private mutating func currentBuckets() throws -> UUIDBuckets {
        if let buckets { return buckets }
        let b = UUIDBuckets(count: max(UUIDBuckets.minimum, try txn.metaU64(trees, .uuidBuckets)))
        buckets = b
        return b
    }

    private func isGone(_ key: PendingUUID) throws -> Bool {
        guard txn.entries(gone) > 0 else { return false }
        return try key.withKeyBytes { try txn.get(gone, $0) } != nil
    }

    /// The newest run's value for `key`, looked for only in the runs
    /// whose span covers it.
    private mutating func runValue(_ key: PendingUUID) throws -> UInt64? {
        let spans = try runSpans()
        guard spans.contains(where: { $0.covers(key) }) else { return nil }
        let c = try txn.cursor(runTree)
        defer { c.close() }
        for s in spans.reversed() where s.covers(key) {
            var r = RunReader(c, s.id)
            if let v = try r.value(of: key) { return v }
        }
        return nil
    }

    mutating func runIDs() throws -> [UInt32] {
        try runSpans().map(\.id)
    }

    /// The runs and their spans, read once a transaction: a run's first
    /// chunk's key holds its least UUID, its last chunk ends with its
    /// greatest.
    mutating func runSpans() throws -> [RunSpan] {
        if let spans { return spans }
        var found: [RunSpan] = []
        // Most stores never saw a bulk save: no cursor for them.
        guard txn.entries(runTree) > 0 else { spans = found; return found }
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var next = try c.nextRaw(MDB_FIRST)
        while let (k, _) = next {
            let id = RunReader.runID(k)
            let first = RunReader.firstUUID(k)
            // The next run's first chunk, then one back: this run's last.
            next = id < UInt32.max ? try RunReader.withChunkKey(id + 1, high: 0, low: 0) { try c.seekRaw(atLeast: $0) } : nil
            guard let (lastKey, lastChunk) = try c.nextRaw(next == nil ? MDB_LAST : MDB_PREV), RunReader.runID(lastKey) == id,
                  lastChunk.count >= Self.entrySize, lastChunk.count % Self.entrySize == 0 else {
                throw OHKError(.storeCorrupt, "run \(id) of the UUID index has a damaged chunk (ohk check tells what is damaged)")
            }
            found.append(RunSpan(id: id, first: first, last: RunReader.entry(lastChunk, lastChunk.count / Self.entrySize - 1)))
            if next != nil { next = try c.nextRaw(MDB_NEXT) }
        }
        spans = found
        return found
    }

    // MARK: Writing

    /// Adds `pending`, sorted by UUID, as new entries. A UUID the index
    /// holds, or twice in `pending`, fails with `.duplicateUUID`.
    /// `knownNew`: the caller found none of them held in this transaction
    /// (`holds(sorted:)`, as a large `saveNew` does), so they are not
    /// looked up again; a pruned one's mark in `uuid_gone` still goes.
    mutating func insert(_ pending: [PendingUUID], knownNew: Bool = false) throws {
        for i in pending.indices.dropFirst() where pending[i - 1] == pending[i] {
            throw Self.duplicate(pending[i])
        }
        if pending.count >= tuning.runThreshold {
            try insertRun(pending, knownNew: knownNew)
        } else {
            try insertHashed(pending, knownNew: knownNew)
        }
    }

    private mutating func insertHashed(_ pending: [PendingUUID], knownNew: Bool) throws {
        let hasRuns = !(try runIDs().isEmpty)
        // In hash order: one bucket's UUIDs are next to each other, and the
        // writes move forward through the tree.
        var order = pending.indices.map { (hash: hash(pending[$0]), index: $0) }
        order.sort { $0.hash < $1.hash }
        let buckets = try currentBuckets()
        var n = 0
        while n < order.count {
            let b = buckets.key(of: order[n].hash)
            // Copied: the writes below may move the page it is on.
            var bytes = try UUIDHashBucket.withKey(b) { try txn.get(hashes, $0).map { Array($0) } }
            repeat {
                let (h, i) = order[n]
                let p = pending[i]
                // Each entry may fault in a page of the buckets and of each
                // run, and a fault may map a large folio, megabytes.
                if hasRuns || n % 8 == 7 { boundMappedPages() }
                func insert(_ raw: UnsafeRawBufferPointer?) throws -> [UInt8] {
                    try UUIDHashBucket.inserting(.init(hash: h, value: p.value), key: b, into: raw) { value in
                        if !knownNew, try recordHolds(p, value) { throw Self.duplicate(p) }
                    }
                }
                bytes = try bytes.map { try $0.withUnsafeBytes { try insert($0) } } ?? insert(nil)
                if knownNew {
                    _ = try unmarkGone(p)
                } else if hasRuns, !(try unmarkGone(p)), try runValue(p) != nil {
                    // A run holds it, and it was not pruned since.
                    throw Self.duplicate(p)
                }
                n += 1
            } while n < order.count && buckets.key(of: order[n].hash) == b
            try UUIDHashBucket.withKey(b) { k in try bytes!.withUnsafeBytes { _ = try txn.put(hashes, k, $0) } }
        }
        try addToHashedCount(pending.count)
        try grow()
    }

    /// Removes `key`'s mark in `uuid_gone`; whether there was one.
    private func unmarkGone(_ key: PendingUUID) throws -> Bool {
        guard txn.entries(gone) > 0 else { return false }
        return try key.withKeyBytes { try txn.delete(gone, $0) }
    }

    /// Splits buckets until they hold `bucketLoad` entries each on average.
    private mutating func grow() throws {
        var b = try currentBuckets()
        let entries = try Self.hashedCount(txn, trees)
        guard entries > b.count * tuning.bucketLoad else { return }
        while entries > b.count * tuning.bucketLoad {
            try split(b)
            b.count += 1
        }
        buckets = b
        try txn.setMetaU64(trees, .uuidBuckets, b.count)
    }

    /// Moves the entries of `b`'s next bucket to split whose hash has the
    /// split's bit set.
    private func split(_ b: UUIDBuckets) throws {
        let (from, bit, to) = b.split
        let all = try bucketEntries(from)
        let moving = all.filter { $0.hash & bit != 0 }
        guard !moving.isEmpty else { return }
        // `to` is a new bucket: empty, unless a split was cut short.
        var moved = try bucketEntries(to)
        for m in moving { UUIDHashBucket.insert(m, into: &moved) }
        try writeBucket(from, all.filter { $0.hash & bit == 0 })
        try writeBucket(to, moved)
    }

    private mutating func insertRun(_ pending: [PendingUUID], knownNew: Bool) throws {
        // None of `pending` may be held; one marked gone was pruned, and
        // its mark must go (or it would hide the new entry).
        if knownNew {
            if txn.entries(gone) > 0 { for p in pending { _ = try unmarkGone(p) } }
        } else {
            let found = try lookup(sorted: pending)
            if let i = found.values.firstIndex(where: { $0 != nil }) { throw Self.duplicate(pending[i]) }
            for (p, gone) in zip(pending, found.gone) where gone { _ = try unmarkGone(p) }
        }
        let spans = try runSpans()
        let merge = try pendingMerge()
        // Past a merge's run too, which its first step may not have written yet.
        let id = max(spans.last?.id ?? 0, merge?.into ?? 0) + 1
        try pending.withUnsafeBufferPointer { try writeRun(id, $0, append: true) }
        self.spans = spans + [RunSpan(id: id, first: pending.first!, last: pending.last!)]
        if merge != nil || spans.count + 1 > tuning.maxRuns { try mergeStep(merge) }
    }

    /// Points the entry of `uuid`, which was at `old` (packed type id and
    /// sequence), at `new` (a deletion's new position). An entry in a run
    /// stays there, hidden by the new one.
    mutating func move(_ uuid: PendingUUID, from old: UInt64, to new: UInt64) throws {
        let h = hash(uuid)
        let b = try bucketKey(of: h)
        var entries = try bucketEntries(b)
        if let i = entries.firstIndex(where: { $0.hash == h && $0.value == old }) {
            entries[i].value = new
        } else {
            UUIDHashBucket.insert(.init(hash: h, value: new), into: &entries)
            try addToHashedCount(1)
        }
        try writeBucket(b, entries)
    }

    /// Forgets `uuid`, whose entry is `value` (a pruned deleted object):
    /// its hashed entry goes, and a run's entry of it is marked gone.
    mutating func remove(_ uuid: PendingUUID, value: UInt64) throws {
        let h = hash(uuid)
        let b = try bucketKey(of: h)
        var entries = try bucketEntries(b)
        if let i = entries.firstIndex(where: { $0.hash == h && $0.value == value }) {
            entries.remove(at: i)
            try writeBucket(b, entries)
            try addToHashedCount(-1)
        }
        if try runValue(uuid) != nil {
            _ = try uuid.withKeyBytes { k in try txn.put(gone, k, UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }

    // MARK: Runs

    /// Writes `entries` (sorted) as chunks of run `id`, after the run's
    /// chunks so far. `append` when no run is newer: each chunk then goes
    /// at the tree's end.
    private func writeRun(_ id: UInt32, _ entries: UnsafeBufferPointer<PendingUUID>, append: Bool) throws {
        let c = try txn.cursor(runTree)
        defer { c.close() }
        var start = 0
        while start < entries.count {
            let n = min(Self.chunkEntries, entries.count - start)
            let first = entries[start]
            let chunk = try RunReader.withChunkKey(id, high: first.high, low: first.low) { k in
                try c.reserve(k, count: n * Self.entrySize, append: append)
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

    /// A merge of runs `first` to `last` (every run between, by id) into
    /// run `into`, one past `last`, written in steps: each step copies
    /// the next `mergeStepEntries` entries after what `into` holds, and
    /// the last one deletes the merged runs. Until then `into` holds a
    /// prefix of the merge, each entry as the merged runs have it, so a
    /// lookup finds the same value in it as in them; runs written
    /// meanwhile take ids past `into`, newer than both. The plan is kept
    /// in meta, so that a merge goes on across transactions and reopens.
    struct MergePlan: Equatable {
        let first, last: UInt32
        var into: UInt32 { last + 1 }
        var packed: UInt64 { UInt64(first) << 32 | UInt64(last) }
    }

    /// The merge under way, if any.
    mutating func pendingMerge() throws -> MergePlan? {
        let v = try txn.metaU64(trees, .uuidMerge)
        guard v != 0 else { return nil }
        let plan = MergePlan(first: UInt32(truncatingIfNeeded: v >> 32), last: UInt32(truncatingIfNeeded: v))
        guard plan.first <= plan.last, plan.last < UInt32.max else {
            throw OHKError(.storeCorrupt, "corrupt meta entry \(Schema.MetaKey.uuidMerge.rawValue)")
        }
        return plan
    }

    /// The newest runs, to merge into one: at least two, and on while
    /// their total reaches the next older run's size. Runs so grow older
    /// and larger, about doubling, and an entry is rewritten a few times
    /// in all, not once per merge (merging every run each time made a
    /// 10 M-sample import half as fast as a 1 M one).
    private func planMerge(_ spans: [RunSpan]) throws -> MergePlan? {
        let all = spans.map(\.id)
        guard all.count > 1 else { return nil }
        let sizes = try runSizes()
        var first = all.count - 2
        var total = sizes[all[first], default: 0] + sizes[all[first + 1], default: 0]
        while first > 0, total >= sizes[all[first - 1], default: 0] {
            first -= 1
            total += sizes[all[first], default: 0]
        }
        return MergePlan(first: all[first], last: all.last!)
    }

    /// Takes the merge under way (`pending`), or a new one, a step further
    /// (the newest entry of a UUID wins), and ends it when the merged runs
    /// are copied.
    private mutating func mergeStep(_ pending: MergePlan?) throws {
        var spans = try runSpans()
        let plan: MergePlan
        if let p = pending {
            plan = p
        } else {
            guard let p = try planMerge(spans) else { return }
            plan = p
            try txn.setMetaU64(trees, .uuidMerge, p.packed)
        }
        let merged = spans.filter { plan.first <= $0.id && $0.id <= plan.last }
        let done = spans.first { $0.id == plan.into }
        // Each run is read into memory chunk by chunk: the merged run's
        // writes may rewrite the leaf that holds a small chunk.
        var readers: [RunCopy] = []
        defer { for i in readers.indices { readers[i].close() } }
        for s in merged { readers.append(try RunCopy(txn, runTree, s.id, after: done?.last)) }
        let append = (spans.last?.id ?? 0) <= plan.into
        var out: [PendingUUID] = []
        out.reserveCapacity(Self.chunkEntries)
        var copied = 0
        var first = done?.first, last = done?.last
        while copied < tuning.mergeStepEntries {
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
            copied += 1
            if first == nil { first = e }
            last = e
            if out.count == Self.chunkEntries || copied == tuning.mergeStepEntries {
                try out.withUnsafeBufferPointer { try writeRun(plan.into, $0, append: append) }
                out.removeAll(keepingCapacity: true)
                // The runs' chunks are copied as they are read: their pages
                // may go. A chunk read may fault in a large folio, megabytes.
                boundMappedPages()
            }
        }
        if !out.isEmpty { try out.withUnsafeBufferPointer { try writeRun(plan.into, $0, append: append) } }
        if let first, let last {
            spans.removeAll { $0.id == plan.into }
            let at = spans.firstIndex { $0.id > plan.into } ?? spans.count
            spans.insert(RunSpan(id: plan.into, first: first, last: last), at: at)
        }
        if readers.allSatisfy({ $0.head == nil }) {
            let c = try txn.cursor(runTree)
            defer { c.close() }
            let seekFirst = { try RunReader.withChunkKey(plan.first, high: 0, low: 0) { try c.seekRaw(atLeast: $0) } }
            while let (k, _) = try seekFirst(), RunReader.runID(k) < plan.into {
                // Freeing a chunk reads its first page.
                try c.deleteCurrent()
                boundMappedPages()
            }
            spans.removeAll { plan.first <= $0.id && $0.id <= plan.last }
            try txn.setMetaU64(trees, .uuidMerge, 0)
        }
        self.spans = spans
    }

    /// The number of entries of each run.
    func runSizes() throws -> [UInt32: Int] {
        var sizes: [UInt32: Int] = [:]
        try txn.forEach(runTree) { k, v in sizes[RunReader.runID(k), default: 0] += v.count / Self.entrySize }
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
