import Glibc

/// LMDB's B-trees in `data.mdb` checked page by page, from the file's bytes
/// and without LMDB, which trusts its pages: a flipped byte in a page
/// header or a node offset makes it assert, read outside the map or loop.
/// `Store.verify` walks before it lets LMDB read the trees.
///
/// The layout is LMDB 0.9's on a 64-bit machine (mdb.c): two meta pages,
/// then branch, leaf and overflow pages of `psize` bytes, each with a
/// 16-byte header (page number, flags, lower and upper bounds of its free
/// space or, on overflow pages, their count) and a table of 16-bit node
/// offsets; named trees are records of the main tree, and duplicates are
/// kept in sub-pages or sub-trees inside a leaf node. Every page reachable
/// from the meta is visited once: page numbers in range, flags fit for
/// the page's place, nodes inside their page, all leaves at the tree's
/// depth, counts equal to what the tree records, no page used twice or
/// both used and free. Key order is not checked: a key out of order
/// makes LMDB miss a record, not crash, and the record checks find that.
struct PageWalk {
    /// What LMDB calls P_INVALID: the root of an empty tree.
    private static let noPage = UInt64.max
    private static let headerSize = 16
    private static let nodeHeaderSize = 8
    private static let metaMagic: UInt32 = 0xBEEF_C0DE
    private static let maxDepth = 32  // LMDB's cursor stack

    // Page flags (P_*) and node flags (F_*).
    private static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04
    private static let dirty: UInt16 = 0x10, leaf2: UInt16 = 0x20, subpage: UInt16 = 0x40
    private static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    // Tree flags (MDB_DUPSORT, MDB_DUPFIXED).
    private static let dupSort: UInt16 = 0x04, dupFixed: UInt16 = 0x10

    /// A tree's record (LMDB's MDB_db, 48 bytes).
    private struct Tree {
        var pad: UInt32, flags: UInt16, depth: UInt16
        var branchPages: UInt64, leafPages: UInt64, overflowPages: UInt64, entries: UInt64, root: UInt64
    }

    private let bytes: UnsafeRawBufferPointer
    private let pageSize: Int
    private var lastPage: UInt64 = 0
    private var used: [UInt64] = []
    private(set) var problems: [String] = []
    /// What the walk met, by kind (for tests and `ohk check`).
    struct Seen: Equatable { var branch = 0, leaf = 0, overflow = 0, subPages = 0, subTrees = 0, free = 0 }
    private(set) var seen = Seen()

    private init(_ bytes: UnsafeRawBufferPointer, pageSize: Int) {
        self.bytes = bytes
        self.pageSize = pageSize
    }

    /// Walks the store file `path` from its meta page of transaction
    /// `txnID` (the snapshot a read transaction pins, so a concurrent writer
    /// cannot reuse its pages), or from the newer meta when nil. Returns the
    /// problems found, at most `limit`; empty when the structure is sound.
    static func check(file path: String, txnID: UInt64? = nil, limit: Int = 100) -> [String] {
        walk(file: path, txnID: txnID, limit: limit).problems
    }

    /// `check`, with what the walk met.
    static func walk(file path: String, txnID: UInt64? = nil, limit: Int = 100) -> (problems: [String], seen: Seen) {
        walkIfConclusive(file: path, txnID: txnID, limit: limit)
            ?? (["the store kept changing while it was checked: check it again when no one writes"], Seen())
    }

    /// `check` when its answer holds, nil when the store kept changing
    /// under every try (opening a store then goes on without it).
    static func checkIfConclusive(file path: String, txnID: UInt64? = nil, limit: Int = 100) -> [String]? {
        walkIfConclusive(file: path, txnID: txnID, limit: limit)?.problems
    }

