import CLMDB
import FoundationEssentials
import Glibc
import Synchronization

/// How a store is opened.
public struct StoreOptions: Sendable {
    /// Initial size of the memory map; it grows by itself when full. A
    /// store this process already has open keeps its map.
    public var mapSize: Int = 256 << 20
    /// Deleted objects older than this are pruned (rule 16); nil keeps them
    /// until `prune` is called. Default 90 days.
    public var tombstoneRetention: Double? = 90 * 86_400
    /// Each save or delete is on disk when it returns (fsync). Turn off only
    /// for scratch stores. Handles on one store in a process share its
    /// environment: a durable one stays durable beside a non-durable one.
    public var durable: Bool = true
    /// Walks LMDB's pages once when this process first opens the store,
    /// before anything reads them, and refuses a store whose pages are
    /// damaged with a store-corrupt error (rule 23): LMDB trusts its pages,
    /// and a damaged one could end the process. Costs a read of the file,
    /// about 45 ms for a store of a million samples (docs/reliability.md);
    /// turn off only for a store checked otherwise.
    public var checkPagesWhenOpened: Bool = true
    /// Opens the store for reading only (rule 64): every write through the
    /// handle is refused with a read-only error, and the process needs
    /// only read access to the store's data. Nothing is created, upgraded
    /// or pruned: the store must exist in this library's format. The
    /// process should be able to write `lock.mdb` (where LMDB keeps its
    /// readers); when it cannot, reads are sound only while no other
    /// process writes the store, as on a read-only file system.
    public var readOnly: Bool = false

    public init() {}
}

/// The outcome of one object of a save (rule 14).
public enum SaveOutcome: Hashable, Sendable {
    case saved
    /// Saved, and the stored sample with the same sync identifier and a
    /// lower version (this UUID) became a deleted object.
    case replaced(UUID)
    /// Not saved: a stored sample of the same source has this sync
    /// identifier with an equal or greater version.
    case notSavedOlderVersion(existing: UUID)
}

/// One type and an optional predicate; several make one query (rule 6).
public struct QueryDescriptor: Hashable, Sendable {
    public var type: SampleType
    public var predicate: SamplePredicate?

    public init(type: SampleType, predicate: SamplePredicate? = nil) {
        self.type = type
        self.predicate = predicate
    }
}

/// The ways an anchored query on one type can read (see `indexPositions`).
enum QueryPlan: Sendable { case changeOrder, startIndex, uuidLookup, zoneMap }

/// A store of health samples in one directory: the façade of the engine.
/// Safe to use from any thread; one write transaction runs at a time (also
/// across processes), readers never wait for the writer.
public final class Store: @unchecked Sendable {
    public let directory: String
    public let storeID: UUID
    let options: StoreOptions
    let env: Environment
    let trees: FixedTrees
    let cache: Locked<StoreCache>
    /// Commits are announced here, to every process's live queries.
    let signal: ChangeSignal
    /// The head and horizon of this process's latest commit, by its
    /// transaction id (`position(_:)`).
    let lastCommit = Locked<(txnID: Int, head: UInt64, horizon: UInt64)>((-1, 0, 0))
    /// Called after each of this handle's commits (`setCommitHook`).
    let commitHook = Locked<CommitHook?>(nil)
    /// The last rows blocks its queries freed (of samples and of deleted
    /// objects, `DeletedRowsWriter`), for the next ones.
    package let spareRows = SpareBlock()
    /// Started with the first live query; stopped by close, after which
    /// no live query starts (`closing`).
    private let live = Locked<(watcher: ChangeWatcher?, closing: Bool)>((nil, false))
    /// Shared by every call, exclusive for close: close waits for running
    /// calls, and a call after close gets `.closed`.
    private let lifecycle: UnsafeMutablePointer<pthread_rwlock_t>
    private var isClosed = false
    /// How the store works where tests change it (`StoreTuning`).
    var tuning: StoreTuning
    /// The parts asked of a second thread (`PartsAhead`), for tests: it
    /// reads them, or the caller takes back those it has not begun.
    let partsAskedAhead = Atomic<Int>(0)
    /// The thread of large reads in parts, kept between them (`PartsAhead`).
    let partsHelper = Locked<PartsAhead?>(nil)

