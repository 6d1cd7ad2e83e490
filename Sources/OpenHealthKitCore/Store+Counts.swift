import CLMDB

/// What a store holds, read from one snapshot.
public struct StoreCounts: Sendable {
    public struct TypeCount: Sendable {
        public let type: SampleType
        /// Live samples.
        public let samples: Int
        /// Deleted objects still retained (rule 8).
        public let deletedObjects: Int
    }

    /// Every type the store has held a sample of, by identifier.
    public let types: [TypeCount]
    /// Distinct sources and devices ever saved.
    public let sources: Int
    public let devices: Int
    /// The anchor of this snapshot: a query from it sees later changes only.
    public let anchor: QueryAnchor

    public var samples: Int { types.reduce(0) { $0 + $1.samples } }
    public var deletedObjects: Int { types.reduce(0) { $0 + $1.deletedObjects } }
}

extension Store {
    /// Counts per type, sources and devices, and the current anchor. Costs
    /// one look per type plus one per retained deleted object, not a scan
    /// of the samples.
    /// (Not HealthKit's statistics, which are `statistics(type:…)`.)
    public func counts() throws -> StoreCounts {
        try readRetryingTrees { txn in
            let (head, horizon) = try position(txn)
            // Tombstones share their type's record tree: count them apart.
            var deleted: [UInt16: Int] = [:]
            try txn.forEach(trees.tombs) { _, v in deleted[UInt16(littleEndian: v.loadUnaligned(as: UInt16.self)), default: 0] += 1 }
            var counts: [StoreCounts.TypeCount] = []
            try txn.forEachType(trees) { identifier, id in
                guard let t = cache.withLock({ $0.typeTrees[id] }) else { throw NeedTree(typeID: id) }
                let type = try storedType(identifier, txn)
                let gone = deleted[id, default: 0]
                counts.append(.init(type: type, samples: txn.entries(t.records) - gone, deletedObjects: gone))
            }
            return StoreCounts(types: counts.sorted { $0.type.identifier < $1.type.identifier },
                                   sources: txn.entries(trees.sources), devices: txn.entries(trees.devices),
                                   anchor: QueryAnchor(storeID: storeID, position: head, horizon: horizon))
        }
    }

    @available(*, deprecated, renamed: "counts()", message: "the counts per type were named like HealthKit's statistics")
    public func statistics() throws -> StoreCounts { try counts() }
}
