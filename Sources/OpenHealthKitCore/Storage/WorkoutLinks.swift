import CLMDB
import FoundationEssentials
import Glibc

/// The tree of workout associations (`workout_samples`, format 13): a
/// workout's links in sorted chunks. Key: the workout's UUID, then the
/// first sample UUID of the chunk; value: at most `chunkItems` items, each
/// a sample's UUID then its type id (big-endian, `anyType` when unknown),
/// in UUID order, then an `EntryCheck` of the key and items (format 15:
/// nothing else repeats a link, so a changed byte would name another
/// sample). A workout's chunks do not overlap.
///
/// Associating a workout's 3,600 heart rates writes two values, where a
/// key per link (formats 10–12, `workout_links`) was a put of each from
/// the root: three quarters of the association's work. A later
/// association rewrites only the chunks its samples fall in (36 KB at
/// most each), so adding a few at a time stays cheap as a workout grows.
enum WorkoutLinks {
    static let itemSize = 18
    static let chunkItems = 2048
    /// The type of links written by 0.11 and 0.12, which named none:
    /// moved as links of any type, which a query then looks up.
    static let anyType: UInt16 = 0xFFFF
    /// The tree of formats 10–12, moved into this one on upgrade.
    static let legacyTree = "workout_links"

    /// Associates one sample (a route with its workout); nothing changes
    /// when the link exists.
    static func put(workout: UUID, sample: UUID, typeID: UInt16, _ txn: Txn, _ trees: FixedTrees) throws {
        var links = PendingLinks(workout: workout, expected: 1)
        links.add(sample, typeID: typeID)
        try links.write(txn, trees)
    }

    /// Ends a workout's associations (its samples and routes stay).
    static func drop(workout: UUID, _ txn: Txn, _ trees: FixedTrees) throws {
        for k in try chunkKeys(of: workout, txn, trees) { _ = try txn.delete(trees.workoutLinks, k) }
    }

    /// Calls `body` with each sample associated with `workout` and the
    /// type its link names, in UUID order.
    static func forEach(of workout: UUID, _ txn: Txn, _ trees: FixedTrees,
                        _ body: (UUID, UInt16) throws -> Void) throws {
        try forEachChunk(of: workout, txn, trees) { _, v in
            guard v.count % itemSize == 0 else { throw OHKError(.storeCorrupt, "corrupt workout association") }
            for at in stride(from: 0, to: v.count, by: itemSize) {
                let sample = UUID(uuid: v.loadUnaligned(fromByteOffset: at, as: uuid_t.self))
                try body(sample, UInt16(v[at + 16]) << 8 | UInt16(v[at + 17]))
            }
        }
    }

    /// The keys of `workout`'s chunks, in order.
    private static func chunkKeys(of workout: UUID, _ txn: Txn, _ trees: FixedTrees) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        try forEachChunk(of: workout, txn, trees) { k, _ in keys.append(Array(k)) }
        return keys
    }

    /// Calls `body` with the key and items of each of `workout`'s chunks,
    /// in order.
    private static func forEachChunk(of workout: UUID, _ txn: Txn, _ trees: FixedTrees,
                                     _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        let c = try txn.cursor(trees.workoutLinks)
        defer { c.close() }
        let prefix = withUnsafeBytes(of: workout.uuid) { Array($0) }
        var entry = try prefix.withUnsafeBytes { try c.seekRaw(atLeast: $0) }
        while let (k, v) = entry, k.count == 32, memcmp(k.baseAddress!, prefix, 16) == 0 {
            try body(k, try EntryCheck.opened(k, v, "a chunk of workout links"))
            entry = try c.nextEntry()
        }
    }

    /// Adds `items` (in UUID order, each sample once) to `workout`'s
    /// links: each goes to the chunk whose range holds it (the first
    /// chunk, for those before it), and a chunk that gains any is written
    /// again, split when it outgrows `chunkItems`. A sample linked already
    /// keeps its link.
    static func insert(workout: UUID, items: UnsafeRawBufferPointer, _ txn: Txn, _ trees: FixedTrees) throws {
        let keys = try chunkKeys(of: workout, txn, trees)
        guard !keys.isEmpty else { return try write(workout, items, txn, trees) }
        var start = 0
        for (i, key) in keys.enumerated() {
            var end = items.count
            if i + 1 < keys.count {
                // Up to the next chunk's first sample.
                end = start
                while end < items.count, keys[i + 1].withUnsafeBytes({ memcmp(items.baseAddress! + end, $0.baseAddress! + 16, 16) }) < 0 {
                    end += itemSize
                }
            }
            guard end > start else { continue }
            guard let raw = try txn.get(trees.workoutLinks, key) else { throw OHKError(.storage, "a workout association chunk vanished") }
            let old = try EntryCheck.opened(key, raw, "a chunk of workout links")
            let merged = merge(old, UnsafeRawBufferPointer(rebasing: items[start..<end]))
            start = end
            guard merged.count > old.count else { continue }  // every one linked already
            _ = try txn.delete(trees.workoutLinks, key)
            try merged.withUnsafeBytes { try write(workout, $0, txn, trees) }
        }
    }

    /// Writes `items` (sorted) as new chunks of `workout`, as few as hold
    /// them and of even sizes, so that the next few links fit.
    private static func write(_ workout: UUID, _ items: UnsafeRawBufferPointer, _ txn: Txn, _ trees: FixedTrees) throws {
        var key = withUnsafeBytes(of: workout.uuid) { Array($0) } + [UInt8](repeating: 0, count: 16)
        let count = items.count / itemSize
        guard count > 0 else { return }
        let chunks = (count + chunkItems - 1) / chunkItems
        let step = (count + chunks - 1) / chunks * itemSize
        for at in stride(from: 0, to: items.count, by: step) {
            let chunk = UnsafeRawBufferPointer(rebasing: items[at..<min(items.count, at + step)])
            key.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: 16).copyMemory(from: chunk.baseAddress!, byteCount: 16) }
            _ = try txn.put(trees.workoutLinks, key, EntryCheck.sealed(key, Array(chunk)))
        }
    }

    /// Two sorted lists of items as one, each sample once: where both
    /// have it, `old`'s link.
    private static func merge(_ old: UnsafeRawBufferPointer, _ new: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: old.count + new.count)
        let n = out.withUnsafeMutableBytes { o -> Int in
            var i = 0, j = 0, n = 0
            while i < old.count || j < new.count {
                let order = i == old.count ? 1 : j == new.count ? -1 : memcmp(old.baseAddress! + i, new.baseAddress! + j, 16)
                let from = order <= 0 ? old.baseAddress! + i : new.baseAddress! + j
                (o.baseAddress! + n).copyMemory(from: from, byteCount: itemSize)
                n += itemSize
                if order <= 0 { i += itemSize }
                if order >= 0 { j += itemSize }
            }
            return n
        }
        out.removeLast(out.count - n)
        return out
    }

    /// Format 15: each chunk of a format-13 or 14 store gets its check.
    static func seal(_ txn: Txn, _ trees: FixedTrees) throws {
        var chunks: [([UInt8], [UInt8])] = []
        try txn.forEach(trees.workoutLinks) { k, v in chunks.append((Array(k), Array(v))) }
        for (k, v) in chunks { _ = try txn.put(trees.workoutLinks, k, EntryCheck.sealed(k, v)) }
    }

    /// Format 13: moves the links of formats 10–12 (a key per link, the
    /// type id little-endian in the value, or no value from 0.11 and
    /// 0.12) into `workout_samples`, and deletes their tree.
    static func moveLegacy(_ txn: Txn, _ trees: FixedTrees) throws {
        guard let old = try txn.openTree(legacyTree, create: false) else { return }
        var links: PendingLinks?
        try txn.forEach(old) { k, v in
            guard k.count == 32 else { throw OHKError(.storeCorrupt, "corrupt workout association") }
            let workout = UUID(uuid: k.loadUnaligned(as: uuid_t.self))
            if links?.workout != workout {
                try links?.write(txn, trees)
                links = PendingLinks(workout: workout, expected: 16)
            }
            let typeID = v.count == 2 ? UInt16(littleEndian: v.loadUnaligned(as: UInt16.self)) : anyType
            links!.add(UUID(uuid: k.loadUnaligned(fromByteOffset: 16, as: uuid_t.self)), typeID: typeID)
        }
        try links?.write(txn, trees)
        try txn.drop(old)
    }
}

