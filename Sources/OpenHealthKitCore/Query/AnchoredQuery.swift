import CLMDB
import FoundationEssentials

/// What an anchored object query returns (rules 4–7).
public struct AnchoredQueryResult: Sendable {
    /// Matching samples saved after the anchor, in store order.
    public let samples: SampleBatch
    /// Matching objects deleted after the anchor, in store order.
    public let deletedObjects: [DeletedObject]
    /// Where the next query should start (rule 5).
    public let newAnchor: QueryAnchor
}

extension Store {
    /// An anchored object query on one type (see the descriptor form).
    public func anchoredQuery(type: SampleType, predicate: SamplePredicate? = nil,
                              anchor: QueryAnchor?, limit: Int = 0) throws -> AnchoredQueryResult {
        try anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: anchor, limit: limit)
    }

    /// The objects matching any descriptor that were saved or deleted after
    /// `anchor` (all retained ones for nil), at most `limit` of them
    /// together (0 is no limit, `HKObjectQueryNoLimit`). Costs what changed
    /// since the anchor, not the size of the store. Throws for an anchor of
    /// another store, a corrupt one, one from the future, or an expired one.
    public func anchoredQuery(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?,
                              limit: Int = 0) throws -> AnchoredQueryResult {
        guard limit >= 0 else { throw OHKError(.invalidArgument, "limit must be 0 (no limit) or positive, got \(limit)") }
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in try scan(txn, groups, anchor: anchor, limit: limit) }
    }

    /// The types among `descriptors` with a matching change after
    /// `anchor`, and the anchor of the snapshot that was read (for
    /// observers: one read, one matching object per type at most).
    func changedTypes(_ descriptors: [QueryDescriptor], since anchor: QueryAnchor?) throws -> (Set<SampleType>, QueryAnchor) {
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            let (head, horizon) = try txn.position(trees)
            let from = try startPosition(anchor, head: head, horizon: horizon)
            let names = NameLookup(store: self, txn: txn)
            var changed = Set<SampleType>()
            for g in groups where try hasMatch(txn, g, from: from, names) { changed.insert(g.type) }
            return (changed, QueryAnchor(storeID: storeID, position: head, horizon: horizon))
        }
    }

    typealias Group = (type: SampleType, predicates: [SamplePredicate?])

    /// Validates descriptors and groups them by type (one stream per type).
    static func group(_ descriptors: [QueryDescriptor], validatingWith store: Store) throws -> [Group] {
        guard !descriptors.isEmpty else { throw OHKError(.invalidArgument, "a query needs at least one descriptor") }
        var groups: [Group] = []
        for d in descriptors {
            try store.validateType(d.type)
            try d.predicate?.validate(for: d.type)
            if let i = groups.firstIndex(where: { $0.type == d.type }) {
                groups[i].predicates.append(d.predicate)
            } else {
                groups.append((d.type, [d.predicate]))
            }
        }
        guard groups.count < 256 else { throw OHKError(.invalidArgument, "too many types in one query") }
        return groups
    }

    /// A read, again after opening a type tree another process created, or
    /// when another thread opened a handle after the read began.
    func readRetryingTrees<T>(_ body: (Txn) throws -> T) throws -> T {
        try operation {
            var stale = 0
            while true {
                do {
                    return try env.read(body)
                } catch let need as NeedTree {
                    try openTypeTree(need.typeID)
                } catch is StaleTree {
                    // A handle opened since this read began: read again. A
                    // handle that stays refused is not that; report it.
                    stale += 1
                    guard stale < 8 else { throw OHKError(.storage, "cannot open cursor: invalid tree handle") }
                }
            }
        }
    }

    /// Checks an anchor against the snapshot (rules 2 and 16) and returns
    /// the first position to read.
    func startPosition(_ anchor: QueryAnchor?, head: UInt64, horizon: UInt64) throws -> UInt64 {
        guard let a = anchor, a.position > 0 || a.storeID != nil else { return 1 }
        if let id = a.storeID, id != storeID {
            throw OHKError(.anchorWrongStore, "the anchor belongs to another store (\(id)), not \(storeID)")
        }
        guard a.position <= head else {
            throw OHKError(.anchorFromFuture, "the anchor's position \(a.position) is past the store's head \(head)")
        }
        guard horizon <= max(a.position, a.horizon) else {
            throw OHKError(.anchorExpired, "deleted objects after the anchor were pruned; read again from a nil anchor")
        }
        return a.position + 1
    }

    /// One type of a query and what reading it needs. (A class: as a
    /// struct it was copied, with a retain per reference, for every
    /// record the scan read.)
    private final class Stream {
        let type: SampleType
        let typeID: UInt16
        let predicates: [SamplePredicate?]
        /// The predicates compiled for the scan loop; nil when one
        /// descriptor has none (everything of the type matches).
        let filter: CompiledPredicate?
        /// The filter's program (read per record without a retain).
        let program: CompiledPredicate.Program?
        let trees: TypeTrees
        let cursor: Cursor
        let context: EvalContext

        init(_ g: Group, typeID: UInt16, trees: TypeTrees, cursor: Cursor, _ names: NameLookup) {
            type = g.type
            self.typeID = typeID
            predicates = g.predicates
            filter = CompiledPredicate.any(of: g.predicates, type: g.type)
            program = filter?.program
            self.trees = trees
            self.cursor = cursor
            context = EvalContext(type: g.type, source: names.source, device: names.device)
        }
    }

    private func scan(_ txn: Txn, _ groups: [Group],
                      anchor: QueryAnchor?, limit: Int) throws -> AnchoredQueryResult {
        let (head, horizon) = try txn.position(trees)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        let names = NameLookup(store: self, txn: txn)
        var opened: [Stream] = []
        defer { for s in opened { s.cursor.close() } }
        var expected = 0
        for g in groups {
            guard let typeID = try existingTypeID(g.type, txn) else { continue }
            guard let t = cache.withLock({ $0.typeTrees[typeID] }) else { throw NeedTree(typeID: typeID) }
            let cursor = try txn.cursor(t.records)
            expected += txn.entries(t.records)
            opened.append(Stream(g, typeID: typeID, trees: t, cursor: cursor, names))
        }
        let streams = opened
        let types = streams.map(\.type)
        // The planner's choice per stream (issue 4).
        let plans = try streams.map { s in try plan(txn, s, from: from, head: head) }
        // Index plans know their size and zone plans a bound (a record at
        // most per position); a nil-anchor walk reads everything. (A
        // buffer sized for the whole type made a 1 % query of 10 M
        // samples map and unmap 400 MB.)
        var known: Int? = 0
        for p in plans {
            switch p {
            case .positions(let ps): known? += ps.count
            case .spans(let spans): known? += spans.reduce(0) { $0 + Int($1.count) }
            case .walk: known = nil
            }
        }
        let guess = known.map { min($0, expected) } ?? (from <= 1 ? expected : 64)
        var taken = Taken(batch: SampleBatchBuilder(multiType: streams.count > 1,
                                                    expected: limit > 0 ? min(limit, guess) : guess),
                          limit: limit)
        if streams.count == 1 {
            if case .positions = plans[0] {} else { taken.readahead = Readahead(enabled: true) }
            // One type, the hot paths, each a loop of its own.
            let stream = streams[0]
            let cursor = stream.cursor
            switch plans[0] {
            case .positions(let positions):
                var reader = PositionReader(cursor: cursor)
                for seq in positions {
                    let (_, raw) = try reader.record(at: seq)
                    if try take(seq, raw, stream, 0, &taken, names) { break }
                }
            case .spans(let spans):
                spanLoop: for span in spans {
                    var entry = try cursor.seek(atLeast: span.lowerBound)
                    while let (seq, raw) = entry, seq <= span.upperBound {
                        if try take(seq, raw, stream, 0, &taken, names) { break spanLoop }
                        entry = try cursor.next()
                    }
                }
            case .walk:
                var entry = try cursor.seek(atLeast: from)
                while let (seq, raw) = entry, try !take(seq, raw, stream, 0, &taken, names) { entry = try cursor.next() }
            }
        } else {
            // Several types: merge the streams by position (store order),
            // from each one's next entry.
            var entries = zip(streams, plans).map { Entries(cursor: $0.cursor, plan: $1) }
            var heads = try entries.indices.map { try entries[$0].first(from: from) }
            while true {
                var pick = -1
                for i in heads.indices {
                    if let (seq, _) = heads[i], pick < 0 || seq < heads[pick]!.0 { pick = i }
                }
                guard pick >= 0 else { break }
                let (seq, raw) = heads[pick]!
                if try take(seq, raw, streams[pick], pick, &taken, names) { break }
                heads[pick] = try entries[pick].next()
            }
        }
        let position = taken.returned == limit && limit > 0 ? taken.lastReturned : head
        return AnchoredQueryResult(samples: taken.batch.build(types: types, names: names), deletedObjects: taken.deleted,
                                   newAnchor: QueryAnchor(storeID: storeID, position: position, horizon: horizon))
    }

    /// How one stream reads (the planner's choice, issue 4).
    private enum Plan {
        /// The change order from the anchor.
        case walk
        /// The records at these positions, ascending (found through an index).
        case positions([UInt64])
        /// The change order within these spans of positions, ascending:
        /// the zone map's blocks that can hold the start range.
        case spans([ClosedRange<UInt64>])
    }

    /// One stream's entries from the anchor on, in store order, as its
    /// plan reads them (for the merge of several streams).
    private struct Entries {
        typealias Entry = (UInt64, UnsafeRawBufferPointer)
        let cursor: Cursor
        let plan: Plan
        /// The next position or span of the plan.
        private var k = 0
        /// Fetches the records of a positions plan.
        private var reader: PositionReader

        init(cursor: Cursor, plan: Plan) {
            self.cursor = cursor
            self.plan = plan
            reader = PositionReader(cursor: cursor)
        }

        mutating func first(from: UInt64) throws -> Entry? {
            switch plan {
            case .walk: return try cursor.seek(atLeast: from)
            case .positions: return try next()
            case .spans(let spans):
                guard !spans.isEmpty else { return nil }
                return try within(try cursor.seek(atLeast: spans[0].lowerBound))
            }
        }

        mutating func next() throws -> Entry? {
            switch plan {
            case .walk: return try cursor.next()
            case .positions(let positions):
                guard k < positions.count else { return nil }
                k += 1
                return try reader.record(at: positions[k - 1])
            case .spans: return try within(try cursor.next())
            }
        }

        /// `entry` if it is inside the current span, else the first entry
        /// of a later span.
        private mutating func within(_ entry: Entry?) throws -> Entry? {
            guard case .spans(let spans) = plan else { return entry }
            var entry = entry
            while k < spans.count {
                guard let (seq, _) = entry else { return nil }
                if seq < spans[k].lowerBound { entry = try cursor.seek(atLeast: spans[k].lowerBound); continue }
                if seq <= spans[k].upperBound { return entry }
                k += 1
            }
            return nil
        }
    }

    /// The records at positions an index found, asked in ascending order:
    /// near ones are reached by stepping (cheaper than a seek), far ones by
    /// seeking.
    private struct PositionReader {
        let cursor: Cursor
        /// Where the cursor is.
        private var at: (UInt64, UnsafeRawBufferPointer)?

        init(cursor: Cursor) { self.cursor = cursor }

        /// The record at `seq`, which must exist.
        @inline(__always)
        mutating func record(at seq: UInt64) throws -> (UInt64, UnsafeRawBufferPointer) {
            var steps = 0
            while let (key, _) = at, key < seq, steps < 8 { at = try cursor.next(); steps += 1 }
            if at?.0 != seq {
                guard let raw = try cursor.find(seq) else { throw OHKError(.storage, "an index points at a missing record") }
                at = (seq, raw)
            }
            return at!
        }
    }

    /// What a scan has taken so far. (A struct passed inout: as variables
    /// captured by a nested function, each record paid dynamic exclusivity
    /// checks.)
    private struct Taken {
        var batch: SampleBatchBuilder
        var deleted: [DeletedObject] = []
        var returned = 0
        var lastReturned: UInt64 = 0
        let limit: Int
        var readahead = Readahead(enabled: false)
    }

    /// Takes one object of stream `i` if it matches; returns true when the
    /// limit is reached.
    @inline(__always)
    private func take(_ seq: UInt64, _ raw: UnsafeRawBufferPointer, _ s: Stream, _ i: Int,
                      _ t: inout Taken, _ names: NameLookup) throws -> Bool {
        t.readahead.note(raw.baseAddress)
        let r = RecordView(bytes: raw)
        guard include(r, s) else { return false }
        if r.isTombstone {
            t.deleted.append(try deletedObject(r, type: s.type, names))
        } else {
            try t.batch.append(r, typeIndex: i)
        }
        t.returned += 1
        t.lastReturned = seq
        return t.returned == t.limit
    }

    /// Whether any object of the group's type at `from` or later matches
    /// (stops at the first; builds no batch).
    private func hasMatch(_ txn: Txn, _ g: Group, from: UInt64, _ names: NameLookup) throws -> Bool {
        guard let typeID = try existingTypeID(g.type, txn) else { return false }
        guard let t = cache.withLock({ $0.typeTrees[typeID] }) else { throw NeedTree(typeID: typeID) }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let stream = Stream(g, typeID: typeID, trees: t, cursor: cursor, names)
        var entry = try cursor.seek(atLeast: from)
        while let (_, raw) = entry {
            if include(RecordView(bytes: raw), stream) { return true }
            entry = try cursor.next()
        }
        return false
    }

    /// The planner's UUID path (issue 4): when the stream's predicates
    /// name their UUIDs and looking each up is cheaper than walking the
    /// change order from `from`, the positions at or after `from` of those
    /// of this type, sorted; nil otherwise. The UUID index points at a
    /// deleted object's tombstone, so deleted objects are found too.
    private func uuidPositions(_ txn: Txn, _ s: Stream, from: UInt64, head: UInt64) throws -> [UInt64]? {
        guard from <= head, planOverride == nil || planOverride == .uuidLookup,
              let candidates = UUIDCandidates.of(s.predicates) else { return nil }
        if planOverride != .uuidLookup {
            // A lookup costs a few steps (a seek in each of two trees); the
            // walk one per change after `from`.
            let changes = Double(min(txn.entries(s.trees.records), Int(clamping: head - from + 1)))
            guard 4 * Double(candidates.count) < changes else { return nil }
        }
        var positions: [UInt64] = []
        for u in candidates {
            guard let v = try withUnsafeBytes(of: u.uuid, { try txn.get(trees.uuids, $0) }) else { continue }
            let (typeID, seq) = Schema.unpack(UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)))
            if typeID == s.typeID && seq >= from { positions.append(seq) }
        }
        positions.sort()
        return positions
    }

    /// The planner (issue 4): how a stream reads, by estimated cost in
    /// steps (reading and evaluating one record is about 2). Whichever
    /// plan runs, every record it reads meets the full predicate, so all
    /// plans return the same objects in the same order.
    private func plan(_ txn: Txn, _ s: Stream, from: UInt64, head: UInt64) throws -> Plan {
        if let positions = try uuidPositions(txn, s, from: from, head: head) { return .positions(positions) }
        guard from <= head, planOverride != .changeOrder,
              let range = StartRange.of(s.predicates), range.isBounded else { return .walk }
        let total = txn.entries(s.trees.records)
        let changes = Double(min(total, Int(clamping: head - from + 1)))
        if planOverride == .startIndex { return .positions(try startIndexPositions(txn, s, range, from: from)) }
        if planOverride == .zoneMap { return .spans(try zoneSpans(txn, s, range, from: from, head: head).spans) }
        var best = (cost: 2 * changes, plan: Plan.walk)
        // The zone map: a step per block read, then the walk of the
        // blocks that can hold the range (the type's share of each).
        if head - from >= 2 << ZoneMap.shift {
            let (spans, read) = try zoneSpans(txn, s, range, from: from, head: head)
            let share = Double(total) / Double(max(head, 1))
            let positions = spans.reduce(0.0) { $0 + Double($1.count) }
            let cost = Double(read) + 2 * min(changes, positions * share)
            if cost < best.cost { best = (cost, .spans(spans)) }
        }
        // The start index: its range read, then the part after `from`
        // fetched (about 3 steps each: sort, seek, evaluate).
        let c = try txn.cursor(s.trees.starts)
        defer { c.close() }
        guard let (first, _) = try c.nextRaw(MDB_FIRST), let (last, _) = try c.nextRaw(MDB_LAST) else { return .positions([]) }
        let span = Schema.bucketStart(ofKey: first)...(Schema.bucketStart(ofKey: last) + Schema.startBucketSeconds)
        let inRange = range.fraction(of: span) * Double(total)
        let afterFrom = inRange * min(1, changes / Double(max(total, 1)))
        if inRange + 3 * afterFrom + 16 < best.cost {
            return .positions(try startIndexPositions(txn, s, range, from: from))
        }
        return best.plan
    }

    /// The positions at or after `from` of the stream's objects whose start
    /// is in `range`, through the start index, sorted.
    private func startIndexPositions(_ txn: Txn, _ s: Stream, _ range: StartRange, from: UInt64) throws -> [UInt64] {
        let c = try txn.cursor(s.trees.starts)
        defer { c.close() }
        var positions: [UInt64] = []
        let last = UInt64(bigEndian: Schema.startBucketKey(range.hi))
        var entry = try withUnsafeBytes(of: Schema.startBucketKey(range.lo)) { try c.seekRaw(atLeast: $0) }
        while let (k, v) = entry {
            guard k.count == 8 else { throw OHKError(.storage, "corrupt start index key") }
            guard UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)) <= last else { break }
            // The bucket's sequences, a page of them per call.
            var block: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? = (k, try c.firstDuplicates(current: v))
            while let (_, values) = block {
                guard values.count % 8 == 0 else { throw OHKError(.storage, "corrupt start index entry") }
                for i in stride(from: 0, to: values.count, by: 8) {
                    let seq = UInt64(bigEndian: values.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    if seq >= from { positions.append(seq) }
                }
                block = try c.nextRaw(MDB_NEXT_MULTIPLE)
            }
            entry = try c.nextRaw(MDB_NEXT_NODUP)
        }
        // Starts and positions usually grow together: often sorted already.
        if zip(positions, positions.dropFirst()).contains(where: { $0 > $1 }) { positions.sort() }
        return positions
    }

    /// The spans of positions in `from...head` of the zone map's blocks of
    /// the stream's type whose starts meet `range` (adjacent blocks
    /// merged), and how many blocks were read.
    /// Positions past the zone head (appended by a format-2 library still
    /// open on the store) are one span more: walked, not skipped.
    private func zoneSpans(_ txn: Txn, _ s: Stream, _ range: StartRange,
                           from: UInt64, head: UInt64) throws -> (spans: [ClosedRange<UInt64>], read: Int) {
        let mapped = min(head, try txn.metaU64(trees, .zoneHead))
        let c = try txn.cursor(trees.zones)
        defer { c.close() }
        var spans: [ClosedRange<UInt64>] = []
        var read = 0
        var entry = try ZoneMap.key(type: s.typeID, block: ZoneMap.block(of: from)).withUnsafeBytes { try c.seekRaw(atLeast: $0) }
        while let (k, v) = entry {
            let (type, block) = try ZoneMap.decodeKey(k)
            let first = ZoneMap.firstPosition(of: block)
            guard type == s.typeID, first <= mapped else { break }
            read += 1
            let starts = try ZoneMap.decodeRange(v)
            let lo = max(from, first), hi = min(mapped, ZoneMap.firstPosition(of: block + 1) - 1)
            if starts.upperBound >= range.lo && starts.lowerBound <= range.hi && lo <= hi {
                if let prev = spans.last, prev.upperBound + 1 == lo {
                    spans[spans.count - 1] = prev.lowerBound...hi
                } else {
                    spans.append(lo...hi)
                }
            }
            entry = try c.nextRaw(MDB_NEXT)
        }
        if mapped < head { spans.append(max(from, mapped + 1)...head) }
        return (spans, read)
    }

    /// A sample is returned when some descriptor's predicate is true; a
    /// deleted object unless every one is definitely false (rule 8): the
    /// stream's filter is their OR.
    @inline(__always)
    private func include(_ r: RecordView, _ s: Stream) -> Bool {
        guard let p = s.program else { return true }
        let t = p.evaluate(r, s.context)
        return t == .yes || (r.isTombstone && t == .unknown)
    }

    private func deletedObject(_ r: RecordView, type: SampleType, _ names: NameLookup) throws -> DeletedObject {
        guard r.isWellFormed else { throw OHKError(.storage, "corrupt deleted object in the store") }
        var syncID: String?
        var syncVersion: Double?
        if case .string(let s)? = r.metadataValue(MetadataKey.syncIdentifier) { syncID = s }
        if case .number(let v)? = r.metadataValue(MetadataKey.syncVersion) { syncVersion = v }
        return DeletedObject(uuid: r.uuid, type: type,
                             startDate: Date(timeIntervalSinceReferenceDate: r.start),
                             endDate: Date(timeIntervalSinceReferenceDate: r.end),
                             source: names.source(r.sourceID) ?? Source(bundleIdentifier: "?", name: "?"),
                             deletionDate: Date(timeIntervalSinceReferenceDate: r.deletionDate),
                             syncIdentifier: syncID, syncVersion: syncVersion)
    }

    /// Opens a type tree another process created (a write transaction, so
    /// no other transaction of this process opens trees at the same time).
    func openTypeTree(_ typeID: UInt16) throws {
        let t = try env.write { txn in try WriteContext.openTypeTrees(txn, typeID, create: false) }
        cache.withLock { $0.typeTrees[typeID] = t }
    }
}
