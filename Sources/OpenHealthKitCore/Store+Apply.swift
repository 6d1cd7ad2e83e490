import FoundationEssentials

/// What `Store.apply` did with a receiver's batch (rule 63).
public struct ApplyOutcome: Sendable, Equatable {
    /// Samples saved by this call (`replaced` of them took the place of an
    /// older sync version).
    public var added = 0
    public var replaced = 0
    /// Samples the store held already, with the same content: skipped.
    public var alreadyStored = 0
    /// Samples not saved: the store holds the same sync identifier at an
    /// equal or higher version (rule 14).
    public var olderVersions = 0
    /// Samples not saved because their UUID was deleted: here, or by a
    /// deletion that came before the sample did.
    public var deletedBefore = 0
    /// Stored samples this call deleted.
    public var deleted = 0
    /// Deletions of samples deleted already.
    public var alreadyDeleted = 0
    /// Deletions of UUIDs the store never held: kept, so that a late
    /// upload of the sample is ignored.
    public var deletedBeforeArrival = 0
    /// Samples whose UUID the store holds with other content, by index,
    /// when the caller asked to have them counted instead of failing the
    /// batch (a replication, rule 70); never saved.
    public var conflicts: [Int] = []
    /// The store's anchor after the call.
    public var anchor: QueryAnchor

    public init(anchor: QueryAnchor) { self.anchor = anchor }
}

extension Store {
    /// A receiver's batch in one transaction, all or nothing (rule 63):
    /// what a phone's anchored query returned, samples then deletions.
    /// - A sample whose UUID the store holds with the same content is
    ///   skipped; with other content, the call fails with
    ///   `.duplicateUUID` naming it. A sample whose UUID was deleted (in
    ///   the store, or by an earlier deletion of a UUID it never held) is
    ///   skipped: a deletion wins over a late upload.
    /// - A deletion of a stored sample deletes it; of a deleted one does
    ///   nothing; of a UUID the store never held is kept, so that the
    ///   sample, should it come later, is skipped.
    /// A UUID twice among the samples is `.invalidArgument`; twice among
    /// the deletions counts once. Sending the same batch again changes nothing.
    /// `checkDeletion`, when given, is called in the transaction for each
    /// deletion that would change the store, with its index and the stored
    /// sample (nil for a UUID the store never held); what it throws aborts
    /// the whole call (a server lets an app delete only its own samples).
    /// With `uuidsNameContent`, the samples' UUIDs were derived from their
    /// content (an importer's, a receiver's of data without UUIDs), so a
    /// stored UUID counts as already stored without comparing the rest: a
    /// sample sent again then differs at most in its sync version.
    public func apply(samples: [Sample], deletions: [UUID], uuidsNameContent: Bool = false,
                      checkDeletion: ((_ index: Int, _ stored: Sample?) throws -> Void)? = nil) throws -> ApplyOutcome {
        var seen = Set<UUID>(minimumCapacity: samples.count)
        for (i, s) in samples.enumerated() where !seen.insert(s.uuid).inserted {
            throw OHKError(.invalidArgument, "samples[\(i)]: UUID \(s.uuid) is listed twice in one batch")
        }
        return try write { w in
            try apply(samples: samples, deletions: deletions, uuidsNameContent: uuidsNameContent,
                      checkDeletion: checkDeletion, countConflicts: false, &w)
        }
    }

