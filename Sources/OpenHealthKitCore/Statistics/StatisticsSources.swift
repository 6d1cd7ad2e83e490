/// The store's sources as statistics see them (rules 26 and 27): one per
/// bundle identifier, named as its first revision (the lowest source
/// id), in the order of first appearance.
struct StatisticsSources {
    /// Source id → the index of its bundle in `sources`.
    var bundleOf: [UInt32: Int] = [:]
    var sources: [Source] = []
    /// Each bundle's lowest source id: its first appearance in the store.
    var firstIDs: [UInt32] = []

    /// Reads the store's source table.
    init(_ txn: Txn, _ trees: FixedTrees) throws {
        var index: [String: Int] = [:]
        let c = try txn.cursor(trees.sources)
        defer { c.close() }
        var entry = try c.first()
        while let (key, raw) = entry {
            let s = try TableCodec.decodeSource(raw), id = UInt32(truncatingIfNeeded: key)
            if let b = index[s.bundleIdentifier] {
                bundleOf[id] = b
            } else {
                index[s.bundleIdentifier] = sources.count
                bundleOf[id] = sources.count
                sources.append(Source(bundleIdentifier: s.bundleIdentifier, name: s.name))
                firstIDs.append(id)
            }
            entry = try c.next()
        }
    }

    /// Samples (start, end, value, source id, local offset, order) as
    /// statistics read them, each with its source's rank in the merge
    /// order; the read's sources are the bundles they hold.
    func read<S: Sequence>(_ samples: S, stored: [String]) throws -> Store.StatisticsRead
    where S.Element == (Double, Double, Double, UInt32, Double, Int) {
        let ranks = Store.priorityRanks(sources: sources, firstIDs: firstIDs, stored: stored)
        var local = [Int](repeating: -1, count: sources.count)
        var used: [Source] = []
        var out: [StatisticsSample] = []
        for (start, end, value, id, offset, order) in samples {
            guard let b = bundleOf[id] else {
                throw OHKError(.storeCorrupt, "a sample's source id \(id) is not in the store's source table")
            }
            if local[b] < 0 {
                local[b] = used.count
                used.append(sources[b])
            }
            out.append(StatisticsSample(start: start, end: end, value: value, rank: ranks[b], source: local[b],
                                        offset: offset, order: order))
        }
        return Store.StatisticsRead(samples: out, sources: used)
    }
}
