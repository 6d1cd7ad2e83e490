import CLMDB
import FoundationEssentials

/// The state of one write transaction: the change-order head, the
/// horizon, and the table entries it added (published to the store's cache
/// only after commit, since the transaction may abort and be replayed).
struct WriteContext {
    let txn: Txn
    let trees: FixedTrees
    let committed: StoreCache
    var added = CacheAdditions()
    var head: UInt64
    var horizon: UInt64
    /// The head and horizon when the transaction began.
    private let startHead: UInt64, startHorizon: UInt64
    let now: Date
    private var recentSources: [(Source, UInt32)] = []
    /// Index entries of the samples saved in this transaction, inserted in
    /// key order when it ends (or before anything reads the index): random
    /// UUIDs in order walk the tree's leaves once instead of jumping.
    private var pendingUUIDs: [PendingUUID] = []
    /// Set by a `saveNew` that asked `heldUUIDs` for all it saves: the
    /// index need not look its entries up again when they are inserted.
    var pendingUUIDsAreNew = false
    /// The zone map's blocks this transaction appended to.
    private var pendingZones = PendingZones()
    /// Cursors on the type trees this transaction appended to. A put
    /// through a cursor starts on the cursor's page, where a type's next
    /// record and start entry almost always go; `Txn.put` searches from
    /// the root every time. LMDB closes them when the transaction ends.
    private var appendCursors: [(typeID: UInt16, records: Cursor, starts: StartIndex.Writer)] = []
    /// The record being saved, encoded in one buffer reused for every sample.
    var encoded = ByteWriter(capacity: 256)
    var uuidIndex: UUIDIndex
    /// The maintained statistics' changes, written by `finish`.
    var statistics = PendingStatistics()
    /// Set by a replication (rule 70): of two samples of one sync
    /// identifier at one version, saved in two stores, the one with the
    /// lesser UUID is kept in both, so that they converge. A local save of
    /// an equal version is refused (rule 14).
    var equalVersionsByUUID = false
    /// What this transaction added to and removed from each type's live
    /// digest (rule 68), written by `finish`.
    var digests: [UInt16: LiveDigest] = [:]
    /// The small tables this transaction changes (`touch`), and those of
    /// them whose checks held before it: only those are carried forward.
    private var touched: TableChecks.Tables = .meta
    private var sound: TableChecks.Tables
    #if DEBUG
    /// Every small table's hash when the transaction began: `finish` finds
    /// one changed without `touch`, whose check would then be stale.
    private let tablesAtStart: [UInt64]
    #endif

    init(_ txn: Txn, _ trees: FixedTrees, cache: StoreCache, uuidHash: UUIDHash,
         uuidTuning: UUIDIndex.Tuning = UUIDIndex.Tuning()) throws {
        self.txn = txn
        self.trees = trees
        committed = cache
        // Index entries of any type are confirmed against their records;
        // LMDB hands back the handle of a tree already open.
        uuidIndex = UUIDIndex(txn, trees, hash: uuidHash, tuning: uuidTuning) { id in
            try cache.typeTrees[id]?.records ?? txn.openTree(Schema.typeTreeName(id), create: false)
        }
        (head, horizon) = try txn.position(trees)
        (startHead, startHorizon) = (head, horizon)
        mappedThroughHead = try txn.metaU64(trees, .zoneHead) == head
        statisticsThroughHead = try txn.metaU64(trees, .statisticsHead) == head
        sound = try TableChecks.sound(.meta, txn, trees)
        #if DEBUG
        tablesAtStart = try TableChecks.trees(.all, trees).map { try TableChecks.digest(txn, $0.name, $0.dbi) }
        #endif
        now = Date()
    }

    /// Says that the transaction is about to change `tables` (beyond
    /// `meta`, which every one changes): their checks are recomputed when
    /// it ends, if they held now.
    mutating func touch(_ tables: TableChecks.Tables) throws {
        let new = tables.subtracting(touched)
        guard !new.isEmpty else { return }
        sound.formUnion(try TableChecks.sound(new, txn, trees))
        touched.formUnion(new)
    }

