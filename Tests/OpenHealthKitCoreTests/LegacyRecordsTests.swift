import CLMDB
import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Format 19, the compact record head: records of the layout of formats
/// 2–18 are rewritten in today's when their store is opened, and read
/// back the same.
@Suite struct LegacyRecordsTests {
    /// Today's record in the old layout (the inverse of
    /// `LegacyRecords.record`): uuid, start, end, value, source, word.
    static func legacy(_ r: RecordView) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: r.bytes[0..<16]))
        w.f64(r.start)
        w.f64(r.end)
        if r.isTombstone {
            w.f64(r.deletionDate)
        } else if r.isCategory {
            w.u64(UInt64(bitPattern: Int64(r.category)))
        } else {
            w.f64(r.quantity)
        }
        w.u32(r.sourceID)
        w.u32(r.word & ~RecordCodec.flagCompact)
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: r.bytes[r.headSize..<(r.bytes.count - RecordCheck.size)]))
        RecordCodec.appendCheck(&w, from: 0)
        return w.bytes
    }

    /// Samples of every width: whole counts (compact), values and
    /// durations no Float32 holds (long), categories, metadata, a
    /// creation date, and deleted objects.
    static func samples() throws -> [Sample] {
        var out: [Sample] = []
        for k in 0..<40 {
            out.append(try stepSample(Double(k * 7), minute: k, metadata: k % 5 == 0 ? synced("s\(k)", Double(k)) : [:]))
            let start = t0.addingTimeInterval(Double(k) * 61.3)
            out.append(try Sample.quantity(heartRate, value: 60.1 + Double(k), unit: HealthUnit("count/min"),
                                           start: start, end: start.addingTimeInterval(0.1 * Double(k)), source: appB))
            out.append(try Sample.category(sleep, value: k % 3, start: start, end: start.addingTimeInterval(3600),
                                           source: appA))
        }
        return out
    }

    @Test func aStoreOfTheOldLayoutReadsTheSameWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let saved = try Self.samples()
        try store.save(saved)
        try store.delete(uuids: saved.enumerated().filter { $0.offset % 7 == 0 }.map(\.element.uuid))
        func everything(_ s: Store) throws -> [AnchoredQueryResult] {
            try [steps, heartRate, sleep].map { try s.anchoredQuery(type: $0, anchor: nil) }
        }
        let before = try everything(store)
        // Both layouts among the records, before.
        var compact = 0, long = 0
        try store.env.write { txn in
            var rewritten: [(MDB_dbi, UInt64, [UInt8])] = []
            for (_, t) in store.cache.withLock({ $0.typeTrees }) {
                try txn.forEach(t.records) { k, v in
                    let r = RecordView(bytes: v)
                    if r.isCompact { compact += 1 } else { long += 1 }
                    rewritten.append((t.records, UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)), Self.legacy(r)))
                }
            }
            for (tree, seq, bytes) in rewritten { try txn.put(tree, u64: seq, bytes) }
            // A format-18 store has no format-20 start index: it is built
            // once the records are rewritten, from their starts.
            for (_, t) in store.cache.withLock({ $0.typeTrees }) { try lmdbCheck(mdb_drop(txn.txn, t.starts, 0), "drop") }
            _ = try txn.delete(store.trees.meta, Schema.MetaKey.recordLayout.bytes)
            try txn.setMetaU64(store.trees, .format, 18)
        }
        #expect(compact > 0 && long > 0, "\(compact) compact, \(long) long")
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .recordLayout) } == LegacyRecords.currentLayout)
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let after = try everything(store)
        for (b, a) in zip(before, after) {
            #expect(Array(a.samples) == Array(b.samples))
            #expect(a.deletedUUIDs == b.deletedUUIDs)
            #expect(a.newAnchor == b.newAnchor)
        }
        #expect(try store.verify().problems == [])
    }

    /// A compact field is used only when it gives back the exact value.
    @Test func compactFieldsOnlyWhenExact() {
        let s = 700_000_000.0
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 42.0.bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 0.1.bitPattern, category: false, sourceID: 3) == nil)
        // A tenth of a second is a Float32's exactly at the store's dates
        // (a Double of 7e8 s has steps of 2^-23 s), not near the epoch.
        #expect(RecordCodec.compactFields(start: s, end: s + 0.1, value: 42.0.bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: 1, end: 1.1, value: 42.0.bitPattern, category: false, sourceID: 3) == nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 42.0.bitPattern, category: false, sourceID: 70_000) == nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: (-0.0).bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: UInt64(bitPattern: -5), category: true, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: UInt64(bitPattern: 1 << 40), category: true, sourceID: 3) == nil)
    }
}
