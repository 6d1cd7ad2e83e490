import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// A rows query with a deleted-row layout (what `ohk_store_fetch` and
/// `ohk_store_fetch_parts` use) writes its deleted objects as rows while
/// it reads: the fields the records query's deleted objects have, and
/// the tombstones that kept a sync identifier or version as records too.
@Suite struct DeletedRowsTests {
    /// `ohk_sample_record`'s and `ohk_deleted_record`'s layouts.
    private static let layout = sampleRecordLayout
    private static let deletedLayout: DeletedRowLayout = {
        var d = DeletedRowLayout()
        (d.stride, d.uuid, d.start, d.end, d.deletion) = (64, 0, 16, 24, 32)
        (d.typeIndex, d.sourceIndex, d.syncIdentifier, d.syncVersion) = (40, 44, 48, 56)
        return d
    }()
    private static let unix = Date.timeIntervalBetween1970AndReferenceDate

    /// Steps and heart rates from two sources, a fifth of the steps with a
    /// sync identifier; a tenth of everything deleted after the saves.
    private func storeWithDeletions() throws -> (Store, QueryAnchor) {
        let store = try makeStore(mapSize: 64 << 20)
        var samples: [Sample] = []
        for i in 0..<2_000 {
            let start = t0.addingTimeInterval(Double(i) * 60)
            if i % 3 == 0 {
                samples.append(try Sample.quantity(heartRate, value: 1.2, unit: HealthUnit("count/s"), start: start, end: start,
                                                   source: appB))
            } else {
                samples.append(try stepSample(Double(i), minute: i, source: i % 2 == 0 ? appA : appB,
                                              metadata: i % 5 == 1 ? synced("s\(i)", Double(i)) : [:]))
            }
        }
        try store.save(samples)
        let saved = try store.currentAnchor()
        for k in stride(from: 0, to: samples.count, by: 100) {
            try store.delete(uuids: samples[k..<k + 100].enumerated().filter { $0.offset % 10 == 3 || $0.offset % 10 == 6 }
                .map(\.element.uuid))
        }
        return (store, saved)
    }

    /// The rows of `d` beside the deleted objects of `plain`: every field,
    /// the sources in order of first use, the kept tombstones.
    private func expectRows(_ d: DeletedRows?, kept: DeletedObjects, _ plain: [DeletedFieldsCopy], _ what: String,
                            synced: Bool = true) {
        guard let d else {
            #expect(plain.isEmpty, "\(what): no deleted rows")
            return
        }
        #expect(d.count == plain.count, "\(what): count")
        var order: [UInt32] = []
        for (i, p) in plain.enumerated() where i < d.count {
            let row = d.rows! + 64 * i
            #expect(UUID(uuid: row.loadUnaligned(as: uuid_t.self)) == p.uuid, "\(what): row \(i) uuid")
            #expect(row.loadUnaligned(fromByteOffset: 16, as: Double.self) == p.start + Self.unix, "\(what): row \(i) start")
            #expect(row.loadUnaligned(fromByteOffset: 24, as: Double.self) == p.end + Self.unix, "\(what): row \(i) end")
            #expect(row.loadUnaligned(fromByteOffset: 32, as: Double.self) == p.deletion + Self.unix, "\(what): row \(i) deletion")
            #expect(row.loadUnaligned(fromByteOffset: 40, as: UInt32.self) == UInt32(p.typeIndex), "\(what): row \(i) type")
            #expect(row.loadUnaligned(fromByteOffset: 44, as: UInt32.self) == p.sourceID, "\(what): row \(i) source")
            #expect(row.loadUnaligned(fromByteOffset: 48, as: UInt.self) == 0, "\(what): row \(i) sync identifier")
            #expect(row.loadUnaligned(fromByteOffset: 56, as: Double.self).isNaN, "\(what): row \(i) sync version")
            if !order.contains(p.sourceID) { order.append(p.sourceID) }
        }
        #expect(d.sourceIDs == order, "\(what): sources")
        let withSync = plain.indices.filter { plain[$0].syncIdentifier != nil }
        #expect(!synced || !withSync.isEmpty || plain.count < 20, "\(what): no synced deletions to keep")
        #expect(d.recordRows.map(Int.init) == withSync, "\(what): kept rows")
        #expect(kept.map(\.uuid) == withSync.map { plain[$0].uuid }, "\(what): kept tombstones")
        #expect(kept.map(\.syncIdentifier) == withSync.map { plain[$0].syncIdentifier }, "\(what): kept sync identifiers")
    }

