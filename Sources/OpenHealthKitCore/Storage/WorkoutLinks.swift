import CLMDB
import FoundationEssentials
import Glibc

/// The tree of workout associations (`workout_samples`, format 13): key
/// the workout's UUID; values, as fixed-size duplicates, each associated
/// sample's UUID then its type id (big-endian, `anyType` when unknown).
///
/// A key per workout with its links packed beside it: associating a
/// workout's 3,600 heart rates appends them in one call, where a key per
/// link (formats 10–12, `workout_links`) was a put each from the root,
/// three quarters of the association's work.
enum WorkoutLinks {
    static let itemSize = 18
    /// The type of links moved from formats 10 and 11, which named none:
    /// they are kept for a query of any type, which then looks them up.
    static let anyType: UInt16 = 0xFFFF
    /// The tree of formats 10–12, moved into this one on upgrade.
    static let legacyTree = "workout_links"

    static func item(_ sample: UUID, typeID: UInt16) -> [UInt8] {
        withUnsafeBytes(of: sample.uuid) { Array($0) } + [UInt8(typeID >> 8), UInt8(typeID & 0xFF)]
    }

    /// Associates one sample (a route with its workout); nothing changes
    /// when the link exists.
    static func put(workout: UUID, sample: UUID, typeID: UInt16, _ txn: Txn, _ trees: FixedTrees) throws {
        _ = try txn.put(trees.workoutLinks, key(workout), item(sample, typeID: typeID))
    }

    /// Ends a workout's associations (its samples and routes stay).
    static func drop(workout: UUID, _ txn: Txn, _ trees: FixedTrees) throws {
        try txn.delete(trees.workoutLinks, key(workout))
    }

    /// Calls `body` with each sample associated with `workout` and the
    /// type its link names, in UUID order.
    static func forEach(of workout: UUID, _ txn: Txn, _ trees: FixedTrees,
                        _ body: (UUID, UInt16) throws -> Void) throws {
        let c = try txn.cursor(trees.workoutLinks)
        defer { c.close() }
        let k = key(workout)
        guard let first = try k.withUnsafeBytes({ try c.findRaw($0) }) else { return }
        var block: UnsafeRawBufferPointer? = try c.firstDuplicates(current: first)
        while let b = block {
            guard b.count % itemSize == 0 else { throw OHKError(.storeCorrupt, "corrupt workout association") }
            for at in stride(from: 0, to: b.count, by: itemSize) {
                let sample = UUID(uuid: b.loadUnaligned(fromByteOffset: at, as: uuid_t.self))
                try body(sample, UInt16(b[at + 16]) << 8 | UInt16(b[at + 17]))
            }
            block = try c.nextDuplicates()?.1
        }
    }

    static func key(_ workout: UUID) -> [UInt8] { withUnsafeBytes(of: workout.uuid) { Array($0) } }

    /// Format 13: moves the links of formats 10–12 (a key per link, the
    /// type id little-endian in the value, or no value from 0.11 and
    /// 0.12) into `workout_samples`, and deletes their tree.
    static func moveLegacy(_ txn: Txn, _ trees: FixedTrees) throws {
        guard let old = try txn.openTree(legacyTree, create: false) else { return }
        let c = try txn.cursor(trees.workoutLinks)
        defer { c.close() }
        try txn.forEach(old) { k, v in
            guard k.count == 32 else { throw OHKError(.storeCorrupt, "corrupt workout association") }
            let typeID = v.count == 2 ? UInt16(littleEndian: v.loadUnaligned(as: UInt16.self)) : anyType
            var value = [UInt8](k[16..<32]) + [UInt8(typeID >> 8), UInt8(typeID & 0xFF)]
            try value.withUnsafeMutableBytes { v in _ = try c.put(UnsafeRawBufferPointer(rebasing: k[0..<16]), UnsafeRawBufferPointer(v)) }
        }
        try txn.drop(old)
    }
}

/// One workout's new links, written when the samples are all checked:
/// sorted, then appended in one call when they all sort after the
/// workout's links (always, for its first association), each put in its
/// place unless there otherwise.
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

    mutating func write(_ txn: Txn, _ trees: FixedTrees) throws {
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
        let key = WorkoutLinks.key(workout)
        let c = try txn.cursor(trees.workoutLinks)
        defer { c.close() }
        try key.withUnsafeBytes { k in
            try items.withUnsafeBytes { buffer in
                let all = UnsafeRawBufferPointer(rebasing: buffer[0..<count * size])
                // The workout's greatest link so far, if any.
                var last: UnsafeRawBufferPointer?
                if try c.findRaw(k) != nil { last = try c.nextRaw(MDB_LAST_DUP)?.1 }
                if let last, memcmp(last.baseAddress!, all.baseAddress!, 16) >= 0 {
                    for at in stride(from: 0, to: all.count, by: size) {
                        let item = UnsafeRawBufferPointer(rebasing: all[at..<at + size])
                        // Linked already (whatever type its link names)?
                        if let there = try c.seekDuplicate(k, atLeast: UnsafeRawBufferPointer(rebasing: item[0..<16])),
                           memcmp(there.baseAddress!, item.baseAddress!, 16) == 0 { continue }
                        try c.put(k, item)
                    }
                } else {
                    try c.appendDuplicates(k, all, itemSize: size)
                }
            }
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
        return out
    }
}
