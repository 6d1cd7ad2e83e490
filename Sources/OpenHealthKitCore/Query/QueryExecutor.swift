import COHKSystem
import FoundationEssentials

/// How an anchored query reads: one stream a type, each read by its plan
/// (`QueryPlanner.swift`), merged in store order, with the limit and the
/// rule-8 filter applied as records are taken.
extension Store {
    /// One type of a query and what reading it needs. (A class: as a
    /// struct it was copied, with a retain per reference, for every
    /// record the scan read.)
    final class Stream {
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
        /// Whether each position of a positions plan is an object the
        /// query returns (`startIndexPositions`).
        var positionsAreObjects = false
        /// How many positions its plan reads; nil for a walk (all it meets).
        var plannedPositions: Int? {
            switch plan {
            case .positions(let ps): return ps.count
            case .spans(let spans): return spans.reduce(0) { $0 + $1.count }
            case .walk: return nil
            }
        }

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

    /// `sizing`: a rows query's block, which makes the sink once the plan
    /// bounds the samples (none: records after all); the samples that
    /// leave fields out of their rows are kept as records too
    /// (`Taken.extraRows`).
    /// `plans`: a read in parts' plans, made by its first part and kept
    /// for the others (inside the same transaction), which read only their
    /// positions from `anchor` on.
    func scan(_ txn: Txn, _ groups: [Group], anchor: QueryAnchor?, limit: Int,
              into given: ColumnSink? = nil, sizing: RowsBlock? = nil, plans: PlanCache? = nil) throws -> Taken {
        let (head, horizon) = try position(txn)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        let names = NameLookup(store: self, txn: txn)
        let streams = try openStreams(txn, groups, names)
        defer { for s in streams { s.cursor.close() } }
        // The planner's choice per stream (issue 4).
        if let plans, plans.txnID == txn.id, plans.plans.count == streams.count {
            for (s, p) in zip(streams, plans.plans) { s.plan = p.from(from) }
            if streams.count == 1 { streams[0].positionsAreObjects = plans.positionsAreObjects }
        } else {
            try plan(streams, keepingIn: plans, txn, from: from, head: head)
        }
        let columns = given ?? sizing?.sink(bound: rowsBound(txn, streams, from: from, head: head, limit: limit))
        var taken = Taken(batch: SampleBatchBuilder(multiType: streams.count > 1,
                                                    expected: columns != nil ? 0 : expectedCount(txn, streams, from: from, limit: limit)),
                          columns: columns, limit: limit, types: streams.map(\.type), head: head, horizon: horizon, names: names)
        if let sizing, columns != nil { taken.takeRows(deleted: sizing.deletedWriter()) }
        if streams.count == 1 {
            if case .positions = streams[0].plan {} else { taken.readahead = Readahead(enabled: true) }
            // One type, the hot paths, each a loop of its own.
            let stream = streams[0]
            let cursor = stream.cursor
            switch stream.plan {
            case .positions(let positions):
                // Near positions (an index's range, mostly) read as a walk
                // reads, pages in place; a far one sought.
                // Positions that are each an object need no predicate
                // evaluated (the planner tested the edge buckets' starts):
                // 180k instructions of the workload's 1 % query by start
                // date, 2 % of its time.
                let map = LeafPage.Map(txn)
                let exact = stream.positionsAreObjects
                try positions.withUnsafeBufferPointer { positions in
                    var i = 0, full = false
                    while i < positions.count, !full {
                        guard let first = try cursor.seek(atLeast: positions[i]) else { throw Self.missingRecord }
                        try forEachEntry(cursor, from: first, map) { seq, raw in
                            let wanted = positions[i]
                            if seq < wanted { return wanted - seq > Self.nearPositions }
                            guard seq == wanted else { throw Self.missingRecord }
                            i += 1
                            if exact {
                                taken.readahead.note(raw.baseAddress)
                                full = try keep(seq, RecordView(stored: raw), 0, &taken)
                            } else {
                                full = try take(seq, raw, stream, 0, &taken, names)
                            }
                            return full || i == positions.count
                        }
                    }
                }
            case .spans(let spans):
                // Each span's pages read in place, as a walk's.
                let map = LeafPage.Map(txn)
                var full = false
                for span in spans {
                    guard let first = try cursor.seek(atLeast: span.first) else { break }
                    try forEachEntry(cursor, from: first, map) { seq, raw in
                        guard seq <= span.last else { return true }
                        full = try take(seq, raw, stream, 0, &taken, names)
                        return full
                    }
                    if full { break }
                }
            case .walk:
                if let first = try cursor.seek(atLeast: from) {
                    try forEachEntry(cursor, from: first, LeafPage.Map(txn)) { seq, raw in try take(seq, raw, stream, 0, &taken, names) }
                }
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
        return consume taken
    }

    /// Plans the streams of `groups` into `plans`, as a scan's first part
    /// does (which then reads by them): for a read in parts to know its
    /// plan before its first part (`readAllAhead`).
    func plan(_ groups: [Group], into plans: PlanCache, _ txn: Txn, from: UInt64, head: UInt64) throws {
        let streams = try openStreams(txn, groups, NameLookup(store: self, txn: txn))
        defer { for s in streams { s.cursor.close() } }
        try plan(streams, keepingIn: plans, txn, from: from, head: head)
    }

    /// A stream for each group whose type has records, each with a cursor
    /// on them for the caller to close.
    private func openStreams(_ txn: Txn, _ groups: [Group], _ names: NameLookup) throws -> [Stream] {
        var streams: [Stream] = []
        streams.reserveCapacity(groups.count)
        do {
            for g in groups {
                guard let (typeID, t) = try storedTrees(g.type, txn) else { continue }
                let cursor = try txn.cursor(t.records)
                streams.append(Stream(try resolved(g, typeID: typeID, txn), typeID: typeID, trees: t, cursor: cursor, names))
            }
        } catch {
            for s in streams { s.cursor.close() }
            throw error
        }
        return streams
    }

    /// The planner's choice for each stream, kept in `plans` (when given)
    /// for the later parts of a read in parts.
    private func plan(_ streams: [Stream], keepingIn plans: PlanCache?, _ txn: Txn, from: UInt64, head: UInt64) throws {
        for s in streams { s.plan = try plan(txn, s, from: from, head: head) }
        guard let plans else { return }
        (plans.plans, plans.txnID) = (streams.map(\.plan), txn.id)
        plans.positionsAreObjects = streams.count == 1 && streams[0].positionsAreObjects
    }

    /// Every object of `type` after `anchor`, in store order: a walk of
    /// its change order.
    func walk(_ txn: Txn, _ type: SampleType, anchor: QueryAnchor?, limit: Int,
              into given: ColumnSink? = nil, sizing: RowsBlock? = nil) throws -> Taken {
        let (head, horizon) = try position(txn)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        let names = NameLookup(store: self, txn: txn)
        let trees = try storedTrees(type, txn)
        var columns = given
        if let sizing {
            let stored = trees.map { txn.entries($0.1.records) } ?? 0
            columns = sizing.sink(bound: Self.capped(min(stored, Self.positions(from: from, head: head)), limit))
        }
        guard let (_, t) = trees else {
            return Taken(batch: SampleBatchBuilder(multiType: false, expected: 0), columns: columns, limit: limit,
                         types: [], head: head, horizon: horizon, names: names)
        }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let expected = columns != nil ? 0 : Self.capped(Self.walkGuess(from: from) { txn.entries(t.records) }, limit)
        var taken = Taken(batch: SampleBatchBuilder(multiType: false, expected: expected), columns: columns,
                          limit: limit, types: [type], head: head, horizon: horizon, names: names)
        taken.readahead = Readahead(enabled: true)
        if let sizing, columns != nil { taken.takeRows(deleted: sizing.deletedWriter()) }
        let first = try cursor.seek(atLeast: from)
        let map = LeafPage.Map(txn)
        if let sink = columns {
            // A sample taken without `keep`'s tests.
            try forEachEntry(cursor, from: first, map) { seq, raw in
                taken.readahead.note(raw.baseAddress)
                let r = try RecordView(stored: raw)
                if r.isTombstone { return try keep(seq, r, 0, &taken) }
                taken.returned += 1
                taken.lastReturned = seq
                if taken.extraRows != nil { try taken.keepIfNeeded(r, row: sink.rows, typeIndex: 0) }
                return sink.take(r, typeIndex: 0) || taken.returned == taken.limit
            }
            return consume taken
        }
        try forEachEntry(cursor, from: first, map) { seq, raw in
            taken.readahead.note(raw.baseAddress)
            return try keep(seq, RecordView(stored: raw), 0, &taken)
        }
        return consume taken
    }

    /// Calls `body` with the entries from `first` on, in key order, until
    /// it returns true. The entries of a leaf page are read in place
    /// (`LeafPage`) after the one LMDB returned first; past the page's
    /// end, or at an entry LMDB must read itself, the cursor goes to the
    /// last one taken and steps on: LMDB finds a key on the cursor's own
    /// page without a search from the root, and steps to the next page
    /// through its parent. (A seek past the page searched from the root,
    /// a tenth of a batched read's instructions.)
    @inline(__always)
    private func forEachEntry(_ cursor: Cursor, from first: (UInt64, UnsafeRawBufferPointer)?, _ map: LeafPage.Map,
                              _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        var entry = first
        var page: LeafPage? = nil
        var next = 0  // the page's node after `entry`
        var cursorIsAtEntry = true
        var lastPage: UInt64? = nil
        while let (seq, raw) = entry {
            if try body(seq, raw) { return }
            if let p = page, next < p.count, let e = p.entry(next) {
                next += 1
                ohk_prefetch_below(e.1.baseAddress, 384)
                entry = e
                cursorIsAtEntry = false
                continue
            }
            if try cursorIsAtEntry || cursor.find(seq) != nil {
                entry = try cursor.next()
            } else {
                guard seq < UInt64.max else { return }
                entry = try cursor.seek(atLeast: seq + 1)
            }
            cursorIsAtEntry = true
            page = entry.flatMap { LeafPage(record: $0.1, map) }
            next = (page?.index ?? 0) + 1
            if let page {
                if lastPage == nil { lastPage = map.lastPage(cursor) }
                page.prefetchNext(cursor, lastPage: lastPage!)
            }
        }
    }

    /// The result of a scan: newAnchor per rule 5 (after the last object
    /// returned when the limit or the columns stopped the scan).
    func result(_ taken: Taken) throws -> AnchoredQueryResult {
        let stopped = (taken.returned == taken.limit && taken.limit > 0) || taken.columns?.isFull == true
        let position = stopped ? taken.lastReturned : taken.head
        return AnchoredQueryResult(samples: try taken.batch.build(types: taken.types, names: taken.names),
                                   deletedObjects: DeletedObjects(tombstones: try taken.deleted?.build(types: taken.types,
                                                                                                   names: taken.names)),
                                   newAnchor: QueryAnchor(storeID: storeID, position: position, horizon: taken.horizon))
    }

    /// How many records the batch should have room for: index plans know
    /// their size and zone plans a bound (a record at most per position);
    /// a walk as `walkGuess`. (A buffer sized for the whole type made a 1 %
    /// query of 10 M samples map and unmap 400 MB.)
    func expectedCount(_ txn: Txn, _ streams: [Stream], from: UInt64, limit: Int) -> Int {
        var known: Int? = 0
        for s in streams {
            guard let n = s.plannedPositions else { known = nil; break }
            known! += n
        }
        let stored = { streams.reduce(0) { $0 + txn.entries($1.trees.records) } }
        return Self.capped(known.map { min($0, stored()) } ?? Self.walkGuess(from: from, stored: stored), limit)
    }

    /// The records a walk from `from` makes room for: from the start all
    /// `stored`, from an anchor (a delta) usually few. (16 heads are 768
    /// bytes, which malloc serves from its per-thread cache; 64 were a
    /// large request, and merging malloc's free chunks for it was 2 % of a
    /// delta through C. The buffer doubles when it must.)
    static func walkGuess(from: UInt64, stored: () -> Int) -> Int { from > 1 ? 16 : stored() }

    /// At most how many objects a read from `from` to `head` meets: one a
    /// position (all there are from the start).
    static func positions(from: UInt64, head: UInt64) -> Int {
        from > 1 ? (head < from ? 0 : Int(clamping: head - from + 1)) : .max
    }

    /// At most how many samples the planned streams return: an index
    /// plan's positions, a walk's objects (a rows query's block).
    func rowsBound(_ txn: Txn, _ streams: [Stream], from: UInt64, head: UInt64, limit: Int) -> Int {
        var total = 0
        for s in streams {
            let stored = txn.entries(s.trees.records)
            total += min(s.plannedPositions ?? stored, stored)
        }
        return Self.capped(min(total, Self.positions(from: from, head: head)), limit)
    }

    /// `count`, at most `limit` (0: no limit).
    static func capped(_ count: Int, _ limit: Int) -> Int { limit > 0 ? min(limit, count) : count }

    /// One stream's entries from the anchor on, in store order, as its
    /// plan reads them (for the merge of several streams).
    struct Entries {
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
                return try within(try cursor.seek(atLeast: spans[0].first))
            }
        }

        mutating func next() throws -> Entry? {
            switch plan {
            case .walk: return try cursor.next()
            case .positions(let positions):
                guard k < positions.count else { return nil }
                k += 1
                return try reader.record(at: positions[positions.startIndex + k - 1])
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
                if seq < spans[k].first { entry = try cursor.seek(atLeast: spans[k].first); continue }
                if seq <= spans[k].last { return entry }
                k += 1
            }
            return nil
        }
    }