    /// Opens the store in `directory`, creating it (and the directory) if
    /// needed. Refuses a store written by a newer format.
    public init(directory: String, options: StoreOptions = StoreOptions()) throws {
        guard !directory.isEmpty else { throw OHKError(.invalidArgument, "store directory must not be empty") }
        if !options.readOnly { try Self.makeDirectory(directory) }
        self.directory = directory
        self.options = options
        env = try OpenEnvironments.acquire(directory: directory, mapSize: options.mapSize, maxTrees: 1024, durable: options.durable,
                                           checkPages: options.checkPagesWhenOpened, readOnly: options.readOnly)
        do {
            signal = try ChangeSignal(directory: directory, readOnly: options.readOnly)
        } catch {
            OpenEnvironments.release(env)
            throw error
        }
        do {
            let opened = options.readOnly ? try env.openingTrees(Self.openForReading) : try env.write(durable: options.durable) { txn -> (FixedTrees, UUID, StoreCache) in
                var dbis: [String: MDB_dbi] = [:]
                for name in Schema.fixedTrees {
                    dbis[name] = try txn.openTree(name, create: true, fixedDuplicates: Schema.fixedDuplicateTrees.contains(name))
                }
                let trees = FixedTrees(dbis)
                let format = try txn.metaU64(trees, .format)
                // Checked before the opening changes meta: a damaged meta keeps a check that fails.
                let sound = format < 15 ? TableChecks.Tables.all : try TableChecks.sound(.meta, txn, trees)
                let id = try Self.initialiseMeta(txn, trees)
                // The start indexes of an older store are built by `upgrade`.
                let cache = try Self.loadCache(txn, trees, buildStarts: format >= 20)
                try Self.upgrade(txn, trees, cache, hash: UUIDHash(storeID: id))
                try TableChecks.update(sound, txn, trees)
                return (trees, id, cache)
            }
            trees = opened.0
            storeID = opened.1
            tuning = StoreTuning(uuidHash: UUIDHash(storeID: opened.1))
            cache = Locked(opened.2)
        } catch {
            OpenEnvironments.release(env)
            throw error
        }
        lifecycle = .allocate(capacity: 1)
        pthread_rwlock_init(lifecycle, nil)
        if let retention = options.tombstoneRetention, !options.readOnly {
            _ = try? prune(deletedBefore: Date(timeIntervalSinceNow: -retention))
        }
    }

    deinit {
        close()
        pthread_rwlock_destroy(lifecycle)
        lifecycle.deallocate()
    }

    /// Closes the store: stops its live queries (waiting for running
    /// handlers, except the one calling close), then waits for the calls
    /// in progress. Idempotent; later calls throw `.closed`.
    public func close() {
        let queries = live.withLock { l -> [LiveQuery] in
            l.closing = true
            return l.watcher?.registered ?? []
        }
        for q in queries { q.stop() }
        live.withLock { l in
            l.watcher?.stop()
            l.watcher = nil
        }
        pthread_rwlock_wrlock(lifecycle)
        if !isClosed {
            isClosed = true
            OpenEnvironments.release(env)
            signal.closeDescriptor()
        }
        pthread_rwlock_unlock(lifecycle)
        // No read runs now: none holds it.
        takePartsHelper()?.stop()
        spareRows.drop()
        FreedMemory.giveBack()
        // Released outside every lock: its owner's clean-up may call us.
        let hook = commitHook.withLock { h in defer { h = nil }; return h }
        withExtendedLifetime(hook) {}
    }

    /// Starts a long-running query (`AnchoredObjectQuery`, `ObserverQuery`).
    /// Its handlers run on library threads until it is stopped or the
    /// store closes. A query executes once; a stopped one is refused.
    public func execute(_ query: LiveQuery) throws {
        try operation {
            try query.begin(on: self)
            try live.withLock { l in
                guard !l.closing else { throw OHKError(.closed, "the store at \(directory) is closing") }
                if l.watcher == nil { l.watcher = ChangeWatcher(signal: signal) }
                l.watcher!.register(query)
            }
        }
        query.storeChanged()  // the snapshot, or a first look for observers
    }

