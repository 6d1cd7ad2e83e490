import CLMDB
import FoundationEssentials

/// What an anchored object query returns (rules 4–7).
public struct AnchoredQueryResult: Sendable {
    /// Matching samples saved after the anchor, in store order.
    public let samples: SampleBatch
    /// Matching objects deleted after the anchor, in store order.
    public let deletedObjects: DeletedObjects
    /// Where the next query should start (rule 5).
    public let newAnchor: QueryAnchor
}

extension Store {
    /// An anchored object query on one type (see the descriptor form).
    public func anchoredQuery(type: SampleType, predicate: SamplePredicate? = nil,
                              anchor: QueryAnchor?, limit: Int = 0) throws -> AnchoredQueryResult {
        guard predicate == nil else {
            return try anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: anchor, limit: limit)
        }
        // One type without a predicate (every delta an observer or a
        // long-running query reads): its change order from the anchor,
        // without the planner's and the filter's objects, which were a
        // quarter of such a query's time after a durable save.
        try Self.validate(limit: limit)
        try validateType(type)
        return try readRetryingTrees { txn in try walk(txn, type, anchor: anchor, limit: limit) }
    }

    /// The objects matching any descriptor that were saved or deleted after
    /// `anchor` (all retained ones for nil), at most `limit` of them
    /// together (0 is no limit, `HKObjectQueryNoLimit`). Costs what changed
    /// since the anchor, not the size of the store. Throws for an anchor of
    /// another store, a corrupt one, one from the future, or an expired one.
    public func anchoredQuery(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?,
                              limit: Int = 0) throws -> AnchoredQueryResult {
        if descriptors.count == 1 && descriptors[0].predicate == nil {
            return try anchoredQuery(type: descriptors[0].type, anchor: anchor, limit: limit)
        }
        try Self.validate(limit: limit)
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in try scan(txn, groups, anchor: anchor, limit: limit) }
    }

    /// A query's limit: 0 (none, `HKObjectQueryNoLimit`) or positive.
    private static func validate(limit: Int) throws {
        guard limit >= 0 else { throw OHKError(.invalidArgument, "limit must be 0 (no limit) or positive, got \(limit)") }
    }

    /// The types among `descriptors` with a matching change after
    /// `anchor`, and the anchor of the snapshot that was read (for
    /// observers: one read, one matching object per type at most).
    func changedTypes(_ descriptors: [QueryDescriptor], since anchor: QueryAnchor?) throws -> (Set<SampleType>, QueryAnchor) {
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            let (head, horizon) = try position(txn)
            let from = try startPosition(anchor, head: head, horizon: horizon)
            let names = NameLookup(store: self, txn: txn)
            var changed = Set<SampleType>()
            for g in groups where try hasMatch(txn, g, from: from, names) { changed.insert(g.type) }
            return (changed, QueryAnchor(storeID: storeID, position: head, horizon: horizon))
        }
    }

    /// The descriptors of one type in a query. (A struct, not a tuple: an
    /// array of tuples is destroyed through generic value witnesses, a
    /// measurable part of a short query.)
    struct Group {
        let type: SampleType
        var predicates: [SamplePredicate?]
    }

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
                groups.append(Group(type: d.type, predicates: [d.predicate]))
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
        /// What the filter reads besides the record; nil without a filter
        /// (its closures are allocations a delta query need not make).
        let context: EvalContext?
        /// How the stream reads, once planned.
        var plan = Plan.walk

        init(_ g: Group, typeID: UInt16, trees: TypeTrees, cursor: Cursor, _ names: NameLookup) {
            type = g.type
            self.typeID = typeID
            predicates = g.predicates
            filter = CompiledPredicate.any(of: g.predicates, type: g.type)
            program = filter?.program
            self.trees = trees
            self.cursor = cursor
            context = filter == nil ? nil : EvalContext(type: g.type, source: names.source, device: names.device)
        }
    }

    private func scan(_ txn: Txn, _ groups: [Group],
                      anchor: QueryAnchor?, limit: Int) throws -> AnchoredQueryResult {
        let (head, horizon) = try position(txn)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        let names = NameLookup(store: self, txn: txn)
        var opened: [Stream] = []
        opened.reserveCapacity(groups.count)
        defer { for s in opened { s.cursor.close() } }
        for g in groups {
            guard let (typeID, t) = try storedTrees(g.type, txn) else { continue }
            let cursor = try txn.cursor(t.records)
            opened.append(Stream(g, typeID: typeID, trees: t, cursor: cursor, names))
        }
        let streams = opened
        // The planner's choice per stream (issue 4).
        for s in streams { s.plan = try plan(txn, s, from: from, head: head) }
        var taken = Taken(batch: SampleBatchBuilder(multiType: streams.count > 1,
                                                    expected: expectedCount(txn, streams, from: from, limit: limit)),
                          limit: limit)
        let types = streams.map(\.type)
        if streams.count == 1 {
            if case .positions = streams[0].plan {} else { taken.readahead = Readahead(enabled: true) }
            // One type, the hot paths, each a loop of its own.
            let stream = streams[0]
            let cursor = stream.cursor
            switch stream.plan {
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
            var entries = streams.map { Entries(cursor: $0.cursor, plan: $0.plan) }
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
        return result(taken, types: types, head: head, horizon: horizon, names)
    }

    /// Every object of `type` after `anchor`, in store order: a walk of
    /// its change order.
    private func walk(_ txn: Txn, _ type: SampleType, anchor: QueryAnchor?, limit: Int) throws -> AnchoredQueryResult {
        let (head, horizon) = try position(txn)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        let names = NameLookup(store: self, txn: txn)
        guard let (_, t) = try storedTrees(type, txn) else {
            return result(Taken(batch: SampleBatchBuilder(multiType: false, expected: 0), limit: limit),
                          types: [], head: head, horizon: horizon, names)
        }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let expected = Self.capped(Self.walkGuess(from: from) { txn.entries(t.records) }, limit)
        var taken = Taken(batch: SampleBatchBuilder(multiType: false, expected: expected), limit: limit)
        taken.readahead = Readahead(enabled: true)
        var entry = try cursor.seek(atLeast: from)
        while let (seq, raw) = entry {
            taken.readahead.note(raw.baseAddress)
            if try keep(seq, RecordView(stored: raw), 0, &taken) { break }
            entry = try cursor.next()
        }
        return result(taken, types: [type], head: head, horizon: horizon, names)
    }

    /// The result of a scan: newAnchor per rule 5.
    private func result(_ taken: Taken, types: [SampleType], head: UInt64, horizon: UInt64,
                        _ names: NameLookup) -> AnchoredQueryResult {
        let position = taken.returned == taken.limit && taken.limit > 0 ? taken.lastReturned : head
        return AnchoredQueryResult(samples: taken.batch.build(types: types, names: names),
                                   deletedObjects: DeletedObjects(tombstones: taken.deleted?.build(types: types, names: names)),
                                   newAnchor: QueryAnchor(storeID: storeID, position: position, horizon: horizon))
    }

    /// How many records the batch should have room for: index plans know
    /// their size and zone plans a bound (a record at most per position);
    /// a walk as `walkGuess`. (A buffer sized for the whole type made a 1 %
    /// query of 10 M samples map and unmap 400 MB.)
    private func expectedCount(_ txn: Txn, _ streams: [Stream], from: UInt64, limit: Int) -> Int {
        var known: Int? = 0
        for s in streams {
            switch s.plan {
            case .positions(let ps): known? += ps.count
            case .spans(let spans): known? += spans.reduce(0) { $0 + Int($1.count) }
            case .walk: known = nil
            }
        }
        let stored = { streams.reduce(0) { $0 + txn.entries($1.trees.records) } }
        return Self.capped(known.map { min($0, stored()) } ?? Self.walkGuess(from: from, stored: stored), limit)
    }

    /// The records a walk from `from` makes room for: from the start all
    /// `stored`, from an anchor (a delta) usually few. (16 heads are 768
    /// bytes, which malloc serves from its per-thread cache; 64 were a
    /// large request, and merging malloc's free chunks for it was 2 % of a
    /// delta through C. The buffer doubles when it must.)
    private static func walkGuess(from: UInt64, stored: () -> Int) -> Int { from > 1 ? 16 : stored() }

    /// `count`, at most `limit` (0: no limit).
    private static func capped(_ count: Int, _ limit: Int) -> Int { limit > 0 ? min(limit, count) : count }

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
        /// Made at the first tombstone (a delta usually has none).
        var deleted: SampleBatchBuilder?
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
        let r = try RecordView(stored: raw)
        guard include(r, s) else { return false }
        return try keep(seq, r, i, &t)
    }

    /// Adds a matching object of type number `i` to the result; returns
    /// true when the limit is reached.
    @inline(__always)
    private func keep(_ seq: UInt64, _ r: RecordView, _ i: Int, _ t: inout Taken) throws -> Bool {
        if r.isTombstone {
            if t.deleted == nil { t.deleted = SampleBatchBuilder(multiType: t.batch.multiType, expected: 16) }
            try t.deleted!.append(r, typeIndex: i)
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
        guard let (typeID, t) = try storedTrees(g.type, txn) else { return false }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let stream = Stream(g, typeID: typeID, trees: t, cursor: cursor, names)
        var entry = try cursor.seek(atLeast: from)
        while let (_, raw) = entry {
            if include(try RecordView(stored: raw), stream) { return true }
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
        // Entries of other types are never confirmed: they are not wanted.
        var index = UUIDIndex(txn, trees, hash: uuidHash) { $0 == s.typeID ? s.trees.records : nil }
        for u in candidates {
            guard let v = try index.get(PendingUUID(u)) else { continue }
            let (typeID, seq) = Schema.unpack(v)
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
        // Without a filter every record matches: no index can help.
        guard s.filter != nil else { return .walk }
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
            guard k.count == 8 else { throw OHKError(.storeCorrupt, "corrupt start index key") }
            guard UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)) <= last else { break }
            // The bucket's sequences, a page of them per call.
            var block: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? = (k, try c.firstDuplicates(current: v))
            while let (_, values) = block {
                guard values.count % 8 == 0 else { throw OHKError(.storeCorrupt, "corrupt start index entry") }
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
        let t = p.evaluate(r, s.context!)
        return t == .yes || (r.isTombstone && t == .unknown)
    }

    /// The id and trees of `type`, nil when the store has never held one
    /// of its samples (one lock for both in the common case).
    private func storedTrees(_ type: SampleType, _ txn: Txn) throws -> (UInt16, TypeTrees)? {
        if let (typeID, trees) = cache.withLock({ c in c.typeID(of: type).map { ($0, c.typeTrees[$0]) } }) {
            guard let trees else { throw NeedTree(typeID: typeID) }
            return (typeID, trees)
        }
        // Not in this process's cache: another process may have saved the type.
        guard let typeID = try existingTypeID(type, txn) else { return nil }
        guard let trees = cache.withLock({ $0.typeTrees[typeID] }) else { throw NeedTree(typeID: typeID) }
        return (typeID, trees)
    }

    /// Opens a type tree another process (or handle) created: a write
    /// transaction, so no other transaction of this process opens trees at
    /// the same time. It changes nothing, so it needs no sync.
    func openTypeTree(_ typeID: UInt16) throws {
        let t = try env.write(durable: false) { txn in try WriteContext.openTypeTrees(txn, typeID, create: false) }
        cache.withLock { $0.typeTrees[typeID] = t }
    }
}
