import FoundationEssentials

/// Activity summaries (rule 43): one per day, values of the store, each
/// stamped with the change sequence of the save that last wrote it, so a
/// query can ask for the ones changed since it last looked.
extension Store {
    /// Saves `summaries`, each replacing the store's of its day, in one
    /// transaction; one equal to the stored summary is left as it is (not
    /// a change). Returns how many were written. Throws for a value that
    /// is negative or not finite, or a day given twice.
    @discardableResult
    public func saveActivitySummaries(_ summaries: [ActivitySummary]) throws -> Int {
        var days = Set<ActivitySummary.Day>()
        for s in summaries {
            try s.validate()
            guard days.insert(s.day).inserted else {
                throw OHKError(.invalidArgument, "the activity summary of \(s.day) is given twice")
            }
        }
        guard !summaries.isEmpty else { return 0 }
        return try write { w in
            let tree = trees.activity
            try w.touch(.activity)
            let sequence = try w.txn.metaU64(trees, .activitySequence) + 1
            var written = 0
            for s in summaries {
                if let raw = try w.txn.get(tree, u64: UInt64(s.day.key)),
                   try ActivitySummaryCodec.decode(raw, day: s.day) == s { continue }
                try w.txn.put(tree, u64: UInt64(s.day.key), ActivitySummaryCodec.encode(s, sequence: sequence))
                written += 1
            }
            if written > 0 { try w.txn.setMetaU64(trees, .activitySequence, sequence) }
            return written
        }
    }

    /// The summaries of the days from `start` through `end` (either nil:
    /// unbounded), in calendar order.
    public func activitySummaries(from start: ActivitySummary.Day? = nil,
                                  through end: ActivitySummary.Day? = nil) throws -> [ActivitySummary] {
        try activitySummaries(from: start, through: end, changedAfter: 0).summaries
    }

    /// The summaries of the days from `start` through `end` written after
    /// change `sequence` (0: all), in calendar order, and the sequence of
    /// the store's last summary change, to pass next time. Throws for a
    /// range that ends before it starts, and for a sequence this store
    /// has not reached (another store's).
    public func activitySummaries(from start: ActivitySummary.Day?, through end: ActivitySummary.Day?,
                                  changedAfter sequence: UInt64) throws -> (summaries: [ActivitySummary], sequence: UInt64) {
        if let start, let end, end < start {
            throw OHKError(.invalidArgument, "the days run from \(start) to \(end), which comes before it")
        }
        return try operation {
            try env.read { txn in
                let now = try txn.metaU64(trees, .activitySequence)
                guard sequence <= now else {
                    throw OHKError(.invalidArgument, "change \(sequence) of activity summaries is past this store's last (\(now)): "
                                   + "it comes from another store")
                }
                guard now > sequence else { return ([], now) }
                let cursor = try txn.cursor(trees.activity)
                defer { cursor.close() }
                var out: [ActivitySummary] = []
                var entry = try cursor.seek(atLeast: UInt64(start?.key ?? 0))
                let last = UInt64(end?.key ?? UInt32.max)
                while let (key, raw) = entry, key <= last {
                    if try ActivitySummaryCodec.sequence(raw) > sequence {
                        guard let day = try? ActivitySummary.Day(key: UInt32(truncatingIfNeeded: key)) else {
                            throw OHKError(.storeCorrupt, "an activity summary under \(key), which is not a day")
                        }
                        out.append(try ActivitySummaryCodec.decode(raw, day: day))
                    }
                    entry = try cursor.next()
                }
                return (out, now)
            }
        }
    }
}