    /// Schedules this process's live queries right after one of its own
    /// commits, one thread wake-up sooner than through the watcher, which
    /// this process's commits do not wake (`ChangeSignal`), with what the
    /// commit changed.
    func wakeLiveQueries(_ note: CommitNote?) {
        guard let queries = live.withLock({ $0.watcher?.registered }) else { return }
        for q in queries { q.storeChanged(note) }
    }

    /// The id of `type` if this process knows the store has one (without
    /// reading the store).
    func knownTypeID(_ type: SampleType) -> UInt16? { cache.withLock { $0.typeID(of: type) } }

    /// How many live queries run (for tests).
    var liveQueryCount: Int { live.withLock { $0.watcher?.registered.count ?? 0 } }

    /// How many times the watcher woke to a changed counter (for tests).
    var watcherLooks: Int { live.withLock { $0.watcher?.looks ?? 0 } }

    func liveQueryStopped(_ query: LiveQuery) {
        live.withLock { $0.watcher?.unregister(query) }
    }

    /// Throws the read-only error for a handle opened read-only (its
    /// environment may be another handle's writable one).
    func refuseIfReadOnly() throws {
        guard !options.readOnly else { throw OHKError(.readOnly, "the store at \(directory) was opened read-only") }
    }

    /// Runs a public call unless the store is closed.
    func operation<T>(_ body: () throws -> T) throws -> T {
        pthread_rwlock_rdlock(lifecycle)
        defer { pthread_rwlock_unlock(lifecycle) }
        guard !isClosed else { throw OHKError(.closed, "the store at \(directory) is closed") }
        return try body()
    }