    /// `DeletedFields` outlive no `forEach`: their values, copied.
    private struct DeletedFieldsCopy {
        let uuid: UUID, start: Double, end: Double, deletion: Double, typeIndex: Int, sourceID: UInt32
        let syncIdentifier: String?
    }

    private func fields(_ d: DeletedObjects) -> [DeletedFieldsCopy] {
        var out: [DeletedFieldsCopy] = []
        d.forEach { f in
            out.append(DeletedFieldsCopy(uuid: f.uuid, start: f.startTime, end: f.endTime, deletion: f.deletionTime,
                                         typeIndex: f.typeIndex, sourceID: f.sourceID, syncIdentifier: f.syncIdentifier))
        }
        return out
    }

    @Test func deletedRowsAreTheTombstonesLaidOut() throws {
        let (store, saved) = try storeWithDeletions()
        defer { store.close() }
        let kinds: [(String, [QueryDescriptor])] = [
            ("steps", [QueryDescriptor(type: steps)]),
            ("two types", [QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)]),
            ("steps by start", [QueryDescriptor(type: steps, predicate: .dateRange(start: t0, end: t0.addingTimeInterval(60_000),
                                                                                    options: .strictStartDate))]),
        ]
        for (name, ds) in kinds {
            for anchor in [nil, saved] {
                let what = "\(name) from \(anchor == nil ? "the start" : "the saves")"
                let plain = try store.anchoredQuery(ds, anchor: anchor)
                let r = try store.anchoredQuery(ds, anchor: anchor, rows: Self.layout, deleted: Self.deletedLayout, rowsFrom: 0)
                defer {
                    if let b = r.rows { r.spare?.give(b) }
                    if let d = r.deleted, let b = d.rows { d.spare.give(b) }
                }
                #expect(r.rows != nil, "\(what): records, not rows")
                #expect(plain.deletedObjects.count >= 100, "\(what): too few deletions")
                expectRows(r.deleted, kept: r.result.deletedObjects, fields(plain.deletedObjects), what)
                #expect(r.objects == plain.samples.count + plain.deletedObjects.count, "\(what): objects")
                #expect(r.result.newAnchor == plain.newAnchor, "\(what): anchor")
            }
        }
    }

    /// Read in parts, each part's deleted rows are the query's in order,
    /// and a part's block given back (as `ohk_batch_free` does) is a later
    /// part's: a large deleted read writes into the same pages, two blocks
    /// on one thread (a part of deleted objects only gives its samples'
    /// block back as it ends, and the two trade places), the spare's few
    /// on two (`PartsAhead`).
    @Test func eachPartsDeletedRowsAreTheQuerysInPieces() throws {
        let (store, saved) = try storeWithDeletions()
        defer { store.close() }
        let whole = fields(try store.anchoredQuery(type: steps, anchor: saved).deletedObjects)
        for ahead in [false, true] {
            store.tuning.partsAhead = ahead
            var blocks: Set<UnsafeMutableRawPointer> = []
            var read: [UUID] = []
            var parts = 0
            try store.anchoredQueryParts(type: steps, anchor: saved, part: 50, rows: Self.layout, deleted: Self.deletedLayout,
                                         rowsFrom: 0) { r in
                parts += 1
                guard let d = r.deleted else {
                    Issue.record("part \(parts): deleted objects as records")
                    return false
                }
                let from = read.count
                read += (0..<d.count).map { UUID(uuid: d.rows!.loadUnaligned(fromByteOffset: 64 * $0, as: uuid_t.self)) }
                expectRows(d, kept: r.result.deletedObjects, Array(whole[from..<min(whole.count, read.count)]), "part \(parts)")
                if let b = d.rows {
                    blocks.insert(b)
                    d.spare.give(b)
                }
                if let b = r.rows { r.spare?.give(b) }
                return true
            }
            #expect(read == whole.map(\.uuid))
            #expect(parts == whole.count / 50 + 1)
            #expect(blocks.count <= (ahead ? SpareBlock.slots : 2), "\(ahead ? "two threads" : "one"): \(blocks.count) blocks")
        }
    }

    /// A read of deleted objects after reads of samples writes its rows
    /// into the blocks the samples' rows were given back in (one spare
    /// for both, `SpareBlock`), not into fresh memory.
    @Test func deletedRowsTakeTheBlocksSamplesGaveBack() throws {
        let (store, saved) = try storeWithDeletions()
        defer { store.close() }
        store.tuning.partsAhead = false
        // Three parts' blocks held to the end of the read, then given back.
        var given: [UnsafeMutableRawPointer] = []
        try store.anchoredQueryParts(type: steps, anchor: nil, part: 50, rows: Self.layout, deleted: Self.deletedLayout,
                                     rowsFrom: 0) { r in
            given += r.rows.map { [$0] } ?? []
            return given.count < 3
        }
        for b in given { store.spareRows.give(b) }
        var first: UnsafeMutableRawPointer?
        try store.anchoredQueryParts(type: steps, anchor: saved, part: 50, rows: Self.layout, deleted: Self.deletedLayout,
                                     rowsFrom: 0) { r in
            first = r.deleted?.rows
            return false
        }
        #expect(Set(given).count == 3)
        #expect(first != nil && given.contains(first!), "the deleted rows' block is one the samples gave back")
    }

    /// A part of deleted objects only gives its samples' block back as it
    /// ends, for the next part's rows: the part's rows (none) are a
    /// stand-in the spare does not keep.
    @Test func aPartOfDeletedObjectsOnlyGivesItsSamplesBlockBack() throws {
        let (store, saved) = try storeWithDeletions()
        defer { store.close() }
        store.tuning.partsAhead = false
        store.spareRows.drop()
        var (keptDuringPart, count) = (-1, -1)
        try store.anchoredQueryParts(type: steps, anchor: saved, part: 50, rows: Self.layout, deleted: Self.deletedLayout,
                                     rowsFrom: 0) { r in
            (keptDuringPart, count) = (store.spareRows.count, r.count)
            if let b = r.rows { r.spare?.give(b) }
            if let d = r.deleted, let b = d.rows { d.spare.give(b) }
            return false
        }
        #expect(count == 0)
        #expect(keptDuringPart == 1)
        #expect(store.spareRows.count == 2, "the stand-in is freed; the deleted rows' block is kept")
    }

    /// Deleted objects of 70 sources, two each: the rows name each
    /// source once, in the order of first use, ids of 64 and more too.
    @Test func deletedRowsNameEachSourceOnce() throws {
        let store = try makeStore()
        defer { store.close() }
        let sources = (0..<70).map { Source(bundleIdentifier: "com.example.s\($0)", name: "S\($0)") }
        let samples = try (0..<140).map { try stepSample(1, minute: $0, source: sources[$0 % 70]) }
        try store.save(samples)
        let saved = try store.currentAnchor()
        try store.delete(uuids: samples.map(\.uuid))
        let plain = fields(try store.anchoredQuery(type: steps, anchor: saved).deletedObjects)
        let r = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: saved, rows: Self.layout, deleted: Self.deletedLayout, rowsFrom: 0)
        defer { if let d = r.deleted, let b = d.rows { d.spare.give(b) } }
        var order: [UInt32] = []
        for p in plain where !order.contains(p.sourceID) { order.append(p.sourceID) }
        #expect(order.count == 70 && order.max()! >= 64)
        #expect(r.deleted?.sourceIDs == order)
        expectRows(r.deleted, kept: r.result.deletedObjects, plain, "70 sources", synced: false)
    }

    /// Rule 23: a tombstone whose fields do not add up is an error to a
    /// rows query that writes deleted rows, as to a records query.
    @Test func rule23_aDamagedTombstoneIsAnErrorToADeletedRowsQuery() throws {
        let store = try makeStore()
        defer { store.close() }
        let samples = try (0..<300).map { try stepSample(Double($0), minute: $0) }
        try store.save(samples)
        try store.delete(uuids: [samples[7].uuid])
        let seq = try store.currentAnchor().position
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in
            var bytes = Array(try #require(try txn.get(t.records, u64: seq)))
            bytes[27] |= 0x20  // says it carries a UTC offset, which it lacks
            try txn.put(t.records, u64: seq, bytes)
        }
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: nil) } == .storeCorrupt)
        #expect(errorCode {
            _ = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, rows: Self.layout, deleted: Self.deletedLayout, rowsFrom: 0)
        } == .storeCorrupt)
    }
}
