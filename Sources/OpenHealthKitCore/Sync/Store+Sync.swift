import FoundationEssentials

/// How `Store.sync(from:_:progress:)` runs (docs/sync.md).
public struct SyncOptions: Sendable {
    /// The replication's name: one checkpoint per source store and name.
    public var name = "default"
    /// The types to copy, by identifier or short name; nil: every type.
    /// A checkpoint keeps the set it started with.
    public var types: [String]?
    /// Forget the checkpoint and copy every change the source retains.
    public var fromScratch = false
    /// Changes per transaction in the receiving store.
    public var batchSize = 20_000
    /// Where the source is, for messages and for telling a store replaced
    /// at the same place from the one a checkpoint is for; the source's
    /// directory when nil.
    public var sourceLocation: String?

    public init() {}
}

/// Where a running sync stands, for a progress bar.
public struct SyncProgress: Sendable {
    /// Changes read in this run so far.
    public var changesRead: Int
    /// The source position the run started after, the one applied up
    /// to, and the source's head.
    public var startPosition: UInt64
    public var position: UInt64
    public var sourceHead: UInt64
}

/// What one run of `Store.sync(from:_:progress:)` did.
public struct SyncReport: Sendable {
    /// The checkpoint after the run.
    public var checkpoint: SyncCheckpoint
    /// Changes read from the source in this run.
    public var changesRead = 0
    /// What the receiving store did with them, summed over the run's
    /// transactions (`anchor`: the receiving store's after the last).
    public var applied: ApplyOutcome
    /// UUIDs found in conflict in this run (rule 70).
    public var newConflicts: [UUID] = []
    /// Whether the changes received, from the first run on, rebuild the
    /// source's live digest at the position reached (rule 68).
    public var verification: SyncVerification
    /// Whether this store's live digests now equal the source's at that
    /// position, over the types synced: the two hold the same live samples.
    public var converged = false
}

/// The completeness check of a replication (rule 68).
public enum SyncVerification: Sendable, Equatable {
    /// Every type's received digest equals the source's: the sum over types.
    case verified(LiveDigest)
    /// The types whose digests differ: the source's and the received.
    case differs([String: SyncDigestPair])
}

public struct SyncDigestPair: Sendable, Equatable {
    public var source: LiveDigest
    public var received: LiveDigest
}

extension Store {
    /// Copies every change of `source` since this store's checkpoint for it
    /// (rule 69) into this store, in transactions of `options.batchSize`
    /// changes, each writing the checkpoint with the changes it covers. It
    /// reads up to the source's head and returns; call it again (or wait
    /// for the source's commits) to follow. See docs/sync.md.
    public func sync(from source: Store, _ options: SyncOptions = SyncOptions(),
                     progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        guard source.storeID != storeID else {
            throw OHKError(.invalidArgument, "the source and the destination are the same store (\(storeID)), "
                           + "or one is a copy of the other's directory, whose positions are the same")
        }
        guard options.batchSize > 0 else {
            throw OHKError(.invalidArgument, "the batch size must be positive, got \(options.batchSize)")
        }
        guard !options.name.isEmpty, options.name.utf8.count <= 200 else {
            throw OHKError(.invalidArgument, "a sync name is 1 to 200 bytes, got \(options.name.utf8.count)")
        }
        try refuseIfReadOnly()
        let types = try options.types.map { names in
            Array(Set(try names.map { try source.sampleType($0).identifier })).sorted()
        }
        let location = options.sourceLocation ?? source.directory
        let stored = try operation { try env.read { try checkpoint($0, source: source.storeID, name: options.name) } }
        var cp: SyncCheckpoint
        if let stored, !options.fromScratch {
            guard stored.types == types else {
                throw OHKError(.syncCheckpoint, "sync '\(options.name)' from \(location) copies "
                               + (stored.types.map { "the types \($0.joined(separator: ", "))" } ?? "every type")
                               + "; ask for the same types, give another --name, or start again with --from-scratch")
            }
            cp = stored
            cp.location = location
        } else {
            if !options.fromScratch, let other = try syncCheckpoints().first(where: {
                $0.name == options.name && $0.location == location && $0.sourceStoreID != source.storeID
            }) {
                throw OHKError(.syncCheckpoint, "the store at \(location) is now store \(source.storeID), but sync '\(options.name)' "
                               + "copied store \(other.sourceStoreID) from there up to its position \(other.position): to copy "
                               + "the new store in full, run again with --from-scratch (or give another --name)")
            }
            cp = SyncCheckpoint(sourceStoreID: source.storeID, name: options.name, types: types, location: location)
        }
        var expected = stored.map(\.position)
        let startPosition = cp.position
        let only = types.map(Set.init)
        var report = SyncReport(checkpoint: cp, applied: ApplyOutcome(anchor: QueryAnchor(storeID: storeID, position: 0, horizon: 0)),
                                verification: .verified(LiveDigest()))
        var batch: ChangeBatch
        repeat {
            do {
                batch = try source.changes(after: cp.anchor, limit: options.batchSize, types: only)
            } catch let e as OHKError where [.anchorExpired, .anchorFromFuture].contains(e.code) {
                throw OHKError(.syncCheckpoint, e.code == .anchorExpired
                    ? "\(location) pruned deletions after sync '\(options.name)''s position \(cp.position), so this store "
                      + "cannot learn of them: run again with --from-scratch to copy the source in full"
                    : "sync '\(options.name)' copied \(location) up to position \(cp.position), past its head: the store there "
                      + "is older than what was copied (restored from a backup?); run again with --from-scratch")
            }
            let newPosition = batch.newAnchor.position
            guard batch.count > 0 || newPosition != cp.position || expected == nil else { break }
            let before = cp
            let (next, outcome, conflicts) = try write { w -> (SyncCheckpoint, ApplyOutcome, [UUID]) in
                let current = try checkpoint(w.txn, source: source.storeID, name: options.name)
                guard current?.position == expected else {
                    throw OHKError(.syncBusy, "another sync named '\(options.name)' from \(location) moved the checkpoint "
                                   + "(to position \(current?.position ?? 0)) while this one ran; nothing of this batch was written")
                }
                return try applyBatch(batch, checkpoint: before, newPosition: newPosition, &w)
            }
            cp = next
            expected = cp.position
            report.changesRead += batch.count
            report.applied.add(outcome)
            report.newConflicts += conflicts
            progress?(SyncProgress(changesRead: report.changesRead, startPosition: startPosition, position: cp.position,
                                   sourceHead: batch.head))
        } while batch.newAnchor.position < batch.head
        report.checkpoint = cp
        report.verification = Self.verify(cp.received.byType, against: batch.digests)
        report.applied.anchor = try currentAnchor()
        let here = try liveDigests().filter { only?.contains($0.key) ?? true }
        // The digests hash (UUID, version): a conflict's two contents agree there.
        report.converged = try Set(here.keys).union(batch.digests.keys).allSatisfy {
            here[$0] ?? LiveDigest() == batch.digests[$0] ?? LiveDigest()
        } && !syncConflicts().contains { $0.source == source.storeID }
        return report
    }

