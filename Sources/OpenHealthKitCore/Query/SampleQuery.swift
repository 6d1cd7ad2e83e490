import FoundationEssentials

/// One key of a sample query's order (HealthKit's sort descriptors on
/// `HKSampleSortIdentifierStartDate` and `…EndDate`).
public struct SampleSort: Sendable, Equatable {
    public enum Key: Sendable, Equatable { case startDate, endDate }
    public var key: Key
    public var ascending: Bool

    public init(_ key: Key, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}

extension Store {
    /// The samples (never deleted objects) matching any descriptor, in
    /// `sort`'s order (ties, and an empty `sort`, in store order), at most
    /// `limit` of them (0: no limit): HealthKit's `HKSampleQuery`.
    ///
    /// Sorted by start date (either way) or by end date ascending with a
    /// limit, it reads the start index from the wanted end and stops
    /// once no later bucket can hold a better sample, so the latest 100
    /// of a million costs about what it returns. Other orders read every
    /// match.
    public func sampleQuery(_ descriptors: [QueryDescriptor], sort: [SampleSort] = [],
                            limit: Int = 0) throws -> SampleBatch {
        guard limit >= 0 else { throw OHKError(.invalidArgument, "limit must be 0 (no limit) or positive, got \(limit)") }
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in try sampleRows(txn, groups, sort: sort, limit: limit) }
    }

    /// A matching sample as the query holds it until it is ordered: the
    /// record stays in the map, valid while the transaction lasts.
    private struct Row {
        let start: Double
        let end: Double
        let seq: UInt64
        let stream: Int
        let raw: UnsafeRawBufferPointer
    }

    func sampleRows(_ txn: Txn, _ groups: [Group], sort: [SampleSort], limit: Int) throws -> SampleBatch {
        let (head, _) = try position(txn)
        let names = NameLookup(store: self, txn: txn)
        var streams: [Stream] = []
        defer { for s in streams { s.cursor.close() } }
        for g in groups {
            guard let (typeID, t) = try storedTrees(g.type, txn) else { continue }
            streams.append(Stream(try resolved(g, typeID: typeID, txn), typeID: typeID, trees: t, cursor: try txn.cursor(t.records), names))
        }
        var rows: [Row] = []
        for (i, s) in streams.enumerated() {
            if limit > 0, let first = sort.first, first.key == .startDate || first.ascending {
                try rows.append(contentsOf: best(txn, s, i, sort, limit: limit))
            } else {
                try rows.append(contentsOf: everyMatch(txn, s, i, head: head))
            }
        }
        // One stream without a sort is in store order already.
        let ordered = sort.isEmpty && streams.count == 1 ? rows : rows.sorted { Self.precedes($0, $1, sort) }
        var batch = SampleBatchBuilder(multiType: streams.count > 1, expected: Self.capped(ordered.count, limit))
        for row in limit > 0 ? ordered.prefix(limit) : ordered[...] {
            try batch.append(RecordView(stored: row.raw), typeIndex: row.stream)
        }
        return try batch.build(types: streams.map(\.type), names: names)
    }

    /// Whether `a` comes before `b`: by each key in turn, then in store order.
    private static func precedes(_ a: Row, _ b: Row, _ sort: [SampleSort]) -> Bool {
        for k in sort {
            let (x, y) = k.key == .startDate ? (a.start, b.start) : (a.end, b.end)
            if x != y { return k.ascending ? x < y : x > y }
        }
        return a.seq < b.seq
    }

    /// Every live matching sample of the stream, as the planner reads it.
    private func everyMatch(_ txn: Txn, _ s: Stream, _ i: Int, head: UInt64) throws -> [Row] {
        var rows: [Row] = []
        try forEachMatch(txn, s, head: head) { seq, raw, r in
            rows.append(Row(start: r.start, end: r.end, seq: seq, stream: i, raw: raw))
        }
        return rows
    }

    /// Calls `body` with each live sample of the stream its predicates
    /// match, in store order, read by the planner's plan.
    private func forEachMatch(_ txn: Txn, _ s: Stream, head: UInt64,
                              _ body: (UInt64, UnsafeRawBufferPointer, RecordView) throws -> Void) throws {
        s.plan = try plan(txn, s, from: 1, head: head)
        var entries = Entries(cursor: s.cursor, plan: s.plan)
        var entry = try entries.first(from: 1)
        while let (seq, raw) = entry {
            let r = try RecordView(stored: raw)
            if !r.isTombstone && include(r, s) { try body(seq, raw, r) }
            entry = try entries.next()
        }
    }

