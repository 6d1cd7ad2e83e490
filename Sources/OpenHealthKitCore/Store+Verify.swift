/// What `Store.verify()` found: the store's objects counted, and every
/// broken invariant named. Like SQLite's `PRAGMA integrity_check`, it
/// reports and repairs nothing.
public struct VerifyReport: Sendable {
    /// Samples and deleted objects read, over every type.
    public var samples = 0
    public var deletedObjects = 0
    /// One line per problem (the first `limit`; `moreProblems` counts the rest).
    public var problems: [String] = []
    public var moreProblems = 0
    /// Whether nothing was found.
    public var isClean: Bool { problems.isEmpty }

    static let limit = 100

    mutating func problem(_ text: @autoclosure () -> String) {
        if problems.count < Self.limit { problems.append(text()) } else { moreProblems += 1 }
    }
}

extension Store {
    /// LMDB's pages of the store in `directory` walked without opening it
    /// (`PageWalk`): what `verify()` checks first, for a store that may be
    /// too damaged to open. Empty when the structure is sound.
    public static func verifyPages(directory: String) -> [String] {
        PageWalk.check(file: directory + "/data.mdb")
    }

    /// Reads the whole store in one snapshot and holds its parts to each
    /// other (docs/reliability.md): every record decodes, with a start at
    /// or before its end and a source that exists; no position is past the
    /// head and the horizon is not past it either; each record is in its
    /// type's start index under its start's bucket and in the UUID index,
    /// and the start index holds nothing else; each deleted object is in
    /// the deletion list and nothing else is; each sync identifier points
    /// at a live sample that has it; no subscription is acknowledged past
    /// the head; each activity summary is under a day, decodes, and was
    /// written no later than the last summary change. Costs a full read
    /// and a UUID lookup per object.
    public func verify() throws -> VerifyReport {
        try readRetryingTrees { txn in
            var report = VerifyReport()
            // LMDB trusts its pages: walk them first, and read no further
            // through a damaged structure.
            for p in PageWalk.check(file: env.path + "/data.mdb", txnID: UInt64(txn.id)) { report.problem(p) }
            guard report.isClean else { return report }
            let (head, horizon) = try txn.position(trees)
            if horizon > head { report.problem("the tombstone horizon \(horizon) is past the head \(head)") }
            let format = try txn.metaU64(trees, .format)
            if format != UInt64(Schema.format) { report.problem("the store says format \(format), not \(Schema.format)") }
            let tombs = try deletionList(txn, &report)
            var index = UUIDIndex(txn, trees, hash: tuning.uuidHash) { id in self.cache.withLock { $0.typeTrees[id]?.records } }
            var typed = Set<UInt16>()
            try txn.forEachType(trees) { identifier, id in
                guard let t = cache.withLock({ $0.typeTrees[id] }) else { throw NeedTree(typeID: id) }
                typed.insert(id)
                try verifyType(identifier, id, t, txn, head: head, tombs: tombs, index: &index, &report)
            }
            for (seq, typeID) in tombs where !typed.contains(typeID) {
                report.problem("deletion \(seq) names type \(typeID), which the store does not have")
            }
            try verifySync(txn, &report)
            try verifySubscriptions(txn, head: head, &report)
            try verifyActivitySummaries(txn, &report)
            return report
        }
    }

    /// The activity tree (rule 43): keys that are days, values that
    /// decode, stamps no later than the sequence queries ask from.
    private func verifyActivitySummaries(_ txn: Txn, _ report: inout VerifyReport) throws {
        let last = try txn.metaU64(trees, .activitySequence)
        let c = try txn.cursor(trees.activity)
        defer { c.close() }
        var entry = try c.first()
        while let (key, raw) = entry {
            if let day = try? ActivitySummary.Day(key: UInt32(truncatingIfNeeded: key)), key <= UInt64(UInt32.max) {
                if (try? ActivitySummaryCodec.decode(raw, day: day)) == nil {
                    report.problem("the activity summary of \(day) does not decode")
                } else if let stamp = try? ActivitySummaryCodec.sequence(raw), stamp > last {
                    report.problem("the activity summary of \(day) was written at change \(stamp), past the last (\(last))")
                }
            } else {
                report.problem("an activity summary under \(key), which is not a day")
            }
            entry = try c.next()
        }
    }

