import CLMDB
import FoundationEssentials

/// The planner: how each stream of a query reads (the change order, the
/// UUID index, the start index or the zone map), by estimated cost.
extension Store {
    /// How one stream reads (the planner's choice, issue 4).
    enum Plan {
        /// The change order from the anchor.
        case walk
        /// The records at these positions, ascending (found through an
        /// index). A slice: a later part's plan is the first's tail.
        case positions(ArraySlice<UInt64>)
        /// The change order within these spans of positions, ascending:
        /// the zone map's blocks that can hold the start range.
        case spans([PositionSpan])

        /// The same plan for a read starting at `from`, later than the
        /// one it was made for: the positions and spans before it dropped.
        func from(_ from: UInt64) -> Plan {
            switch self {
            case .walk: return .walk
            case .positions(let ps):
                var lo = ps.startIndex, hi = ps.endIndex  // the first position at or after `from`
                while lo < hi { let mid = (lo + hi) / 2; if ps[mid] < from { lo = mid + 1 } else { hi = mid } }
                return .positions(ps[lo...])
            case .spans(let spans):
                return .spans(spans.compactMap { s in
                    s.last < from ? nil : PositionSpan(first: max(s.first, from), last: s.last)
                })
            }
        }
    }

    /// The plans of a read in parts, made once: a part's plan is the
    /// first's from the part's start (`Plan.from`). Planning again read
    /// the start index's range and the zone map once a part.
    final class PlanCache {
        var plans: [Plan] = []
        /// The snapshot they were made in (a retried read may see another).
        var txnID = -1
        /// One stream whose positions are each an object it returns
        /// (`Stream.positionsAreObjects`).
        var positionsAreObjects = false
    }

    /// The positions `first...last` of the change order: a span of a zone
    /// plan. (Not a `ClosedRange<UInt64>`: the storage type of an array
    /// of those is made at run time, and the first one a process makes
    /// looks up `Comparable` among all conformances, 110 K instructions.)
    struct PositionSpan: Equatable {
        var first: UInt64
        var last: UInt64
        var count: Int { Int(clamping: last - first + 1) }
    }

    /// The planner's UUID path (issue 4): when the stream's predicates
    /// name their UUIDs and looking each up is cheaper than walking the
    /// change order from `from`, the positions at or after `from` of those
    /// of this type, sorted; nil otherwise. The UUID index points at a
    /// deleted object's tombstone, so deleted objects are found too.
    func uuidPositions(_ txn: Txn, _ s: Stream, from: UInt64, head: UInt64) throws -> [UInt64]? {
        guard from <= head, tuning.planOverride == nil || tuning.planOverride == .uuidLookup,
              let candidates = UUIDCandidates.of(s.predicates) else { return nil }
        if tuning.planOverride != .uuidLookup {
            // A lookup costs a few steps (a seek in each of two trees); the
            // walk one per change after `from`.
            let changes = Double(min(txn.entries(s.trees.records), Int(clamping: head - from + 1)))
            guard 4 * Double(candidates.count) < changes else { return nil }
        }
        var positions: [UInt64] = []
        // Entries of other types are never confirmed: they are not wanted.
        var index = UUIDIndex(txn, trees, hash: tuning.uuidHash) { $0 == s.typeID ? s.trees.records : nil }
        for u in candidates {
            guard let v = try index.get(PendingUUID(u)) else { continue }
            let (typeID, seq) = Schema.unpack(v)
            if typeID == s.typeID && seq >= from { positions.append(seq) }
        }
        positions.sort()
        return positions
    }