    /// `apply` inside a transaction the caller holds (a replication writes
    /// its checkpoint in the same one). With `countConflicts`, a sample
    /// whose UUID the store holds with other content is listed in
    /// `conflicts` and skipped instead of failing the call.
    /// `deletedObjects`, given by a replication, holds each deletion's
    /// deleted object as its source keeps it: a deletion of a UUID this
    /// store never held becomes a deleted object of its own, which its
    /// change feed relays, instead of an entry of `early_deletions`.
    func apply(samples: [Sample], deletions: [UUID], uuidsNameContent: Bool = false,
               checkDeletion: ((_ index: Int, _ stored: Sample?) throws -> Void)? = nil,
               countConflicts: Bool, deletedObjects: [ReplicaDeletion]? = nil,
               _ w: inout WriteContext) throws -> ApplyOutcome {
        var outcome = ApplyOutcome(anchor: QueryAnchor(storeID: storeID, position: 0, horizon: 0))
        // Many samples' UUIDs are looked up in one sorted walk of the index
        // (as `saveNew` does): a replica's first copy is mostly new ones.
        // The batch's UUIDs are distinct, so none is among this
        // transaction's pending entries, which the walk does not see.
        w.expectSamples(samples.count)
        var held: Set<UUID>?
        if samples.count >= Self.samplesForSortedLookup {
            held = try w.heldUUIDs(samples.map(\.uuid))
            w.pendingUUIDsAreNew = true
        }
        let anyEarly = w.txn.entries(trees.earlyDeletions) > 0
        for (i, s) in samples.enumerated() {
            do {
                try validateType(s.type)
                try s.validate()
            } catch let e as OHKError {
                throw OHKError(e.code, "samples[\(i)]: \(e.message)")
            }
            if anyEarly, try w.txn.get(trees.earlyDeletions, uuidKey(s.uuid)) != nil {
                outcome.deletedBefore += 1
                continue
            }
            if held?.contains(s.uuid) ?? true, let (typeID, _, record) = try storedRecord(s.uuid, &w) {
                if record.isTombstone {
                    outcome.deletedBefore += 1
                } else if try uuidsNameContent || storedSample(record, typeID, w) == s {
                    outcome.alreadyStored += 1
                } else if countConflicts {
                    outcome.conflicts.append(i)
                } else {
                    throw OHKError(.duplicateUUID, "samples[\(i)]: the store holds sample \(s.uuid) with other content; "
                                   + "a UUID names one sample for good")
                }
                continue
            }
            if case .correlation(let c) = s.value { try checkMembers(s, c, &w) }
            switch try save(s, &w) {
            case .saved: outcome.added += 1
            case .replaced: outcome.added += 1; outcome.replaced += 1
            case .notSavedOlderVersion:
                outcome.olderVersions += 1
                // A replica keeps it as deleted: superseded here, it is deleted where it came from, sooner or later.
                if deletedObjects != nil { try w.insertTombstone(of: s) }
            }
        }
        var once = Set<UUID>()
        for (i, u) in deletions.enumerated() where once.insert(u).inserted {
            if let (typeID, seq, record) = try storedRecord(u, &w) {
                if record.isTombstone {
                    outcome.alreadyDeleted += 1
                } else {
                    if let checkDeletion { try checkDeletion(i, try storedSample(record, typeID, w)) }
                    _ = try w.tombstone(typeID: typeID, seq: seq)
                    outcome.deleted += 1
                }
            } else if let origin = deletedObjects?[i] {
                // Kept as a deleted object, to be relayed; one kept by UUID alone goes.
                _ = try w.txn.delete(trees.earlyDeletions, uuidKey(u))
                try w.insertTombstone(copying: origin)
                outcome.deletedBeforeArrival += 1
            } else if try w.txn.get(trees.earlyDeletions, uuidKey(u)) != nil {
                outcome.alreadyDeleted += 1
            } else {
                if let checkDeletion { try checkDeletion(i, nil) }
                _ = try withUnsafeBytes(of: w.now.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { v in
                    try uuidKey(u).withUnsafeBytes { k in try w.txn.put(trees.earlyDeletions, k, v) }
                }
                outcome.deletedBeforeArrival += 1
            }
        }
        outcome.anchor = QueryAnchor(storeID: storeID, position: w.head, horizon: w.horizon)
        return outcome
    }

    private func uuidKey(_ u: UUID) -> [UInt8] { withUnsafeBytes(of: u.uuid) { Array($0) } }

    /// The record `uuid` names, live or a tombstone, with its type id and
    /// position; nil when the store never held it (or pruned it).
    private func storedRecord(_ uuid: UUID, _ w: inout WriteContext) throws -> (UInt16, UInt64, RecordView)? {
        guard let (typeID, seq) = try w.lookupUUID(uuid) else { return nil }
        guard let raw = try w.txn.get(try w.tree(id: typeID).records, u64: seq) else {
            throw OHKError(.storage, "the UUID index points at a missing record (type \(typeID), position \(seq))")
        }
        return (typeID, seq, try RecordView(stored: raw))
    }

    /// A stored record as a `Sample`, its names read in the transaction.
    private func storedSample(_ r: RecordView, _ typeID: UInt16, _ w: WriteContext) throws -> Sample? {
        guard let type = w.type(id: typeID) else { return nil }
        var b = SampleBatchBuilder(multiType: false, expected: 1)
        try b.append(r, typeIndex: 0)
        return try b.build(types: [type], names: NameLookup(store: self, txn: w.txn)).first
    }
}
