/// Resolves source and device ids inside one transaction: from the store's
/// cache, else from the snapshot's tables (entries another process added).
/// Ids are immutable once committed, so what it reads may be cached.
final class NameLookup {
    private let store: Store
    private let txn: Txn
    private var sources: [UInt32: Source] = [:]
    private var devices: [UInt32: Device] = [:]

    init(store: Store, txn: Txn) {
        self.store = store
        self.txn = txn
    }

    func source(_ id: UInt32) -> Source? {
        if let s = sources[id] { return s }
        var s = store.cache.withLock { $0.sources[id] }
        if s == nil, let raw = try? txn.get(store.trees.sources, u64: UInt64(id)) {
            s = try? TableCodec.decodeSource(raw)
            if let s { store.cache.withLock { $0.sources[id] = s; $0.sourceIDs[s] = id } }
        }
        sources[id] = s
        return s
    }

    func bundleIdentifier(_ id: UInt32) -> String? { source(id)?.bundleIdentifier }

    func device(_ id: UInt32) -> Device? {
        guard id != 0 else { return nil }
        if let d = devices[id] { return d }
        var d = store.cache.withLock { $0.devices[id] }
        if d == nil, let raw = try? txn.get(store.trees.devices, u64: UInt64(id)) {
            d = try? TableCodec.decodeDevice(raw)
            if let d { store.cache.withLock { $0.devices[id] = d; $0.deviceIDs[d] = id } }
        }
        devices[id] = d
        return d
    }
}
