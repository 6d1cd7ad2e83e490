/// A sample as statistics read it.
struct StatisticsSample {
    /// Seconds since 2001-01-01 (absolute).
    let start: Double
    let end: Double
    /// In the type's canonical unit.
    let value: Double
    /// Its source's place in the priority order (0 is first).
    let rank: Int
    /// Its source's index in the query's source list.
    let source: Int
    /// Seconds east of UTC: its local time is `start + offset` (rule 28).
    let offset: Double
    /// Its place in the store's change order, for ties.
    let order: Int

    var isInstant: Bool { end <= start }
}

/// A part of a sample that counts once sources are merged: `[start, end)`
/// of the sample, or all of an instantaneous one (`start == end`).
struct MergedPiece {
    let sample: Int
    let start: Double
    let end: Double
}

/// Merging sources by priority (rule 26): where samples of several
/// sources overlap in time, the higher-priority source's count; a lower
/// one fills only the time no higher one covers. Within one source every
/// sample counts (HealthKit does not say otherwise; sync identifiers are
/// how a source replaces its own samples).
enum SourceMerge {
    /// The parts of `samples` that count, source by source in priority
    /// order; the pieces of one sample are consecutive.
    static func pieces(_ samples: [StatisticsSample]) -> [MergedPiece] {
        let byRank = Dictionary(grouping: samples.indices, by: { samples[$0].rank })
        var covered: [(start: Double, end: Double)] = []
        var out: [MergedPiece] = []
        out.reserveCapacity(samples.count)
        for rank in byRank.keys.sorted() {
            let group = byRank[rank]!
            for i in group {
                let s = samples[i]
                if s.isInstant {
                    if !contains(covered, s.start) { out.append(MergedPiece(sample: i, start: s.start, end: s.start)) }
                    continue
                }
                // The uncovered parts of [start, end).
                var j = firstEndingAfter(covered, s.start)
                var cursor = s.start
                while j < covered.count, covered[j].start < s.end {
                    if covered[j].start > cursor { out.append(MergedPiece(sample: i, start: cursor, end: covered[j].start)) }
                    cursor = max(cursor, covered[j].end)
                    j += 1
                }
                if cursor < s.end { out.append(MergedPiece(sample: i, start: cursor, end: s.end)) }
            }
            // This source now covers its samples' time for the sources below it.
            let own = group.lazy.map { samples[$0] }.filter { !$0.isInstant }.map { (start: $0.start, end: $0.end) }
            covered = union(covered + own)
        }
        return out
    }

    /// Whether the instant `t` lies in one of the sorted disjoint intervals.
    static func contains(_ intervals: [(start: Double, end: Double)], _ t: Double) -> Bool {
        let j = firstEndingAfter(intervals, t)
        return j < intervals.count && intervals[j].start <= t
    }

    /// The first of the sorted disjoint intervals that ends after `t`.
    static func firstEndingAfter(_ intervals: [(start: Double, end: Double)], _ t: Double) -> Int {
        var low = 0, high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if intervals[mid].end > t { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The union of intervals, sorted and disjoint (touching ones joined).
    static func union(_ intervals: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
        var out: [(start: Double, end: Double)] = []
        for r in intervals.sorted(by: { $0.start < $1.start }) {
            if let last = out.last, r.start <= last.end {
                out[out.count - 1].end = max(last.end, r.end)
            } else {
                out.append(r)
            }
        }
        return out
    }
}