/// One workout's new links, added as the samples are checked, then
/// sorted and written together (`WorkoutLinks.insert`).
struct PendingLinks {
    let workout: UUID
    private var links: [Link] = []
    /// The type of the last link added (its samples were checked for it).
    private(set) var lastTypeID: UInt16?

    /// A link's sample as two words whose order is its UUID's bytes', and
    /// its type.
    private struct Link {
        var hi: UInt64, lo: UInt64, typeID: UInt16
        static func < (a: Link, b: Link) -> Bool { a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo }
    }

    init(workout: UUID, expected: Int) {
        self.workout = workout
        links.reserveCapacity(expected)
    }

    mutating func add(_ sample: UUID, typeID: UInt16) {
        let (hi, lo) = withUnsafeBytes(of: sample.uuid) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        links.append(Link(hi: hi, lo: lo, typeID: typeID))
        lastTypeID = typeID
    }

    func write(_ txn: Txn, _ trees: FixedTrees) throws {
        guard !links.isEmpty else { return }
        let sorted = Self.sorted(links)
        let size = WorkoutLinks.itemSize
        // Each sample once, as the tree's bytes.
        var items = [UInt8](repeating: 0, count: sorted.count * size)
        let count = items.withUnsafeMutableBytes { out in
            var n = 0
            for (i, l) in sorted.enumerated() where i == 0 || sorted[i - 1] < l {
                out.storeBytes(of: l.hi.bigEndian, toByteOffset: n * size, as: UInt64.self)
                out.storeBytes(of: l.lo.bigEndian, toByteOffset: n * size + 8, as: UInt64.self)
                out.storeBytes(of: l.typeID.bigEndian, toByteOffset: n * size + 16, as: UInt16.self)
                n += 1
            }
            return n
        }
        try items.withUnsafeBytes {
            try WorkoutLinks.insert(workout: workout, items: UnsafeRawBufferPointer(rebasing: $0[0..<count * size]), txn, trees)
        }
    }

    /// `links` in order: spread by their first byte, each bucket then
    /// sorted by insertion (a dozen links each, for thousands of random
    /// UUIDs), where the standard library's sort spent 580 instructions a
    /// link.
    private static func sorted(_ links: [Link]) -> [Link] {
        var starts = [Int](repeating: 0, count: 257)
        for l in links { starts[Int(l.hi >> 56) + 1] += 1 }
        for b in 0..<256 { starts[b + 1] += starts[b] }
        var out = links
        out.withUnsafeMutableBufferPointer { out in
            var next = starts
            for l in links {
                let b = Int(l.hi >> 56)
                out[next[b]] = l
                next[b] += 1
            }
            for b in 0..<256 where starts[b + 1] - starts[b] > 1 {
                for i in starts[b] + 1..<starts[b + 1] {
                    let l = out[i]
                    var j = i
                    while j > starts[b], l < out[j - 1] {
                        out[j] = out[j - 1]
                        j -= 1
                    }
                    out[j] = l
                }
            }
        }
        return out
    }
}
