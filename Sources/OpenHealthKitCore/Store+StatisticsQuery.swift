import FoundationEssentials

/// HealthKit's statistics and statistics-collection queries (rules 25–29
/// of docs/semantics.md), and the source priority they merge by.
extension Store {
    /// HKStatisticsQuery: the figures of `type` over every sample that
    /// matches `predicate`, sources merged by priority. Matching samples
    /// count whole; the result's dates are the earliest start and the
    /// latest end among them. Nil when no sample matches (HealthKit's
    /// `errorNoData`).
    public func statistics(type: SampleType, predicate: SamplePredicate? = nil,
                           options: StatisticsOptions) throws -> Statistics? {
        try options.check(for: type)
        let read = try statisticsSamples(type: type, predicate: predicate, localOffset: { _ in 0 })
        guard !read.samples.isEmpty else { return nil }
        let start = read.samples.map(\.start).min()!, end = read.samples.map(\.end).max()!
        // One interval over all time, in which every sample is whole.
        let all = try compute(type, options, read, edges: [-.infinity, .infinity], time: .utc)
        return Statistics(type: type, startDate: Date(timeIntervalSinceReferenceDate: start),
                          endDate: Date(timeIntervalSinceReferenceDate: end),
                          values: all[0].values, bySource: all[0].bySource, sources: all[0].sources)
    }

    /// HKStatisticsCollectionQuery's results from `from` to `to`: one
    /// `Statistics` per interval that overlaps them, with nil figures where
    /// there is no data. Intervals are `interval` long, one of them starting
    /// at `anchor` (rule 28).
    ///
    /// They are counted in one zone, as HealthKit counts in its calendar's:
    /// `timeZone`'s calendar (a day is 23 or 25 hours when its clocks
    /// change, and an edge in a skipped hour is the moment the clock
    /// jumps), else the fixed `utcOffset` (seconds east of UTC). Every
    /// sample falls by its instant, and each result's dates are the
    /// instants its interval covers.
    ///
    /// With `.sampleLocalTime` in `options`, each sample counts in its own
    /// local time instead (its UTC offset; a sample without one in
    /// `utcOffset`, which also reads `anchor`, `from` and `to`), so a walk
    /// at 07:00 in San Francisco falls on that day wherever the query
    /// runs. Such an interval is a wall-clock time, not one span of
    /// instants: its dates are that wall-clock time written as UTC, and
    /// `Statistics.isLocalTime` says so. It takes no `timeZone`.
    public func statisticsCollection(type: SampleType, predicate: SamplePredicate? = nil, options: StatisticsOptions,
                                     anchor: Date, interval: StatisticsInterval, from: Date, to: Date,
                                     utcOffset: Int = 0, timeZone: ZoneRules? = nil) throws -> [Statistics] {
        try options.check(for: type)
        let (edges, time) = try Self.collectionEdges(anchor: anchor, interval: interval, from: from, to: to,
                                                     utcOffset: utcOffset, timeZone: timeZone,
                                                     sampleLocal: options.contains(.sampleLocalTime))
        let kept = predicate == nil && !tuning.statisticsFromSamples
            ? try maintainedCollection(type, options, edges: edges, time: time) : nil
        return try kept ?? collectionFromSamples(type, predicate, options, edges: edges, time: time)
    }

