import FoundationEssentials

/// Statistics collections read from the buckets each write transaction
/// keeps (docs/architecture.md, "Maintained statistics"): a query costs
/// the buckets that tile its intervals, not the samples under them.
extension Store {
    /// The collection of `type` over `edges` from the maintained buckets,
    /// the intervals where two samples may overlap computed from their
    /// samples (rule 26); nil when the buckets cannot answer (an edge off
    /// the hour in some family's time, a `duration`, statistics not kept
    /// through the last change), and the samples must.
    func maintainedCollection(_ type: SampleType, _ options: StatisticsOptions, edges: [Double],
                              time: EdgeTime) throws -> [Statistics]? {
        guard case .quantity(_, let style) = type.kind, !options.contains(.duration), edges.count >= 2 else { return nil }
        return try readRetryingTrees { txn -> [Statistics]? in
            let (head, _) = try position(txn)
            guard try txn.metaU64(trees, .statisticsHead) == head else { return nil }
            let n = edges.count - 1
            let separate = options.contains(.separateBySource)
            func empty() -> [Statistics] {
                (0..<n).map { k in Self.statistics(type, options, style, IntervalFigures(), nil, edges, k, time) }
            }
            guard let (typeID, records) = try storedTrees(type, txn) else { return empty() }
            let summary = try PendingStatistics.summary(txn, trees.statistics, typeID)
            guard summary.outsized == 0 else { return nil }
            // Each family's edges in its own bucket time, on whole hours.
            var families: [(family: Int32, edges: [Double])] = []
            for f in summary.families {
                let shift = StatisticsKeys.shift(f)
                let fe: [Double]
                switch time {
                case .local(let q): fe = f == StatisticsKeys.floating ? edges.map { $0 - Double(q) } : edges
                case .utc: fe = edges.map { $0 + shift }
                }
                guard fe.allSatisfy({ abs($0) < 1e14 && $0.truncatingRemainder(dividingBy: 3600) == 0 }) else { return nil }
                families.append((f, fe))
            }
            guard !families.isEmpty else { return empty() }
            var figures: [IntervalFigures] = []
            for (f, fe) in families {
                let folded = try Self.fold(txn, trees.statistics, typeID, f, fe, style, separate: separate)
                if figures.isEmpty { figures = folded } else { for k in 0..<n { figures[k].merge(folded[k]) } }
            }
            // The source table, read when a figure needs it.
            var table = separate ? try StatisticsSources(txn, trees) : nil
            var results = (0..<n).map { k in
                Self.statistics(type, options, style, figures[k], table, edges, k, time)
            }
            // Intervals where samples may overlap: merged from their samples.
            // Each interval in UTC, as wide as its families' times make it.
            let spans = (0..<n).map { k -> (lo: Double, hi: Double) in
                (families.map { $0.edges[k] - StatisticsKeys.shift($0.family) }.min()!,
                 families.map { $0.edges[k + 1] - StatisticsKeys.shift($0.family) }.max()!)
            }
            let overlapping = try Self.overlapHours(txn, trees.statistics, typeID, from: spans.map(\.lo).min()!,
                                                    to: spans.map(\.hi).max()!)
            guard !overlapping.isEmpty else { return results }
            let merged = (0..<n).map { k in
                // The first marked hour that ends after the interval starts.
                var low = 0, high = overlapping.count
                while low < high {
                    let mid = (low + high) / 2
                    if Double(overlapping[mid] + 1) * 3600 > spans[k].lo { high = mid } else { low = mid + 1 }
                }
                return low < overlapping.count && Double(overlapping[low]) * 3600 < spans[k].hi
            }
            let stored = try Self.sourcePriority(txn, trees, type)
            if table == nil { table = try StatisticsSources(txn, trees) }
            var k = 0
            while k < n {
                guard merged[k] else { k += 1; continue }
                var j = k
                while j + 1 < n, merged[j + 1] { j += 1 }
                let sub = Array(edges[k...(j + 1)])
                let read = try samplesReaching(txn, records, summary, from: spans[k].lo, to: spans[j].hi,
                                               time: time, table: table!, stored: stored)
                let computed = try compute(type, options, read, edges: sub, time: time)
                results.replaceSubrange(k...j, with: computed)
                k = j + 1
            }
            return results
        }
    }

