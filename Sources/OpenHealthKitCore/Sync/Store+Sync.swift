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

extension SyncVerification {
    /// The received digests held to the source's, type by type.
    init(received: [String: LiveDigest], source: [String: LiveDigest]) {
        var differ: [String: SyncDigestPair] = [:]
        var total = LiveDigest()
        for t in Set(received.keys).union(source.keys) {
            let s = source[t] ?? LiveDigest(), r = received[t] ?? LiveDigest()
            if s != r { differ[t] = SyncDigestPair(source: s, received: r) }
            total += s
        }
        self = differ.isEmpty ? .verified(total) : .differs(differ)
    }
}

extension SyncCheckpoint {
    /// The error of a sync that asks for other types than its checkpoint copies.
    func otherTypes(from location: String) -> OHKError {
        OHKError(.syncCheckpoint, "sync '\(name)' from \(location) copies "
                 + (types.map { "the types \($0.joined(separator: ", "))" } ?? "every type")
                 + "; ask for the same types, give another --name, or start again with --from-scratch")
    }
}

/// Where a sync reads: a store in this process, or one over HTTP.
public protocol SyncSource {
    var syncStoreID: UUID { get }
    /// A type's identifier, from an identifier or a short name.
    func syncTypeIdentifier(_ name: String) throws -> String
    func replicaBatch(after anchor: QueryAnchor?, limit: Int, types: Set<String>?) throws -> ReplicaBatch
}

/// Where a sync writes: a store in this process, or one over HTTP.
public protocol SyncDestination {
    var syncStoreID: UUID { get }
    func syncCheckpoints() throws -> [SyncCheckpoint]
    /// Applies `batch` with the checkpoint that covers it, in one
    /// transaction (rule 69); see `Store.receive`.
    func receive(_ batch: ReplicaBatch, name: String, location: String, types: [String]?, expectedPosition: UInt64?,
                 restart: Bool) throws -> SyncReceipt
    func liveDigests() throws -> [String: LiveDigest]
    /// How many recorded conflicts came from `source` (rule 70).
    func syncConflictCount(source: UUID) throws -> Int
}

/// What the destination did with one batch.
public struct SyncReceipt: Sendable {
    public var checkpoint: SyncCheckpoint
    public var outcome: ApplyOutcome
    /// The UUIDs of the batch found in conflict.
    public var conflicts: [UUID]

    public init(checkpoint: SyncCheckpoint, outcome: ApplyOutcome, conflicts: [UUID]) {
        self.checkpoint = checkpoint
        self.outcome = outcome
        self.conflicts = conflicts
    }
}

extension Store: SyncSource, SyncDestination {
    public var syncStoreID: UUID { storeID }
    public func syncTypeIdentifier(_ name: String) throws -> String { try sampleType(name).identifier }
    public func syncConflictCount(source: UUID) throws -> Int { try syncConflicts().filter { $0.source == source }.count }

    /// Copies every change of `source` since this store's checkpoint for it
    /// (rule 69) into this store, in transactions of `options.batchSize`
    /// changes, each writing the checkpoint with the changes it covers. It
    /// reads up to the source's head and returns; call it again (or wait
    /// for the source's commits) to follow. See docs/sync.md.
    public func sync(from source: Store, _ options: SyncOptions = SyncOptions(),
                     progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        var o = options
        if o.sourceLocation == nil { o.sourceLocation = source.directory }
        return try synchronize(from: source, into: self, o, progress: progress)
    }

