import CLMDB
import Glibc

extension PendingStatistics {
    private struct DayKey: Hashable {
        var type: UInt16
        var family: Int32
        var day: Int64
    }

    /// Writes the transaction's changes: the buckets deletions touched,
    /// recomputed from the samples that remain (this transaction's saves
    /// among them); this transaction's saves added to the other buckets;
    /// then the days of every hour written, and the summaries.
    mutating func flush(_ txn: Txn, _ t: StatisticsTrees, records: [UInt16: TypeTrees]) throws {
        guard !isEmpty else { return }
        settle()
        var days = Set<DayKey>()
        for type in typesToRecompute {
            guard let trees = records[type] else { throw OHKError(.storage, "no records tree for type id \(type)") }
            try recompute(type, txn, t, records: trees, days: &days)
        }
        // In key order, as appends fill LMDB's pages; a dictionary's order
        // would scatter the puts across the tree.
        for (k, figures) in buckets.sorted(by: { Self.precedes($0.key, $1.key) }) {
            let key = StatisticsKeys.bucket(type: k.type, family: k.family, level: .hour, index: k.hour)
            var all = figures
            if let raw = try txn.get(t.buckets, key) {
                all = try BucketCodec.decode(try EntryCheck.opened(key, raw, "a statistics bucket"), style(k.type))
                BucketCodec.merge(figures, into: &all)
            }
            try txn.put(t.buckets, key, EntryCheck.sealed(key, BucketCodec.encode(all, style(k.type))))
            days.insert(DayKey(type: k.type, family: k.family, day: Self.day(ofHour: k.hour)))
        }
        for (k, c) in cover.sorted(by: { ($0.key.type, $0.key.hour) < ($1.key.type, $1.key.hour) }) {
            let key = StatisticsKeys.hour(type: k.type, k.hour)
            var all = c
            if let raw = try txn.get(t.cover, key) {
                all = try Coverage.decode(try EntryCheck.opened(key, raw, "a statistics coverage"))
                all.merge(c)
            }
            try txn.put(t.cover, key, EntryCheck.sealed(key, all.encode()))
            if all.overlaps { try txn.put(t.overlaps, key, EntryCheck.sealed(key, [])) }
        }
        for d in days.sorted(by: { ($0.type, $0.family, $0.day) < ($1.type, $1.family, $1.day) }) {
            try writeDay(d, txn, t)
        }
        for (type, s) in summaries {
            let key = StatisticsKeys.summary(type: type)
            var stored = try Self.summary(txn, t, type)
            let before = stored
            stored.longest = max(stored.longest, s.longest)
            stored.outsized += s.outsized
            for f in s.families where !stored.families.contains(f) { stored.families.append(f) }
            if stored != before { try txn.put(t.buckets, key, EntryCheck.sealed(key, stored.encode())) }
        }
    }

    /// The order of hour buckets' keys.
    private static func precedes(_ a: HourKey, _ b: HourKey) -> Bool {
        (a.type, a.family, a.hour) < (b.type, b.family, b.hour)
    }

    /// A type's stored summary (empty when it has none yet).
    static func summary(_ txn: Txn, _ t: StatisticsTrees, _ type: UInt16) throws -> TypeSummary {
        let key = StatisticsKeys.summary(type: type)
        guard let raw = try txn.get(t.buckets, key) else { return TypeSummary() }
        return try TypeSummary.decode(try EntryCheck.opened(key, raw, "a statistics summary"))
    }

    private func style(_ type: UInt16) -> AggregationStyle { styles[type] ?? .cumulative }

    static func day(ofHour h: Int64) -> Int64 { h >= 0 ? h / 24 : (h - 23) / 24 }