    /// The live samples of a type that reach UTC [from, to), as statistics
    /// read them.
    private func samplesReaching(_ txn: Txn, _ records: TypeTrees, _ summary: TypeSummary,
                                 from: Double, to: Double, time: EdgeTime, table: StatisticsSources,
                                 stored: [String]) throws -> StatisticsRead {
        var raw: [(Double, Double, Double, UInt32, Double, Int)] = []
        try PendingStatistics.forEachLive(txn, records, starts: [(from - summary.longest, to)]) { seq, r in
            guard r.end > from || (r.end <= r.start && r.start >= from) else { return }
            raw.append((r.start, r.end, r.quantity, r.sourceID, time.localOffset(r.utcOffset), Int(seq)))
        }
        return try table.read(raw, stored: stored)
    }

    /// One family's figures per interval: each interval tiled by hours up
    /// to its first midnight, whole days, then hours (in the family's time).
    private static func fold(_ txn: Txn, _ t: StatisticsTrees, _ type: UInt16, _ family: Int32, _ edges: [Double],
                             _ style: AggregationStyle, separate: Bool) throws -> [IntervalFigures] {
        func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }
        // Interval k: hours [a, h0), days [d0, d1), hours [h1, b).
        let tiles = (0..<(edges.count - 1)).map { k -> (a: Int64, h0: Int64, d0: Int64, d1: Int64, h1: Int64, b: Int64) in
            let a = Int64(edges[k] / 3600), b = Int64(edges[k + 1] / 3600)
            let d0 = -floorDiv(-a, 24), d1 = floorDiv(b, 24)
            return d0 < d1 ? (a, d0 * 24, d0, d1, d1 * 24, b) : (a, b, 0, 0, b, b)
        }
        let hours = try BucketWindow(txn, t, type, family, .hour, runs: tiles.flatMap { [($0.a, $0.h0), ($0.h1, $0.b)] })
        let days = try BucketWindow(txn, t, type, family, .day, runs: tiles.map { ($0.d0, $0.d1) })
        return try tiles.map { p in
            var figures = IntervalFigures()
            var first = true
            func fold(_ w: BucketWindow, _ from: Int64, _ to: Int64) throws {
                for i in from..<to {
                    if let raw = w[i] {
                        try BucketCodec.forEach(raw, style) { f in figures.add(f, first: first, separate: separate) }
                    }
                    first = false
                }
            }
            try fold(hours, p.a, p.h0)
            try fold(days, p.d0, p.d1)
            try fold(hours, p.h1, p.b)
            return figures
        }
    }

    /// The UTC hours in [from, to) where two samples of the type may overlap.
    private static func overlapHours(_ txn: Txn, _ t: StatisticsTrees, _ type: UInt16, from: Double,
                                     to: Double) throws -> [Int64] {
        let c = try txn.cursor(t.overlaps)
        defer { c.close() }
        let last = Int64((to / 3600).rounded(.up))
        var out: [Int64] = []
        var entry = try StatisticsKeys.hour(type: type, Int64((from / 3600).rounded(.down))).withUnsafeBytes {
            try c.seekRaw(atLeast: $0)
        }
        while let (k, v) = entry, k.count == 10, StatisticsKeys.type(ofKey: k) == type {
            let h = StatisticsKeys.hour(ofKey: k)
            guard h < last else { break }
            _ = try EntryCheck.opened(k, v, "a statistics overlap mark")
            out.append(h)
            entry = try c.nextEntry()
        }
        return out
    }

    /// An interval's statistics from its sources' figures (no two of its
    /// samples overlap, so merging takes every one).
    private static func statistics(_ type: SampleType, _ options: StatisticsOptions, _ style: AggregationStyle,
                                   _ figures: IntervalFigures, _ table: StatisticsSources?, _ edges: [Double],
                                   _ k: Int, _ time: EdgeTime) -> Statistics {
        var bySource: [String: StatisticsValues] = [:]
        var sources: [Source] = []
        if options.contains(.separateBySource), let table {
            var bundles: [Int: BucketFigures] = [:]
            for f in figures.bySource { bundles[table.bundleOf[f.sourceID] ?? -1, default: BucketFigures(sourceID: f.sourceID)].merge(f) }
            for (b, f) in bundles where b >= 0 && !f.isEmpty {
                bySource[table.sources[b].bundleIdentifier] = StatisticsValues(f, options, style)
                sources.append(table.sources[b])
            }
        }
        return Statistics(type: type, startDate: Date(timeIntervalSinceReferenceDate: edges[k]),
                          endDate: Date(timeIntervalSinceReferenceDate: edges[k + 1]),
                          values: StatisticsValues(figures.all, options, style), bySource: bySource,
                          sources: sources.sorted { $0.bundleIdentifier < $1.bundleIdentifier },
                          isLocalTime: time.isLocal)
    }

}

