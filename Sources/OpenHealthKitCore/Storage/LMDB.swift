import CLMDB
import COHKSystem
import Glibc


/// Thrown inside a write transaction when the map is full: the transaction
/// is aborted, the map grown, and the body run again (never seen by callers).
struct MapFull: Error {}

/// Thrown inside a read when a type tree exists on disk that this process
/// has no handle for yet (another process created it): open it, then retry.
struct NeedTree: Error { let typeID: UInt16 }

/// Thrown inside a read whose transaction began before another thread
/// opened a tree handle that the read then found in the cache: LMDB
/// refuses the handle in that older transaction (EINVAL). A new
/// transaction sees it.
struct StaleTree: Error {}

@inline(__always) func lmdbCheck(_ rc: Int32, _ what: @autoclosure () -> String) throws {
    if rc == 0 { return }
    if rc == MDB_MAP_FULL { throw MapFull() }
    if rc == ENOSPC || rc == EDQUOT {
        // LMDB writes pages with pwrite: a full disk fails the write, and
        // the transaction is aborted with nothing of it in the store.
        throw OHKError(.storage, "\(what()): not enough disk space (\(String(cString: strerror(rc)))); nothing was written")
    }
    if rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID {
        throw OHKError(.storeCorrupt, "\(what()): \(String(cString: mdb_strerror(rc))) (ohk check tells what is damaged)")
    }
    throw OHKError(.storage, "\(what()): \(String(cString: mdb_strerror(rc)))")
}

/// `mdb_put` or `mdb_cursor_put` (`call`) of `key` and `value`; false when
/// `noOverwrite` and the key exists.
@inline(__always)
private func lmdbPut(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, noOverwrite: Bool, append: Bool,
                     _ call: (UnsafeMutablePointer<MDB_val>, UnsafeMutablePointer<MDB_val>, UInt32) -> Int32) throws -> Bool {
    var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
    var flags: UInt32 = 0
    if noOverwrite { flags |= UInt32(MDB_NOOVERWRITE) }
    if append { flags |= UInt32(MDB_APPEND) }
    let rc = call(&k, &v, flags)
    if rc == MDB_KEYEXIST { return false }
    try lmdbCheck(rc, "write failed")
    return true
}

/// One LMDB environment (a store directory), shared by every `Store` of
/// this process on it (`OpenEnvironments`). Transactions of any thread
/// hold `resizeLock` shared; growing the map takes it exclusively, since
/// LMDB allows `mdb_env_set_mapsize` only with no transaction active in the
/// process. Read transactions are pooled (`MDB_NOTLS`: they are not tied
/// to threads) and renewed, which is cheaper than beginning new ones.
///
/// The map is read-only: LMDB writes a transaction's pages with `pwrite`
/// at commit. A full disk then fails the commit (`ENOSPC`) and leaves the
/// store as it was, where a writable map (`MDB_WRITEMAP`, used until version
/// 0.5) wrote pages in place in a sparse file and a page the disk could
/// not back stopped the process with SIGBUS. It is faster too: at N = 300k,
/// ingest 119.6k -> 152.8k/s and bulk_ingest 473k -> 505k/s (the writable
/// map's commits flushed it with msync), for 11 MB more anonymous memory in
/// a 100,000-sample transaction (its pages are malloc'd until commit). A
/// stray write into the map is a fault rather than corruption. The
/// kernel's readahead is off (`MDB_NORDAHEAD`): with it, faults on the map
/// build large page-cache folios; walks ask for their own (`Readahead`).
final class Environment: @unchecked Sendable {
    let env: OpaquePointer
    /// The store directory.
    let path: String
    /// Whether commits sync (a non-durable environment syncs the commits
    /// of durable handles itself, `write(durable:_:)`).
    let durable: Bool
    /// Opened with `MDB_RDONLY` (`StoreOptions.readOnly`): LMDB refuses a
    /// write transaction, and trees are opened in committed read ones.
    let readOnly: Bool
    /// Opened without LMDB's lock file (`MDB_NOLOCK`), which this process
    /// may not write: its readers hold no reader slot (see `init`).
    let lockless: Bool
    /// Serialises opening trees in a read-only environment, where no write
    /// transaction does (LMDB: one `mdb_dbi_open` at a time in a process).
    private let treeOpening = Locked<Void>(())
    /// Its place in `OpenEnvironments` (set once, when it is entered there).
    var key: OpenEnvironments.Key?
    private let resizeLock: UnsafeMutablePointer<pthread_rwlock_t>
    private let readPool = Locked<[OpaquePointer]>([])
    private static let poolLimit = 16
    /// Readers LMDB keeps room for, and the lock file's size for them:
    /// 128 bytes of header and 64 a reader (LMDB 0.9), with room to spare.
    private static let maxReaders: UInt32 = 510
    static let lockFileBytes = 64 << 10