    /// Rewrites the buckets and coverage of `type` that deletions touched
    /// from the live samples that reach them.
    private mutating func recompute(_ type: UInt16, _ txn: Txn, _ t: StatisticsTrees, records: TypeTrees,
                                    days: inout Set<DayKey>) throws {
        let style = style(type)
        let longest = max(summaries[type]?.longest ?? 0, try Self.summary(txn, t, type).longest)
        let hours = dirtyBuckets.filter { $0.type == type }, covers = dirtyCover.filter { $0.type == type }
        // The UTC times to rebuild; a sample reaches one if it starts at
        // most `longest` before it.
        var reach: [(lo: Double, hi: Double)] = hours.map { k in
            let lo = Double(k.hour) * 3600 - StatisticsKeys.shift(k.family)
            return (lo, lo + 3600)
        }
        reach += covers.map { (Double($0.hour) * 3600, Double($0.hour + 1) * 3600) }
        reach.sort { $0.lo < $1.lo }
        var starts: [(lo: Double, hi: Double)] = []
        for r in reach {
            if let last = starts.last, r.lo - longest <= last.hi {
                starts[starts.count - 1].hi = max(last.hi, r.hi)
            } else {
                starts.append((r.lo - longest, r.hi))
            }
        }
        var fresh = PendingStatistics()
        try Self.forEachLive(txn, records, starts: starts) { seq, r in
            fresh.add(type: type, style: style, sourceID: r.sourceID, start: r.start, end: r.end,
                      value: r.quantity, offset: r.utcOffset, order: seq)
        }
        fresh.settle()
        for k in hours {
            let key = StatisticsKeys.bucket(type: type, family: k.family, level: .hour, index: k.hour)
            if let figures = fresh.buckets[k] {
                try txn.put(t.buckets, key, EntryCheck.sealed(key, BucketCodec.encode(figures, style)))
            } else {
                _ = try txn.delete(t.buckets, key)
            }
            buckets[k] = nil
            days.insert(DayKey(type: type, family: k.family, day: Self.day(ofHour: k.hour)))
        }
        for k in covers {
            let key = StatisticsKeys.hour(type: type, k.hour)
            if let c = fresh.cover[k] {
                try txn.put(t.cover, key, EntryCheck.sealed(key, c.encode()))
                if c.overlaps { try txn.put(t.overlaps, key, EntryCheck.sealed(key, [])) } else { _ = try txn.delete(t.overlaps, key) }
            } else {
                _ = try txn.delete(t.cover, key)
                _ = try txn.delete(t.overlaps, key)
            }
            cover[k] = nil
        }
    }

    /// Calls `body` with each live sample whose start lies in one of the
    /// sorted, disjoint ranges [lo, hi), through the type's start index.
    static func forEachLive(_ txn: Txn, _ records: TypeTrees, starts: [(lo: Double, hi: Double)],
                            _ body: (UInt64, RecordView) throws -> Void) throws {
        let c = try txn.cursor(records.starts)
        defer { c.close() }
        let index = StartIndex.Reader(cursor: c)
        for range in starts {
            // Gathered first: the records are read by another cursor.
            var positions: [UInt64] = []
            try index.forEachPosition(buckets: StartIndex.bucket(of: range.lo), StartIndex.bucket(of: range.hi)) {
                positions.append($1)
            }
            for seq in positions {
                guard let raw = try txn.get(records.records, u64: seq) else { continue }
                let r = try RecordView(stored: raw)
                if !r.isTombstone, r.start >= range.lo, r.start < range.hi { try body(seq, r) }
            }
        }
    }

    /// A day's bucket: its hours' figures combined, in order.
    private func writeDay(_ d: DayKey, _ txn: Txn, _ t: StatisticsTrees) throws {
        let style = style(d.type)
        let key = StatisticsKeys.bucket(type: d.type, family: d.family, level: .day, index: d.day)
        var day: [BucketFigures] = []
        try Self.forEachBucket(txn, t, type: d.type, family: d.family, level: .hour, from: d.day * 24,
                               to: d.day * 24 + 24) { hour, raw in
            try BucketCodec.forEach(raw, style) { BucketCodec.append($0, into: &day, first: hour == d.day * 24) }
        }
        if day.isEmpty {
            _ = try txn.delete(t.buckets, key)
        } else {
            try txn.put(t.buckets, key, EntryCheck.sealed(key, BucketCodec.encode(day, style)))
        }
    }

    /// Calls `body` with the stored bytes of each bucket of one type,
    /// family and level with index in [from, to), in order.
    static func forEachBucket(_ txn: Txn, _ t: StatisticsTrees, type: UInt16, family: Int32, level: StatisticsKeys.Level,
                              from: Int64, to: Int64, _ body: (Int64, UnsafeRawBufferPointer) throws -> Void) throws {
        let c = try txn.cursor(t.buckets)
        defer { c.close() }
        let first = StatisticsKeys.bucket(type: type, family: family, level: level, index: from)
        try first.withUnsafeBytes { prefix in
            var entry = try c.seekRaw(atLeast: prefix)
            while let (k, v) = entry, k.count == 15, memcmp(k.baseAddress!, prefix.baseAddress!, 7) == 0 {
                let index = StatisticsKeys.index(ofBucket: k)
                guard index < to else { break }
                try body(index, try EntryCheck.opened(k, v, "a statistics bucket"))
                entry = try c.nextEntry()
            }
        }
    }
}

extension BucketCodec {
    /// Folds one source's figures of the next bucket of an interval into
    /// its figures: the first bucket brings the samples that cross the
    /// interval's start, a later one only those that start in it.
    static func append(_ m: BucketFigures, into figures: inout [BucketFigures], first: Bool) {
        if let i = figures.firstIndex(where: { $0.sourceID == m.sourceID }) {
            figures[i].merge(m, crossing: first)
        } else {
            var f = BucketFigures(sourceID: m.sourceID)
            f.merge(m, crossing: first)
            figures.append(f)
        }
    }
}
