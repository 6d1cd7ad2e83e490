import CLMDB
import COHKSystem

/// The entries of one leaf page of a read transaction, read in place: a
/// walk that wants every entry steps through a page's nodes itself and
/// asks LMDB only for the next page. `mdb_cursor_get` was a third of a
/// full read into columns, most of it its own bookkeeping per entry.
///
/// The layout is LMDB 0.9's on a 64-bit machine, as `PageWalk` reads it: a
/// 16-byte header (the page's number at 0, its flags at 10, the lower
/// bound of its free space at 12), then a 16-bit offset per node; a node is
/// its data size in two 16-bit halves, its flags, its key size, the key,
/// then the data. Only plain nodes with 8-byte keys are read here: a
/// record kept in overflow pages, or anything unexpected, goes back to
/// LMDB, which reads it its own way.
struct LeafPage {
    /// How large the pages of a read transaction's map are, and whether
    /// they may be read in place at all.
    struct Map {
        let pageSize: Int
        /// The library is LMDB 0.9, whose layout this reads; with another,
        /// every entry comes through LMDB.
        let inPlace: Bool

        /// The map of `txn`'s environment: a read transaction's, whose
        /// pages all lie in the map at multiples of their size (a write
        /// transaction's changed pages are LMDB's own memory).
        init(_ txn: Txn) {
            var stat = MDB_stat()
            mdb_env_stat(mdb_txn_env(txn.txn), &stat)
            pageSize = Int(stat.ms_psize)
            inPlace = Self.libraryIsLMDB09
        }

        /// The last page in use (LMDB's `me_last_pgno`): asked when a walk
        /// first leaves a page, which a delta seldom does.
        func lastPage(_ cursor: Cursor) -> UInt64 {
            var info = MDB_envinfo()
            mdb_env_info(mdb_txn_env(mdb_cursor_txn(cursor.cursor)), &info)
            return UInt64(info.me_last_pgno)
        }

        /// Asked once: every record walk, each delta among them, makes a map.
        private static let libraryIsLMDB09: Bool = {
            var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
            _ = mdb_version(&major, &minor, &patch)
            return major == 0 && minor == 9 && MemoryLayout<Int>.size == 8
        }()
    }

    private let base: UnsafeRawPointer
    private let size: Int
    /// The page's nodes.
    let count: Int
    /// The node of the entry the page was found from.
    let index: Int

    private static let headerSize = 16, nodeHeaderSize = 8, keySize = 8
    private static let leaf: UInt16 = 0x02

    /// The leaf page holding `record`, the data of an entry with an 8-byte
    /// key that LMDB returned in a read transaction of `map` (its node
    /// starts 16 bytes before it); nil when the record is not in a plain
    /// node of a leaf page, such as one in overflow pages.
    init?(record: UnsafeRawBufferPointer, _ map: Map) {
        guard map.inPlace, let data = record.baseAddress, map.pageSize >= 512, map.pageSize & (map.pageSize - 1) == 0 else { return nil }
        let address = UInt(bitPattern: data)
        let page = address & ~UInt(map.pageSize - 1)
        let node = address &- UInt(Self.nodeHeaderSize + Self.keySize)
        guard node >= page + UInt(Self.headerSize) else { return nil }
        // A leaf page, whose table of nodes holds the record's node.
        guard let count = Self.nodes(UnsafeRawPointer(bitPattern: page)!, map.pageSize) else { return nil }
        base = UnsafeRawPointer(bitPattern: page)!
        size = map.pageSize
        self.count = count
        // Its node: the first after a page step, anywhere after a seek.
        let offset = UInt16(truncatingIfNeeded: node - page)
        var i = 0
        while i < count, base.loadUnaligned(fromByteOffset: Self.headerSize + 2 * i, as: UInt16.self) != offset { i += 1 }
        guard i < count else { return nil }
        index = i
    }

    /// The leaf page at `page`, from its first node.
    private init?(page: UnsafeRawPointer, size: Int) {
        guard let count = Self.nodes(page, size) else { return nil }
        (base, self.size, self.count, index) = (page, size, count, 0)
    }