extension StatisticsValues {
    /// The figures of an interval from its combined bucket figures.
    init(_ f: BucketFigures, _ options: StatisticsOptions, _ style: AggregationStyle) {
        self.init()
        let n = Int(f.count + f.crossCount)
        guard n > 0 else { return }
        count = n
        if options.contains(.cumulativeSum) { sum = f.sum }
        if options.contains(.discreteAverage) {
            average = Self.average(style, weighted: f.weighted, weight: f.weight,
                                   arithmetic: f.arithmetic + f.crossArithmetic, count: n)
        }
        if options.contains(.discreteMin) { minimum = f.minimum }
        if options.contains(.discreteMax) { maximum = f.maximum }
        if options.contains(.mostRecent) {
            mostRecent = f.recentValue
            mostRecentStart = Date(timeIntervalSinceReferenceDate: f.recentStart)
            mostRecentEnd = Date(timeIntervalSinceReferenceDate: f.recentEnd)
        }
    }
}

/// The stored buckets of one type, family and level over the runs a
/// collection needs, by index: the read transaction's own bytes, decoded
/// as they are folded.
private struct BucketWindow {
    private let base: Int64
    private var slots: [UnsafeRawBufferPointer?] = []

    init(_ txn: Txn, _ t: StatisticsTrees, _ type: UInt16, _ family: Int32, _ level: StatisticsKeys.Level,
         runs: [(Int64, Int64)]) throws {
        // Runs come in time order: adjacent ones are read as one.
        var merged: [(from: Int64, to: Int64)] = []
        for (from, to) in runs where from < to {
            if let last = merged.last, from <= last.to { merged[merged.count - 1].to = max(last.to, to) } else { merged.append((from, to)) }
        }
        base = merged.first?.from ?? 0
        guard let last = merged.last else { return }
        slots = Array(repeating: nil, count: Int(last.to - base))
        for r in merged {
            try PendingStatistics.forEachBucket(txn, t, type: type, family: family, level: level, from: r.from, to: r.to) { i, raw in
                slots[Int(i - base)] = raw
            }
        }
    }

    subscript(_ i: Int64) -> UnsafeRawBufferPointer? { slots[Int(i - base)] }
}

/// An interval's figures as its buckets fold in: every source together,
/// and each apart when the query separates them.
private struct IntervalFigures {
    var all = BucketFigures(sourceID: 0)
    var bySource: [BucketFigures] = []

    mutating func add(_ f: BucketFigures, first: Bool, separate: Bool) {
        all.merge(f, crossing: first)
        if separate { BucketCodec.append(f, into: &bySource, first: first) }
    }

    /// Adds another family's figures of the same interval.
    mutating func merge(_ o: IntervalFigures) {
        all.merge(o.all)
        BucketCodec.merge(o.bySource, into: &bySource)
    }
}
