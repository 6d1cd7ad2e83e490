/// Sorting the positions the start index gives, bucket by bucket.
///
/// Each bucket's positions are ascending (LMDB sorts a key's duplicates),
/// and across buckets they are usually a few ascending sequences laid
/// over one another: the samples saved in time order, and the tombstones
/// of the ones deleted later, at positions past all of them. Those are
/// dealt into a few ascending piles and merged, three passes over the
/// positions; anything more tangled goes to the standard sort. (The
/// standard sort of such positions, 9,000 of a 1 % query after the
/// workload's deletions, was a fifth of the query's instructions.)
enum PositionPiles {
    /// More piles than this and the standard sort is cheaper than the
    /// merge's comparison of every pile's head per position.
    static let most = 4

    /// `positions`, sorted ascending. Positions are distinct.
    static func sort(_ positions: inout [UInt64]) {
        let n = positions.count
        guard n > 1 else { return }
        let merged = positions.withUnsafeMutableBufferPointer { ps -> Bool in
            // Sorted already: the usual case without deletions.
            var i = 1
            while i < n, ps[i - 1] < ps[i] { i += 1 }
            guard i < n else { return true }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { label in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: n) { spare in
                    deal(ps, label, spare, sortedUpTo: i)
                }
            }
        }
        if !merged { positions.sort() }
    }

    /// Deals `ps` into piles (`label` says whose), lays the piles one after
    /// another in `spare`, and merges them back into `ps`; false when they
    /// would be more than `most`, with `ps` untouched.
    private static func deal(_ ps: UnsafeMutableBufferPointer<UInt64>, _ label: UnsafeMutableBufferPointer<UInt8>,
                             _ spare: UnsafeMutableBufferPointer<UInt64>, sortedUpTo sorted: Int) -> Bool {
        let n = ps.count
        // Each position goes on the pile whose last is the largest below
        // it (patience sorting: as few piles as the order allows).
        var last = (ps[sorted - 1], UInt64(0), UInt64(0), UInt64(0))
        var count = (sorted, 0, 0, 0)
        var piles = 1
        for k in 0..<sorted { label[k] = 0 }
        for k in sorted..<n {
            let p = ps[k]
            var best = -1, bestLast: UInt64 = 0
            if last.0 < p { (best, bestLast) = (0, last.0) }
            if piles > 1 && last.1 < p && (best < 0 || last.1 > bestLast) { (best, bestLast) = (1, last.1) }
            if piles > 2 && last.2 < p && (best < 0 || last.2 > bestLast) { (best, bestLast) = (2, last.2) }
            if piles > 3 && last.3 < p && (best < 0 || last.3 > bestLast) { best = 3 }
            if best < 0 {
                guard piles < most else { return false }
                best = piles
                piles += 1
            }
            switch best {
            case 0: last.0 = p; count.0 += 1
            case 1: last.1 = p; count.1 += 1
            case 2: last.2 = p; count.2 += 1
            default: last.3 = p; count.3 += 1
            }
            label[k] = UInt8(truncatingIfNeeded: best)
        }
        // The piles side by side in `spare`, each in its order.
        var at = (0, count.0, count.0 + count.1, count.0 + count.1 + count.2)
        let ends = (at.1, at.2, at.3, n)
        for k in 0..<n {
            let p = ps[k]
            switch label[k] {
            case 0: spare[at.0] = p; at.0 += 1
            case 1: spare[at.1] = p; at.1 += 1
            case 2: spare[at.2] = p; at.2 += 1
            default: spare[at.3] = p; at.3 += 1
            }
        }
        if piles == 2 { merge(spare, ends.0, into: ps); return true }
        // Merged: the smallest of the piles' heads, each time.
        var head = (0, ends.0, ends.1, ends.2)
        for o in 0..<n {
            var best = 0, smallest = UInt64.max
            if head.0 < ends.0 { smallest = spare[head.0] }
            if head.1 < ends.1 && spare[head.1] < smallest { (best, smallest) = (1, spare[head.1]) }
            if head.2 < ends.2 && spare[head.2] < smallest { (best, smallest) = (2, spare[head.2]) }
            if head.3 < ends.3 && spare[head.3] < smallest { (best, smallest) = (3, spare[head.3]) }
            ps[o] = smallest
            switch best {
            case 0: head.0 += 1
            case 1: head.1 += 1
            case 2: head.2 += 1
            default: head.3 += 1
            }
        }
        return true
    }

    /// The two ascending runs `spare[..<mid]` and `spare[mid...]` merged
    /// into `out` (the usual two piles: samples, and later tombstones).
    private static func merge(_ spare: UnsafeMutableBufferPointer<UInt64>, _ mid: Int,
                              into out: UnsafeMutableBufferPointer<UInt64>) {
        var a = 0, b = mid, o = 0
        let n = spare.count
        while a < mid && b < n {
            if spare[a] < spare[b] { out[o] = spare[a]; a += 1 } else { out[o] = spare[b]; b += 1 }
            o += 1
        }
        while a < mid { out[o] = spare[a]; a += 1; o += 1 }
        while b < n { out[o] = spare[b]; b += 1; o += 1 }
    }
}