    /// Applies a replica's batch and moves its checkpoint, in one
    /// transaction (rules 69 and 70). The checkpoint of `batch`'s source
    /// and `name` must stand at `expectedPosition` (nil: none yet), else
    /// `.syncBusy`: another sync of the name moved it. `restart` starts a
    /// new checkpoint from nothing (the first batch of a sync from
    /// scratch); `location` and `types` are kept with a new one.
    public func receive(_ batch: ReplicaBatch, name: String, location: String, types: [String]?, expectedPosition: UInt64?,
                        restart: Bool) throws -> SyncReceipt {
        try write { w in
            let current = try checkpoint(w.txn, source: batch.sourceStoreID, name: name)
            guard current?.position == expectedPosition else {
                throw OHKError(.syncBusy, "another sync named '\(name)' from \(location) moved the checkpoint "
                               + "(to position \(current?.position ?? 0)) while this one ran; nothing of this batch was written")
            }
            var base: SyncCheckpoint
            if let current, !restart {
                guard current.types == types else { throw current.otherTypes(from: location) }
                base = current
            } else {
                base = SyncCheckpoint(sourceStoreID: batch.sourceStoreID, name: name, types: types, location: location)
                try dropReplaced(by: base, &w)
            }
            base.location = location
            return try applyBatch(batch, checkpoint: base, &w)
        }
    }