    /// Opens the environment; only `OpenEnvironments` calls this, so that
    /// a process never opens one store twice.
    ///
    /// Read-only, the data file is opened for reading alone. The lock file
    /// is still written when this process may (a reader takes a slot there,
    /// so that writers of other processes keep the pages it reads); when it
    /// may not, the environment opens without it, as LMDB itself does on a
    /// read-only file system: its reads are then sound only while no other
    /// process writes the store (docs/semantics.md, rule 64).
    init(path: String, mapSize: Int, maxTrees: UInt32, durable: Bool, readOnly: Bool = false) throws {
        if readOnly {
            guard access(path + "/data.mdb", R_OK) == 0 else {
                throw OHKError(.storage, "cannot open the store at \(path) read-only: \(path)/data.mdb: \(String(cString: strerror(errno)))"
                               + (errno == ENOENT ? " (a read-only open does not create a store)" : ""))
            }
            lockless = !Self.lockFileWritable(path + "/lock.mdb")
        } else {
            // LMDB writes reader slots through a map of the lock file.
            try allocateBlocks(path + "/lock.mdb", bytes: Self.lockFileBytes)
            lockless = false
        }
        self.readOnly = readOnly
        var e: OpaquePointer?
        try lmdbCheck(mdb_env_create(&e), "mdb_env_create")
        guard let e else { throw OHKError(.storage, "mdb_env_create returned no environment") }
        env = e
        self.path = path
        self.durable = durable
        resizeLock = .allocate(capacity: 1)
        pthread_rwlock_init(resizeLock, nil)
        do {
            try lmdbCheck(mdb_env_set_maxdbs(e, maxTrees), "mdb_env_set_maxdbs")
            try lmdbCheck(mdb_env_set_maxreaders(e, Self.maxReaders), "mdb_env_set_maxreaders")
            try lmdbCheck(mdb_env_set_mapsize(e, mapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS) | UInt32(MDB_NORDAHEAD) | (durable ? 0 : UInt32(MDB_NOSYNC))
            if readOnly { flags |= UInt32(MDB_RDONLY) }
            if lockless { flags |= UInt32(MDB_NOLOCK) }
            try lmdbCheck(mdb_env_open(e, path, flags, 0o644), "cannot open store at \(path)")
            // Free the reader slots of processes that died holding them.
            var cleared: Int32 = 0
            if !lockless { _ = mdb_reader_check(e, &cleared) }
        } catch {
            mdb_env_close(e)
            pthread_rwlock_destroy(resizeLock)
            resizeLock.deallocate()
            throw error
        }
    }

    /// Whether this process may open the lock file for writing (a missing
    /// one is not made: a read-only open creates nothing). Called before
    /// LMDB opens it, so closing the probe's descriptor drops no lock of
    /// this process.
    private static func lockFileWritable(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        return true
    }

    /// Runs `body`, which opens trees, in a transaction that publishes the
    /// handles it opened to every later transaction of the process: the
    /// write transaction, or in a read-only environment a read transaction
    /// that is committed (LMDB keeps a read transaction's new handles only
    /// then). Changes nothing on disk, so it needs no sync.
    func openingTrees<T>(_ body: (Txn) throws -> T) throws -> T {
        guard readOnly else { return try write(durable: false, body) }
        return try treeOpening.withLock { _ in
            while true {
                pthread_rwlock_rdlock(resizeLock)
                var txn: OpaquePointer?
                let rc = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
                guard rc == 0, let t = txn else {
                    pthread_rwlock_unlock(resizeLock)
                    if rc == MDB_MAP_RESIZED { adoptMapSize(); continue }
                    try lmdbCheck(rc, "cannot begin a read transaction")
                    continue
                }
                defer { pthread_rwlock_unlock(resizeLock) }
                let result: T
                do { result = try body(Txn(txn: t)) } catch { mdb_txn_abort(t); throw error }
                try lmdbCheck(mdb_txn_commit(t), "cannot keep the trees opened")
                return result
            }
        }
    }

    /// Closes the environment; the caller guarantees no transaction runs.
    func close() {
        readPool.withLock { pool in
            for t in pool { mdb_txn_abort(t) }
            pool.removeAll()
        }
        mdb_env_close(env)
        pthread_rwlock_destroy(resizeLock)
        resizeLock.deallocate()
    }

    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return info.me_mapsize
    }