    /// The planner (issue 4): how a stream reads, by estimated cost in
    /// steps (reading and evaluating one record is about 2). Whichever
    /// plan runs, every record it reads meets the full predicate, so all
    /// plans return the same objects in the same order.
    func plan(_ txn: Txn, _ s: Stream, from: UInt64, head: UInt64) throws -> Plan {
        // Without a filter every record matches: no index can help.
        guard s.filter != nil else { return .walk }
        if let positions = try uuidPositions(txn, s, from: from, head: head) { return .positions(positions[...]) }
        guard from <= head, tuning.planOverride != .changeOrder,
              let range = StartRange.of(s.predicates), range.isBounded else { return .walk }
        let total = txn.entries(s.trees.records)
        let changes = Double(min(total, Int(clamping: head - from + 1)))
        if tuning.planOverride == .startIndex { return .positions(try startIndexPositions(txn, s, range, from: from)[...]) }
        if tuning.planOverride == .zoneMap { return .spans(try zoneSpans(txn, s, range, from: from, head: head).spans) }
        var best = (cost: 2 * changes, plan: Plan.walk)
        // The zone map: a step per block read, then the walk of the
        // blocks that can hold the range (the type's share of each).
        if head - from >= 2 << ZoneMap.shift {
            let (spans, read) = try zoneSpans(txn, s, range, from: from, head: head)
            let share = Double(total) / Double(max(head, 1))
            let positions = spans.reduce(0.0) { $0 + Double($1.count) }
            let cost = Double(read) + 2 * min(changes, positions * share)
            if cost < best.cost { best = (cost, .spans(spans)) }
        }
        // The start index: its range read, then the part after `from`
        // fetched (about 3 steps each: sort, seek, evaluate).
        let c = try txn.cursor(s.trees.starts)
        defer { c.close() }
        let index = StartIndex.Reader(cursor: c)
        guard let first = try index.firstBucket(), let last = try index.lastBucket() else { return .positions([]) }
        let span = StartIndex.bucketStart(first)...(StartIndex.bucketStart(last) + Schema.startBucketSeconds)
        let inRange = range.fraction(of: span) * Double(total)
        let afterFrom = inRange * min(1, changes / Double(max(total, 1)))
        if inRange + 3 * afterFrom + 16 < best.cost {
            return .positions(try startIndexPositions(txn, s, range, from: from, expected: Int(afterFrom * 1.25) + 16)[...])
        }
        return best.plan
    }

    /// The positions at or after `from` of the stream's objects whose start
    /// is in `range`, through the start index, sorted. Room is made for
    /// the `expected` count at once: each doubling copies the positions
    /// into memory the process may never have written (a fault a page).
    /// When the stream's predicate is one interval of start times and
    /// nothing else (`CompiledPredicate.StartInterval`), the first and last
    /// buckets' positions whose records start outside it are dropped: then
    /// each position is an object the query returns (a deleted object's
    /// start decides for it too, rule 8), and the stream says so
    /// (`positionsAreObjects`: a read in parts can then find where its
    /// parts end before reading them, `PartsAhead`).
    func startIndexPositions(_ txn: Txn, _ s: Stream, _ range: StartRange, from: UInt64,
                             expected: Int = 0) throws -> [UInt64] {
        let c = try txn.cursor(s.trees.starts)
        defer { c.close() }
        var positions: [UInt64] = []
        positions.reserveCapacity(min(expected, txn.entries(s.trees.records)))
        let interval = s.program?.starts
        var firstBucket: Range<Int>?  // the positions of the first bucket read
        var lastBucket = 0..<0  // and of the last, so far
        var bucket: UInt64?
        try StartIndex.Reader(cursor: c).forEachPosition(buckets: StartIndex.bucket(of: range.lo),
                                                         StartIndex.bucket(of: range.hi)) { b, seq in
            if b != bucket {
                if bucket != nil && firstBucket == nil { firstBucket = lastBucket }
                (bucket, lastBucket) = (b, positions.count..<positions.count)
            }
            if seq >= from {
                positions.append(seq)
                lastBucket = lastBucket.lowerBound..<positions.count
            }
        }
        if bucket != nil && firstBucket == nil { firstBucket = lastBucket }
        if let interval, let firstBucket {
            try dropOutside(interval, &positions, firstBucket, lastBucket, txn, s.trees.records)
            s.positionsAreObjects = true
        }
        PositionPiles.sort(&positions)
        return positions
    }