    /// The sources of the samples matching any descriptor, each bundle
    /// identifier once (its first revision's name), ordered by bundle
    /// identifier: HealthKit's `HKSourceQuery`. Reads every match.
    public func sources(_ descriptors: [QueryDescriptor]) throws -> [Source] {
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            let (head, _) = try position(txn)
            let names = NameLookup(store: self, txn: txn)
            var ids = Set<UInt32>()
            for g in groups {
                guard let (typeID, t) = try storedTrees(g.type, txn) else { continue }
                let s = Stream(try resolved(g, typeID: typeID, txn), typeID: typeID, trees: t, cursor: try txn.cursor(t.records), names)
                defer { s.cursor.close() }
                try forEachMatch(txn, s, head: head) { _, _, r in ids.insert(r.sourceID) }
            }
            var byBundle: [String: Source] = [:]
            for id in ids.sorted() {
                guard let source = names.source(id) else { continue }
                if byBundle[source.bundleIdentifier] == nil {
                    byBundle[source.bundleIdentifier] = Source(bundleIdentifier: source.bundleIdentifier, name: source.name)
                }
            }
            return byBundle.values.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
        }
    }

    /// The stream's `limit` first samples in `sort`'s order, whose first key
    /// is start (either way) or end ascending, through the start index
    /// from the wanted end. A bucket's
    /// starts are unordered, so whole buckets are read; reading stops when
    /// `limit` are found and no sample of the next bucket can beat the
    /// `limit`-th: its start is past it (by start), or past its end (by
    /// end, as a sample ends at or after it starts).
    private func best(_ txn: Txn, _ s: Stream, _ i: Int, _ sort: [SampleSort], limit: Int) throws -> [Row] {
        let key = sort[0]
        let c = try txn.cursor(s.trees.starts)
        defer { c.close() }
        let index = StartIndex.Reader(cursor: c)
        var reader = PositionReader(cursor: s.cursor)
        var rows: [Row] = []
        // The predicates' start range, when they bound it: the walk begins
        // at its wanted end and stops past the other.
        let range = StartRange.of(s.predicates) ?? StartRange()
        var bucket = try firstBucket(index, range, ascending: key.ascending)
        while let b = bucket {
            let bucketStart = StartIndex.bucketStart(b)
            if key.ascending ? bucketStart > range.hi : bucketStart + Schema.startBucketSeconds <= range.lo { break }
            if rows.count >= limit {
                // The `limit`-th best so far.
                let bound = key.key == .startDate ? rows[limit - 1].start : rows[limit - 1].end
                if key.ascending ? bucketStart > bound : bucketStart + Schema.startBucketSeconds <= bound { break }
            }
            // A bucket's positions are ascending: the change order, which
            // the rows' sort keeps among equals.
            for seq in try index.positions(inBucket: b) {
                let (_, raw) = try reader.record(at: seq)
                if let row = try match(seq, raw, s, i) { rows.append(row) }
            }
            rows.sort { Self.precedes($0, $1, sort) }
            if rows.count > limit { rows.removeLast(rows.count - limit) }
            bucket = key.ascending ? try index.bucket(after: b) : try index.bucket(before: b)
        }
        return rows
    }

    /// The bucket a walk begins with: the first whose starts can be in
    /// `range` from the wanted end (the whole index for an open range).
    private func firstBucket(_ index: StartIndex.Reader, _ range: StartRange, ascending: Bool) throws -> UInt64? {
        if ascending {
            guard range.lo > -.infinity else { return try index.firstBucket() }
            return try index.bucket(atLeast: StartIndex.bucket(of: range.lo))
        }
        guard range.hi < .infinity else { return try index.lastBucket() }
        return try index.bucket(atMost: StartIndex.bucket(of: range.hi))
    }

    /// The record as a row when it is a live sample the stream's
    /// predicates match.
    @inline(__always)
    private func match(_ seq: UInt64, _ raw: UnsafeRawBufferPointer, _ s: Stream, _ i: Int) throws -> Row? {
        let r = try RecordView(stored: raw)
        guard !r.isTombstone, include(r, s) else { return nil }
        return Row(start: r.start, end: r.end, seq: seq, stream: i, raw: raw)
    }
}