    /// The deletion list (`tombs`): position → type id.
    private func deletionList(_ txn: Txn, _ report: inout VerifyReport) throws -> [UInt64: UInt16] {
        var out: [UInt64: UInt16] = [:]
        let c = try txn.cursor(trees.tombs)
        defer { c.close() }
        var entry = try c.first()
        while let (seq, v) = entry {
            if v.count >= 2 { out[seq] = UInt16(littleEndian: v.loadUnaligned(as: UInt16.self)) } else {
                report.problem("deletion \(seq) has a \(v.count)-byte entry")
            }
            entry = try c.next()
        }
        return out
    }

    /// A start-index entry: the bucket key as stored (`Schema.startBucketKey`)
    /// and the record's position.
    private struct StartEntry: Hashable {
        let bucket: UInt64
        let seq: UInt64
    }

    private func verifyType(_ identifier: String, _ id: UInt16, _ t: TypeTrees, _ txn: Txn, head: UInt64,
                            tombs: [UInt64: UInt16], index: inout UUIDIndex, _ report: inout VerifyReport) throws {
        // Every record, and the start-index entry each should have.
        var expectedStarts = Set<StartEntry>()
        let records = try txn.cursor(t.records)
        defer { records.close() }
        var entry = try records.first()
        var deleted = 0
        while let (seq, raw) = entry {
            entry = try records.next()
            let at = "\(identifier) record \(seq)"
            if seq == 0 || seq > head { report.problem("\(at) is past the head \(head)") }
            let r = RecordView(bytes: raw)
            guard r.isWellFormed else { report.problem("\(at) does not decode (\(raw.count) bytes)"); continue }
            if !r.checkMatches { report.problem("\(at) does not match its check: its bytes changed on disk") }
            if !(r.start <= r.end) { report.problem("\(at) starts after it ends, or has no date") }
            if try txn.get(trees.sources, u64: UInt64(r.sourceID)) == nil { report.problem("\(at) has source \(r.sourceID), which does not exist") }
            if r.isTombstone {
                deleted += 1
                if tombs[seq] != id { report.problem("\(at) is a deleted object missing from the deletion list") }
            } else if tombs[seq] != nil {
                report.problem("\(at) is a live sample in the deletion list")
            }
            if try index.get(PendingUUID(r.uuid)) != Schema.pack(type: id, seq: seq) {
                report.problem("\(at): the UUID index does not lead to it")
            }
            expectedStarts.insert(StartEntry(bucket: Schema.startBucketKey(r.start), seq: seq))
        }
        report.deletedObjects += deleted
        report.samples += txn.entries(t.records) - deleted
        // The start index holds exactly those entries.
        let starts = try txn.cursor(t.starts)
        defer { starts.close() }
        try starts.forEachRaw { k, v in
            guard k.count == 8, v.count == 8, expectedStarts.remove(StartEntry(
                bucket: k.loadUnaligned(as: UInt64.self), seq: UInt64(bigEndian: v.loadUnaligned(as: UInt64.self)))) != nil else {
                report.problem("\(identifier) start index has an entry for no record (\(v.count)-byte value)")
                return
            }
        }
        if !expectedStarts.isEmpty { report.problem("\(identifier): \(expectedStarts.count) records missing from the start index") }
    }

    /// Each sync identifier's entry points at a live sample that has it.
    private func verifySync(_ txn: Txn, _ report: inout VerifyReport) throws {
        let c = try txn.cursor(trees.sync)
        defer { c.close() }
        try c.forEachRaw { _, v in
            guard v.count == 8 else { report.problem("a sync entry has a \(v.count)-byte value"); return }
            let (typeID, seq) = Schema.unpack(UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)))
            guard let tree = cache.withLock({ $0.typeTrees[typeID]?.records }), let raw = try txn.get(tree, u64: seq),
                  case let r = RecordView(bytes: raw), r.isWellFormed else {
                report.problem("a sync entry points at a missing record (type \(typeID), position \(seq))")
                return
            }
            if r.isTombstone || r.metadataValue(MetadataKey.syncIdentifier) == nil {
                report.problem("a sync entry points at record \(seq), which is deleted or has no sync identifier")
            }
        }
    }

    private func verifySubscriptions(_ txn: Txn, head: UInt64, _ report: inout VerifyReport) throws {
        let c = try txn.cursor(trees.subs)
        defer { c.close() }
        try c.forEachRaw { k, v in
            let name = String(decoding: k, as: UTF8.self)
            guard let rec = try? SubscriptionRecord(v) else { report.problem("subscription '\(name)' does not decode"); return }
            if rec.acknowledged > head { report.problem("subscription '\(name)' is acknowledged past the head") }
        }
    }
}