    /// Whether the zone map held every record when this transaction began;
    /// only then does it still hold every record when it ends.
    private let mappedThroughHead: Bool
    /// Whether the maintained statistics held every change when this
    /// transaction began; otherwise they are rebuilt on the next open.
    private let statisticsThroughHead: Bool

    /// Writes the pending index entries, the head and the horizon; call last.
    mutating func finish() throws {
        try flushUUIDs()
        try flushStarts()
        try pendingZones.flush(txn, trees.zones)
        if mappedThroughHead { try txn.setMetaU64(trees, .zoneHead, head) }
        if statisticsThroughHead {
            var records: [UInt16: TypeTrees] = [:]
            for id in statistics.typesToRecompute { records[id] = try tree(id: id) }
            try statistics.flush(txn, trees.statistics, records: records)
            if head != startHead { try txn.setMetaU64(trees, .statisticsHead, head) }
        }
        for (id, change) in digests where !change.isEmpty {
            try DigestTable.write(txn, trees, typeID: id, try DigestTable.read(txn, trees, typeID: id) + change)
        }
        try txn.setPosition(trees, head: head, horizon: horizon)
        #if DEBUG
        let changing = Set(TableChecks.trees(touched, trees).map(\.name))
        for (i, t) in TableChecks.trees(.all, trees).enumerated() where !changing.contains(t.name) {
            let now = try TableChecks.digest(txn, t.name, t.dbi)
            assert(now == tablesAtStart[i], "the \(t.name) table changed without touch()")
        }
        #endif
        try TableChecks.update(touched.intersection(sound), txn, trees)
    }

    /// What the transaction changed, for this process's live queries;
    /// nil when it moved the horizon. Call after `finish`.
    var note: CommitNote? {
        guard horizon == startHorizon else { return nil }
        return CommitNote(startHead: startHead, head: head, horizon: horizon, typeIDs: changedTypeIDs)
    }

    /// The ids of the types the transaction saved or deleted samples of,
    /// in the order it first wrote each: every new position is written
    /// through `append`, which keeps a cursor per type.
    var changedTypeIDs: [UInt16] { appendCursors.map(\.typeID) }

    /// How many positions (saves and deletions) the transaction wrote.
    var positionsWritten: UInt64 { head - startHead }

    mutating func nextSeq() -> UInt64 {
        head += 1
        return head
    }

    /// The id and trees of `type`, creating them on first use.
    mutating func tree(for type: SampleType) throws -> (UInt16, TypeTrees) {
        // A save's samples are mostly of one type: its lookups (a hash of
        // the id, and of the identifier in a type's first transaction)
        // were a twelfth of a bulk save's instructions.
        if let last = lastTree, last.type === type { return (last.id, last.trees) }
        let found = try lookUpTree(for: type)
        lastTree = (type, found.0, found.1)
        return found
    }

    /// The type `tree(for:)` found last.
    private var lastTree: (type: SampleType, id: UInt16, trees: TypeTrees)?

