import CLMDB

/// The maintained statistics' trees.
struct StatisticsTrees {
    /// Hour and day buckets per type and family (`StatisticsKeys.bucket`),
    /// and each type's summary.
    let buckets: MDB_dbi
    /// Each type's covered seconds per UTC hour (`Coverage`).
    let cover: MDB_dbi
    /// The UTC hours where two of a type's samples may overlap.
    let overlaps: MDB_dbi
}

/// What one write transaction changes in the maintained statistics
/// (docs/architecture.md, "Maintained statistics"): saved samples are
/// added to their buckets in memory and written once at the end; the
/// buckets a deleted sample touched are recomputed then from the samples
/// that remain, so every bucket always equals what its samples give.
struct PendingStatistics {
    struct HourKey: Hashable {
        var type: UInt16
        var family: Int32
        var hour: Int64
    }

    struct CoverKey: Hashable {
        var type: UInt16
        var hour: Int64
    }

    /// Hour buckets and coverage added to; `settle` moves the open ones in.
    var buckets: [HourKey: [BucketFigures]] = [:]
    var cover: [CoverKey: Coverage] = [:]
    var dirtyBuckets: Set<HourKey> = []
    var dirtyCover: Set<CoverKey> = []
    /// Per type: its style, and what this transaction saw of its summary.
    var styles: [UInt16: AggregationStyle] = [:]
    var summaries: [UInt16: TypeSummary] = [:]

    /// The hour each type and family's samples last went to, with its
    /// figures and coverage, kept out of the dictionaries: a bulk save's
    /// samples come in time order, dozens to an hour, types interleaved,
    /// and a lookup each cost a fifth of the save.
    private struct Open {
        let type: UInt16
        let family: Int32
        var hour = Int64.min
        var figures: [BucketFigures] = []
        var coverHour = Int64.min
        var coverage = Coverage()
        /// The longest sample noted in the type's summary so far.
        var longest = -1.0
    }
    private var open: [Open] = []

    /// The types whose deleted samples leave buckets to recompute.
    var typesToRecompute: Set<UInt16> { Set(dirtyBuckets.map(\.type)).union(dirtyCover.map(\.type)) }

    var isEmpty: Bool {
        buckets.isEmpty && cover.isEmpty && dirtyBuckets.isEmpty && dirtyCover.isEmpty && open.isEmpty && summaries.isEmpty
    }

    /// Moves what is open into the dictionaries.
    mutating func settle() {
        for i in open.indices {
            settleBucket(i)
            settleCover(i)
        }
        open.removeAll()
    }

    private mutating func settleBucket(_ i: Int) {
        guard !open[i].figures.isEmpty else { return }
        let key = HourKey(type: open[i].type, family: open[i].family, hour: open[i].hour)
        if buckets[key] == nil {
            buckets[key] = open[i].figures
        } else {
            BucketCodec.merge(open[i].figures, into: &buckets[key]!)
        }
        open[i].figures.removeAll(keepingCapacity: true)
    }

    private mutating func settleCover(_ i: Int) {
        guard !open[i].coverage.isEmpty else { return }
        let key = CoverKey(type: open[i].type, hour: open[i].coverHour)
        if cover[key] == nil { cover[key] = open[i].coverage } else { cover[key]!.merge(open[i].coverage) }
        open[i].coverage = Coverage()
    }

    /// Adds a saved sample of a quantity type.
    mutating func add(type: UInt16, style: AggregationStyle, sourceID: UInt32, start: Double, end: Double,
                      value: Double, offset: Int?, order: UInt64) {
        let family = StatisticsKeys.family(offset), shift = StatisticsKeys.shift(family)
        guard TypeSummary.isBucketed(start: start, end: end) else {
            note(type, style, start: start, end: end, family: family, outsized: 1)
            return
        }
        var i = 0
        while i < open.count, open[i].type != type || open[i].family != family { i += 1 }
        if i == open.count { open.append(Open(type: type, family: family)) }
        if end - start > open[i].longest {
            note(type, style, start: start, end: end, family: family)
            open[i].longest = summaries[type]!.longest
        }
        let level = BucketFigures.level(value, style)
        Self.forEachPiece(start + shift, end + shift) { hour, from, to, first in
            if open[i].hour != hour {
                settleBucket(i)
                open[i].hour = hour
            }
            var j = 0
            while j < open[i].figures.count, open[i].figures[j].sourceID != sourceID { j += 1 }
            if j == open[i].figures.count { open[i].figures.append(BucketFigures(sourceID: sourceID)) }
            open[i].figures[j].add(value: value, level: level, share: end > start ? (to - from) / (end - start) : 1,
                                   time: to - from, first: first, start: start, end: end, order: order)
        }
        Self.forEachPiece(start, end) { hour, from, to, _ in
            if open[i].coverHour != hour {
                settleCover(i)
                open[i].coverHour = hour
            }
            open[i].coverage.add(from: from, to: to, hourStart: Double(hour) * 3600)
        }
    }

    /// Marks the buckets a deleted sample touched, to be recomputed.
    mutating func remove(type: UInt16, style: AggregationStyle, start: Double, end: Double, offset: Int?) {
        let family = StatisticsKeys.family(offset)
        guard TypeSummary.isBucketed(start: start, end: end) else {
            return note(type, style, start: start, end: end, family: family, outsized: -1)
        }
        note(type, style, start: start, end: end, family: family)
        Self.forEachPiece(start + StatisticsKeys.shift(family), end + StatisticsKeys.shift(family)) { hour, _, _, _ in
            dirtyBuckets.insert(HourKey(type: type, family: family, hour: hour))
        }
        Self.forEachPiece(start, end) { hour, _, _, _ in dirtyCover.insert(CoverKey(type: type, hour: hour)) }
    }

    /// Notes a sample in the type's summary; `outsized` counts those no
    /// bucket holds (saved: 1, deleted: -1).
    mutating func note(_ type: UInt16, _ style: AggregationStyle, start: Double, end: Double, family: Int32,
                       outsized: Int64 = 0) {
        styles[type] = style
        var s = summaries[type, default: TypeSummary()]
        s.longest = max(s.longest, end - start)
        s.outsized += outsized
        if !s.families.contains(family) { s.families.append(family) }
        summaries[type] = s
    }

    /// The hours that [start, end) touches, and the part in each; an
    /// instant is in the hour that contains it. `first` is the hour the
    /// sample starts in.
    @inline(__always)
    static func forEachPiece(_ start: Double, _ end: Double, _ body: (Int64, Double, Double, Bool) -> Void) {
        let firstHour = Int64((start / 3600).rounded(.down))
        guard end > start else { return body(firstHour, start, start, true) }
        var h = firstHour
        while Double(h) * 3600 < end {
            body(h, max(start, Double(h) * 3600), min(end, Double(h + 1) * 3600), h == firstHour)
            h += 1
        }
    }
}
