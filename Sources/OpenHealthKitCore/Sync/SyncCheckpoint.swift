import FoundationEssentials

/// Where a replication from one store into this one stands (rule 69):
/// kept in the receiving store, under the source's store id and the
/// replication's name, and written in the transaction that applies the
/// changes it covers, so that it is never ahead of them nor behind.
public struct SyncCheckpoint: Sendable, Equatable {
    /// The store the changes come from.
    public let sourceStoreID: UUID
    /// The replication's name (`--name`).
    public let name: String
    /// Every change of the source up to this position is applied.
    public internal(set) var position: UInt64 = 0
    /// The source's tombstone horizon when `position` was read: the
    /// anchor's own, so the next read is checked as an anchored query's.
    public internal(set) var horizon: UInt64 = 0
    /// The types it copies, by identifier; nil: every type.
    public let types: [String]?
    /// Where the source was found when the checkpoint was made: a
    /// directory or a URL. Only for messages and for telling a source
    /// replaced at the same place from the one the checkpoint is for.
    public internal(set) var location: String
    /// Samples applied, deletions applied, and conflicts found, over every run.
    public internal(set) var samplesReceived: UInt64 = 0
    public internal(set) var deletionsReceived: UInt64 = 0
    public internal(set) var conflicts: UInt64 = 0
    /// When a run last committed (seconds since 2001-01-01).
    public internal(set) var lastRun: Double = 0
    /// The source's live set as the received changes rebuild it (rule 68).
    var received = ReceivedDigest()

    init(sourceStoreID: UUID, name: String, types: [String]?, location: String) {
        self.sourceStoreID = sourceStoreID
        self.name = name
        self.types = types
        self.location = location
    }

    /// The anchor the next read of the source starts after; nil for the first.
    public var anchor: QueryAnchor? {
        position == 0 ? nil : QueryAnchor(storeID: sourceStoreID, position: position, horizon: horizon)
    }

    static func key(source: UUID, name: String) -> [UInt8] {
        var w = ByteWriter()
        w.uuid(source)
        w.bytes.append(contentsOf: name.utf8)
        return w.bytes
    }

    var key: [UInt8] { Self.key(source: sourceStoreID, name: name) }

    static let codecVersion: UInt8 = 1

    var encoded: [UInt8] {
        var w = ByteWriter()
        w.u8(Self.codecVersion)
        w.u64(position)
        w.u64(horizon)
        w.string(location)
        w.u8(types == nil ? 0 : 1)
        if let types {
            w.u32(UInt32(types.count))
            for t in types { w.string(t) }
        }
        w.u64(samplesReceived)
        w.u64(deletionsReceived)
        w.u64(conflicts)
        w.f64(lastRun)
        received.encode(into: &w)
        return w.bytes
    }

    init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        guard key.count >= 16 else { throw OHKError(.storeCorrupt, "a sync checkpoint under a \(key.count)-byte key") }
        var k = ByteReader(key)
        sourceStoreID = try k.uuid()
        name = String(decoding: UnsafeRawBufferPointer(rebasing: key[16...]), as: UTF8.self)
        var r = ByteReader(value)
        guard try r.u8() == Self.codecVersion else {
            throw OHKError(.storeCorrupt, "the sync checkpoint '\(name)' is of an unknown version")
        }
        position = try r.u64()
        horizon = try r.u64()
        location = try r.string()
        if try r.u8() == 1 {
            let n = Int(try r.u32())
            guard n <= 4096 else { throw OHKError(.storeCorrupt, "the sync checkpoint '\(name)' names \(n) types") }
            types = try (0..<n).map { _ in try r.string() }
        } else {
            types = nil
        }
        samplesReceived = try r.u64()
        deletionsReceived = try r.u64()
        conflicts = try r.u64()
        lastRun = try r.f64()
        received = try ReceivedDigest(from: &r)
    }
}

extension SyncCheckpoint {
    /// The checkpoint as bytes, for a sync over HTTP: its key, then its value.
    public var wireBytes: [UInt8] {
        var w = ByteWriter()
        let k = key
        w.u32(UInt32(k.count))
        w.bytes += k
        w.bytes += encoded
        return w.bytes
    }

    /// Reads `wireBytes`; malformed bytes are `.invalidArgument`.
    public init(wire bytes: [UInt8]) throws {
        do {
            self = try bytes.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                let n = Int(try r.u32())
                guard n <= r.remaining else { throw OHKError(.invalidArgument, "a sync checkpoint cut short") }
                let at = r.offset
                return try SyncCheckpoint(key: UnsafeRawBufferPointer(rebasing: raw[at..<at + n]),
                                          value: UnsafeRawBufferPointer(rebasing: raw[(at + n)...]))
            }
        } catch let e as OHKError where e.code != .invalidArgument {
            throw OHKError(.invalidArgument, "a malformed sync checkpoint: \(e.message)")
        }
    }
}

extension Store {
    /// The checkpoints of the replications into this store, every source
    /// and name.
    public func syncCheckpoints() throws -> [SyncCheckpoint] {
        try operation {
            try env.read { txn in
                var out: [SyncCheckpoint] = []
                try txn.forEach(trees.syncCheckpoints) { k, v in out.append(try SyncCheckpoint(key: k, value: v)) }
                return out
            }
        }
    }

    func checkpoint(_ txn: Txn, source: UUID, name: String) throws -> SyncCheckpoint? {
        let key = SyncCheckpoint.key(source: source, name: name)
        guard let raw = try txn.get(trees.syncCheckpoints, key) else { return nil }
        return try key.withUnsafeBytes { try SyncCheckpoint(key: $0, value: raw) }
    }

    /// The UUIDs whose content differs between this store and a source
    /// it replicated from (rule 70), with the source's store id and the
    /// position of the change that found it.
    public func syncConflicts() throws -> [(uuid: UUID, source: UUID, position: UInt64)] {
        try operation {
            try env.read { txn in
                var out: [(UUID, UUID, UInt64)] = []
                try txn.forEach(trees.syncConflicts) { k, v in
                    var kr = ByteReader(k), vr = ByteReader(v)
                    out.append((try kr.uuid(), try vr.uuid(), try vr.u64()))
                }
                return out
            }
        }
    }

    /// Each type's live digest (rule 68), by identifier: the count and
    /// the sum of a hash of each live sample's UUID and sync version.
    public func liveDigests() throws -> [String: LiveDigest] {
        try readRetryingTrees { txn in
            let kept = try DigestTable.all(txn, trees)
            var out: [String: LiveDigest] = [:]
            try txn.forEachType(trees) { identifier, id in out[identifier] = kept[id] ?? LiveDigest() }
            return out
        }
    }
}