    /// How many nodes the page at `page` holds, when it is a leaf page.
    private static func nodes(_ page: UnsafeRawPointer, _ size: Int) -> Int? {
        guard page.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & 0x7F == Self.leaf else { return nil }
        let lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        guard lower >= Self.headerSize, lower <= size else { return nil }
        return (lower - Self.headerSize) / 2
    }

    /// Entry `i`: its key and record, or nil when LMDB must read it.
    @inline(__always)
    func entry(_ i: Int) -> (UInt64, UnsafeRawBufferPointer)? {
        let offset = Int(base.loadUnaligned(fromByteOffset: Self.headerSize + 2 * i, as: UInt16.self))
        guard offset >= Self.headerSize + 2 * count, offset + Self.nodeHeaderSize + Self.keySize <= size else { return nil }
        let node = base + offset
        let low = UInt32(node.loadUnaligned(as: UInt16.self)), high = UInt32(node.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        let flags = node.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
        let keySize = node.loadUnaligned(fromByteOffset: 6, as: UInt16.self)
        let dataSize = Int(low | high << 16)
        guard flags == 0, keySize == Self.keySize,
              offset + Self.nodeHeaderSize + Self.keySize + dataSize <= size else { return nil }
        let key = UInt64(bigEndian: node.loadUnaligned(fromByteOffset: Self.nodeHeaderSize, as: UInt64.self))
        return (key, UnsafeRawBufferPointer(start: node + Self.nodeHeaderSize + Self.keySize, count: dataSize))
    }

    /// Asks for the leaf page after this one, which `cursor` (on this
    /// page) will step to, ahead of the walk's reaching it: its header and
    /// every line of its nodes, a page's walk ahead (`ohk_lmdb09_sibling_leaf`
    /// finds it in the parent page). `lastPage`: the map's last page in
    /// use. Waiting for each new page's first read was an eighth to a
    /// quarter of a batched read's time; asking for only its first nodes
    /// left the rest to the walk's prefetch, a few nodes ahead.
    func prefetchNext(_ cursor: Cursor, lastPage: UInt64) {
        guard let next = nextPage(cursor, lastPage: lastPage) else { return }
        ohk_prefetch(next)
        var line = size - 64
        while line > 0 {
            ohk_prefetch(next + line)
            line -= 64
        }
    }

    /// The leaf page `cursor` (on this page) steps to after it, as its
    /// parent page names it; nil when the parent does not (this page is
    /// its last child) or the cursor is not laid out as LMDB 0.9's.
    func nextPage(_ cursor: Cursor, lastPage: UInt64) -> UnsafeRawPointer? { siblingPage(1, cursor, lastPage: lastPage) }

    /// The leaf `k` pages after this one among its parent's children
    /// (`cursor` on this page), read in place: nil past the parent's last
    /// child, or when its header does not name it.
    func sibling(_ k: Int, _ cursor: Cursor, lastPage: UInt64) -> LeafPage? {
        guard let p = siblingPage(k, cursor, lastPage: lastPage) else { return nil }
        // Pages lie at multiples of their size from the map's start.
        let number = base.loadUnaligned(as: UInt64.self)
        let start = UInt(bitPattern: base) &- UInt(truncatingIfNeeded: number) &* UInt(size)
        guard p.loadUnaligned(as: UInt64.self) == UInt64((UInt(bitPattern: p) &- start) / UInt(size)) else { return nil }
        return LeafPage(page: p, size: size)
    }

    /// Asks for the header of the leaf `k` pages after this one (as
    /// `sibling` finds it), for a count of many leaves ahead not to wait on
    /// each header in turn.
    func prefetchSibling(_ k: Int, _ cursor: Cursor, lastPage: UInt64) {
        if let p = siblingPage(k, cursor, lastPage: lastPage) { ohk_prefetch(p) }
    }

    private func siblingPage(_ k: Int, _ cursor: Cursor, lastPage: UInt64) -> UnsafeRawPointer? {
        let c = cursor.cursor
        return ohk_lmdb09_sibling_leaf(UnsafeRawPointer(c), UnsafeRawPointer(mdb_cursor_txn(c)), mdb_cursor_dbi(c),
                                       base, UInt(size), lastPage, UInt32(k))
    }
}
