import FoundationEssentials

/// The store's changes in order, each with its position: every saved
/// sample of every type and every deletion after an anchor. What a sink
/// or a replica reads: an anchored query answers "what is new", the feed
/// also says where each change stands, so that a consumer can record
/// exactly which ones it has applied (rule 60).
public struct ChangeBatch: Sendable {
    /// Samples and tombstones as they stand in the store.
    let records: RecordBuffer
    /// Each record's type, as an index into `types`.
    let typeIndex: [UInt16]
    let names: BatchNames
    /// Each change's position in the store's change order, ascending.
    public let positions: [UInt64]
    /// Where the next read continues: after the last change here when the
    /// limit stopped the read, else the head the read saw.
    public let newAnchor: QueryAnchor
    /// The store's head when the batch was read (past `newAnchor` when
    /// the limit stopped the read).
    public let head: UInt64
    /// Read for a replica only (`forReplica`), else empty. For each
    /// deletion, the position its sample was saved at; nil for a save, and
    /// for a deletion made before store format 17, which did not keep it.
    /// A replica that read up to a position knows from it whether it
    /// received the sample (rule 68).
    let savedPositions: [Int: UInt64]
    /// Read for a replica only, else empty: each type's live digest (rule
    /// 68) at `head`, in the snapshot the batch was read from, by type
    /// identifier: what a replica that read every change up to `head`
    /// should have rebuilt.
    let digests: [String: LiveDigest]
    /// The types the changes refer to.
    public var types: [SampleType] { names.types }
    public var count: Int { positions.count }

    /// Calls `body` with each change, in store order.
    public func forEach(_ body: (ChangeFields) throws -> Void) rethrows {
        try withExtendedLifetime(names) {
            let names = Unmanaged.passUnretained(names)
            try records.forEachRecord { i, raw in
                try body(ChangeFields(position: positions[i],
                                      fields: SampleFields(record: RecordView(bytes: raw), names: names,
                                                           typeIndex: Int(typeIndex[i]))))
            }
        }
    }

    /// Where the sample deleted by change `i` was saved (`savedPositions`).
    func savedPosition(at i: Int) -> UInt64? { savedPositions[i] }

    /// Change `i`'s type.
    public func type(at i: Int) -> SampleType { types[Int(typeIndex[i])] }

    /// Change `i` as a `Sample`; nil for a deletion.
    public func sample(at i: Int) -> Sample? {
        precondition(i >= 0 && i < count, "change index \(i) out of range 0..<\(count)")
        return withExtendedLifetime(records) {
            let r = RecordView(bytes: records.record(i))
            return r.isTombstone ? nil : names.sample(r, types[Int(typeIndex[i])])
        }
    }
}

/// One change of a `ChangeBatch`, read in place; valid only inside `forEach`.
public struct ChangeFields {
    public let position: UInt64
    /// The sample's fields; for a deletion, what its tombstone kept (uuid,
    /// type, dates, source, sync identifier and version).
    public let fields: SampleFields
    public var isDeletion: Bool { fields.record.isTombstone }
    /// When the sample was deleted (seconds since 2001-01-01); nil for a save.
    public var deletionTime: Double? { isDeletion ? fields.record.deletionDate : nil }
}

extension Store {
    /// The changes after `anchor` (all retained ones for nil), every type
    /// together in store order, at most `limit` (0: no limit). A save that
    /// was deleted since is not there (its deletion is), as in an anchored
    /// query. Throws as an anchored query does for an anchor of another
    /// store, from the future, or expired.
    /// With `types`, only changes of those types (by identifier).
    public func changes(after anchor: QueryAnchor?, limit: Int = 0, types only: Set<String>? = nil) throws -> ChangeBatch {
        try changes(after: anchor, limit: limit, types: only, forReplica: false)
    }

    /// `changes`, and with `forReplica` what a replica needs besides: the
    /// digests of the snapshot and each deletion's saved position.
    func changes(after anchor: QueryAnchor?, limit: Int, types only: Set<String>?, forReplica: Bool) throws -> ChangeBatch {
        guard limit >= 0 else { throw OHKError(.invalidArgument, "limit must be 0 (no limit) or positive, got \(limit)") }
        return try readRetryingTrees { txn in
            let (head, horizon) = try position(txn)
            let from = try startPosition(anchor, head: head, horizon: horizon)
            let names = NameLookup(store: self, txn: txn)
            var types: [SampleType] = []
            var cursors: [Cursor] = []
            defer { for c in cursors { c.close() } }
            var digests: [String: LiveDigest] = [:]
            let kept = forReplica ? try DigestTable.all(txn, trees) : [:]
            try txn.forEachType(trees) { identifier, id in
                if let only, !only.contains(identifier) { return }
                guard let t = cache.withLock({ $0.typeTrees[id] }) else { throw NeedTree(typeID: id) }
                types.append(try storedType(identifier, txn))
                cursors.append(try txn.cursor(t.records))
                if forReplica { digests[identifier] = kept[id] ?? LiveDigest() }
            }
            var heads = try cursors.map { try $0.seek(atLeast: from) }
            var builder = SampleBatchBuilder(multiType: false, expected: limit > 0 ? min(limit, 1 << 16) : 1024)
            var typeIndex: [UInt16] = [], positions: [UInt64] = []
            var savedPositions: [Int: UInt64] = [:]
            while limit == 0 || positions.count < limit {
                // The next change of any type: the least position among the heads.
                var pick = -1
                for i in heads.indices {
                    if let (seq, _) = heads[i], pick < 0 || seq < heads[pick]!.0 { pick = i }
                }
                guard pick >= 0, let (seq, raw) = heads[pick], seq <= head else { break }
                let record = try RecordView(stored: raw)
                try builder.append(record, typeIndex: 0)
                if forReplica, record.isTombstone, let t = try txn.get(trees.tombs, u64: seq), t.count >= 18 {
                    savedPositions[positions.count] = UInt64(littleEndian: t.loadUnaligned(fromByteOffset: 10, as: UInt64.self))
                }
                typeIndex.append(UInt16(pick))
                positions.append(seq)
                heads[pick] = try cursors[pick].next()
            }
            let stopped = limit > 0 && positions.count == limit
            let batch = try builder.build(types: types, names: names)
            return ChangeBatch(records: batch.records, typeIndex: typeIndex, names: batch.names, positions: positions,
                               newAnchor: QueryAnchor(storeID: storeID, position: stopped ? positions.last! : head,
                                                      horizon: horizon), head: head,
                               savedPositions: savedPositions, digests: digests)
        }
    }

    /// Every type the store has held a sample of, deleted ones included,
    /// from its table of types: no walk of the samples (`statistics()`
    /// counts them). What a read of "every type" names.
    public func storedSampleTypes() throws -> [SampleType] {
        try readRetryingTrees { txn in
            var out: [SampleType] = []
            try txn.forEachType(trees) { identifier, _ in out.append(try storedType(identifier, txn)) }
            return out
        }
    }

    /// The type a stored identifier names: HealthKit's, or the store's
    /// own from its definition.
    func storedType(_ identifier: String, _ txn: Txn) throws -> SampleType {
        if let standard = TypeCatalogue.standard[identifier] { return standard }
        guard let raw = try txn.get(trees.custom, Array(identifier.utf8)) else {
            throw OHKError(.storage, "type '\(identifier)' has samples but no definition")
        }
        return SampleType(identifier: identifier, kind: try TableCodec.decodeKind(raw), isCustom: true)
    }
}