    /// The edges of a collection's intervals over `from` to `to` as
    /// `statisticsCollection` counts them (rule 28): instants of one zone
    /// (`timeZone`, else the fixed `utcOffset`), or, with `sampleLocal`,
    /// wall-clock times written as UTC. For figures of other objects
    /// (workouts) per the same intervals.
    public static func intervalEdges(anchor: Date, interval: StatisticsInterval, from: Date, to: Date,
                                     utcOffset: Int = 0, timeZone: ZoneRules? = nil,
                                     sampleLocal: Bool = false) throws -> [Date] {
        try collectionEdges(anchor: anchor, interval: interval, from: from, to: to, utcOffset: utcOffset,
                                   timeZone: timeZone, sampleLocal: sampleLocal)
            .edges.map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    static func collectionEdges(anchor: Date, interval: StatisticsInterval, from: Date, to: Date, utcOffset: Int,
                                timeZone: ZoneRules?, sampleLocal: Bool) throws -> (edges: [Double], time: EdgeTime) {
        guard interval.count > 0 else { throw OHKError(.invalidArgument, "a statistics interval needs a positive count") }
        guard abs(utcOffset) <= Sample.maxUTCOffset else {
            throw OHKError(.invalidArgument, "a UTC offset lies within ±\(Sample.maxUTCOffset) s, got \(utcOffset)")
        }
        if sampleLocal, timeZone != nil {
            throw OHKError(.invalidArgument, "sampleLocalTime counts each sample in its own UTC offset; give it no time zone")
        }
        let zoneOffset = timeZone.map { z in { (t: Double) in Double(z.offset(atUnix: t + 978_307_200)) } }
        let local = try edges(anchor: anchor, interval: interval, from: from, to: to,
                              utcOffset: utcOffset, zoneOffset: zoneOffset)
        if let timeZone {
            // The zone's calendar for every sample: local edges become instants.
            let instants = local.map { timeZone.instant(ofLocal: $0 + 978_307_200) - 978_307_200 }
            // A skipped local hour maps two edges to one instant: one interval, not an empty one.
            return (instants.enumerated().filter { $0.offset == 0 || $0.element > instants[$0.offset - 1] }.map(\.element), .utc)
        }
        if sampleLocal { return (local, .local(utcOffset: utcOffset)) }
        return (local.map { $0 - Double(utcOffset) }, .utc)
    }

    /// How a collection's edges read: as local time, each sample in its own
    /// UTC offset, else in the query's (`sampleLocalTime`); or as UTC
    /// instants, every sample by its instant (one zone, its edges converted).
    enum EdgeTime {
        case local(utcOffset: Int)
        case utc

        /// The offset a sample with its own UTC offset `own` (nil: none)
        /// is counted in.
        func localOffset(_ own: Int?) -> Double {
            if case .local(let q) = self { return Double(own ?? q) }
            return 0
        }

        /// Whether the edges are wall-clock times rather than instants.
        var isLocal: Bool {
            if case .local = self { return true }
            return false
        }
    }

    /// A collection computed from its samples: every sample that may reach
    /// the edges, read and merged (rule 26), then fed to the intervals.
    private func collectionFromSamples(_ type: SampleType, _ predicate: SamplePredicate?, _ options: StatisticsOptions,
                                       edges: [Double], time: EdgeTime) throws -> [Statistics] {
        let read = try collectionSamples(type, predicate, edges: edges, time: time)
        return try compute(type, options, read, edges: edges, time: time)
    }

    /// Every sample matching `predicate` whose local time may reach the
    /// edges (offsets lie within ±18 hours), as statistics read them.
    func collectionSamples(_ type: SampleType, _ predicate: SamplePredicate?, edges: [Double],
                          time: EdgeTime) throws -> StatisticsRead {
        let margin = Double(2 * Sample.maxUTCOffset)
        let window = SamplePredicate.dateRange(start: Date(timeIntervalSinceReferenceDate: edges.first! - margin),
                                               end: Date(timeIntervalSinceReferenceDate: edges.last! + margin), options: [])
        return try statisticsSamples(type: type, predicate: predicate.map { .and([$0, window]) } ?? window,
                                     localOffset: time.localOffset)
    }

    /// The sources of `type` in the order set with `setSourcePriority`
    /// (bundle identifiers, first first); empty when none was set.
    public func sourcePriority(for type: SampleType) throws -> [String] {
        try operation { try env.read { txn in try Self.sourcePriority(txn, trees, type) } }
    }

    /// The order statistics merge `type`'s sources in (rule 27), as they
    /// would now: the order set with `setSourcePriority`, then the
    /// default order of the other sources with a sample of the type.
    /// Bundle identifiers, first first; empty when neither has any.
    public func sourcePriorityInForce(for type: SampleType) throws -> [String] {
        let stored = try sourcePriority(for: type)
        let result = try anchoredQuery([QueryDescriptor(type: type)], anchor: nil)
        var ids = Set<UInt32>()
        result.samples.forEach { ids.insert($0.sourceID) }
        let table = try readRetryingTrees { try StatisticsSources($0, trees) }
        let ranks = Self.priorityRanks(sources: table.sources, firstIDs: table.firstIDs, stored: stored)
        let present = Set(ids.compactMap { table.bundleOf[$0] }).sorted { ranks[$0] < ranks[$1] }
        let listed = Set(stored)
        return stored + present.map { table.sources[$0].bundleIdentifier }.filter { !listed.contains($0) }
    }

    static func sourcePriority(_ txn: Txn, _ trees: FixedTrees, _ type: SampleType) throws -> [String] {
        guard let raw = try txn.get(trees.priorities, Array(type.identifier.utf8)) else { return [] }
        var r = ByteReader(raw)
        return try (0..<Int(r.u16())).map { _ in try r.string() }
    }

    /// Sets the order in which statistics merge the sources of `type`
    /// (rule 27): these bundle identifiers first, in this order, then the
    /// others in the default order. An empty list restores the default.
    public func setSourcePriority(_ bundleIdentifiers: [String], for type: SampleType) throws {
        guard Set(bundleIdentifiers).count == bundleIdentifiers.count else {
            throw OHKError(.invalidArgument, "a source appears twice in the priority of \(type.identifier)")
        }
        guard bundleIdentifiers.allSatisfy({ !$0.isEmpty }), bundleIdentifiers.count <= Int(UInt16.max) else {
            throw OHKError(.invalidArgument, "a source priority lists up to 65,535 non-empty bundle identifiers")
        }
        try write { w in
            let key = Array(type.identifier.utf8)
            try w.touch(.priorities)
            if bundleIdentifiers.isEmpty {
                if try w.txn.get(trees.priorities, key) != nil { try w.txn.delete(trees.priorities, key) }
                return
            }
            var out = ByteWriter()
            out.u16(UInt16(bundleIdentifiers.count))
            for b in bundleIdentifiers { out.string(b) }
            try w.txn.put(trees.priorities, key, out.bytes)
        }
    }

    /// What a statistics query reads: its matching samples, their sources
    /// (bundle identifiers and a source each) and the priority set for the type.
    struct StatisticsRead {
        var samples: [StatisticsSample]
        var sources: [Source]
    }

    /// `localOffset` turns a sample's own UTC offset (nil when it has none)
    /// into the offset its local time is counted in.
    func statisticsSamples(type: SampleType, predicate: SamplePredicate?,
                                   localOffset: (Int?) -> Double) throws -> StatisticsRead {
        let stored = try sourcePriority(for: type)
        let result = try anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: nil)
        // Read after the samples: source ids are only ever added, so it holds theirs.
        let table = try readRetryingTrees { try StatisticsSources($0, trees) }
        var raw: [(Double, Double, Double, UInt32, Double, Int)] = []
        raw.reserveCapacity(result.samples.count)
        result.samples.forEach { f in
            // A category sample's value is its category (rule 59's durations tell them apart).
            raw.append((f.startTime, f.endTime, f.quantity ?? Double(f.categoryValue ?? 0), f.sourceID,
                        localOffset(f.utcOffset), raw.count))
        }
        return try table.read(raw, stored: stored)
    }

