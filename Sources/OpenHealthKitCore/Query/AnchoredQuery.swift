import Glibc
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
        return try readRetryingTrees { txn in try result(try walk(txn, type, anchor: anchor, limit: limit)) }
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
        return try readRetryingTrees { txn in try result(try scan(txn, groups, anchor: anchor, limit: limit)) }
    }

    /// The anchored query of `descriptors`, its samples written into
    /// `columns` (rows 0..<count) rather than kept as records: what a
    /// reader of NumPy columns wants, at half the memory traffic. At most
    /// `capacity` samples: when more match, the result ends after the
    /// last one written, as a limit ends it, and its anchor continues
    /// from there. `fetchBound` sizes the columns.
    package func anchoredQuery(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?, limit: Int = 0,
                               into columns: SampleColumnPointers, capacity: Int) throws -> ColumnsQueryResult {
        try Self.validate(limit: limit)
        guard capacity > 0 else { throw OHKError(.invalidArgument, "a columns query needs room for a sample") }
        let walk = descriptors.count == 1 && descriptors[0].predicate == nil
        if walk { try validateType(descriptors[0].type) }
        let groups = walk ? [] : try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            let holder = ColumnPipeline.holder(capacity: Self.capped(capacity, limit))
            // A pipeline's thread reads records in the map: done before the read ends, whatever happens.
            defer { _ = holder?.pipeline?.finish() }
            let sink = ColumnSink(ColumnWriter(columns), capacity: capacity, holder: holder)
            var taken = walk ? try self.walk(txn, descriptors[0].type, anchor: anchor, limit: limit, into: sink)
                : try scan(txn, groups, anchor: anchor, limit: limit, into: sink)
            let written = taken.columns!.finish()
            taken.batch.noteSource(through: written.maxSourceID)
            if let d = columns.deviceID {  // their names are read with the rest
                taken.batch.noteDevice(through: (0..<written.count).reduce(0) { max($0, d[$1]) })
            }
            // Inside the read: the names of new sources are read with it.
            return ColumnsQueryResult(result: try result(taken), count: written.count, sourceOrder: written.sourceOrder)
        }
    }

    /// The anchored query of `descriptors`, its samples written as rows of
    /// `layout` (the C library's records) as the scan meets them, in a
    /// block sized for every sample the query can return: no copy of the
    /// records in between, and a large read writes on a second thread.
    /// Only the samples whose rows leave fields out are kept as records.
    /// A query that can return fewer than `rowsFrom` samples keeps its
    /// records instead (`rows` nil): for a delta of a few samples, the
    /// block and the sink cost more than the copy they save.
    package func anchoredQuery(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?, limit: Int = 0,
                               rows layout: SampleRowLayout, deleted: DeletedRowLayout? = nil,
                               rowsFrom: Int) throws -> RowsQueryResult {
        if descriptors.count == 1 && descriptors[0].predicate == nil {
            return try anchoredQuery(type: descriptors[0].type, anchor: anchor, limit: limit, rows: layout, deleted: deleted,
                                     rowsFrom: rowsFrom)
        }
        try Self.validate(limit: limit)
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            try rowsScan(txn, groups, anchor: anchor, limit: limit, rows: layout, deleted: deleted, rowsFrom: rowsFrom)
        }
    }

    /// The same for one type without a predicate (every delta), whose
    /// bound is known before the walk.
    package func anchoredQuery(type: SampleType, anchor: QueryAnchor?, limit: Int = 0,
                               rows layout: SampleRowLayout, deleted: DeletedRowLayout? = nil,
                               rowsFrom: Int) throws -> RowsQueryResult {
        try Self.validate(limit: limit)
        try validateType(type)
        return try readRetryingTrees { txn in
            try rowsWalk(txn, type, anchor: anchor, limit: limit, rows: layout, deleted: deleted, rowsFrom: rowsFrom)
        }
    }

    /// The rows query of `descriptors` in parts of at most `part` objects
    /// (samples and deleted objects together), all read from one
    /// snapshot (rule 75): `body` gets each part in change order and
    /// returns false to stop. The parts together are what one query
    /// returns; each part's anchor is after its last object, and the last
    /// part (fewer than `part` objects, perhaps none) has the query's new
    /// anchor. A part's block is the store's spare once the part before is
    /// freed: a large read then needs the memory of one part, not of all.
    package func anchoredQueryParts(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?, part: Int,
                                    rows layout: SampleRowLayout, deleted: DeletedRowLayout? = nil, rowsFrom: Int,
                                    _ body: (RowsQueryResult) throws -> Bool) throws {
        if descriptors.count == 1 && descriptors[0].predicate == nil {
            return try anchoredQueryParts(type: descriptors[0].type, anchor: anchor, part: part, rows: layout,
                                          deleted: deleted, rowsFrom: rowsFrom, body)
        }
        try Self.validate(part: part)
        let groups = try Self.group(descriptors, validatingWith: self)
        let plans = PlanCache()
        try readInParts(from: anchor, part: part, planned: Self.mayReadAllAhead(groups) ? (groups, plans) : nil, body) { txn, from in
            try rowsScan(txn, groups, anchor: from, limit: part, rows: layout, deleted: deleted, rowsFrom: rowsFrom,
                         plans: plans)
        }
    }

    /// The same for one type without a predicate.
    package func anchoredQueryParts(type: SampleType, anchor: QueryAnchor?, part: Int,
                                    rows layout: SampleRowLayout, deleted: DeletedRowLayout? = nil, rowsFrom: Int,
                                    _ body: (RowsQueryResult) throws -> Bool) throws {
        try Self.validate(part: part)
        try validateType(type)
        try readInParts(from: anchor, part: part, walking: type, body) { txn, from in
            try rowsWalk(txn, type, anchor: from, limit: part, rows: layout, deleted: deleted, rowsFrom: rowsFrom)
        }
    }

    private static func validate(part: Int) throws {
        guard part > 0 else { throw OHKError(.invalidArgument, "a part must hold at least one object") }
    }

    /// Reads parts (`read`, from an anchor) in one snapshot until one is
    /// short or `body` returns false. A large read is followed by a trim,
    /// as a large write is (`FreedMemory`): its parts free no block large
    /// enough to cause one, and what earlier work left free stayed counted.
    /// The parts thread, when the store has one, makes it after the read
    /// returns (`giveBackFreedMemory`).
    /// `walking`: the type of a walk (no predicate), whose large reads
    /// read parts on a second thread after the first (`readInPartsAhead`;
    /// asked only once a part is full, so a delta pays nothing for it).
    /// `planned`: the one type and the plans of a scan, whose plan, when
    /// its positions are each an object, lets every part be read on two
    /// threads, the first too (`readAllAhead`).
    private func readInParts(from anchor: QueryAnchor?, part: Int, walking type: SampleType? = nil,
                             planned: ([Group], PlanCache)? = nil, _ body: (RowsQueryResult) throws -> Bool,
                             _ read: (Txn, QueryAnchor?) throws -> RowsQueryResult) throws {
        var delivered = false
        var objects = 0
        defer { if objects >= FreedMemory.largeObjectCount { giveBackFreedMemory() } }
        try readRetryingTrees { txn in
            // A retry reads from a later snapshot: not after a part went out.
            guard !delivered else { throw OHKError(.storage, "the store's trees changed during a read in parts") }
            var from = anchor
            if let (groups, plans) = planned,
               try readAllAhead(txn, groups, plans, from: &from, part: part, read, body, objects: &objects,
                                delivered: &delivered) {
                return
            }
            while true {
                let r = try read(txn, from)
                delivered = true
                objects += r.objects
                guard try body(r), r.objects == part else { return }
                from = r.result.newAnchor
                // After the first part (`objects` counts every part's).
                if let type, objects == part {
                    guard let rest = try readRestAhead(txn, type, from: r.result.newAnchor, part: part, read, body,
                                                       objects: &objects) else { return }
                    from = rest
                }
            }
        }
    }

    /// Whether a read of `groups` in parts may go on two threads from its
    /// first part (`readAllAhead`): one type, by a bounded range of start
    /// dates (which the start index may plan).
    private static func mayReadAllAhead(_ groups: [Group]) -> Bool {
        groups.count == 1 && StartRange.of(groups[0].predicates)?.isBounded == true
    }

    /// A scan's read in parts on two threads from its first part, when its
    /// plan (made here, kept in `plans` for the parts) reads positions
    /// that are each an object, more than a part and a quarter of them
    /// (a quarter part is some 30 µs of reading; waking the parts thread
    /// costs less). Returns true when every part went out; false when the
    /// read goes on on this thread alone, from `from` (moved on past the
    /// parts that went out, should one not end where the next began).
    private func readAllAhead(_ txn: Txn, _ groups: [Group], _ plans: PlanCache, from: inout QueryAnchor?, part: Int,
                              _ read: (Txn, QueryAnchor?) throws -> RowsQueryResult,
                              _ body: (RowsQueryResult) throws -> Bool, objects: inout Int,
                              delivered: inout Bool) throws -> Bool {
        let (head, horizon) = try position(txn)
        try plan(groups, into: plans, txn, from: try startPosition(from, head: head, horizon: horizon), head: head)
        guard plans.positionsAreObjects, case .positions(let positions) = plans.plans[0],
              positions.count >= part + part / 4, partsThreadWanted else {
            return false
        }
        return try env.readAlongside(txn) { second in
            guard let second else { return false }
            guard let rest = try readInPartsAhead(txn, second, from: from, part: part,
                                                  end: { Self.positionsEnd(positions, after: $0, part: part) }, read, deliver: { r in
                (objects, delivered) = (objects + r.objects, true)
                return try body(r) && r.objects == part
            }) else { return true }
            from = rest
            return false
        }
    }

    /// After the first part of a walk's read in parts: the rest read on
    /// two threads (`readInPartsAhead`) when that pays. Returns where a
    /// read on this thread alone goes on: `from` when the second thread
    /// did not pay or no second transaction of the snapshot could be had,
    /// nil when every part went out.
    private func readRestAhead(_ txn: Txn, _ type: SampleType, from: QueryAnchor, part: Int,
                               _ read: (Txn, QueryAnchor?) throws -> RowsQueryResult,
                               _ body: (RowsQueryResult) throws -> Bool, objects: inout Int) throws -> QueryAnchor? {
        guard let (_, t) = try storedTrees(type, txn) else { return from }
        let (head, _) = try position(txn)
        guard partsAheadPay(records: txn.entries(t.records), from: from.position + 1, head: head, part: part) else {
            return from
        }
        let cursor = try txn.cursor(t.records)
        defer { cursor.close() }
        let map = LeafPage.Map(txn)
        return try env.readAlongside(txn) { second in
            guard let second else { return from }
            return try readInPartsAhead(txn, second, from: from, part: part,
                                        end: { try Self.recordPosition(part, from: $0 + 1, cursor, map) }, read) { r in
                objects += r.objects
                return try body(r) && r.objects == part
            }
        }
    }

    /// A rows scan of `groups` inside a read (`plans`: see `scan`).
    private func rowsScan(_ txn: Txn, _ groups: [Group], anchor: QueryAnchor?, limit: Int,
                          rows layout: SampleRowLayout, deleted: DeletedRowLayout?, rowsFrom: Int,
                          plans: PlanCache? = nil) throws -> RowsQueryResult {
        let rows = RowsBlock(layout, deleted: deleted, from: rowsFrom, spare: spareRows)
        let taken = try scan(txn, groups, anchor: anchor, limit: limit, sizing: rows, plans: plans)
        return try rows.result(taken, self)
    }

    /// A rows walk of `type` inside a read.
    private func rowsWalk(_ txn: Txn, _ type: SampleType, anchor: QueryAnchor?, limit: Int,
                          rows layout: SampleRowLayout, deleted: DeletedRowLayout?, rowsFrom: Int) throws -> RowsQueryResult {
        // A delta's positions bound it: no block for it (the walk's
        // sizing bounds the rest by the type's count too).
        let (head, horizon) = try position(txn)
        let from = try startPosition(anchor, head: head, horizon: horizon)
        guard Self.capped(Self.positions(from: from, head: head), limit) >= rowsFrom else {
            return RowsQueryResult(records: try result(try walk(txn, type, anchor: anchor, limit: limit)))
        }
        let rows = RowsBlock(layout, deleted: deleted, from: rowsFrom, spare: spareRows)
        let taken = try walk(txn, type, anchor: anchor, limit: limit, sizing: rows)
        return try rows.result(taken, self)
    }

    /// At least as many samples as a query of `descriptors` returns from
    /// any anchor: the objects its types hold, deleted ones included (to
    /// size the columns of a columns query; costs a read of a few pages).
    package func fetchBound(_ descriptors: [QueryDescriptor]) throws -> Int {
        let groups = try Self.group(descriptors, validatingWith: self)
        return try readRetryingTrees { txn in
            try groups.reduce(0) { sum, g in sum + (try storedTrees(g.type, txn).map { txn.entries($0.1.records) } ?? 0) }
        }
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
}
