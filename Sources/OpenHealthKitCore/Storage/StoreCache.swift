import CLMDB

/// What the store keeps in memory of its tables; ids never change once
/// committed, so entries are added after commit and never removed.
struct StoreCache {
    /// The store's type ids: standard types by catalogue index (0: none
    /// yet), custom types by identifier.
    private var standardTypeIDs = [UInt16](repeating: 0, count: TypeCatalogue.standard.count)
    private var customTypeIDs: [String: UInt16] = [:]
    /// Id → standard type, for telling a commit hook what changed.
    private var standardTypesByID: [UInt16: SampleType] = [:]
    var typeTrees = TypeTreeTable()
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

    /// The type with store id `id`; nil for an id the store never gave.
    func type(id: UInt16) -> SampleType? {
        if let t = standardTypesByID[id] { return t }
        return customTypeIDs.first { $0.value == id }.flatMap { customTypes[$0.key] }
    }

    mutating func setTypeID(_ id: UInt16, for identifier: String) {
        if let t = TypeCatalogue.standard[identifier] {
            standardTypeIDs[t.catalogueIndex] = id
            standardTypesByID[id] = t
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
        for (id, t) in added.typeTrees where typeTrees[id] == nil { typeTrees[id] = t }
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

/// Type trees by type id. Ids are small integers handed out in order, so
/// an array indexed by id finds them without hashing (a dictionary's hash
/// was a measurable part of a short query).
struct TypeTreeTable: Sequence {
    private var slots: [TypeTrees?] = []

    subscript(id: UInt16) -> TypeTrees? {
        get { Int(id) < slots.count ? slots[Int(id)] : nil }
        set {
            if Int(id) >= slots.count { slots += repeatElement(nil, count: Int(id) + 1 - slots.count) }
            slots[Int(id)] = newValue
        }
    }

    /// The (id, trees) pairs present, by id.
    func makeIterator() -> some IteratorProtocol<(UInt16, TypeTrees)> {
        slots.enumerated().lazy.compactMap { i, t in t.map { (UInt16(i), $0) } }.makeIterator()
    }
}