    /// Each source's place in the merge order (rule 27): the stored list
    /// first, in its order; then watches, then phones (iPhone, iPad, iPod),
    /// each by first appearance; then every other source, the newest
    /// first, as the Health app puts a newly added app above the others.
    static func priorityRanks(sources: [Source], firstIDs: [UInt32], stored: [String]) -> [Int] {
        func kind(_ s: Source) -> Int {
            let text = (s.name + " " + s.bundleIdentifier).lowercased()
            if text.contains("watch") { return 0 }
            if text.contains("iphone") || text.contains("ipad") || text.contains("ipod") { return 1 }
            return 2
        }
        let place = Dictionary(uniqueKeysWithValues: stored.enumerated().map { ($1, $0) })
        let order = sources.indices.sorted { a, b in
            let pa = place[sources[a].bundleIdentifier], pb = place[sources[b].bundleIdentifier]
            if pa != nil || pb != nil { return (pa ?? Int.max) < (pb ?? Int.max) }
            let ka = kind(sources[a]), kb = kind(sources[b])
            if ka != kb { return ka < kb }
            return ka == 2 ? firstIDs[a] > firstIDs[b] : firstIDs[a] < firstIDs[b]
        }
        var ranks = [Int](repeating: 0, count: sources.count)
        for (rank, i) in order.enumerated() { ranks[i] = rank }
        return ranks
    }