    /// Drops the positions of the two edge buckets (`first`, `last`:
    /// ranges of `positions`, each ascending) whose records start outside
    /// `interval`. The records are read in ascending order with one
    /// cursor, stepping to a near one (a bucket's samples saved in time
    /// order are neighbours) and seeking a far one.
    private func dropOutside(_ interval: CompiledPredicate.StartInterval, _ positions: inout [UInt64],
                             _ first: Range<Int>, _ last: Range<Int>, _ txn: Txn, _ records: MDB_dbi) throws {
        let c = try txn.cursor(records)
        defer { c.close() }
        // The two ranges merged by position.
        let other = last.lowerBound >= first.upperBound ? last : last.upperBound..<last.upperBound
        var edges: [Int] = []
        edges.reserveCapacity(first.count + other.count)
        var (a, b) = (first.lowerBound, other.lowerBound)
        while a < first.upperBound || b < other.upperBound {
            if b == other.upperBound || (a < first.upperBound && positions[a] < positions[b]) {
                edges.append(a); a += 1
            } else {
                edges.append(b); b += 1
            }
        }
        var drop: [Int] = []
        var entry: (UInt64, UnsafeRawBufferPointer)?
        for i in edges {
            let wanted = positions[i]
            if let (seq, _) = entry, seq < wanted, wanted - seq <= Self.nearPositions {
                while let (seq, _) = entry, seq < wanted { entry = try c.next() }
            } else {
                entry = try c.seek(atLeast: wanted)
            }
            guard let (seq, raw) = entry, seq == wanted else { throw Self.missingRecord }
            if !interval.contains(try RecordView(stored: raw).start) { drop.append(i) }
        }
        guard !drop.isEmpty else { return }
        drop.sort()
        // One pass, past the dropped indices in order (no hashing: a set
        // lookup per position was most of a 1 % query's planning).
        var (kept, d) = (drop[0], 0)
        for i in drop[0]..<positions.count {
            if d < drop.count && drop[d] == i { d += 1; continue }
            positions[kept] = positions[i]
            kept += 1
        }
        positions.removeLast(positions.count - kept)
    }

    /// The spans of positions in `from...head` of the zone map's blocks of
    /// the stream's type whose starts meet `range` (adjacent blocks
    /// merged), and how many blocks were read.
    /// Positions past the zone head (appended by a format-2 library still
    /// open on the store) are one span more: walked, not skipped.
    func zoneSpans(_ txn: Txn, _ s: Stream, _ range: StartRange,
                           from: UInt64, head: UInt64) throws -> (spans: [PositionSpan], read: Int) {
        let mapped = min(head, try txn.metaU64(trees, .zoneHead))
        let c = try txn.cursor(trees.zones)
        defer { c.close() }
        var spans: [PositionSpan] = []
        var read = 0
        var entry = try ZoneMap.key(type: s.typeID, block: ZoneMap.block(of: from)).withUnsafeBytes { try c.seekRaw(atLeast: $0) }
        while let (k, v) = entry {
            let (type, block) = try ZoneMap.decodeKey(k)
            let first = ZoneMap.firstPosition(of: block)
            guard type == s.typeID, first <= mapped else { break }
            read += 1
            let starts = try ZoneMap.decodeRange(v)
            let lo = max(from, first), hi = min(mapped, ZoneMap.firstPosition(of: block + 1) - 1)
            if starts.upperBound >= range.lo && starts.lowerBound <= range.hi && lo <= hi {
                if let prev = spans.last, prev.last + 1 == lo {
                    spans[spans.count - 1].last = hi
                } else {
                    spans.append(PositionSpan(first: lo, last: hi))
                }
            }
            entry = try c.nextEntry()
        }
        if mapped < head { spans.append(PositionSpan(first: max(from, mapped + 1), last: head)) }
        return (spans, read)
    }
}