    private static func makeDirectory(_ path: String) throws {
        var partial = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                throw OHKError(.storage, "cannot create directory \(partial): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The trees, id and cache of a store opened read-only: it must exist,
    /// in this library's format, since nothing may be written to upgrade it.
    private static func openForReading(_ txn: Txn) throws -> (FixedTrees, UUID, StoreCache) {
        guard let meta = try txn.openTree("meta", create: false) else {
            throw OHKError(.storage, "there is no store here yet (a read-only open does not create one)")
        }
        guard let raw = try txn.get(meta, Schema.MetaKey.format.bytes), raw.count == 8 else {
            throw OHKError(.storeCorrupt, "the store has no format (corrupt meta)")
        }
        let format = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        if format > UInt64(Schema.format) {
            throw OHKError(.storeFormatTooNew, "the store was written by a newer OpenHealthKit (format \(format); this library reads format \(Schema.format))")
        }
        if format < UInt64(Schema.format) {
            throw OHKError(.storeFormatTooOld, "the store is in format \(format); a read-only open cannot upgrade it to format "
                           + "\(Schema.format): open it once for writing")
        }
        var dbis: [String: MDB_dbi] = [:]
        for name in Schema.fixedTrees {
            let dbi = try txn.openTree(name, create: false, fixedDuplicates: Schema.fixedDuplicateTrees.contains(name))
            guard let dbi else { throw OHKError(.storeCorrupt, "the store has no \(name) tree (`ohk check` names every problem)") }
            dbis[name] = dbi
        }
        let trees = FixedTrees(dbis)
        guard let raw = try txn.get(trees.meta, Schema.MetaKey.storeID.bytes), raw.count == 16 else {
            throw OHKError(.storeCorrupt, "store has no id (corrupt meta)")
        }
        var idReader = ByteReader(raw)
        return (trees, try idReader.uuid(), try loadCache(txn, trees))
    }

    private static func initialiseMeta(_ txn: Txn, _ trees: FixedTrees) throws -> UUID {
        let format = try txn.metaU64(trees, .format)
        if format > UInt64(Schema.format) {
            throw OHKError(.storeFormatTooNew, "the store was written by a newer OpenHealthKit (format \(format); this library reads format \(Schema.format))")
        }
        if format == 1 {
            throw OHKError(.storeFormatTooOld, "the store was written in development format 1, which this library no longer reads; recreate it")
        }
        if format == 0 {
            try txn.setMetaU64(trees, .format, UInt64(Schema.format))
            try txn.setMetaU64(trees, .recordLayout, LegacyRecords.currentLayout)
            let id = UUID()
            var w = ByteWriter()
            w.uuid(id)
            try txn.put(trees.meta, Schema.MetaKey.storeID.bytes, w.bytes)
            return id
        }
        guard let raw = try txn.get(trees.meta, Schema.MetaKey.storeID.bytes), raw.count == 16 else {
            throw OHKError(.storeCorrupt, "store has no id (corrupt meta)")
        }
        var r = ByteReader(raw)
        return try r.uuid()
    }

    /// Brings a store of an older readable format up to this one, and maps
    /// what a format-2 library (open on the store while it was upgraded)
    /// appended past the zone map's head.
    private static func upgrade(_ txn: Txn, _ trees: FixedTrees, _ cache: StoreCache, hash: UUIDHash) throws {
        // First: every step after it reads records.
        let layout = try txn.metaU64(trees, .recordLayout)
        if layout != LegacyRecords.currentLayout {
            if layout == 2 { try LegacyRecords.narrowDevices(txn, trees, cache) } else { try LegacyRecords.convert(txn, cache) }
            try txn.setMetaU64(trees, .recordLayout, LegacyRecords.currentLayout)
        }
        let format = try txn.metaU64(trees, .format)
        if format < 20 {
            // Format 20's start index, from the records; the one before
            // it (fixed-size duplicates, formats 5 to 19) is dropped.
            for (id, t) in cache.typeTrees {
                try WriteContext.buildStartsIfEmpty(txn, t)
                if let legacy = try txn.openTree(Schema.legacyStartIndexName(id), create: false, fixedDuplicates: true) {
                    try txn.drop(legacy)
                }
            }
        }
        let (head, _) = try txn.position(trees)
        let mapped = format == 2 ? 0 : try txn.metaU64(trees, .zoneHead)
        if mapped < head {
            for (id, t) in cache.typeTrees {
                try ZoneMap.build(txn, trees.zones, type: id, records: t.records, from: mapped + 1)
            }
        }
        if mapped != head { try txn.setMetaU64(trees, .zoneHead, head) }
        // Before anything looks a UUID up (linking routes does).
        if format < 5 {
            try UUIDIndex.adopt(txn, trees, hash: hash)
        } else if format < 21 {
            try UUIDIndex.packLegacyHashes(txn, trees)
        }
        if format < 10 { try linkRoutes(txn, trees, cache) }
        if format < 13 { try WorkoutLinks.moveLegacy(txn, trees) }
        if format >= 13 && format < 15 { try WorkoutLinks.seal(txn, trees) }
        // Format 11 brought HealthKit's heartbeat series type; a store that
        // registered a custom type of that identifier would have its
        // samples read as heartbeat series.
        for id in [TypeCatalogue.heartbeatSeriesIdentifier, TypeCatalogue.audiogramIdentifier] where format < 11 {
            guard try txn.get(trees.custom, Array(id.utf8)) != nil else { continue }
            throw OHKError(.invalidArgument, "this store registered \(id) as a custom type, which is HealthKit's own "
                           + "type from 0.13 on: open it with 0.12, export its samples and import them under another identifier")
        }
        // Format 12 the same for electrocardiograms and clinical records.
        let format12 = [TypeCatalogue.electrocardiogramIdentifier]
            + TypeCatalogue.clinicalTypeNames.map { TypeCatalogue.clinicalPrefix + $0 }
        for id in format12 where format < 12 {
            guard try txn.get(trees.custom, Array(id.utf8)) != nil else { continue }
            throw OHKError(.invalidArgument, "this store registered \(id) as a custom type, which is HealthKit's own "
                           + "type from 0.14 on: open it with 0.13, export its samples and import them under another identifier")
        }
        // Statistics that miss changes (format 8 had none) are built again,
        // and so are those without checks (format 15) and those of fixed
        // widths (format 18).
        if try format < 18 || txn.metaU64(trees, .statisticsHead) != head { _ = try rebuildStatistics(txn, trees) }
        if format < 17 { try DigestTable.build(txn, trees, cache) }
        if format < UInt64(Schema.format) { try txn.setMetaU64(trees, .format, UInt64(Schema.format)) }
    }

    /// Reads the interned tables and opens every type tree.
    private static func loadCache(_ txn: Txn, _ trees: FixedTrees, buildStarts: Bool = true) throws -> StoreCache {
        var c = StoreCache()
        try txn.forEach(trees.custom) { k, v in
            let id = String(decoding: k, as: UTF8.self)
            c.customTypes[id] = SampleType(identifier: id, kind: try TableCodec.decodeKind(v), isCustom: true)
        }
        try txn.forEachType(trees) { identifier, id in
            c.setTypeID(id, for: identifier)
            c.typeTrees[id] = try WriteContext.openTypeTrees(txn, id, create: false, build: buildStarts)
        }
        return c
    }

    /// A sample type by identifier: HealthKit's own (also by its short
    /// name, `HeartRate`), or one registered in this store (by any process).
    public func sampleType(_ identifier: String) throws -> SampleType {
        if let t = TypeCatalogue.standard[identifier] { return t }
        // A custom type's own identifier before HealthKit's short names: a
        // store may have registered "HeartbeatSeries" before HealthKit's
        // type of that short name came.
        if let t = cache.withLock({ $0.customTypes[identifier] }) { return t }
        if let t = TypeCatalogue.lookup(identifier) { return t }
        return try operation {
            try env.read { txn -> SampleType in
                guard let raw = try txn.get(trees.custom, Array(identifier.utf8)) else {
                    throw TypeCatalogue.unknown(identifier)
                }
                let t = SampleType(identifier: identifier, kind: try TableCodec.decodeKind(raw), isCustom: true)
                cache.withLock { $0.customTypes[identifier] = t }
                return t
            }
        }
    }

    /// Registers a type of the store's own (not HealthKit's). Registering
    /// the same definition again is a no-op; another definition under a
    /// used identifier is an error.
    @discardableResult
    public func registerCustomType(_ identifier: String, kind: SampleType.Kind) throws -> SampleType {
        guard !identifier.isEmpty, identifier.utf8.count <= 255 else {
            throw OHKError(.invalidArgument, "custom type identifier must be 1 to 255 bytes")
        }
        guard TypeCatalogue.standard[identifier] == nil else {
            throw OHKError(.invalidArgument, "'\(identifier)' is one of HealthKit's identifiers")
        }
        if case .category(let values) = kind, values.isEmpty {
            throw OHKError(.invalidArgument, "a category type needs at least one value")
        }
        switch kind {
        case .quantity, .category: break
        case .workout, .route, .correlation, .heartbeatSeries, .audiogram, .electrocardiogram, .clinicalRecord:
            throw OHKError(.invalidArgument, "a custom type is a quantity or a category type; workouts, routes, correlations, "
                           + "heartbeat series, audiograms, electrocardiograms and clinical records are HealthKit's")
        }
        let t = SampleType(identifier: identifier, kind: kind, isCustom: true)
        try operation {
            try refuseIfReadOnly()
            try env.write(durable: options.durable) { txn in
                let key = Array(identifier.utf8)
                if let raw = try txn.get(trees.custom, key) {
                    guard try TableCodec.decodeKind(raw) == kind else {
                        throw OHKError(.invalidArgument, "custom type '\(identifier)' exists with another definition")
                    }
                    return
                }
                let sound = try TableChecks.sound(.custom, txn, trees)
                try txn.put(trees.custom, key, TableCodec.encode(kind))
                try TableChecks.update(sound, txn, trees)
            }
        }
        cache.withLock { $0.customTypes[identifier] = t }
        return t
    }

    /// The head and horizon a read sees. When it reads this process's
    /// latest commit (the same transaction id), they are known without
    /// reading the meta tree, whose lookup after a commit (the tree's
    /// record in the main tree, then its page, both new) was 7 % of a
    /// delta query through C.
    func position(_ txn: Txn) throws -> (head: UInt64, horizon: UInt64) {
        let last = lastCommit.withLock { $0 }
        if last.txnID == txn.id { return (last.head, last.horizon) }
        return try txn.position(trees)
    }

    /// The head of the change order and the tombstone horizon, now.
    public func currentAnchor() throws -> QueryAnchor {
        try operation {
            try env.read { txn in
                let (head, horizon) = try position(txn)
                return QueryAnchor(storeID: storeID, position: head, horizon: horizon)
            }
        }
    }
}
