import CLMDB

/// What the store keeps in memory of its tables; ids never change once
/// committed, so entries are added after commit and never removed.
struct StoreCache {
    /// The store's type ids: standard types by catalogue index (0: none
    /// yet), custom types by identifier.
    private var standardTypeIDs = [UInt16](repeating: 0, count: TypeCatalogue.standard.count)
    private var customTypeIDs: [String: UInt16] = [:]
    var typeTrees: [UInt16: TypeTrees] = [:]
    var customTypes: [String: SampleType] = [:]
    /// Source and device → id, for interning on save.
    var sourceIDs: [Source: UInt32] = [:]
    var deviceIDs: [Device: UInt32] = [:]
    /// Id → source and device, for reads.
    var names = NameTable.empty

    func typeID(of type: SampleType) -> UInt16? {
        if type.catalogueIndex >= 0 {
            let id = standardTypeIDs[type.catalogueIndex]
            return id == 0 ? nil : id
        }
        return customTypeIDs[type.identifier]
    }

    mutating func setTypeID(_ id: UInt16, for identifier: String) {
        if let t = TypeCatalogue.standard[identifier] {
            standardTypeIDs[t.catalogueIndex] = id
        } else {
            customTypeIDs[identifier] = id
        }
    }

    /// Adds committed table entries (read from a snapshot or just written).
    mutating func learn(sources: [UInt32: Source], devices: [UInt32: Device]) {
        guard !sources.isEmpty || !devices.isEmpty else { return }
        names = names.adding(sources: sources, devices: devices)
        for (id, s) in sources { sourceIDs[s] = id }
        for (id, d) in devices { deviceIDs[d] = id }
    }

    mutating func merge(_ added: CacheAdditions) {
        for (identifier, id) in added.typeIDs { setTypeID(id, for: identifier) }
        typeTrees.merge(added.typeTrees) { a, _ in a }
        learn(sources: added.sources, devices: added.devices)
    }
}

/// The table entries one write transaction added or looked up, published
/// to the cache after it commits.
struct CacheAdditions {
    var typeIDs: [String: UInt16] = [:]
    var typeTrees: [UInt16: TypeTrees] = [:]
    var sourceIDs: [Source: UInt32] = [:]
    var sources: [UInt32: Source] = [:]
    var deviceIDs: [Device: UInt32] = [:]
    var devices: [UInt32: Device] = [:]
}