    /// Unmaps the store's pages from this process; they stay in the page
    /// cache, and the next access maps them again (a minor fault). The map
    /// is a shared file mapping: a page a write transaction changed stays
    /// dirty in the page cache, so nothing is lost. LMDB does not
    /// say where its map is (`me_mapaddr` is set for fixed maps only), so
    /// /proc/self/maps does, each time: a range kept from an earlier look
    /// could since have been unmapped (a `PageWalk` maps the file too) and
    /// reused for memory that advice would wipe. Under the resize lock, as
    /// a map being moved must not be advised.
    func releaseMappedPages() {
        pthread_rwlock_rdlock(resizeLock)
        defer { pthread_rwlock_unlock(resizeLock) }
        var st = stat()
        guard stat(path + "/data.mdb", &st) == 0 else { return }
        for (address, length) in MappedFile.ranges(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)) {
            madvise(address, length, MADV_DONTNEED)
        }
    }

    /// Runs `body` in a read snapshot. Pointers into the map must not
    /// escape `body`.
    func read<T>(_ body: (Txn) throws -> T) throws -> T {
        while true {
            pthread_rwlock_rdlock(resizeLock)
            let (txn, rc) = beginPooledRead()
            guard let t = txn else {
                pthread_rwlock_unlock(resizeLock)
                if rc == MDB_MAP_RESIZED { adoptMapSize(); continue }
                try lmdbCheck(rc, "cannot begin a read transaction")
                continue
            }
            defer {
                endPooledRead(t)
                pthread_rwlock_unlock(resizeLock)
            }
            return try body(Txn(txn: t))
        }
    }

    /// Inside `read`'s body: runs `body` with a second read transaction of
    /// the same snapshot as `txn`, for another thread to read while `txn`
    /// reads (an LMDB transaction serves one thread at a time), or with
    /// nil when a commit came between the two. The caller's read holds
    /// the map, so this takes no lock of its own.
    func readAlongside<T>(_ txn: Txn, _ body: (Txn?) throws -> T) throws -> T {
        guard let t = beginPooledRead().txn else { return try body(nil) }
        defer { endPooledRead(t) }
        let same = Txn(txn: t)
        return try body(same.id == txn.id ? same : nil)
    }

    /// A read transaction of the latest snapshot: a pooled one renewed,
    /// else a new one; nil and LMDB's code when neither could be had.
    private func beginPooledRead() -> (txn: OpaquePointer?, rc: Int32) {
        if let t = readPool.withLock({ $0.popLast() }) {
            let rc = mdb_txn_renew(t)
            if rc == 0 { return (t, 0) }
            mdb_txn_abort(t)
        }
        var t: OpaquePointer?
        let rc = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &t)
        return rc == 0 ? (t, 0) : (nil, rc)
    }

    /// Ends a read from `beginPooledRead`, keeping it for the next one.
    private func endPooledRead(_ t: OpaquePointer) {
        mdb_txn_reset(t)
        let kept = readPool.withLock { pool -> Bool in
            guard pool.count < Self.poolLimit else { return false }
            pool.append(t)
            return true
        }
        if !kept { mdb_txn_abort(t) }
    }

    /// Runs `body` in the write transaction and commits it (durable on
    /// return when `durable`). On a full map the transaction is aborted,
    /// the map doubled and `body` run again, so `body` must not change
    /// anything outside the transaction.
    func write<T>(durable: Bool = true, _ body: (Txn) throws -> T) throws -> T {
        guard !readOnly else { throw OHKError(.readOnly, "the store at \(path) is open read-only in this process") }
        while true {
            pthread_rwlock_rdlock(resizeLock)
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(env, nil, 0, &txn)
            guard rc == 0, let t = txn else {
                pthread_rwlock_unlock(resizeLock)
                if rc == MDB_MAP_RESIZED { adoptMapSize(); continue }
                try lmdbCheck(rc, "cannot begin a write transaction")
                continue
            }
            let result: T
            do {
                result = try body(Txn(txn: t))
            } catch is MapFull {
                mdb_txn_abort(t)
                pthread_rwlock_unlock(resizeLock)
                grow()
                continue
            } catch {
                mdb_txn_abort(t)
                pthread_rwlock_unlock(resizeLock)
                throw explainingFullDisk(error)
            }
            let crc = mdb_txn_commit(t)
            pthread_rwlock_unlock(resizeLock)
            if crc == MDB_MAP_FULL { grow(); continue }
            do { try lmdbCheck(crc, "commit failed") } catch { throw explainingFullDisk(error) }
            if durable && !self.durable {
                let src = mdb_env_sync(env, 1)
                guard src == 0 else {
                    throw OHKError(.storage, "the write is committed but could not be flushed to disk: \(String(cString: mdb_strerror(src)))")
                }
            }
            return result
        }
    }

    /// A failed write on a disk with less than a megabyte left, said as
    /// such: LMDB reports a short `pwrite` (the disk filled during it) as
    /// EIO. The transaction was aborted, so nothing of it is in the store.
    private func explainingFullDisk(_ error: Error) -> Error {
        guard let e = error as? OHKError, e.code == .storage, !e.message.contains("not enough disk space") else { return error }
        var s = statvfs()
        guard statvfs(path, &s) == 0, Int(s.f_bavail) * Int(s.f_frsize) < 1 << 20 else { return error }
        return OHKError(.storage, "not enough disk space for the store at \(path) (\(e.message)); nothing was written")
    }

    /// Doubles the map (no transaction of this process may be active).
    private func grow() {
        pthread_rwlock_wrlock(resizeLock)
        defer { pthread_rwlock_unlock(resizeLock) }
        let current = mapSize
        _ = mdb_env_set_mapsize(env, current * 2)
    }

    /// Another process grew the map: take its size.
    private func adoptMapSize() {
        pthread_rwlock_wrlock(resizeLock)
        defer { pthread_rwlock_unlock(resizeLock) }
        _ = mdb_env_set_mapsize(env, 0)
    }
}

