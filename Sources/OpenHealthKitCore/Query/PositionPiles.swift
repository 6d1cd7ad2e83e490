/// Sorting the positions the start index gives, bucket by bucket.
///
/// Each bucket's positions are ascending, and across buckets they are
/// usually a few ascending sequences laid over one another: the samples
/// saved in time order, and the tombstones of the ones deleted later, at
/// positions past all of them. Those are dealt into a few ascending piles
/// and merged, three passes over the positions; anything more tangled
/// goes to the standard sort. (The standard sort of such positions, 9,000
/// of a 1 % query after the workload's deletions, was a fifth of the
/// query's instructions.) The piles are sorted in place but for the
/// smaller ones: each position's pile is marked in its top two bits, the
/// largest pile gathered at the end of the array, the others copied out.
/// A cold query paid a page fault for each 4 KB of the two arrays of the
/// size of the positions (labels and piles) that this used to take.
enum PositionPiles {
    /// More piles than this and the standard sort is cheaper than the
    /// merge's comparison of every pile's head per position.
    static let most = 4

    /// The bits a pile's number takes at the top of a position, and what
    /// is left for positions (a store's positions never come near).
    private static let labelShift: UInt64 = 62
    private static let positionMask: UInt64 = 1 << labelShift - 1

    /// `positions`, sorted ascending. Positions are distinct.
    static func sort(_ positions: inout [UInt64]) {
        let n = positions.count
        guard n > 1 else { return }
        let merged = positions.withUnsafeMutableBufferPointer { ps -> Bool in
            // Sorted already: the usual case without deletions.
            var i = 1
            while i < n, ps[i - 1] < ps[i] { i += 1 }
            guard i < n else { return true }
            return deal(ps, sortedUpTo: i)
        }
        if !merged { positions.sort() }
    }

    /// Deals `ps` into piles (each position's marked in its top bits) and
    /// merges them back into `ps`; false, with `ps` as it was, when they
    /// would be more than `most`, or a position needs the top bits.
    private static func deal(_ ps: UnsafeMutableBufferPointer<UInt64>, sortedUpTo sorted: Int) -> Bool {
        let n = ps.count
        guard ps[sorted - 1] <= positionMask else { return false }
        // Each position goes on the pile whose last is the largest below
        // it (patience sorting: as few piles as the order allows). The
        // sorted start is pile 0, which marks nothing.
        var last = (ps[sorted - 1], UInt64(0), UInt64(0), UInt64(0))
        var count = (sorted, 0, 0, 0)
        var piles = 1
        for k in sorted..<n {
            let p = ps[k]
            var best = -1, bestLast: UInt64 = 0
            if last.0 < p { (best, bestLast) = (0, last.0) }
            if piles > 1 && last.1 < p && (best < 0 || last.1 > bestLast) { (best, bestLast) = (1, last.1) }
            if piles > 2 && last.2 < p && (best < 0 || last.2 > bestLast) { (best, bestLast) = (2, last.2) }
            if piles > 3 && last.3 < p && (best < 0 || last.3 > bestLast) { best = 3 }
            if best < 0 && piles < most { best = piles; piles += 1 }
            guard best >= 0, p <= positionMask else {
                for j in sorted..<k { ps[j] &= positionMask }
                return false
            }
            switch best {
            case 0: last.0 = p; count.0 += 1
            case 1: last.1 = p; count.1 += 1
            case 2: last.2 = p; count.2 += 1
            default: last.3 = p; count.3 += 1
            }
            ps[k] = p | UInt64(best) << labelShift
        }
        let counts = [count.0, count.1, count.2, count.3]
        let big = counts.indices.max { counts[$0] < counts[$1] }!
        let small = n - counts[big]
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: small) { spare in
            // The other piles side by side in `spare`, each in its order,
            // and the largest at the end of `ps` (from the back: a
            // position is written where one was read already).
            var ends = (0, 0, 0, 0)
            var at = 0
            for pile in 0..<4 where pile != big {
                at += counts[pile]
                switch pile { case 0: ends.0 = at; case 1: ends.1 = at; case 2: ends.2 = at; default: ends.3 = at }
            }
            var fill = ends
            var w = n - 1
            for k in stride(from: n - 1, through: 0, by: -1) {
                let v = ps[k]
                let pile = Int(v >> labelShift), p = v & positionMask
                if pile == big { ps[w] = p; w -= 1; continue }
                switch pile {
                case 0: fill.0 -= 1; spare[fill.0] = p
                case 1: fill.1 -= 1; spare[fill.1] = p
                case 2: fill.2 -= 1; spare[fill.2] = p
                default: fill.3 -= 1; spare[fill.3] = p
                }
            }
            // Merged into `ps` from its start: the output never passes
            // the largest pile's next position (it has taken at most
            // `small` others).
            var head = fill  // each small pile's next, up to its end
            var b = small  // the largest pile's next in `ps`
            for o in 0..<n {
                var best = 4, smallest = b < n ? ps[b] : UInt64.max
                if head.0 < ends.0 && spare[head.0] < smallest { (best, smallest) = (0, spare[head.0]) }
                if head.1 < ends.1 && spare[head.1] < smallest { (best, smallest) = (1, spare[head.1]) }
                if head.2 < ends.2 && spare[head.2] < smallest { (best, smallest) = (2, spare[head.2]) }
                if head.3 < ends.3 && spare[head.3] < smallest { (best, smallest) = (3, spare[head.3]) }
                ps[o] = smallest
                switch best {
                case 0: head.0 += 1
                case 1: head.1 += 1
                case 2: head.2 += 1
                case 3: head.3 += 1
                default: b += 1
                }
            }
        }
        return true
    }
}