    /// One batch of changes applied, with the checkpoint that covers it.
    private func applyBatch(_ batch: ReplicaBatch, checkpoint before: SyncCheckpoint,
                            _ w: inout WriteContext) throws -> SyncReceipt {
        guard batch.positions.count == batch.changes.count, batch.newPosition >= before.position,
              batch.head >= batch.newPosition, batch.positions.allSatisfy({ $0 > before.position && $0 <= batch.newPosition }) else {
            throw OHKError(.invalidArgument, "the batch's positions do not follow the checkpoint's (\(before.position))")
        }
        var samples: [Sample] = [], samplePositions: [UInt64] = [], deletions: [UUID] = []
        var tombstones: [ReplicaDeletion] = []
        samples.reserveCapacity(batch.changes.count)
        var cp = before
        for (change, position) in zip(batch.changes, batch.positions) {
            switch change {
            case .save(let s):
                samples.append(s)
                samplePositions.append(position)
                cp.received.byType[s.type.identifier, default: LiveDigest()].add(s.uuid, version: (try s.syncInfo())?.version ?? 0)
            case .deletion(let d):
                deletions.append(d.uuid)
                tombstones.append(d)
                if cp.received.wasReceived(saved: d.savedPosition, deletedAt: position, readUpTo: before.position) {
                    cp.received.byType[d.type.identifier, default: LiveDigest()].remove(d.uuid, version: d.syncVersion ?? 0)
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
        cp.received.covered(upTo: batch.newPosition, snapshot: batch.head)
        cp.position = batch.newPosition
        cp.horizon = batch.horizon
        cp.samplesReceived += UInt64(samples.count)
        cp.deletionsReceived += UInt64(deletions.count)
        cp.conflicts += UInt64(outcome.conflicts.count)
        cp.lastRun = w.now.timeIntervalSinceReferenceDate
        _ = try w.txn.put(trees.syncCheckpoints, cp.key, cp.encoded)
        var o = outcome
        o.anchor = QueryAnchor(storeID: storeID, position: w.head, horizon: w.horizon)
        return SyncReceipt(checkpoint: cp, outcome: o, conflicts: outcome.conflicts.map { samples[$0].uuid })
    }

    /// A new checkpoint starts: one of the same name for another store
    /// that was at the same place goes, as that store was replaced (the
    /// sync was told so, and asked to start from scratch).
    private func dropReplaced(by cp: SyncCheckpoint, _ w: inout WriteContext) throws {
        var replaced: [[UInt8]] = []
        try w.txn.forEach(trees.syncCheckpoints) { k, v in
            let other = try SyncCheckpoint(key: k, value: v)
            if other.name == cp.name && other.location == cp.location && other.sourceStoreID != cp.sourceStoreID {
                replaced.append(Array(k))
            }
        }
        for k in replaced { _ = try w.txn.delete(trees.syncCheckpoints, k) }
    }
}

/// Copies every change of `source` since `dest`'s checkpoint for it into
/// `dest` (rule 69), up to the source's head: the engine of `ohk sync`
/// for stores in this process and over HTTP.
public func synchronize(from source: any SyncSource, into dest: any SyncDestination, _ options: SyncOptions,
                        progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
    guard source.syncStoreID != dest.syncStoreID else {
        throw OHKError(.invalidArgument, "the source and the destination are the same store (\(dest.syncStoreID)), "
                       + "or one is a copy of the other's directory, whose positions are the same")
    }
    guard options.batchSize > 0 else {
        throw OHKError(.invalidArgument, "the batch size must be positive, got \(options.batchSize)")
    }
    guard !options.name.isEmpty, options.name.utf8.count <= 200 else {
        throw OHKError(.invalidArgument, "a sync name is 1 to 200 bytes, got \(options.name.utf8.count)")
    }
    let types = try options.types.map { names in Array(Set(try names.map { try source.syncTypeIdentifier($0) })).sorted() }
    let location = options.sourceLocation ?? "\(source.syncStoreID)"
    let name = options.name
    let checkpoints = try dest.syncCheckpoints()
    let stored = checkpoints.first { $0.sourceStoreID == source.syncStoreID && $0.name == name }
    var cp: SyncCheckpoint
    if let stored, !options.fromScratch {
        guard stored.types == types else { throw stored.otherTypes(from: location) }
        cp = stored
    } else {
        if !options.fromScratch, let other = checkpoints.first(where: {
            $0.name == name && $0.location == location && $0.sourceStoreID != source.syncStoreID
        }) {
            throw OHKError(.syncCheckpoint, "the store at \(location) is now store \(source.syncStoreID), but sync '\(name)' "
                           + "copied store \(other.sourceStoreID) from there up to its position \(other.position): to copy "
                           + "the new store in full, run again with --from-scratch (or give another --name)")
        }
        cp = SyncCheckpoint(sourceStoreID: source.syncStoreID, name: name, types: types, location: location)
    }
    var expected = stored.map(\.position)
    var restart = options.fromScratch || stored == nil
    let startPosition = cp.position
    let only = types.map(Set.init)
    var report = SyncReport(checkpoint: cp, applied: ApplyOutcome(anchor: QueryAnchor(storeID: dest.syncStoreID, position: 0, horizon: 0)),
                            verification: .verified(LiveDigest()))
    var batch: ReplicaBatch
    repeat {
        do {
            batch = try source.replicaBatch(after: cp.anchor, limit: options.batchSize, types: only)
        } catch let e as OHKError where [.anchorExpired, .anchorFromFuture].contains(e.code) {
            throw OHKError(.syncCheckpoint, e.code == .anchorExpired
                ? "\(location) pruned deletions after sync '\(name)''s position \(cp.position), so this store "
                  + "cannot learn of them: run again with --from-scratch to copy the source in full"
                : "sync '\(name)' copied \(location) up to position \(cp.position), past its head: the store there "
                  + "is older than what was copied (restored from a backup?); run again with --from-scratch")
        }
        guard !batch.changes.isEmpty || batch.newPosition != cp.position || restart else { break }
        let receipt = try dest.receive(batch, name: name, location: location, types: types, expectedPosition: expected,
                                       restart: restart)
        cp = receipt.checkpoint
        expected = cp.position
        restart = false
        report.changesRead += batch.changes.count
        report.applied.add(receipt.outcome)
        report.applied.anchor = receipt.outcome.anchor
        report.newConflicts += receipt.conflicts
        progress?(SyncProgress(changesRead: report.changesRead, startPosition: startPosition, position: cp.position,
                               sourceHead: batch.head))
    } while batch.isPartial
    report.checkpoint = cp
    report.verification = SyncVerification(received: cp.received.byType, source: batch.digests)
    let here = try dest.liveDigests().filter { only?.contains($0.key) ?? true }
    // The digests hash (UUID, version): a conflict's two contents agree there.
    report.converged = try Set(here.keys).union(batch.digests.keys).allSatisfy {
        here[$0] ?? LiveDigest() == batch.digests[$0] ?? LiveDigest()
    } && dest.syncConflictCount(source: source.syncStoreID) == 0
    return report
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