/// A transaction handle with the few operations the engine uses. Values
/// returned point into the map and are valid until the transaction ends.
struct Txn {
    let txn: OpaquePointer

    /// The snapshot's id: the id of the commit a read sees, or of the
    /// commit a write transaction will make. Ids only grow.
    var id: Int { mdb_txn_id(txn) }

    /// `fixedDuplicates`: several fixed-size values per key, stored packed
    /// (`MDB_DUPSORT | MDB_DUPFIXED`).
    func openTree(_ name: String, create: Bool, fixedDuplicates: Bool = false) throws -> MDB_dbi? {
        var dbi: MDB_dbi = 0
        var flags = create ? UInt32(MDB_CREATE) : 0
        if fixedDuplicates { flags |= UInt32(MDB_DUPSORT) | UInt32(MDB_DUPFIXED) }
        let rc = mdb_dbi_open(txn, name, flags, &dbi)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cannot open tree \(name)")
        return dbi
    }

    func get(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_get(txn, dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "read failed")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    func get(_ dbi: MDB_dbi, _ key: [UInt8]) throws -> UnsafeRawBufferPointer? {
        try key.withUnsafeBytes { try get(dbi, $0) }
    }

    func get(_ dbi: MDB_dbi, u64 key: UInt64) throws -> UnsafeRawBufferPointer? {
        try withUnsafeBytes(of: bigEndianKey(key)) { try get(dbi, $0) }
    }

    /// Returns false when `noOverwrite` is set and the key exists.
    @discardableResult
    func put(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
             noOverwrite: Bool = false, append: Bool = false) throws -> Bool {
        try lmdbPut(key, value, noOverwrite: noOverwrite, append: append) { mdb_put(txn, dbi, $0, $1, $2) }
    }

    @discardableResult
    func put(_ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8], noOverwrite: Bool = false) throws -> Bool {
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try put(dbi, k, v, noOverwrite: noOverwrite) } }
    }

    func put(_ dbi: MDB_dbi, u64 key: UInt64, _ value: [UInt8], append: Bool = false) throws {
        try withUnsafeBytes(of: bigEndianKey(key)) { k in
            try value.withUnsafeBytes { v in _ = try put(dbi, k, v, append: append) }
        }
    }

    /// Deletes one value of a key with duplicates.
    @discardableResult
    func delete(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_del(txn, dbi, &k, &v)
        if rc == MDB_NOTFOUND { return false }
        try lmdbCheck(rc, "delete failed")
        return true
    }

    @discardableResult
    func delete(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let rc = mdb_del(txn, dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        try lmdbCheck(rc, "delete failed")
        return true
    }

    @discardableResult
    func delete(_ dbi: MDB_dbi, u64 key: UInt64) throws -> Bool {
        try withUnsafeBytes(of: bigEndianKey(key)) { try delete(dbi, $0) }
    }

    @discardableResult
    func delete(_ dbi: MDB_dbi, _ key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { try delete(dbi, $0) }
    }

    /// Deletes the tree `dbi` and closes its handle.
    func drop(_ dbi: MDB_dbi) throws {
        try lmdbCheck(mdb_drop(txn, dbi, 1), "dropping a tree failed")
    }

    func entries(_ dbi: MDB_dbi) -> Int {
        var st = MDB_stat()
        mdb_stat(txn, dbi, &st)
        return st.ms_entries
    }

    func cursor(_ dbi: MDB_dbi) throws -> Cursor {
        var c: OpaquePointer?
        let rc = mdb_cursor_open(txn, dbi, &c)
        if rc == EINVAL { throw StaleTree() }
        try lmdbCheck(rc, "cannot open cursor")
        return Cursor(cursor: c!)
    }

    /// Deletes every entry of `tree`, which stays open.
    func empty(_ tree: MDB_dbi) throws {
        try lmdbCheck(mdb_drop(txn, tree, 0), "cannot empty a tree")
    }

    /// Calls `body` with every entry of `tree`, in key order from the
    /// first, each duplicate too: the one loop over a whole tree.
    func forEach(_ tree: MDB_dbi, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        let c = try cursor(tree)
        defer { c.close() }
        try c.forEachRaw(body)
    }
}

