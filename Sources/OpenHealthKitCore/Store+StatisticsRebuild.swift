import FoundationEssentials

extension Store {
    /// Rebuilds the maintained statistics from the samples, in one
    /// transaction (`ohk rebuild-statistics`). Opening a store whose
    /// statistics do not hold its last change (an older store, or one that
    /// a library without them wrote to) does the same. Returns how many
    /// samples were read.
    @discardableResult
    public func rebuildStatistics() throws -> Int {
        try write { w in try Self.rebuildStatistics(w.txn, trees) }
    }

    /// Empties the statistics' trees and adds every live sample of every
    /// quantity type, a million at a time.
    static func rebuildStatistics(_ txn: Txn, _ trees: FixedTrees) throws -> Int {
        for tree in [trees.statistics.buckets, trees.statistics.cover, trees.statistics.overlaps] { try txn.empty(tree) }
        var types: [(UInt16, String)] = []
        try txn.forEachType(trees) { identifier, id in types.append((id, identifier)) }
        var read = 0
        for (id, identifier) in types {
            let kind: SampleType.Kind
            if let standard = TypeCatalogue.standard[identifier] {
                kind = standard.kind
            } else {
                guard let raw = try txn.get(trees.custom, Array(identifier.utf8)) else { continue }
                kind = try TableCodec.decodeKind(raw)
            }
            guard case .quantity(_, let style) = kind else { continue }
            let t = try WriteContext.openTypeTrees(txn, id, create: false)
            var pending = PendingStatistics()
            var held = 0
            let c = try txn.cursor(t.records)
            defer { c.close() }
            var entry = try c.first()
            while let (seq, raw) = entry {
                let r = try RecordView(stored: raw)
                if !r.isTombstone {
                    pending.add(type: id, style: style, sourceID: r.sourceID, start: r.start, end: r.end,
                                value: r.quantity, offset: r.utcOffset, order: seq)
                    held += 1
                    read += 1
                }
                if held == 1_000_000 {
                    try pending.flush(txn, trees.statistics, records: [:])
                    pending = PendingStatistics()
                    held = 0
                }
                entry = try c.next()
            }
            try pending.flush(txn, trees.statistics, records: [:])
        }
        try txn.setMetaU64(trees, .statisticsHead, try txn.position(trees).head)
        return read
    }
}
