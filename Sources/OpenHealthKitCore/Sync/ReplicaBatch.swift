import FoundationEssentials

/// A batch of one store's changes as a replica receives it (rule 69): what
/// `Store.replicaBatch(after:limit:types:)` reads and `Store.receive`
/// applies, in the same process or after a trip over HTTP.
public struct ReplicaBatch: Sendable {
    /// The store the changes come from.
    public var sourceStoreID: UUID
    /// The changes in store order, each with its position.
    public var changes: [ReplicaChange]
    public var positions: [UInt64]
    /// Where the next read continues (every change up to it is here), and
    /// the source's horizon then.
    public var newPosition: UInt64
    public var horizon: UInt64
    /// The source's head in the snapshot the batch was read from.
    public var head: UInt64
    /// Each type's live digest in that snapshot (rule 68), by identifier.
    public var digests: [String: LiveDigest]

    public init(sourceStoreID: UUID, changes: [ReplicaChange], positions: [UInt64], newPosition: UInt64,
                horizon: UInt64, head: UInt64, digests: [String: LiveDigest]) {
        self.sourceStoreID = sourceStoreID
        self.changes = changes
        self.positions = positions
        self.newPosition = newPosition
        self.horizon = horizon
        self.head = head
        self.digests = digests
    }

    /// Whether the read stopped at its limit: more changes follow.
    public var isPartial: Bool { newPosition < head }
}

/// One change: a saved sample, or a deleted object as its store keeps it.
public enum ReplicaChange: Sendable, Equatable {
    case save(Sample)
    case deletion(ReplicaDeletion)

    public var uuid: UUID {
        switch self {
        case .save(let s): s.uuid
        case .deletion(let d): d.uuid
        }
    }
}

/// A deleted object as its store keeps it (rule 8), and where its sample
/// was saved, which a replica needs for the digest (rule 68).
public struct ReplicaDeletion: Sendable, Equatable {
    public var uuid: UUID
    public var type: SampleType
    /// Seconds since 2001-01-01, as a `Date`'s reference.
    public var start: Double
    public var end: Double
    public var source: Source
    public var syncIdentifier: String?
    public var syncVersion: Double?
    /// When it was deleted.
    public var deleted: Double
    /// The position its sample was saved at; nil for a deletion made
    /// before store format 17.
    public var savedPosition: UInt64?

    public init(uuid: UUID, type: SampleType, start: Double, end: Double, source: Source, syncIdentifier: String?,
                syncVersion: Double?, deleted: Double, savedPosition: UInt64?) {
        self.uuid = uuid
        self.type = type
        self.start = start
        self.end = end
        self.source = source
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
        self.deleted = deleted
        self.savedPosition = savedPosition
    }

    /// A tombstone record's fields, of `type` and `source`.
    init(tombstone r: RecordView, type: SampleType, source: Source, savedPosition: UInt64?) {
        var syncID: String?, version: Double?
        if case .string(let id)? = r.metadataValue(MetadataKey.syncIdentifier) { syncID = id }
        if case .number(let v)? = r.metadataValue(MetadataKey.syncVersion) { version = v }
        self.init(uuid: r.uuid, type: type, start: r.start, end: r.end, source: source, syncIdentifier: syncID,
                  syncVersion: version, deleted: r.deletionDate, savedPosition: savedPosition)
    }

    /// The metadata its tombstone keeps.
    var syncMetadata: [String: MetadataValue] {
        var m: [String: MetadataValue] = [:]
        if let syncIdentifier { m[MetadataKey.syncIdentifier] = .string(syncIdentifier) }
        if let syncVersion { m[MetadataKey.syncVersion] = .number(syncVersion) }
        return m
    }
}

extension Store {
    /// The changes after `anchor` (all retained ones for nil), of `types`
    /// (identifiers; nil: every type), at most `limit`, as a replica
    /// receives them: the change feed (rule 60) with each deletion's
    /// fields and the digests of the snapshot.
    public func replicaBatch(after anchor: QueryAnchor?, limit: Int, types: Set<String>? = nil) throws -> ReplicaBatch {
        let batch = try changes(after: anchor, limit: limit, types: types, forReplica: true)
        var changes: [ReplicaChange] = []
        changes.reserveCapacity(batch.count)
        try withExtendedLifetime(batch.records) {
            for i in 0..<batch.count {
                let r = RecordView(bytes: batch.records.record(i))
                if !r.isTombstone {
                    guard let s = batch.sample(at: i) else { throw OHKError(.storage, "change \(batch.positions[i]) does not decode") }
                    changes.append(.save(s))
                    continue
                }
                guard let source = batch.names.source(r.sourceID) else {
                    throw OHKError(.storage, "deletion \(batch.positions[i]) names a source the store does not have")
                }
                changes.append(.deletion(ReplicaDeletion(tombstone: r, type: batch.type(at: i), source: source,
                                                         savedPosition: batch.savedPosition(at: i))))
            }
        }
        return ReplicaBatch(sourceStoreID: storeID, changes: changes, positions: batch.positions,
                            newPosition: batch.newAnchor.position, horizon: batch.newAnchor.horizon, head: batch.head,
                            digests: batch.digests)
    }
}
