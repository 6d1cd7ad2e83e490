/// Sources and devices by id, as arrays indexed by id: ids are small
/// integers handed out in order and never change once committed, so one
/// immutable table is shared by the store's cache and every batch read
/// from it (no per-query dictionaries). A slot is nil when this process
/// has not seen that id yet (another process added it).
final class NameTable: Sendable {
    static let empty = NameTable(sources: [nil], devices: [nil])

    private let sources: [Source?]
    private let devices: [Device?]
    /// Every source id below this is present (the common case needs no fetch).
    let completeSources: UInt32
    let completeDevices: UInt32

    private init(sources: [Source?], devices: [Device?]) {
        self.sources = sources
        self.devices = devices
        completeSources = UInt32(sources.dropFirst().firstIndex { $0 == nil } ?? sources.count)
        completeDevices = UInt32(devices.dropFirst().firstIndex { $0 == nil } ?? devices.count)
    }

    @inline(__always) func source(_ id: UInt32) -> Source? {
        Int(id) < sources.count ? sources[Int(id)] : nil
    }

    @inline(__always) func bundleIdentifier(_ id: UInt32) -> String? {
        Int(id) < sources.count ? sources[Int(id)]?.bundleIdentifier : nil
    }

    @inline(__always) func device(_ id: UInt32) -> Device? {
        Int(id) < devices.count ? devices[Int(id)] : nil
    }

    /// A table with these entries added (or itself when they are all known).
    func adding(sources new: [UInt32: Source], devices newDevices: [UInt32: Device]) -> NameTable {
        if new.allSatisfy({ source($0.key) != nil }) && newDevices.allSatisfy({ device($0.key) != nil }) { return self }
        return NameTable(sources: Self.merged(sources, new), devices: Self.merged(devices, newDevices))
    }

    private static func merged<T>(_ old: [T?], _ new: [UInt32: T]) -> [T?] {
        var table = old
        let top = Int(new.keys.max() ?? 0)
        if top >= table.count { table += [T?](repeating: nil, count: top + 1 - table.count) }
        for (id, v) in new { table[Int(id)] = v }
        return table
    }
}

/// Resolves source and device ids inside one transaction: from the store's
/// name table, else from the snapshot's tables (entries another process
/// added), which it then adds to the store's table.
final class NameLookup {
    private let store: Store
    private let txn: Txn
    private(set) var table: NameTable

    init(store: Store, txn: Txn) {
        self.store = store
        self.txn = txn
        table = store.cache.withLock { $0.names }
    }

    @inline(__always) func source(_ id: UInt32) -> Source? {
        if let s = table.source(id) { return s }
        return fetch(sources: [id], devices: []).source(id)
    }

    func bundleIdentifier(_ id: UInt32) -> String? { source(id)?.bundleIdentifier }

    @inline(__always) func device(_ id: UInt32) -> Device? {
        guard id != 0 else { return nil }
        if let d = table.device(id) { return d }
        return fetch(sources: [], devices: [id]).device(id)
    }

    /// Makes sure every id up to these is in `table` (committed ids are
    /// dense, so all of them exist in a snapshot holding the largest). An
    /// id past the table's entries is a damaged record's: a store-corrupt
    /// error, not a walk over billions of ids that are not there.
    func ensure(sourcesThrough maxSource: UInt32, devicesThrough maxDevice: UInt32) throws {
        // Each table on its own: new sources may come without new devices.
        let newSources = maxSource >= table.completeSources, newDevices = maxDevice > 0 && maxDevice >= table.completeDevices
        // Ids this process knows need no look (a delta's usual case).
        guard newSources || newDevices else { return }
        if Int(maxSource) > txn.entries(store.trees.sources) || Int(maxDevice) > txn.entries(store.trees.devices) {
            throw OHKError(.storeCorrupt, "a record names source \(maxSource) or device \(maxDevice), which the store does not have")
        }
        let s = newSources ? (max(1, table.completeSources)...max(1, maxSource)).filter { table.source($0) == nil } : []
        let d = newDevices ? (max(1, table.completeDevices)...maxDevice).filter { table.device($0) == nil } : []
        guard !s.isEmpty || !d.isEmpty else { return }
        _ = fetch(sources: s, devices: d)
    }

    private func fetch(sources ids: [UInt32], devices deviceIDs: [UInt32]) -> NameTable {
        var sources: [UInt32: Source] = [:]
        var devices: [UInt32: Device] = [:]
        for id in ids {
            if let raw = try? txn.get(store.trees.sources, u64: UInt64(id)), let s = try? TableCodec.decodeSource(raw) {
                sources[id] = s
            }
        }
        for id in deviceIDs {
            if let raw = try? txn.get(store.trees.devices, u64: UInt64(id)), let d = try? TableCodec.decodeDevice(raw) {
                devices[id] = d
            }
        }
        guard !sources.isEmpty || !devices.isEmpty else { return table }
        table = table.adding(sources: sources, devices: devices)
        store.cache.withLock { $0.learn(sources: sources, devices: devices) }
        return table
    }
}