    /// One batch of changes applied, with the checkpoint that covers it.
    private func applyBatch(_ batch: ChangeBatch, checkpoint before: SyncCheckpoint, newPosition: UInt64,
                            _ w: inout WriteContext) throws -> (SyncCheckpoint, ApplyOutcome, [UUID]) {
        var samples: [Sample] = [], samplePositions: [UInt64] = [], deletions: [UUID] = []
        var tombstones: [ForeignTombstone] = []
        samples.reserveCapacity(batch.count)
        var cp = before
        try withExtendedLifetime(batch.records) {
            for i in 0..<batch.count {
                let r = RecordView(bytes: batch.records.record(i))
                let type = batch.types[Int(batch.typeIndex[i])].identifier
                if r.isTombstone {
                    deletions.append(r.uuid)
                    guard let source = batch.names.source(r.sourceID) else {
                        throw OHKError(.storage, "deletion \(batch.positions[i]) names a source the store does not have")
                    }
                    tombstones.append(ForeignTombstone(record: Array(batch.records.record(i)),
                                                       type: batch.types[Int(batch.typeIndex[i])], source: source))
                    if cp.received.wasReceived(saved: batch.savedPosition(at: i), deletedAt: batch.positions[i],
                                               readUpTo: before.position) {
                        cp.received.byType[type, default: LiveDigest()].remove(r.uuid, version: LiveDigest.version(r))
                    }
                } else {
                    guard let s = batch.sample(at: i) else { throw OHKError(.storage, "change \(batch.positions[i]) does not decode") }
                    samples.append(s)
                    samplePositions.append(batch.positions[i])
                    cp.received.byType[type, default: LiveDigest()].add(r.uuid, version: LiveDigest.version(r))
                }
            }
        }
        w.equalVersionsByUUID = true
        let outcome = try apply(samples: samples, deletions: deletions, countConflicts: true, deletedObjects: tombstones, &w)
        for i in outcome.conflicts {
            var key = ByteWriter(), value = ByteWriter()
            key.uuid(samples[i].uuid)
            value.uuid(before.sourceStoreID)
            value.u64(samplePositions[i])
            _ = try w.txn.put(trees.syncConflicts, key.bytes, value.bytes)
        }
        cp.received.covered(upTo: newPosition, snapshot: batch.head)
        cp.position = newPosition
        cp.horizon = batch.newAnchor.horizon
        cp.samplesReceived += UInt64(samples.count)
        cp.deletionsReceived += UInt64(deletions.count)
        cp.conflicts += UInt64(outcome.conflicts.count)
        cp.lastRun = w.now.timeIntervalSinceReferenceDate
        // The source's other-named checkpoint for a store replaced at the same place goes with the new one.
        let replaced = try syncCheckpointsIn(w.txn).filter {
            $0.name == cp.name && $0.location == cp.location && $0.sourceStoreID != cp.sourceStoreID
        }
        for old in replaced { _ = try w.txn.delete(trees.syncCheckpoints, old.key) }
        _ = try w.txn.put(trees.syncCheckpoints, cp.key, cp.encoded)
        return (cp, outcome, outcome.conflicts.map { samples[$0].uuid })
    }

    private func syncCheckpointsIn(_ txn: Txn) throws -> [SyncCheckpoint] {
        var out: [SyncCheckpoint] = []
        try txn.forEach(trees.syncCheckpoints) { k, v in out.append(try SyncCheckpoint(key: k, value: v)) }
        return out
    }

    static func verify(_ received: [String: LiveDigest], against source: [String: LiveDigest]) -> SyncVerification {
        var differ: [String: SyncDigestPair] = [:]
        var total = LiveDigest()
        for t in Set(received.keys).union(source.keys) {
            let s = source[t] ?? LiveDigest(), r = received[t] ?? LiveDigest()
            if s != r { differ[t] = SyncDigestPair(source: s, received: r) }
            total += s
        }
        return differ.isEmpty ? .verified(total) : .differs(differ)
    }
}

extension ApplyOutcome {
    /// Adds another call's counts (the anchor is left alone).
    mutating func add(_ o: ApplyOutcome) {
        added += o.added
        replaced += o.replaced
        alreadyStored += o.alreadyStored
        olderVersions += o.olderVersions
        deletedBefore += o.deletedBefore
        deleted += o.deleted
        alreadyDeleted += o.alreadyDeleted
        deletedBeforeArrival += o.deletedBeforeArrival
    }
}