    /// Positions at most this far past the entry a positions plan is on
    /// are walked to, farther ones sought: a leaf page holds some fifty
    /// records.
    static let nearPositions: UInt64 = 64
    static var missingRecord: OHKError { OHKError(.storage, "an index points at a missing record") }

    /// The records at positions an index found, asked in ascending order:
    /// near ones are reached by stepping (cheaper than a seek), far ones by
    /// seeking.
    struct PositionReader {
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
                guard let raw = try cursor.find(seq) else { throw Store.missingRecord }
                at = (seq, raw)
            }
            return at!
        }
    }

    /// What a scan has taken so far. (A struct passed inout: as variables
    /// captured by a nested function, each record paid dynamic exclusivity
    /// checks.)
    struct Taken {
        var batch: SampleBatchBuilder
        /// Made at the first tombstone (a delta usually has none); with
        /// `deletedRows`, only the tombstones that kept metadata.
        var deleted: SampleBatchBuilder?
        /// A rows query's deleted objects' writer (its `RowsBlock` holds
        /// it), when it writes them as rows.
        var deletedRows: UnsafeMutablePointer<DeletedRowsWriter>?
        /// A columns query's samples go here rather than into `batch`.
        let columns: ColumnSink?
        /// A rows query's samples whose rows leave fields out are kept in
        /// `batch` as records too, with their rows here (nil otherwise).
        var extraRows: [UInt32]?
        /// Samples written to the columns by `keep`.
        var rowsTaken = 0
        var returned = 0
        var lastReturned: UInt64 = 0
        let limit: Int
        var readahead = Readahead(enabled: false)
        /// What the result is made with.
        let types: [SampleType]
        let head: UInt64, horizon: UInt64
        let names: NameLookup

        init(batch: SampleBatchBuilder, columns: ColumnSink?, limit: Int, types: [SampleType],
             head: UInt64, horizon: UInt64, names: NameLookup) {
            self.batch = batch
            self.columns = columns
            self.limit = limit
            self.types = types
            (self.head, self.horizon, self.names) = (head, horizon, names)
        }

        /// Makes the query a rows query: its samples' records kept only
        /// where their rows leave fields out, and its deleted objects
        /// written by `deleted` when there is one.
        mutating func takeRows(deleted: UnsafeMutablePointer<DeletedRowsWriter>?) {
            (extraRows, deletedRows) = ([], deleted)
        }

        /// A rows query's sample, written as row `row`: its record is kept
        /// when its row leaves fields out, and a damaged one is an error
        /// there as in a records query (`SampleBatchBuilder.append`).
        @inline(__always)
        mutating func keepIfNeeded(_ r: RecordView, row: Int, typeIndex: Int) throws {
            if Store.rowLeavesOut(r) {
                try batch.append(r, typeIndex: typeIndex)
                extraRows!.append(UInt32(row))
            } else if r.bytes.count != r.payloadOffset + (r.isChecked ? RecordCheck.size : 0) {
                // `isWellFormed` for a record without payload or metadata.
                throw OHKError(.storeCorrupt, "corrupt record in the store")
            }
        }
    }

    /// Whether a sample's row (`SampleRowLayout`) leaves out fields of its
    /// record: metadata, a device, or a payload (a workout's, a route's...).
    @inline(__always)
    static func rowLeavesOut(_ r: RecordView) -> Bool { r.hasMetadata || r.deviceID != 0 || r.hasPayload }

    /// Takes one object of stream `i` if it matches; returns true when the
    /// limit is reached.
    @inline(__always)
    func take(_ seq: UInt64, _ raw: UnsafeRawBufferPointer, _ s: Stream, _ i: Int,
                      _ t: inout Taken, _ names: NameLookup) throws -> Bool {
        t.readahead.note(raw.baseAddress)
        let r = try RecordView(stored: raw)
        guard include(r, s) else { return false }
        return try keep(seq, r, i, &t)
    }

    /// Adds a matching object of type number `i` to the result; returns
    /// true when the limit is reached.
    @inline(__always)
    func keep(_ seq: UInt64, _ r: RecordView, _ i: Int, _ t: inout Taken) throws -> Bool {
        if r.isTombstone {
            if let w = t.deletedRows {
                try w.pointee.write(r, typeIndex: i, keeping: &t.deleted, multiType: t.batch.multiType)
            } else {
                if t.deleted == nil { t.deleted = SampleBatchBuilder(multiType: t.batch.multiType, expected: 16) }
                try t.deleted!.append(r, typeIndex: i)
            }
        } else if t.columns != nil {
            t.returned += 1
            t.lastReturned = seq
            if t.extraRows != nil { try t.keepIfNeeded(r, row: t.rowsTaken, typeIndex: i) }
            t.rowsTaken += 1
            let full = t.columns!.take(r, typeIndex: i)
            return full || t.returned == t.limit
        } else {
            try t.batch.append(r, typeIndex: i)
        }
        t.returned += 1
        t.lastReturned = seq
        return t.returned == t.limit
    }

    /// Whether any object of the group's type at `from` or later matches
    /// (stops at the first; builds no batch).
    func hasMatch(_ txn: Txn, _ g: Group, from: UInt64, _ names: NameLookup) throws -> Bool {
        guard let (typeID, t) = try storedTrees(g.type, txn) else { return false }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let stream = Stream(try resolved(g, typeID: typeID, txn), typeID: typeID, trees: t, cursor: cursor, names)
        var entry = try cursor.seek(atLeast: from)
        while let (_, raw) = entry {
            if include(try RecordView(stored: raw), stream) { return true }
            entry = try cursor.next()
        }
        return false
    }

    /// The group with its `.workout` terms replaced by the UUIDs associated
    /// now (rule 36); itself when it has none.
    func resolved(_ g: Group, typeID: UInt16, _ txn: Txn) throws -> Group {
        guard g.predicates.contains(where: { $0?.namesWorkout == true }) else { return g }
        var r = g
        r.predicates = try g.predicates.map { try $0?.resolvingAssociations(txn, trees, typeID: typeID) }
        return r
    }

    /// A sample is returned when some descriptor's predicate is true; a
    /// deleted object unless every one is definitely false (rule 8): the
    /// stream's filter is their OR.
    @inline(__always)
    func include(_ r: RecordView, _ s: Stream) -> Bool {
        guard let p = s.program else { return true }
        let t = p.evaluate(r, s.context!)
        return t == .yes || (r.isTombstone && t == .unknown)
    }
}
