import CLMDB
import FoundationEssentials

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
            for p in try TableChecks.problems(txn, trees) { report.problem(p) }
            let (head, horizon) = try txn.position(trees)
            if horizon > head { report.problem("the tombstone horizon \(horizon) is past the head \(head)") }
            let format = try txn.metaU64(trees, .format)
            if format != UInt64(Schema.format) { report.problem("the store says format \(format), not \(Schema.format)") }
            // Lookups read the UUID index's buckets, which must hold first.
            let uuidProblems = try UUIDIndex.problems(txn, trees)
            for p in uuidProblems { report.problem(p) }
            guard uuidProblems.isEmpty else { return report }
            let tombs = try deletionList(txn, &report)
            var index = UUIDIndex(txn, trees, hash: tuning.uuidHash) { id in self.cache.withLock { $0.typeTrees[id]?.records } }
            var typed = Set<UInt16>()
            var synced = 0
            try txn.forEachType(trees) { identifier, id in
                guard let t = cache.withLock({ $0.typeTrees[id] }) else { throw NeedTree(typeID: id) }
                typed.insert(id)
                synced += try verifyType(identifier, id, t, txn, head: head, tombs: tombs, index: &index, &report)
            }
            for (seq, typeID) in tombs where !typed.contains(typeID) {
                report.problem("deletion \(seq) names type \(typeID), which the store does not have")
            }
            try verifySync(txn, samples: synced, &report)
            try verifyLinks(txn, types: typed, index: &index, &report)
            try verifySubscriptions(txn, head: head, &report)
            try verifyActivitySummaries(txn, &report)
            try verifyStatistics(txn, &report)
            return report
        }
    }

    /// The record the UUID index leads `uuid` to, with its type id.
    private func record(of uuid: UUID, _ index: inout UUIDIndex, _ txn: Txn) throws -> (type: UInt16, record: RecordView)? {
        guard let packed = try index.get(PendingUUID(uuid)) else { return nil }
        let (type, seq) = Schema.unpack(packed)
        guard let tree = cache.withLock({ $0.typeTrees[type]?.records }), let raw = try txn.get(tree, u64: seq) else { return nil }
        let r = RecordView(bytes: raw)
        return r.isWellFormed ? (type, r) : nil
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

    /// The maintained statistics (rule 26): each value matches its check
    /// (`EntryCheck`) and decodes, and the hours marked as holding samples
    /// that may overlap are those whose coverage says so.
    private func verifyStatistics(_ txn: Txn, _ report: inout VerifyReport) throws {
        let t = trees.statistics
        func each(_ dbi: MDB_dbi, _ what: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws {
            let c = try txn.cursor(dbi)
            defer { c.close() }
            try c.forEachRaw { k, raw in
                guard let v = EntryCheck.valid(k, raw) else {
                    report.problem("\(what) under key \(EntryCheck.hex(k)) does not match its check: its bytes changed on disk")
                    return
                }
                body(k, v)
            }
        }
        try each(t.buckets, "statistics bucket") { k, v in
            let fits = [AggregationStyle.cumulative, .discreteArithmetic].contains { (try? BucketCodec.forEach(v, $0) { _ in }) != nil }
            if k.count != 15 || (!fits && (try? TypeSummary.decode(v)) == nil) {
                report.problem("statistics bucket under key \(EntryCheck.hex(k)) does not decode")
            }
        }
        var overlapping = Set<[UInt8]>()
        try each(t.cover, "statistics coverage") { k, v in
            guard let c = try? Coverage.decode(v) else { report.problem("statistics coverage under key \(EntryCheck.hex(k)) does not decode"); return }
            if c.overlaps { overlapping.insert(Array(k)) }
        }
        try each(t.overlaps, "statistics overlap mark") { k, _ in
            if overlapping.remove(Array(k)) == nil {
                report.problem("statistics overlap mark under key \(EntryCheck.hex(k)) is for an hour whose coverage has no overlap")
            }
        }
        for k in overlapping.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            report.problem("the hour under key \(k.withUnsafeBytes { EntryCheck.hex($0) }) has overlapping samples and no overlap mark")
        }
    }

    /// A start-index entry: the bucket key as stored (`Schema.startBucketKey`)
    /// and the record's position.
    private struct StartEntry: Hashable, Comparable {
        static func < (a: StartEntry, b: StartEntry) -> Bool { (a.bucket, a.seq) < (b.bucket, b.seq) }
        let bucket: UInt64
        let seq: UInt64
    }

    /// Checks a type's records and start index; returns how many of its
    /// live samples have a sync identifier.
    private func verifyType(_ identifier: String, _ id: UInt16, _ t: TypeTrees, _ txn: Txn, head: UInt64,
                            tombs: [UInt64: UInt16], index: inout UUIDIndex, _ report: inout VerifyReport) throws -> Int {
        // Every record, and the start-index entry each should have.
        // Compared sorted, not through a set: hashing a million entries
        // twice was a sixth of a million-sample store's verify.
        var expectedStarts: [StartEntry] = []
        expectedStarts.reserveCapacity(txn.entries(t.records))
        var synced = 0
        // Every record's UUID and place, asked of the UUID index at the end, in UUID order.
        var reached: [PendingUUID] = []
        reached.reserveCapacity(txn.entries(t.records))
        // The range of starts of each block of positions, which the zone map
        // must hold up to its head (a library without it may write past).
        var blocks: [UInt64: ClosedRange<Double>] = [:]
        let mapped = try txn.metaU64(trees, .zoneHead)
        let records = try txn.cursor(t.records)
        defer { records.close() }
        var entry = try records.first()
        var deleted = 0
        var digest = LiveDigest()
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
            reached.append(PendingUUID(r.uuid, value: Schema.pack(type: id, seq: seq)))
            expectedStarts.append(StartEntry(bucket: Schema.startBucketKey(r.start), seq: seq))
            if !r.isTombstone && r.hasMetadata && r.metadataValue(MetadataKey.syncIdentifier) != nil { synced += 1 }
            if !r.isTombstone { digest.add(r.uuid, version: LiveDigest.version(r)) }
            if !r.start.isNaN && seq <= mapped {
                let b = ZoneMap.block(of: seq)
                blocks[b] = blocks[b].map { min($0.lowerBound, r.start)...max($0.upperBound, r.start) } ?? r.start...r.start
            }
        }
        // Rule 70: the digest kept by each write is the one the records give.
        if let kept = try? DigestTable.read(txn, trees, typeID: id) {
            if kept != digest { report.problem("\(identifier)'s live digest says \(kept), its records give \(digest)") }
        } else {
            report.problem("\(identifier)'s live digest does not decode")
        }
        for (b, starts) in blocks {
            let zone = try ZoneMap.key(type: id, block: b).withUnsafeBytes { try txn.get(trees.zones, $0) }
            let range = zone.flatMap { try? ZoneMap.decodeRange($0) }
            if range.map({ !$0.contains(starts.lowerBound) || !$0.contains(starts.upperBound) }) ?? true {
                report.problem("\(identifier): the zone map's block \(b) does not hold the starts of its records")
            }
        }
        report.deletedObjects += deleted
        report.samples += txn.entries(t.records) - deleted
        // The start index holds exactly those entries.
        let starts = try txn.cursor(t.starts)
        defer { starts.close() }
        var foundStarts: [StartEntry] = []
        foundStarts.reserveCapacity(expectedStarts.count)
        var lastChunk: (bucket: UInt64, last: UInt64)?
        try starts.forEachRaw { k, v in
            do {
                let (bucket, first) = try StartIndex.decodeKey(k)
                // Chunks of a bucket hold disjoint runs of positions.
                if let l = lastChunk, l.bucket == bucket, first <= l.last {
                    report.problem("\(identifier) start index has chunks that overlap in bucket \(bucket)")
                }
                var last = first
                try StartIndex.forEachPosition(v, first: first) { seq in
                    foundStarts.append(StartEntry(bucket: bucket.bigEndian, seq: seq))
                    last = seq
                }
                lastChunk = (bucket, last)
            } catch {
                report.problem("\(identifier) start index has an entry that does not decode (\(k.count)-byte key)")
            }
        }
        expectedStarts.sort()
        foundStarts.sort()
        var e = 0, missing = 0
        for f in foundStarts {
            while e < expectedStarts.count && expectedStarts[e] < f { missing += 1; e += 1 }
            if e < expectedStarts.count && expectedStarts[e] == f { e += 1 } else {
                report.problem("\(identifier) start index has an entry for no record (position \(f.seq))")
            }
        }
        missing += expectedStarts.count - e
        if missing > 0 { report.problem("\(identifier): \(missing) records missing from the start index") }
        reached.sortByUUID()
        for (key, found) in zip(reached, try index.values(sorted: reached)) where found != key.value {
            report.problem("\(identifier) record \(Schema.unpack(key.value).seq): the UUID index does not lead to it")
        }
        return synced
    }

    /// Each sync identifier's entry points at a live sample that has it,
    /// under its source's bundle identifier and that identifier, and every
    /// live sample with one (`samples`) has an entry.
    private func verifySync(_ txn: Txn, samples: Int, _ report: inout VerifyReport) throws {
        let c = try txn.cursor(trees.sync)
        defer { c.close() }
        if txn.entries(trees.sync) != samples {
            report.problem("\(samples) live samples have a sync identifier, and the sync table has \(txn.entries(trees.sync)) entries")
        }
        try c.forEachRaw { k, v in
            guard v.count == 8 else { report.problem("a sync entry has a \(v.count)-byte value"); return }
            let (typeID, seq) = Schema.unpack(UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)))
            guard let tree = cache.withLock({ $0.typeTrees[typeID]?.records }), let raw = try txn.get(tree, u64: seq),
                  case let r = RecordView(bytes: raw), r.isWellFormed else {
                report.problem("a sync entry points at a missing record (type \(typeID), position \(seq))")
                return
            }
            guard !r.isTombstone, case .string(let syncID)? = r.metadataValue(MetadataKey.syncIdentifier) else {
                report.problem("a sync entry points at record \(seq), which is deleted or has no sync identifier")
                return
            }
            let bundle = try? txn.get(trees.sources, u64: UInt64(r.sourceID)).map { try TableCodec.decodeSource($0).bundleIdentifier }
            if bundle.flatMap({ $0 }).map({ WriteContext.syncKey(bundle: $0, identifier: syncID) }) != Array(k) {
                report.problem("the sync entry under key \(EntryCheck.hex(k)) names another source or identifier than record \(seq)")
            }
        }
    }

    /// Each chunk of workout links (`WorkoutLinks`): starting at its first
    /// sample, its samples in order, each of a type the store has (or of
    /// any type) and, when the UUID index finds it, of that type. A chunk
    /// under no live workout holds only routes that name that workout: a
    /// route may be saved for a workout not saved yet, or deleted (rule
    /// 32), and an association with a workout is refused otherwise.
    private func verifyLinks(_ txn: Txn, types: Set<UInt16>, index: inout UUIDIndex, _ report: inout VerifyReport) throws {
        let workoutID = try existingTypeID(TypeCatalogue.workoutType, txn)
        var chunks: [([UInt8], [UInt8])] = []
        try txn.forEach(trees.workoutLinks) { k, v in chunks.append((Array(k), Array(v))) }
        for (k, raw) in chunks {
            let at = "the workout links under key \(k.withUnsafeBytes { EntryCheck.hex($0) })"
            guard let v = k.withUnsafeBytes({ k in raw.withUnsafeBytes { EntryCheck.valid(k, $0).map { Array($0) } } }) else {
                report.problem("\(at) do not match their check: their bytes changed on disk")
                continue
            }
            let size = WorkoutLinks.itemSize
            guard k.count == 32, !v.isEmpty, v.count % size == 0, Array(v[0..<16]) == Array(k[16..<32]) else {
                report.problem("\(at) do not decode")
                continue
            }
            let workout = UUID(uuid: k.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
            let live = try record(of: workout, &index, txn).map { $0.type == workoutID && !$0.record.isTombstone } ?? false
            var previous: [UInt8] = []
            for item in stride(from: 0, to: v.count, by: size) {
                let sample = Array(v[item..<item + 16])
                let type = UInt16(v[item + 16]) << 8 | UInt16(v[item + 17])
                if !previous.isEmpty && !previous.lexicographicallyPrecedes(sample) { report.problem("\(at) are out of order"); break }
                previous = sample
                guard type == WorkoutLinks.anyType || types.contains(type) else {
                    report.problem("\(at) name type \(type), which the store does not have")
                    break
                }
                let u = UUID(uuid: sample.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
                let found = try record(of: u, &index, txn)
                if type != WorkoutLinks.anyType, let found, found.type != type {
                    report.problem("\(at) name sample \(u) as of type \(type), and it is of type \(found.type)")
                    break
                }
                if !live {
                    let route = found.flatMap { f -> WorkoutRoute? in
                        guard case .route(let r)? = try? f.record.payloadValue(TypeCatalogue.routeType) else { return nil }
                        return r
                    }
                    guard route?.workout == workout else {
                        report.problem("\(at) are of no live workout, and sample \(u) is not one of its routes")
                        break
                    }
                }
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