    /// The edges of the intervals that overlap [from, to), in local time.
    /// With `zoneOffset` (a zone's offset at an instant), each date is read
    /// in the offset in force at it rather than in `utcOffset`.
    static func edges(anchor: Date, interval: StatisticsInterval, from: Date, to: Date, utcOffset: Int,
                      zoneOffset: ((Double) -> Double)? = nil) throws -> [Double] {
        let local = { (d: Date) -> Double in
            let t = d.timeIntervalSinceReferenceDate
            return t + (zoneOffset?(t) ?? Double(utcOffset))
        }
        let a = local(anchor), lo = local(from), hi = local(to)
        guard a.isFinite, lo.isFinite, hi.isFinite, lo <= hi else {
            throw OHKError(.invalidDateRange, "a statistics collection needs finite dates with from <= to")
        }
        guard [a, lo, hi].allSatisfy({ abs($0) < TypeSummary.dateBound }) else {
            throw OHKError(.invalidDateRange, "a statistics collection's anchor and dates lie within 31,000 years of 2001")
        }
        // The interval containing `lo`: estimated, then corrected.
        let typical = interval.seconds ?? Double(interval.count) * (interval.unit == .year ? 365.2425 : 30.436875) * 86_400
        var k = Int(((lo - a) / typical).rounded(.down))
        while interval.edge(k, from: a) > lo { k -= 1 }
        while interval.edge(k + 1, from: a) <= lo { k += 1 }
        var edges = [interval.edge(k, from: a)]
        repeat {
            k += 1
            edges.append(interval.edge(k, from: a))
            guard edges.count <= 1_000_001 else {
                throw OHKError(.invalidArgument, "a statistics collection of more than 1,000,000 intervals")
            }
        } while edges.last! < hi
        return edges
    }

    /// Merges, then feeds every interval; with `separateBySource`, each
    /// source's own figures from all its samples, unmerged.
    func compute(_ type: SampleType, _ options: StatisticsOptions, _ read: StatisticsRead,
                 edges: [Double], time: EdgeTime) throws -> [Statistics] {
        // A category type's samples have no value: only their time counts (rule 59).
        let style: AggregationStyle
        switch type.kind {
        case .quantity(_, let s): style = s
        case .category: style = .discreteArithmetic
        default: return []
        }
        let samples = read.samples
        var merged = StatisticsAccumulator(options: options, style: style, edges: edges)
        for p in SourceMerge.pieces(samples) { merged.add(p.start, p.end, of: samples[p.sample], index: p.sample) }
        var perSource: [StatisticsAccumulator] = []
        if options.contains(.separateBySource) {
            perSource = read.sources.map { _ in StatisticsAccumulator(options: options, style: style, edges: edges) }
            for (i, s) in samples.enumerated() { perSource[s.source].add(s.start, s.end, of: s, index: i) }
        }
        return (0..<(edges.count - 1)).map { k in
            var bySource: [String: StatisticsValues] = [:]
            var sources: [Source] = []
            for (i, acc) in perSource.enumerated() where acc.hasData(k) {
                bySource[read.sources[i].bundleIdentifier] = acc.values(k)
                sources.append(read.sources[i])
            }
            return Statistics(type: type, startDate: Date(timeIntervalSinceReferenceDate: edges[k]),
                              endDate: Date(timeIntervalSinceReferenceDate: edges[k + 1]),
                              values: merged.values(k), bySource: bySource,
                              sources: sources.sorted { $0.bundleIdentifier < $1.bundleIdentifier },
                              isLocalTime: time.isLocal)
        }
    }
}