    /// Walks the file mapped afresh each try. LMDB has two meta pages:
    /// after two commits the pinned snapshot's is gone, and the walk takes
    /// the newest. Beside a writer committing in a loop, walks were seen to
    /// meet a root page past the file as it was mapped, even from the
    /// pinned meta: a walk that found a problem holds only when nothing
    /// committed and the file did not grow while it ran. Nil when no try
    /// held.
    private static func walkIfConclusive(file path: String, txnID: UInt64?, limit: Int) -> (problems: [String], seen: Seen)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (["cannot open \(path): \(String(cString: strerror(errno)))"], Seen()) }
        defer { close(fd) }
        for _ in 0..<5 {
            var st = stat()
            guard fstat(fd, &st) == 0 else { return (["cannot read \(path): \(String(cString: strerror(errno)))"], Seen()) }
            let size = Int(st.st_size)
            // The store's own page size, which its first meta page records
            // (LMDB opens a store written where pages have another size):
            // the machine's when that page does not say one.
            var psize = Int(sysconf(Int32(_SC_PAGESIZE)))
            var head: (UInt32, UInt32) = (0, 0)  // magic, then the free tree's first field: the page size
            if pread(fd, &head.0, 4, off_t(headerSize)) == 4, pread(fd, &head.1, 4, off_t(headerSize + 24)) == 4,
               head.0 == metaMagic, head.1 >= 512, head.1 <= 65_536, head.1 & (head.1 - 1) == 0 {
                psize = Int(head.1)
            }
            guard size >= 2 * psize else { return (["the file has \(size) bytes, less than its two meta pages"], Seen()) }
            guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
                return (["cannot map \(path): \(String(cString: strerror(errno)))"], Seen())
            }
            defer { munmap(map, size) }
            var walk = PageWalk(UnsafeRawBufferPointer(start: map, count: size), pageSize: psize)
            let before = walk.newestTransaction
            walk.run(txnID: txnID, limit: limit)
            var now = stat()
            let grew = fstat(fd, &now) != 0 || now.st_size != st.st_size
            if walk.problems.isEmpty || (walk.newestTransaction == before && !grew) {
                return (walk.problems, walk.seen)
            }
        }
        return nil
    }

    /// The larger transaction id of the two meta pages.
    private var newestTransaction: UInt64 { max(u64(Self.headerSize + 128), u64(pageSize + Self.headerSize + 128)) }

    private mutating func problem(_ text: String) { problems.append(text) }

    private func u16(_ at: Int) -> UInt16 { bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self) }
    private func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
    private func u64(_ at: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self) }

    private func tree(at o: Int) -> Tree {
        Tree(pad: u32(o), flags: u16(o + 4), depth: u16(o + 6), branchPages: u64(o + 8), leafPages: u64(o + 16),
             overflowPages: u64(o + 24), entries: u64(o + 32), root: u64(o + 40))
    }

    private mutating func run(txnID: UInt64?, limit: Int) {
        // MDB_meta after each meta page's header: magic, version, address,
        // map size, the free and main trees, last page, transaction id.
        let metas = (0..<2).map { i -> (ok: Bool, txn: UInt64, offset: Int) in
            let o = i * pageSize + Self.headerSize
            return (u32(o) == Self.metaMagic && u32(o + 4) == 1, u64(o + 128), o)
        }
        for (i, m) in metas.enumerated() where !m.ok { problem("meta page \(i) is not an LMDB meta page") }
        guard metas.allSatisfy(\.ok) else { return }
        if metas[0].txn != metas[1].txn, max(metas[0].txn, metas[1].txn) - min(metas[0].txn, metas[1].txn) != 1 {
            problem("the meta pages' transactions \(metas[0].txn) and \(metas[1].txn) are not consecutive")
        }
        let chosen = txnID.flatMap { id in metas.first { $0.txn == id } } ?? metas.max { $0.txn < $1.txn }!
        let o = chosen.offset
        let free = tree(at: o + 24), main = tree(at: o + 72)
        if Int(free.pad) != pageSize { problem("the meta says pages of \(free.pad) bytes, not \(pageSize)") }
        // LMDB's last page may lie past the end of the file: a page taken
        // and freed in one transaction is never written. A tree may only
        // reach pages inside the file (LMDB would fault on the others),
        // and the free list pages up to the last, inside the map.
        let metaLast = u64(o + 120), mapPages = u64(o + 16) / UInt64(pageSize)
        let filePages = UInt64(bytes.count / pageSize)
        guard metaLast >= 1, metaLast < max(mapPages, filePages) else {
            problem("the meta's last page \(metaLast) is outside its map of \(max(mapPages, filePages)) pages")
            return
        }
        lastPage = min(metaLast, filePages - 1)
        used = Array(repeating: 0, count: Int(lastPage / 64) + 1)
        markUsed(0)
        markUsed(1)
        walkTree(main, name: "the main tree", isMain: true, limit: limit)
        var freePages: [UInt64] = []
        walkTree(free, name: "the free list", limit: limit, freeList: &freePages)
        for p in freePages where problems.count < limit {
            if p < 2 || p > metaLast { problem("the free list names page \(p), outside 2...\(metaLast)") } else if p <= lastPage && isUsed(p) {
                problem("page \(p) is both free and in use")
            }
        }
        if problems.count > limit { problems.removeLast(problems.count - limit) }
    }

    private func isUsed(_ p: UInt64) -> Bool { used[Int(p / 64)] & (1 << (p % 64)) != 0 }
    private mutating func markUsed(_ p: UInt64) { used[Int(p / 64)] |= 1 << (p % 64) }

    /// Counts of a tree's pages and entries, as walked.
    private struct Counts { var branch: UInt64 = 0, leaf: UInt64 = 0, overflow: UInt64 = 0, entries: UInt64 = 0 }

    private mutating func walkTree(_ t: Tree, name: String, isMain: Bool = false, limit: Int) {
        var none: [UInt64] = []
        walkTree(t, name: name, isMain: isMain, limit: limit, freeList: &none)
    }

    private mutating func walkTree(_ t: Tree, name: String, isMain: Bool = false, isSubTree: Bool = false, limit: Int,
                                   freeList: inout [UInt64]) {
        if t.root == Self.noPage {
            if t.entries != 0 || t.depth != 0 { problem("\(name) is empty but records \(t.entries) entries") }
            return
        }
        guard t.depth >= 1, Int(t.depth) <= Self.maxDepth else { return problem("\(name) has depth \(t.depth)") }
        var counts = Counts()
        let before = problems.count
        walkPage(t.root, level: 1, t, name: name, isMain: isMain, isSubTree: isSubTree, limit: limit,
                 counts: &counts, freeList: &freeList)
        guard problems.count == before else { return }
        if counts.entries != t.entries { problem("\(name) records \(t.entries) entries and holds \(counts.entries)") }
        // A tree of duplicates counts its sub-trees' pages elsewhere.
        if t.flags & Self.dupSort == 0,
           (counts.branch, counts.leaf, counts.overflow) != (t.branchPages, t.leafPages, t.overflowPages) {
            problem("\(name) records \(t.branchPages)/\(t.leafPages)/\(t.overflowPages) branch/leaf/overflow pages "
                    + "and has \(counts.branch)/\(counts.leaf)/\(counts.overflow)")
        }
    }

    /// Takes page `p` for one place in a tree: in range, not seen before.
    private mutating func claim(_ p: UInt64, _ name: String) -> Bool {
        guard p >= 2, p <= lastPage else {
            problem("\(name) points at page \(p), outside 2...\(lastPage)")
            return false
        }
        guard !isUsed(p) else {
            problem("\(name) reaches page \(p) a second time")
            return false
        }
        markUsed(p)
        return true
    }

    private mutating func walkPage(_ p: UInt64, level: Int, _ t: Tree, name: String, isMain: Bool, isSubTree: Bool,
                                   limit: Int, counts: inout Counts, freeList: inout [UInt64]) {
        guard problems.count < limit, claim(p, name) else { return }
        let base = Int(p) * pageSize
        let flags = u16(base + 10)
        let isLeaf = level == Int(t.depth)
        let expected = isLeaf ? (isSubTree && t.flags & Self.dupFixed != 0 ? Self.leaf | Self.leaf2 : Self.leaf) : Self.branch
        guard u64(base) == p else { return problem("page \(p) of \(name) says it is page \(u64(base))") }
        guard flags == expected else {
            return problem("page \(p) of \(name) has flags \(flags), expected \(expected) at level \(level) of \(t.depth)")
        }
        guard let count = nodeCount(base, size: pageSize, p, name) else { return }
        if isLeaf { counts.leaf += 1; seen.leaf += 1 } else { counts.branch += 1; seen.branch += 1 }
        if !isLeaf && count < 2 { return problem("branch page \(p) of \(name) has \(count) children") }
        if isLeaf && count < 1 { return problem("leaf page \(p) of \(name) is empty") }
        if flags & Self.leaf2 != 0 {
            let keySize = Int(t.pad)
            if keySize == 0 || Self.headerSize + count * keySize > pageSize {
                problem("page \(p) of \(name) holds \(count) keys of \(keySize) bytes")
            }
            counts.entries += UInt64(count)
            return
        }
        for i in 0..<count where problems.count < limit {
            guard let node = nodeOffset(base, size: pageSize, index: i, p, name) else { return }
            let lo = UInt64(u16(node)), hi = UInt64(u16(node + 2)), nodeFlags = u16(node + 4)
            let keySize = Int(u16(node + 6))
            if !isLeaf {
                guard node + Self.nodeHeaderSize + keySize <= base + pageSize else {
                    return problem("node \(i) of branch page \(p) of \(name) runs past its page")
                }
                let child = lo | hi << 16 | UInt64(nodeFlags) << 32
                walkPage(child, level: level + 1, t, name: name, isMain: isMain, isSubTree: isSubTree, limit: limit,
                         counts: &counts, freeList: &freeList)
                continue
            }
            leafNode(node, base: base, index: i, dataSize: Int(lo | hi << 16), keySize: keySize, flags: nodeFlags,
                     page: p, t, name: name, isMain: isMain, limit: limit, counts: &counts, freeList: &freeList)
        }
    }

    /// The number of nodes of the page at `base` (`size` bytes: a page, or
    /// a sub-page inside a node), when its bounds are sound.
    private mutating func nodeCount(_ base: Int, size: Int, _ p: UInt64, _ name: String) -> Int? {
        let lower = Int(u16(base + 12)), upper = Int(u16(base + 14))
        guard lower >= Self.headerSize, lower <= upper, upper <= size, (lower - Self.headerSize) % 2 == 0 else {
            problem("page \(p) of \(name) has free space \(lower)..<\(upper) in \(size) bytes")
            return nil
        }
        return (lower - Self.headerSize) / 2
    }

    /// The offset of node `index` of the page at `base`, when inside it.
    private mutating func nodeOffset(_ base: Int, size: Int, index: Int, _ p: UInt64, _ name: String) -> Int? {
        let offset = Int(u16(base + Self.headerSize + 2 * index))
        let upper = Int(u16(base + 14))
        guard offset >= upper, offset + Self.nodeHeaderSize <= size, offset % 2 == 0 else {
            problem("node \(index) of page \(p) of \(name) is at \(offset), outside \(upper)..<\(size)")
            return nil
        }
        return base + offset
    }

    private mutating func leafNode(_ node: Int, base: Int, index: Int, dataSize: Int, keySize: Int, flags: UInt16,
                                   page p: UInt64, _ t: Tree, name: String, isMain: Bool, limit: Int,
                                   counts: inout Counts, freeList: inout [UInt64]) {
        let data = node + Self.nodeHeaderSize + keySize
        let dups = t.flags & Self.dupSort != 0
        let stored = flags & Self.bigData != 0 ? 8 : dataSize
        guard data + stored <= base + pageSize else {
            return problem("node \(index) of leaf page \(p) of \(name) runs past its page")
        }
        switch flags {
        case 0:
            counts.entries += 1
            if name == "the free list" { readFreeList(data, dataSize, &freeList, p) }
        case Self.bigData where !dups:
            counts.entries += 1
            let first = u64(data)
            guard first >= 2, first <= lastPage else { return problem("node \(index) of page \(p) of \(name) points at page \(first)") }
            let fbase = Int(first) * pageSize
            let pages = UInt64(u32(fbase + 12))
            guard u16(fbase + 10) & 0x7F == Self.overflow, u64(fbase) == first, pages >= 1,
                  first + pages - 1 <= lastPage, Int(pages) * pageSize - Self.headerSize >= dataSize else {
                return problem("overflow page \(first) of \(name) does not hold the \(dataSize) bytes of its node")
            }
            for q in first..<(first + pages) where !claim(q, name) { return }
            counts.overflow += pages
            seen.overflow += Int(pages)
            if name == "the free list" { readFreeList(fbase + Self.headerSize, dataSize, &freeList, first) }
        case Self.subData where isMain:
            counts.entries += 1
            guard dataSize == 48 else { return problem("the tree record at node \(index) of page \(p) has \(dataSize) bytes") }
            // The name as text a line can hold: a damaged one may hold any byte.
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(node + 8)..<(node + 8 + keySize)]).map {
                $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?")
            }, as: UTF8.self)
            var none: [UInt64] = []
            walkTree(tree(at: data), name: "tree \(key)", limit: limit, freeList: &none)
        case Self.dupData where dups:
            // A sub-page: the node's duplicates, in a page image of dataSize bytes.
            let fixed = t.flags & Self.dupFixed != 0
            guard dataSize >= Self.headerSize else { return problem("node \(index) of page \(p) of \(name) has a \(dataSize)-byte sub-page") }
            // LMDB marks sub-pages dirty (P_DIRTY) when it makes them.
            let subFlags = u16(data + 10) & ~Self.dirty
            guard subFlags == Self.leaf | Self.subpage | (fixed ? Self.leaf2 : 0) else {
                return problem("the sub-page of node \(index) of page \(p) of \(name) has flags \(subFlags)")
            }
            guard let n = nodeCount(data, size: dataSize, p, name + " (sub-page)") else { return }
            if fixed {
                let keySize = Int(u16(data + 8))
                if keySize == 0 || Self.headerSize + n * keySize > dataSize {
                    return problem("the sub-page of node \(index) of page \(p) holds \(n) keys of \(keySize) bytes")
                }
            } else {
                for i in 0..<n {
                    guard let sub = nodeOffset(data, size: dataSize, index: i, p, name + " (sub-page)"),
                          sub + Self.nodeHeaderSize + Int(u16(sub + 6)) <= data + dataSize else {
                        return problem("node \(index) of page \(p) of \(name) has a damaged sub-page")
                    }
                }
            }
            counts.entries += UInt64(n)
            seen.subPages += 1
        case Self.dupData | Self.subData where dups:
            guard dataSize == 48 else { return problem("the sub-tree record at node \(index) of page \(p) has \(dataSize) bytes") }
            var sub = tree(at: data)
            sub.flags |= t.flags & Self.dupFixed  // its leaves are LEAF2 pages
            var none: [UInt64] = []
            let before = problems.count
            walkTree(sub, name: name + " (duplicates)", isSubTree: true, limit: limit, freeList: &none)
            if problems.count == before { counts.entries += sub.entries }
            seen.subTrees += 1
        default:
            problem("node \(index) of leaf page \(p) of \(name) has flags \(flags)")
        }
    }

    /// A free-list record: a count, then that many page numbers.
    private mutating func readFreeList(_ at: Int, _ size: Int, _ out: inout [UInt64], _ p: UInt64) {
        guard size >= 8, size % 8 == 0, u64(at) == UInt64(size / 8 - 1) else {
            return problem("a free-list record on page \(p) has \(size) bytes for \(size >= 8 ? u64(at) : 0) pages")
        }
        for i in 1..<(size / 8) { out.append(u64(at + 8 * i)) }
        seen.free += size / 8 - 1
    }
}