/// A cursor over one tree; close it before its transaction ends.
struct Cursor {
    let cursor: OpaquePointer

    func close() { mdb_cursor_close(cursor) }

    /// Positions at the first key ≥ `key` (big-endian UInt64) and returns it.
    func seek(atLeast key: UInt64) throws -> (UInt64, UnsafeRawBufferPointer)? {
        var be = bigEndianKey(key)
        return try withUnsafeMutableBytes(of: &be) { kb in
            var k = MDB_val(mv_size: 8, mv_data: kb.baseAddress)
            var v = MDB_val()
            return try step(&k, &v, MDB_SET_RANGE)
        }
    }

    /// The value at exactly `key` (big-endian UInt64), or nil. Keys asked
    /// in ascending order stay cheap: LMDB searches the current page first.
    func find(_ key: UInt64) throws -> UnsafeRawBufferPointer? {
        var be = bigEndianKey(key)
        return try withUnsafeMutableBytes(of: &be) { kb in
            var k = MDB_val(mv_size: 8, mv_data: kb.baseAddress)
            var v = MDB_val()
            let rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_KEY)
            if rc == MDB_NOTFOUND { return nil }
            try lmdbCheck(rc, "cursor read failed")
            return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        }
    }

    func first() throws -> (UInt64, UnsafeRawBufferPointer)? {
        var k = MDB_val(), v = MDB_val()
        return try step(&k, &v, MDB_FIRST)
    }

    /// The next entry, with the records after it asked for ahead (see
    /// `ohk_prefetch_below`): a bare walk of 800,000 records took 16.6 ms
    /// rather than 19.5, with 384 bytes (some six records) the best
    /// distance. (A columns walk reads pages in place and asks the same.)
    @inline(__always)
    func next() throws -> (UInt64, UnsafeRawBufferPointer)? {
        var k = MDB_val(), v = MDB_val()
        let entry = try step(&k, &v, MDB_NEXT)
        ohk_prefetch_below(v.mv_data, 384)
        return entry
    }

    /// Positions at the first key ≥ `key` (any length) and returns the entry.
    func seekRaw(atLeast key: UnsafeRawBufferPointer) throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cursor seek failed")
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    /// In a tree of fixed-size duplicates, the first page of the current
    /// key's values. A key with a single value keeps it inline, and LMDB
    /// then leaves the buffer alone: `current` (the value the cursor is
    /// on) is what comes back.
    func firstDuplicates(current: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        var k = MDB_val()
        var v = MDB_val(mv_size: current.count, mv_data: UnsafeMutableRawPointer(mutating: current.baseAddress))
        try lmdbCheck(mdb_cursor_get(cursor, &k, &v, MDB_GET_MULTIPLE), "cursor read failed")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// In a tree of duplicates, positions at the first value of `key` that
    /// is at least `value` (`MDB_GET_BOTH_RANGE`) and returns it; nil when
    /// there is none. `nextRaw(MDB_NEXT_DUP)` then steps through the rest.
    func seekDuplicate(_ key: UnsafeRawBufferPointer, atLeast value: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_cursor_get(cursor, &k, &v, MDB_GET_BOTH_RANGE)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cursor seek failed")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Calls `body` with every entry from the first, each duplicate too.
    func forEachRaw(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        var op = MDB_FIRST
        while let (k, v) = try nextRaw(op) {
            op = MDB_NEXT
            try body(k, v)
        }
    }

    /// The first and the last entry of the tree, and stepping by entry, by
    /// key (past a key's duplicates, either way) and by a page of duplicates at a time
    /// (after `firstDuplicates`).
    func firstEntry() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_FIRST) }
    func lastEntry() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_LAST) }
    func nextEntry() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_NEXT) }
    func nextKey() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_NEXT_NODUP) }
    func previousKey() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_PREV_NODUP) }
    func nextDuplicates() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? { try nextRaw(MDB_NEXT_MULTIPLE) }

    /// Raw key/value stepping for trees whose keys are not UInt64.
    func nextRaw(_ op: MDB_cursor_op) throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
        var k = MDB_val(), v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cursor read failed")
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    @inline(__always)
    private func step(_ k: inout MDB_val, _ v: inout MDB_val, _ op: MDB_cursor_op) throws -> (UInt64, UnsafeRawBufferPointer)? {
        let rc = mdb_cursor_get(cursor, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cursor read failed")
        guard k.mv_size == 8 else { throw OHKError(.storeCorrupt, "corrupt key in change-ordered tree") }
        let key = UInt64(bigEndian: k.mv_data.loadUnaligned(as: UInt64.self))
        return (key, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    /// Writes `value` at `key` through the cursor. Keys written in
    /// ascending order stay cheap: LMDB looks at the cursor's page before
    /// searching from the root, which `Txn.put` always does. Returns false
    /// when `noOverwrite` and the key exists.
    @discardableResult
    func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
             noOverwrite: Bool = false, append: Bool = false) throws -> Bool {
        try lmdbPut(key, value, noOverwrite: noOverwrite, append: append) { mdb_cursor_put(cursor, $0, $1, $2) }
    }

    /// Replaces the value of the entry under the cursor (`MDB_CURRENT`;
    /// `key` must be its key): no search. LMDB moves the entry within its
    /// page when the value's length changes.
    func replaceCurrent(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try lmdbCheck(mdb_cursor_put(cursor, &k, &v, UInt32(MDB_CURRENT)), "write failed")
    }

    /// The entry under the cursor, or nil when it is on none.
    func current() throws -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
        var k = MDB_val(), v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, MDB_GET_CURRENT)
        if rc == MDB_NOTFOUND || rc == EINVAL { return nil }
        try lmdbCheck(rc, "cursor read failed")
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    /// The value at exactly `key` (any length), or nil. Keys asked in
    /// ascending order stay cheap, as with `find`.
    func findRaw(_ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_KEY)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "cursor read failed")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Makes room for a `count`-byte value at `key` and returns it, to be
    /// filled before the next write in this transaction (`MDB_RESERVE`).
    func reserve(_ key: UnsafeRawBufferPointer, count: Int, append: Bool = false) throws -> UnsafeMutableRawBufferPointer {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: count, mv_data: nil)
        let flags = UInt32(MDB_RESERVE) | (append ? UInt32(MDB_APPEND) : 0)
        try lmdbCheck(mdb_cursor_put(cursor, &k, &v, flags), "write failed")
        return UnsafeMutableRawBufferPointer(start: v.mv_data, count: count)
    }

    /// Deletes the entry under the cursor.
    func deleteCurrent() throws {
        try lmdbCheck(mdb_cursor_del(cursor, 0), "cursor delete failed")
    }
}
