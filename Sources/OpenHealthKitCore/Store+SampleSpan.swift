import FoundationEssentials

extension Store {
    /// The earliest start and the latest end among the live samples of
    /// `type`; nil when it has none. Reads the start index at both ends:
    /// forward to the first bucket with a live sample, backward as far as
    /// the type's longest sample can reach (known from the maintained
    /// statistics; without them, every sample is read).
    public func sampleSpan(of type: SampleType) throws -> (start: Date, end: Date)? {
        let span = try readRetryingTrees { txn -> (Double, Double)?? in
            guard let (typeID, t) = try storedTrees(type, txn) else { return .some(nil) }
            let (head, _) = try position(txn)
            guard try txn.metaU64(trees, .statisticsHead) == head else { return nil }
            let longest = try PendingStatistics.summary(txn, trees.statistics, typeID).longest
            let c = try txn.cursor(t.starts)
            defer { c.close() }
            let index = StartIndex.Reader(cursor: c)
            var earliest: Double?
            var bucket = try index.firstBucket()
            while let b = bucket, earliest == nil {
                for seq in try index.positions(inBucket: b) {
                    guard let raw = try txn.get(t.records, u64: seq) else { continue }
                    let r = try RecordView(stored: raw)
                    if !r.isTombstone { earliest = min(earliest ?? r.start, r.start) }
                }
                bucket = try index.bucket(after: b)
            }
            guard let earliest else { return .some(nil) }
            var latest = -Double.infinity
            bucket = try index.lastBucket()
            while let b = bucket {
                // No sample that starts before this bucket ends can end later.
                guard StartIndex.bucketStart(b) + Schema.startBucketSeconds + longest > latest else { break }
                for seq in try index.positions(inBucket: b) {
                    guard let raw = try txn.get(t.records, u64: seq) else { continue }
                    let r = try RecordView(stored: raw)
                    if !r.isTombstone { latest = max(latest, r.end) }
                }
                bucket = try index.bucket(before: b)
            }
            return .some((earliest, latest))
        }
        guard let span else {
            // Statistics behind the last change: the samples decide.
            return try statistics(type: type, options: .duration).map { ($0.startDate, $0.endDate) }
        }
        return span.map { (Date(timeIntervalSinceReferenceDate: $0.0), Date(timeIntervalSinceReferenceDate: $0.1)) }
    }
}