    private mutating func lookUpTree(for type: SampleType) throws -> (UInt16, TypeTrees) {
        if let id = committed.typeID(of: type) ?? added.typeIDs[type.identifier],
           let dbi = committed.typeTrees[id] ?? added.typeTrees[id] {
            return (id, dbi)
        }
        let key = Array(type.identifier.utf8)
        let id: UInt16
        if let raw = try txn.get(trees.types, key) {
            id = UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self))
        } else {
            try touch(.types)
            let next = try txn.metaU64(trees, .nextType) + 1
            guard next < 1000 else { throw OHKError(.invalidArgument, "too many sample types in one store") }
            id = UInt16(next)
            try txn.setMetaU64(trees, .nextType, next)
            try withUnsafeBytes(of: id.littleEndian) { v in
                _ = try key.withUnsafeBytes { k in try txn.put(trees.types, k, v) }
            }
        }
        let opened = try Self.openTypeTrees(txn, id, create: true)
        added.typeIDs[type.identifier] = id
        added.typeTrees[id] = opened
        return (id, opened)
    }

    /// The trees of an existing type id (for deletes found through `uuids`).
    mutating func tree(id: UInt16) throws -> TypeTrees {
        if let t = committed.typeTrees[id] ?? added.typeTrees[id] { return t }
        let t = try Self.openTypeTrees(txn, id, create: false)
        added.typeTrees[id] = t
        return t
    }

    /// Opens (or creates) a type's record tree and its start index, which
    /// is built here when it is empty and the records are not (unless
    /// `build` is false: the open of an older store builds it once its
    /// records are in this format).
    static func openTypeTrees(_ txn: Txn, _ id: UInt16, create: Bool, build: Bool = true) throws -> TypeTrees {
        guard let records = try txn.openTree(Schema.typeTreeName(id), create: create) else {
            throw OHKError(.storage, "tree of type id \(id) is missing")
        }
        guard let starts = try txn.openTree(Schema.startIndexName(id), create: true) else {
            throw OHKError(.storage, "cannot open the start index of type id \(id)")
        }
        let t = TypeTrees(records: records, starts: starts)
        if build { try buildStartsIfEmpty(txn, t) }
        return t
    }

    /// Fills a type's start index from its records when it is empty.
    static func buildStartsIfEmpty(_ txn: Txn, _ t: TypeTrees) throws {
        if txn.entries(t.starts) == 0 && txn.entries(t.records) > 0 {
            try StartIndex.build(txn, records: t.records, starts: t.starts)
        }
    }

    /// Writes a record of type `typeID` at the new position `seq`, with
    /// its start index entry, and notes it for the zone map.
    mutating func append(_ record: [UInt8], typeID: UInt16, _ t: TypeTrees, start: Double, seq: UInt64) throws {
        let i = try appendCursors(typeID, t)
        try withUnsafeBytes(of: seq.bigEndian) { s in
            _ = try record.withUnsafeBytes { r in try appendCursors[i].records.put(s, r, append: true) }
        }
        try appendCursors[i].starts.insert(start: start, seq: seq)
        pendingZones.note(type: typeID, seq: seq, start: start)
    }

    /// The index in `appendCursors` of the type's cursors, opened on first use.
    private mutating func appendCursors(_ typeID: UInt16, _ t: TypeTrees) throws -> Int {
        if let i = appendCursors.firstIndex(where: { $0.typeID == typeID }) { return i }
        appendCursors.append((typeID, try txn.cursor(t.records), StartIndex.Writer(cursor: try txn.cursor(t.starts))))
        return appendCursors.count - 1
    }

    /// Writes the start index chunks the appends keep in memory
    /// (`StartIndex.Writer`): before anything else reads or changes a
    /// start index in this transaction (the statistics' rebuild, a prune),
    /// as `flushUUIDs` before the UUID index is read.
    mutating func flushStarts() throws {
        for i in appendCursors.indices { try appendCursors[i].starts.flush() }
    }

    /// Removes a pruned record's start index entry, through a cursor of
    /// its own (after `flushStarts`): a prune is no change to the type's
    /// objects, which the commit note names by the types `appendCursors`
    /// holds.
    static func deleteStart(_ txn: Txn, _ t: TypeTrees, start: Double, seq: UInt64) throws {
        let c = try txn.cursor(t.starts)
        defer { c.close() }
        var writer = StartIndex.Writer(cursor: c)
        try writer.remove(start: start, seq: seq)
    }

    mutating func sourceID(_ s: Source) throws -> UInt32 {
        // Batches cycle through a few sources: compare before hashing.
        for (known, id) in recentSources where known == s { return id }
        let id = try internSource(s)
        if recentSources.count == 8 { recentSources.removeFirst() }
        recentSources.append((s, id))
        return id
    }

    private mutating func internSource(_ s: Source) throws -> UInt32 {
        if let id = committed.sourceIDs[s] ?? added.sourceIDs[s] { return id }
        let id = try intern(TableCodec.encode(s), keys: trees.sourceKeys, values: trees.sources, counter: .nextSource)
        added.sourceIDs[s] = id
        added.sources[id] = s
        return id
    }

    mutating func deviceID(_ d: Device?) throws -> UInt32 {
        guard let d else { return 0 }
        if let id = committed.deviceIDs[d] ?? added.deviceIDs[d] { return id }
        let id = try intern(TableCodec.encode(d), keys: trees.deviceKeys, values: trees.devices, counter: .nextDevice)
        guard id <= RecordCodec.deviceMask else { throw OHKError(.invalidArgument, "too many distinct devices") }
        added.deviceIDs[d] = id
        added.devices[id] = d
        return id
    }

    /// Finds or assigns the id of an encoded table entry.
    private mutating func intern(_ encoded: [UInt8], keys: MDB_dbi, values: MDB_dbi, counter: Schema.MetaKey) throws -> UInt32 {
        guard encoded.count < 400 else { throw OHKError(.invalidArgument, "source or device strings are too long (over 400 bytes)") }
        if let raw = try txn.get(keys, encoded) { return UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)) }
        try touch(.names)
        let id = UInt32(try txn.metaU64(trees, counter) + 1)
        try txn.setMetaU64(trees, counter, UInt64(id))
        var w = ByteWriter()
        w.u32(id)
        try txn.put(keys, encoded, w.bytes)
        try txn.put(values, u64: UInt64(id), encoded)
        return id
    }

    /// Turns the live sample at (`typeID`, `seq`) into a tombstone at a new
    /// position: one entry per object, always (docs/architecture.md).
    mutating func tombstone(typeID: UInt16, seq: UInt64) throws -> UUID {
        try flushUUIDs()
        let t = try tree(id: typeID)
        let dbi = t.records
        guard let raw = try txn.get(dbi, u64: seq) else { throw OHKError(.storage, "record \(seq) is missing") }
        let record = try RecordView(stored: raw)
        guard !record.isTombstone else { throw OHKError(.notFound, "sample \(record.uuid) is already deleted") }
        let uuid = record.uuid
        let tomb = RecordCodec.encodeTombstone(of: record, deletionDate: now)
        if case .string(let syncID)? = record.metadataValue(MetadataKey.syncIdentifier),
           let bundle = try bundleIdentifier(record.sourceID) {
            let key = Self.syncKey(bundle: bundle, identifier: syncID)
            if let v = try txn.get(trees.sync, key), UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)) == Schema.pack(type: typeID, seq: seq) {
                try txn.delete(trees.sync, key)
            }
        }
        let start = record.start
        let type = type(id: typeID)
        if type?.kind == .workout { try WorkoutLinks.drop(workout: uuid, txn, trees) }
        if let type, case .quantity(_, let style) = type.kind {
            statistics.remove(type: typeID, style: style, start: start, end: record.end, offset: record.utcOffset)
        }
        digests[typeID, default: LiveDigest()].remove(uuid, version: LiveDigest.version(record))
        try txn.delete(dbi, u64: seq)
        let newSeq = nextSeq()
        try appendCursors[try appendCursors(typeID, t)].starts.remove(start: start, seq: seq)
        try append(tomb, typeID: typeID, t, start: start, seq: newSeq)
        try uuidIndex.move(PendingUUID(uuid), from: Schema.pack(type: typeID, seq: seq), to: Schema.pack(type: typeID, seq: newSeq))
        try listDeletion(at: newSeq, typeID: typeID, deleted: now.timeIntervalSinceReferenceDate, saved: seq)
        return uuid
    }

    /// Writes a deleted object for a sample this store never held, copied
    /// from another store's (`d`): a replica relays the deletion and refuses
    /// the sample should it come later (rule 70). Its saved position is its
    /// own, since no reader of this store can have seen the sample.
    mutating func insertTombstone(copying d: ReplicaDeletion) throws {
        let record = RecordCodec.encodeTombstone(uuid: d.uuid, start: d.start, end: d.end, deleted: d.deleted,
                                                 sourceID: try sourceID(d.source), sync: d.syncMetadata)
        try appendTombstone(record, uuid: d.uuid, start: d.start, type: d.type, deleted: d.deleted)
    }

    /// Writes a deleted object for a sample a replica received but does
    /// not keep, as a higher version of its sync identifier is here (rule
    /// 70): the deletion it would later receive is then known already.
    mutating func insertTombstone(of s: Sample) throws {
        let start = s.startDate.timeIntervalSinceReferenceDate, deleted = now.timeIntervalSinceReferenceDate
        let sync = s.metadata.filter { $0.key == MetadataKey.syncIdentifier || $0.key == MetadataKey.syncVersion }
        let record = RecordCodec.encodeTombstone(uuid: s.uuid, start: start, end: s.endDate.timeIntervalSinceReferenceDate,
                                                 deleted: deleted, sourceID: try sourceID(s.source), sync: sync)
        try appendTombstone(record, uuid: s.uuid, start: start, type: s.type, deleted: deleted)
    }

    /// A tombstone record at a new position, indexed and listed; its
    /// saved position is its own.
    private mutating func appendTombstone(_ record: [UInt8], uuid: UUID, start: Double, type: SampleType,
                                          deleted: Double) throws {
        let (typeID, t) = try tree(for: type)
        let seq = nextSeq()
        try append(record, typeID: typeID, t, start: start, seq: seq)
        addUUID(uuid, typeID: typeID, seq: seq)
        try listDeletion(at: seq, typeID: typeID, deleted: deleted, saved: seq)
    }

    /// The deletion list's entry (`tombs`) of the deleted object at `seq`:
    /// its type, when it was deleted (for pruning), and where its sample
    /// was saved (a replica asks whether it received it, rule 68).
    private func listDeletion(at seq: UInt64, typeID: UInt16, deleted: Double, saved: UInt64) throws {
        var w = ByteWriter()
        w.u16(typeID)
        w.f64(deleted)
        w.u64(saved)
        try txn.put(trees.tombs, u64: seq, w.bytes, append: true)
    }

    /// Makes room for the index entries of `count` samples at once.
    mutating func expectSamples(_ count: Int) { pendingUUIDs.reserveCapacity(count) }

    /// Indexes a newly saved sample; a UUID already stored (or twice in
    /// this transaction) fails the transaction with `.duplicateUUID`.
    mutating func addUUID(_ uuid: UUID, typeID: UInt16, seq: UInt64) {
        pendingUUIDs.append(PendingUUID(uuid, value: Schema.pack(type: typeID, seq: seq)))
    }

    /// Inserts the pending index entries, in key order (memcmp order of
    /// the bytes, which is the big-endian integers' order).
    mutating func flushUUIDs() throws {
        guard !pendingUUIDs.isEmpty else { return }
        pendingUUIDs.sortByUUID()
        try uuidIndex.insert(pendingUUIDs, knownNew: pendingUUIDsAreNew)
        pendingUUIDs.removeAll(keepingCapacity: true)
    }

    /// The type with store id `id`, committed or added by this transaction.
    func type(id: UInt16) -> SampleType? {
        if let t = committed.type(id: id) { return t }
        guard let identifier = added.typeIDs.first(where: { $0.value == id })?.key else { return nil }
        return TypeCatalogue.standard[identifier] ?? committed.customTypes[identifier]
    }

    mutating func lookupUUID(_ uuid: UUID) throws -> (type: UInt16, seq: UInt64)? {
        try flushUUIDs()
        return try uuidIndex.get(PendingUUID(uuid)).map(Schema.unpack)
    }

    /// Whether the index holds `uuid`, leaving this transaction's pending
    /// entries where they are (unlike `lookupUUID`, which flushes them).
    mutating func holdsUUID(_ uuid: UUID) throws -> Bool {
        try uuidIndex.get(PendingUUID(uuid)) != nil
    }

    /// Of `uuids`, those the index holds (`holdsUUID` of each), found in
    /// one sorted walk; this transaction's pending entries are not looked at.
    mutating func heldUUIDs(_ uuids: [UUID]) throws -> Set<UUID> {
        var keys = uuids.map { PendingUUID($0) }
        keys.sortByUUID()
        let held = try uuidIndex.holds(sorted: keys)
        var found = Set<UUID>()
        for (k, h) in zip(keys, held) where h { found.insert(k.uuid) }
        return found
    }

    func bundleIdentifier(_ sourceID: UInt32) throws -> String? {
        if let s = committed.names.source(sourceID) ?? added.sources[sourceID] { return s.bundleIdentifier }
        return try txn.get(trees.sources, u64: UInt64(sourceID)).map { try TableCodec.decodeSource($0).bundleIdentifier }
    }

    static func syncKey(bundle: String, identifier: String) -> [UInt8] {
        Array(bundle.utf8) + [0] + Array(identifier.utf8)
    }
}
