import FoundationEssentials
import Glibc

/// The figures of each interval, fed piece by piece (rules 28 and 29).
/// Intervals are `[edges[k], edges[k+1])` in local time: a piece counts in
/// the intervals its own local time overlaps.
struct StatisticsAccumulator {
    let options: StatisticsOptions
    let style: AggregationStyle
    let edges: [Double]

    private struct Recent {
        var end: Double, start: Double, rank: Int, order: Int, value: Double

        func isAfter(_ o: Recent) -> Bool {
            (end, start, -rank, order) > (o.end, o.start, -o.rank, o.order)
        }
    }

    private struct Interval {
        var sum = 0.0
        var weighted = 0.0, weight = 0.0          // time-weighted: Σ v·t, Σ t
        var arithmetic = 0.0, count = 0           // per sample: Σ v, n
        var minimum = Double.infinity, maximum = -Double.infinity
        var recent: Recent?
        var covered: [(start: Double, end: Double)] = []
        var lastSample = -1
        var hasData: Bool { count > 0 }
    }

    private var intervals: [Interval]

    init(options: StatisticsOptions, style: AggregationStyle, edges: [Double]) {
        self.options = options
        self.style = style
        self.edges = edges
        intervals = Array(repeating: Interval(), count: max(0, edges.count - 1))
    }

    /// Adds the part [start, end) (absolute) of sample `index`.
    mutating func add(_ start: Double, _ end: Double, of s: StatisticsSample, index: Int) {
        let a = start + s.offset, b = end + s.offset
        if s.isInstant {
            guard let k = interval(containing: a) else { return }
            feed(k, s, index: index, share: 1, time: 0, from: a, to: a)
            return
        }
        let length = s.end - s.start
        var k = firstInterval(endingAfter: a)
        while k < intervals.count, edges[k] < b {
            let from = max(a, edges[k]), to = min(b, edges[k + 1])
            if to > from { feed(k, s, index: index, share: (to - from) / length, time: to - from, from: from, to: to) }
            k += 1
        }
    }

    private mutating func feed(_ k: Int, _ s: StatisticsSample, index: Int, share: Double, time: Double,
                               from: Double, to: Double) {
        Self.feed(&intervals[k], s, index: index, share: share, time: time, from: from, to: to,
                  style: style, options: options)
    }

    /// Changes interval `i` in place (a copy would copy its covered list too).
    private static func feed(_ i: inout Interval, _ s: StatisticsSample, index: Int, share: Double, time: Double,
                             from: Double, to: Double, style: AggregationStyle, options: StatisticsOptions) {
        let level = BucketFigures.level(s.value, style)
        i.sum += s.value * share
        i.weighted += level * time
        i.weight += time
        if i.lastSample != index {  // a sample counts once per interval however many pieces it has there
            i.arithmetic += level
            i.count += 1
            i.lastSample = index
        }
        i.minimum = min(i.minimum, s.value)
        i.maximum = max(i.maximum, s.value)
        let candidate = Recent(end: s.end, start: s.start, rank: s.rank, order: s.order, value: s.value)
        if options.contains(.mostRecent), i.recent.map({ candidate.isAfter($0) }) ?? true { i.recent = candidate }
        if options.contains(.duration), to > from { i.covered.append((from, to)) }
    }

    /// The figures of interval `k`; empty when no sample fed it.
    func values(_ k: Int) -> StatisticsValues {
        let i = intervals[k]
        var v = StatisticsValues()
        guard i.hasData else { return v }
        v.count = i.count
        if options.contains(.cumulativeSum) { v.sum = i.sum }
        if options.contains(.discreteAverage) { v.average = average(i) }
        if options.contains(.discreteMin) { v.minimum = i.minimum }
        if options.contains(.discreteMax) { v.maximum = i.maximum }
        if options.contains(.mostRecent), let r = i.recent {
            v.mostRecent = r.value
            v.mostRecentStart = Date(timeIntervalSinceReferenceDate: r.start)
            v.mostRecentEnd = Date(timeIntervalSinceReferenceDate: r.end)
        }
        if options.contains(.duration) {
            v.duration = SourceMerge.union(i.covered).reduce(0) { $0 + ($1.end - $1.start) }
        }
        return v
    }

    private func average(_ i: Interval) -> Double {
        StatisticsValues.average(style, weighted: i.weighted, weight: i.weight, arithmetic: i.arithmetic, count: i.count)
    }

    func hasData(_ k: Int) -> Bool { intervals[k].hasData }

    private func interval(containing t: Double) -> Int? {
        let k = firstInterval(endingAfter: t)
        return k < intervals.count && edges[k] <= t ? k : nil
    }

    /// The first interval whose end is after `t`.
    private func firstInterval(endingAfter t: Double) -> Int {
        var low = 0, high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if edges[mid + 1] > t { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
