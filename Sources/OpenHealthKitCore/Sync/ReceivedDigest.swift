import FoundationEssentials

/// The source's live set as a replica rebuilds it from the changes it
/// received (rule 68): each received save adds its sample's hash, each
/// received deletion removes it again, but only if the save was received.
///
/// That last condition is the subtle part. The change feed shows a sample
/// deleted since as its deletion alone, at a new position. So a deletion
/// read now removes its sample only if an earlier read still saw the sample
/// live: the sample was saved at or before the position read up to (it
/// was covered), and the read that covered it came from a snapshot taken
/// before the deletion. Each read is its own snapshot, so the digest
/// remembers, for the positions read since the last point every later
/// deletion is known to postdate, which snapshot covered them: `layers`.
/// A layer goes once the position read passes its snapshot's head, after
/// which every deletion still to come was made after that snapshot.
struct ReceivedDigest: Sendable, Equatable {
    /// Per type identifier.
    var byType: [String: LiveDigest] = [:]
    /// Every position up to here was covered by a snapshot older than any
    /// deletion still to be read.
    var settled: UInt64 = 0
    /// Positions (previous end, end] were covered by a snapshot whose head
    /// was `snapshot`; ends and snapshots ascend.
    var layers: [(end: UInt64, snapshot: UInt64)] = []

    static func == (l: ReceivedDigest, r: ReceivedDigest) -> Bool {
        l.byType == r.byType && l.settled == r.settled && l.layers.elementsEqual(r.layers, by: { $0 == $1 })
    }

    /// Whether the save at `saved` was received, for a deletion at
    /// `deletedAt`, given that every position up to `readUpTo` was read.
    /// Unknown (a deletion made before store format 17): no snapshot a
    /// replica read can have come before it, so the save was never seen.
    func wasReceived(saved: UInt64?, deletedAt: UInt64, readUpTo: UInt64) -> Bool {
        guard let saved, saved <= readUpTo else { return false }
        if saved <= settled { return true }
        for l in layers where saved <= l.end { return deletedAt > l.snapshot }
        return false
    }

    /// Records that positions up to `end` were read from a snapshot whose
    /// head was `snapshot`.
    mutating func covered(upTo end: UInt64, snapshot: UInt64) {
        if let last = layers.last, last.snapshot == snapshot {
            layers[layers.count - 1].end = end
        } else {
            layers.append((end, snapshot))
        }
        while let first = layers.first, first.snapshot <= end {
            settled = first.end
            layers.removeFirst()
        }
    }

    func encode(into w: inout ByteWriter) {
        w.u64(settled)
        w.u32(UInt32(layers.count))
        for l in layers { w.u64(l.end); w.u64(l.snapshot) }
        w.u32(UInt32(byType.count))
        for (t, d) in byType.sorted(by: { $0.key < $1.key }) {
            w.string(t)
            w.bytes.append(contentsOf: d.encoded)
        }
    }

    init() {}

    init(from r: inout ByteReader) throws {
        settled = try r.u64()
        let n = Int(try r.u32())
        guard n <= r.remaining / 16 else { throw OHKError(.storeCorrupt, "a sync checkpoint's layers are cut short") }
        layers = try (0..<n).map { _ in (try r.u64(), try r.u64()) }
        let m = Int(try r.u32())
        guard m <= r.remaining / 28 else { throw OHKError(.storeCorrupt, "a sync checkpoint's digests are cut short") }
        for _ in 0..<m {
            let t = try r.string()
            let raw = try r.bytes(24)
            byType[t] = try raw.withUnsafeBytes { try LiveDigest(encoded: $0) }
        }
    }
}
