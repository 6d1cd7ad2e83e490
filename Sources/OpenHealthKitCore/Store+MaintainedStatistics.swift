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
        let stored = try sourcePriority(for: type)
        return try readRetryingTrees { txn -> [Statistics]? in
            let (head, _) = try position(txn)
            guard try txn.metaU64(trees, .statisticsHead) == head else { return nil }
            let n = edges.count - 1
            let offset = Double(time.offset)
            guard let (typeID, records) = try storedTrees(type, txn) else {
                return (0..<n).map { k in Self.emptyStatistics(type, edges, k, offset) }
            }
            let summary = try PendingStatistics.summary(txn, trees.statistics, typeID)
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
            var figures = [[BucketFigures]](repeating: [], count: n)
            for (f, fe) in families {
                let folded = try Self.fold(txn, trees.statistics, typeID, f, fe, style)
                for k in 0..<n { BucketCodec.merge(folded[k], into: &figures[k]) }
            }
            let table = try StatisticsSources(txn, trees)
            var results = (0..<n).map { k in
                Self.statistics(type, options, style, figures[k], table, edges, k, offset)
            }
            // Intervals where samples may overlap: merged from their samples.
            guard !families.isEmpty else { return results }
            // Each interval in UTC, as wide as its families' times make it.
            let spans = (0..<n).map { k -> (lo: Double, hi: Double) in
                (families.map { $0.edges[k] - StatisticsKeys.shift($0.family) }.min()!,
                 families.map { $0.edges[k + 1] - StatisticsKeys.shift($0.family) }.max()!)
            }
            let overlapping = try Self.overlapHours(txn, trees.statistics, typeID, from: spans.map(\.lo).min()!,
                                                    to: spans.map(\.hi).max()!)
            guard !overlapping.isEmpty else { return results }
            let merged = (0..<n).map { k in
                overlapping.contains { h in Double(h) * 3600 < spans[k].hi && Double(h + 1) * 3600 > spans[k].lo }
            }
            var k = 0
            while k < n {
                guard merged[k] else { k += 1; continue }
                var j = k
                while j + 1 < n, merged[j + 1] { j += 1 }
                let sub = Array(edges[k...(j + 1)])
                let read = try samplesReaching(txn, typeID, records, summary, from: spans[k].lo, to: spans[j].hi,
                                               time: time, table: table, stored: stored)
                let computed = try compute(type, options, read, edges: sub, utcOffset: time.offset)
                results.replaceSubrange(k...j, with: computed)
                k = j + 1
            }
            return results
        }
    }

    /// The live samples of a type that reach UTC [from, to), as statistics
    /// read them.
    private func samplesReaching(_ txn: Txn, _ typeID: UInt16, _ records: TypeTrees, _ summary: TypeSummary,
                                 from: Double, to: Double, time: EdgeTime, table: StatisticsSources,
                                 stored: [String]) throws -> StatisticsRead {
        var raw: [(Double, Double, Double, UInt32, Double, Int)] = []
        try PendingStatistics.forEachLive(txn, records, starts: [(from - summary.longest, to)]) { seq, r in
            guard r.end > from || (r.end <= r.start && r.start >= from) else { return }
            let local: Double
            switch time {
            case .local(let q): local = Double(r.utcOffset ?? q)
            case .utc: local = 0
            }
            raw.append((r.start, r.end, r.quantity, r.sourceID, local, Int(seq)))
        }
        return try table.read(raw, stored: stored)
    }

    /// One family's figures per interval: each interval tiled by hours up
    /// to its first midnight, whole days, then hours (in the family's time).
    private static func fold(_ txn: Txn, _ t: StatisticsTrees, _ type: UInt16, _ family: Int32, _ edges: [Double],
                             _ style: AggregationStyle) throws -> [[BucketFigures]] {
        typealias Piece = (level: StatisticsKeys.Level, from: Int64, to: Int64)
        func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }
        let plans: [[Piece]] = (0..<(edges.count - 1)).map { k in
            let a = Int64(edges[k] / 3600), b = Int64(edges[k + 1] / 3600)
            let d0 = -floorDiv(-a, 24), d1 = floorDiv(b, 24)
            guard d0 < d1 else { return [(.hour, a, b)] }
            return [(.hour, a, d0 * 24), (.day, d0, d1), (.hour, d1 * 24, b)].filter { $0.from < $0.to }
        }
        // Each level read in runs of consecutive buckets.
        var read: [StatisticsKeys.Level: [Int64: [BucketFigures]]] = [.hour: [:], .day: [:]]
        for level in [StatisticsKeys.Level.hour, .day] {
            var runs: [(from: Int64, to: Int64)] = []
            for p in plans.joined() where p.level == level {
                if let last = runs.last, p.from <= last.to { runs[runs.count - 1].to = max(last.to, p.to) } else { runs.append((p.from, p.to)) }
            }
            for r in runs {
                for (i, f) in try PendingStatistics.readBuckets(txn, t, type: type, family: family, level: level,
                                                                 from: r.from, to: r.to, style: style) {
                    read[level]![i] = f
                }
            }
        }
        return plans.map { pieces in
            var figures: [BucketFigures] = []
            var first = true
            for p in pieces {
                for i in p.from..<p.to {
                    if let f = read[p.level]![i] { BucketCodec.append(f, into: &figures, first: first) }
                    first = false
                }
            }
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
        while let (k, _) = entry, k.count == 10, StatisticsKeys.type(ofKey: k) == type {
            let h = StatisticsKeys.hour(ofKey: k)
            guard h < last else { break }
            out.append(h)
            entry = try c.nextEntry()
        }
        return out
    }

    /// An interval's statistics from its sources' figures (no two of its
    /// samples overlap, so merging takes every one).
    private static func statistics(_ type: SampleType, _ options: StatisticsOptions, _ style: AggregationStyle,
                                   _ figures: [BucketFigures], _ table: StatisticsSources, _ edges: [Double],
                                   _ k: Int, _ offset: Double) -> Statistics {
        var all = BucketFigures(sourceID: 0)
        for f in figures { all.merge(f) }
        var bySource: [String: StatisticsValues] = [:]
        var sources: [Source] = []
        if options.contains(.separateBySource) {
            var bundles: [Int: BucketFigures] = [:]
            for f in figures { bundles[table.bundleOf[f.sourceID] ?? -1, default: BucketFigures(sourceID: f.sourceID)].merge(f) }
            for (b, f) in bundles where b >= 0 && !f.isEmpty {
                bySource[table.sources[b].bundleIdentifier] = StatisticsValues(f, options, style)
                sources.append(table.sources[b])
            }
        }
        return Statistics(type: type, startDate: Date(timeIntervalSinceReferenceDate: edges[k] - offset),
                          endDate: Date(timeIntervalSinceReferenceDate: edges[k + 1] - offset),
                          values: StatisticsValues(all, options, style), bySource: bySource,
                          sources: sources.sorted { $0.bundleIdentifier < $1.bundleIdentifier })
    }

    private static func emptyStatistics(_ type: SampleType, _ edges: [Double], _ k: Int, _ offset: Double) -> Statistics {
        Statistics(type: type, startDate: Date(timeIntervalSinceReferenceDate: edges[k] - offset),
                   endDate: Date(timeIntervalSinceReferenceDate: edges[k + 1] - offset),
                   values: StatisticsValues(), bySource: [:], sources: [])
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
