import FoundationEssentials
import Glibc
import Synchronization
import Testing
@testable import OpenHealthKitCore

/// A query whose samples are written as rows while it reads
/// (`anchoredQuery(_:anchor:limit:rows:)`, what `ohk_store_fetch` does):
/// the same rows, records, deleted objects and anchor as the records
/// query laid out afterwards, for every kind of query.
@Suite struct RowsQueryTests {
    private static let layout = sampleRecordLayout
    /// A caller's own row, not the standard one: its fields in another
    /// order, with no gap between them (rows are compared byte for byte).
    /// Written through the layout's offsets, where the standard row's are
    /// constants.
    private static let otherLayout: SampleRowLayout = {
        var l = SampleRowLayout()
        (l.stride, l.creation, l.flags, l.utcOffset, l.start, l.end) = (64, 0, 8, 12, 16, 24)
        (l.value, l.typeIndex, l.sourceIndex, l.uuid) = (32, 40, 44, 48)
        return l
    }()

    private let workoutType = try! SampleType.named("HKWorkoutTypeIdentifier")
    /// The samples that start in minutes 600 to 2,400 of `filledStore`'s.
    private let since = SamplePredicate.dateRange(start: t0.addingTimeInterval(600 * 60),
                                                  end: t0.addingTimeInterval(2_400 * 60), options: .strictStartDate)

    /// Samples of three kinds, some with metadata, a device, a creation
    /// date, an offset; a workout (a payload); deletions between them.
    private func filledStore(_ n: Int, seed: UInt64) throws -> (Store, [QueryAnchor]) {
        let store = try makeStore(mapSize: 64 << 20)
        var rng = TestSupport.Rng(state: seed)
        var anchors: [QueryAnchor] = []
        var saved: [Sample] = []
        var batch: [Sample] = []
        for i in 0..<n {
            let start = t0.addingTimeInterval(Double(i) * 60)
            let s: Sample
            switch rng.int(10) {
            case 0:
                s = try Sample.workout(Workout(activityType: 52, duration: 600), start: start, end: start.addingTimeInterval(600),
                                       source: appB)
            case 1, 2:
                s = try Sample.category(sleep, value: rng.int(3), start: start, end: start.addingTimeInterval(30), source: appA,
                                        utcOffset: rng.chance(0.5) ? 3600 : nil)
            case 3:
                s = try Sample.quantity(heartRate, value: Double(60 + rng.int(60)) / 60, unit: HealthUnit("count/s"),
                                        start: start, end: start, source: appB, device: Device(name: "Watch \(rng.int(3))"))
            default:
                s = try Sample.quantity(steps, value: Double(rng.int(500)), unit: HealthUnit("count"), start: start,
                                        end: start.addingTimeInterval(60), source: rng.chance(0.5) ? appA : appB,
                                        metadata: rng.chance(0.2) ? ["HKWasUserEntered": .bool(true)] : [:],
                                        creationDate: rng.chance(0.3) ? start.addingTimeInterval(0.25) : nil,
                                        utcOffset: rng.chance(0.3) ? -18_000 : nil)
            }
            batch.append(s)
            if batch.count == 97 || i == n - 1 {
                try store.save(batch)
                saved += batch
                batch = []
                anchors.append(try store.currentAnchor())
                if saved.count > 40 {
                    let gone = (0..<5).map { _ in saved.remove(at: rng.int(saved.count)).uuid }
                    try store.delete(uuids: gone)
                }
            }
        }
        return (store, anchors)
    }

    /// The records query's samples as rows, numbered as a fetch numbers
    /// its sources (by first use).
    private func expectedRows(_ r: AnchoredQueryResult, _ layout: SampleRowLayout = Self.layout) -> (rows: [UInt8], sources: [UInt32]) {
        var order: [UInt32] = []
        r.samples.forEachSourceID { if !order.contains($0) { order.append($0) } }
        var numbers = [UInt32](repeating: .max, count: Int(order.max() ?? 0) + 1)
        for (k, id) in order.enumerated() { numbers[Int(id)] = UInt32(k) }
        var rows = [UInt8](repeating: 0, count: r.samples.count * layout.stride)
        if r.samples.count > 0 {
            rows.withUnsafeMutableBytes { out in
                numbers.withUnsafeBufferPointer { r.samples.writeRows(0..<r.samples.count, into: out.baseAddress!, layout,
                                                                      sourceNumbers: $0.baseAddress!) }
            }
        }
        return (rows, order)
    }

    private func expectSame(_ descriptors: [QueryDescriptor], _ anchor: QueryAnchor?, limit: Int, in store: Store,
                            _ what: String, layout: SampleRowLayout = Self.layout) throws {
        let plain = descriptors.count == 1 && descriptors[0].predicate == nil
            ? try store.anchoredQuery(type: descriptors[0].type, anchor: anchor, limit: limit)
            : try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        let r = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit, rows: layout, rowsFrom: 0)
        guard let block = r.rows else {
            Issue.record("\(what): records, not rows")
            return
        }
        defer { free(block) }
        let (rows, order) = expectedRows(plain, layout)
        #expect(r.count == plain.samples.count, "\(what)")
        #expect(Array(UnsafeRawBufferPointer(start: block, count: r.count * layout.stride)) == rows, "\(what): rows")
        #expect(r.sourceOrder == order, "\(what): sources")
        // The kept records: those whose rows leave fields out, and only those.
        let all = Array(plain.samples)
        let kept = all.indices.filter { i in
            !all[i].metadata.isEmpty || all[i].device != nil
                || { if case .quantity = all[i].value { return false }; if case .category = all[i].value { return false }; return true }()
        }
        #expect(r.recordRows.map(Int.init) == kept, "\(what): kept rows")
        #expect(Array(r.result.samples).map(\.uuid) == kept.map { all[$0].uuid }, "\(what): kept records")
        #expect(Array(r.result.samples) == kept.map { all[$0] }, "\(what): kept records' fields")
        #expect(r.result.deletedObjects.map(\.uuid) == plain.deletedObjects.map(\.uuid), "\(what): deleted")
        #expect(r.result.newAnchor == plain.newAnchor, "\(what): anchor")
    }

    @Test func rowsAreTheRecordsLaidOutForEveryKindOfQuery() throws {
        let (store, anchors) = try filledStore(3_000, seed: 54)
        defer { store.close() }
        let kinds: [(String, [QueryDescriptor])] = [
            ("steps", [QueryDescriptor(type: steps)]),
            ("heart rate", [QueryDescriptor(type: heartRate)]),
            ("workouts", [QueryDescriptor(type: workoutType)]),
            ("steps by start", [QueryDescriptor(type: steps, predicate: since)]),
            ("three types", [QueryDescriptor(type: steps), QueryDescriptor(type: sleep), QueryDescriptor(type: workoutType)]),
            ("two types, one by start", [QueryDescriptor(type: heartRate, predicate: since), QueryDescriptor(type: steps)]),
        ]
        for (name, ds) in kinds {
            for anchor in [nil, anchors[3], anchors[anchors.count / 2], anchors.last!] {
                for limit in [0, 1, 50] {
                    try expectSame(ds, anchor, limit: limit, in: store, "\(name) from \(String(describing: anchor?.position)), limit \(limit)")
                }
            }
        }
    }

    /// A layout other than the standard row's gets the same fields, in
    /// its own places.
    @Test func aCallersOwnLayoutGetsTheSameRows() throws {
        let (store, anchors) = try filledStore(1_000, seed: 75)
        defer { store.close() }
        for anchor in [nil, anchors[2]] {
            for limit in [0, 50] {
                try expectSame([QueryDescriptor(type: steps)], anchor, limit: limit, in: store,
                               "steps from \(String(describing: anchor?.position)), limit \(limit)", layout: Self.otherLayout)
                try expectSame([QueryDescriptor(type: steps), QueryDescriptor(type: sleep)], anchor, limit: limit, in: store,
                               "two types", layout: Self.otherLayout)
            }
        }
    }

    /// Below `rowsFrom` samples at most (by the plan's bound, not the
    /// result), a fetch keeps its records: the same result as the records
    /// query.
    @Test func aQueryBoundBelowRowsFromKeepsItsRecords() throws {
        let (store, anchors) = try filledStore(600, seed: 3)
        defer { store.close() }
        let ds = [QueryDescriptor(type: steps)]
        let plain = try store.anchoredQuery(type: steps, anchor: anchors[anchors.count - 2])
        let bound = try store.anchoredQuery(type: steps, anchor: nil).samples.count
        let delta = try store.anchoredQuery(ds, anchor: anchors[anchors.count - 2], rows: Self.layout, rowsFrom: 200)
        #expect(delta.rows == nil, "a delta of \(plain.samples.count) made rows")
        #expect(Array(delta.result.samples) == Array(plain.samples) && delta.result.newAnchor == plain.newAnchor)
        // From the start the bound is every stored object: rows.
        let all = try store.anchoredQuery(ds, anchor: nil, rows: Self.layout, rowsFrom: 200)
        #expect(all.rows != nil, "a full read of \(bound) kept its records")
        free(all.rows)
        #expect(all.count == bound)
    }

    /// Damages the last step count saved so that its fields do not add up:
    /// it says it carries a UTC offset, which it lacks.
    private func damageLastStep(_ store: Store) throws {
        let seq = try store.currentAnchor().position
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        try store.env.write { txn in
            var bytes = Array(try #require(try txn.get(t.records, u64: seq)))
            bytes[27] |= 0x20
            try txn.put(t.records, u64: seq, bytes)
        }
    }

    /// Rule 23: a record damaged so that its fields do not add up is an
    /// error to a rows query, as to a records query, even when its row
    /// would not need the record.
    @Test func rule23_aDamagedRecordIsAnErrorToARowsQuery() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save(try (0..<300).map { try stepSample(Double($0), minute: $0) })
        try damageLastStep(store)
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: nil) } == .storeCorrupt)
        #expect(errorCode {
            _ = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, rows: Self.layout, rowsFrom: 0)
        } == .storeCorrupt)
    }

    /// A part's sample UUIDs, read from its rows (its block then goes back
    /// to the store, as `ohk_batch_free` gives it) or from its records.
    private func sampleUUIDs(_ r: RowsQueryResult) -> [UUID] {
        guard let b = r.rows else { return r.result.samples.map(\.uuid) }
        defer { r.spare?.give(b) }
        return (0..<r.count).map { i in UUID(uuid: b.load(fromByteOffset: 64 * i, as: uuid_t.self)) }
    }

    /// Rule 75: a query in parts hands on what the query returns, in its
    /// order, `part` objects a part but the last, which is shorter and has
    /// the query's anchor; each part's anchor continues where it ended.
    @Test func rule75_aQueryInPartsIsTheQueryInPieces() throws {
        let (store, anchors) = try filledStore(3_000, seed: 75)
        defer { store.close() }
        let kinds: [(String, [QueryDescriptor])] = [
            ("steps", [QueryDescriptor(type: steps)]),
            ("steps by start", [QueryDescriptor(type: steps, predicate: since)]),
            ("three types", [QueryDescriptor(type: steps), QueryDescriptor(type: sleep), QueryDescriptor(type: workoutType)]),
        ]
        for (name, ds) in kinds {
            for anchor in [nil, anchors[3], anchors[anchors.count / 2]] {
                for part in [1, 97, 5_000] {
                    let what = "\(name) from \(String(describing: anchor?.position)) in parts of \(part)"
                    let whole = try store.anchoredQuery(ds, anchor: anchor)
                    var samples: [UUID] = [], deleted: [UUID] = [], kept: [UUID] = []
                    var last: RowsQueryResult?
                    var parts = 0
                    try store.anchoredQueryParts(ds, anchor: anchor, part: part, rows: Self.layout, rowsFrom: 0) { r in
                        #expect(last.map { $0.count + $0.result.deletedObjects.count == part } ?? true, "\(what): a short part before")
                        kept += r.rows == nil ? [] : r.result.samples.map(\.uuid)
                        samples += sampleUUIDs(r)
                        deleted += r.result.deletedObjects.map(\.uuid)
                        parts += 1
                        if let l = last, l.count + l.result.deletedObjects.count == part {
                            // The part before ended at its anchor; this one starts after it.
                            let next = try store.anchoredQuery(ds, anchor: l.result.newAnchor, limit: part)
                            #expect(next.samples.map(\.uuid) == Array(samples.suffix(r.count)), "\(what)")
                        }
                        last = r
                        return true
                    }
                    #expect(samples == whole.samples.map(\.uuid), "\(what): samples")
                    #expect(deleted == whole.deletedObjects.map(\.uuid), "\(what): deleted")
                    #expect(Set(kept).isSubset(of: Set(samples)), "\(what): kept records")
                    #expect(last?.result.newAnchor == whole.newAnchor, "\(what): anchor")
                    let objects = whole.samples.count + whole.deletedObjects.count
                    #expect(parts == objects / part + 1, "\(what): \(parts) parts for \(objects) objects")
                }
            }
        }
    }

    /// Rule 75 with each plan: a read in parts plans once, and each later
    /// part reads the first part's positions or zone spans from its own
    /// start. The parts still give what the query gives.
    @Test func rule75_laterPartsReadTheFirstPartsPlanFromTheirStart() throws {
        let (store, anchors) = try filledStore(3_000, seed: 76)
        defer { store.close() }
        let since = SamplePredicate.dateRange(start: t0.addingTimeInterval(300 * 60), end: t0.addingTimeInterval(2_700 * 60),
                                              options: .strictStartDate)
        let ds = [QueryDescriptor(type: steps, predicate: since), QueryDescriptor(type: heartRate, predicate: since)]
        for plan in [QueryPlan.startIndex, .zoneMap, .changeOrder] {
            store.tuning.planOverride = plan
            defer { store.tuning.planOverride = nil }
            for anchor in [nil, anchors[4]] {
                let whole = try store.anchoredQuery(ds, anchor: anchor)
                var samples: [UUID] = [], deleted: [UUID] = []
                var last: QueryAnchor?
                try store.anchoredQueryParts(ds, anchor: anchor, part: 61, rows: Self.layout, rowsFrom: 0) { r in
                    samples += sampleUUIDs(r)
                    deleted += r.result.deletedObjects.map(\.uuid)
                    last = r.result.newAnchor
                    return true
                }
                let what = "\(plan) from \(String(describing: anchor?.position))"
                #expect(whole.samples.count > 200, "\(what): too few samples to need parts")
                #expect(samples == whole.samples.map(\.uuid), "\(what): samples")
                #expect(deleted == whole.deletedObjects.map(\.uuid), "\(what): deleted")
                #expect(last == whole.newAnchor, "\(what): anchor")
            }
        }
    }

    /// Rule 75: every part is read in the snapshot of the first; a save
    /// committed between two parts is after the last part's anchor. On
    /// one thread, and on two (`PartsAhead`): a save after the first part
    /// keeps the read on one (no second transaction of the snapshot can
    /// be had), a save after the third is made while both threads read.
    @Test func rule75_thePartsReadOneSnapshot() throws {
        for (ahead, savedAfter) in [(false, 0), (true, 0), (true, 300)] {
            let store = try makeStore()
            defer { store.close() }
            try store.save(try (0..<1_000).map { try stepSample(Double($0), minute: $0) })
            store.tuning.partsAhead = ahead
            var seen = 0
            var last: QueryAnchor?
            try store.anchoredQueryParts(type: steps, anchor: nil, part: 100, rows: Self.layout, rowsFrom: 0) { r in
                seen += r.count
                if seen == savedAfter + 100 {
                    // Another thread's save, committed before the next part is read.
                    let more = try (0..<7).map { try stepSample(1, minute: 5_000 + $0) }
                    pthread_join(startThread { try! store.save(more) }, nil)
                }
                last = r.result.newAnchor
                if let b = r.rows { r.spare?.give(b) }
                return true
            }
            let what = "\(ahead ? "two threads" : "one"), saved after \(savedAfter)"
            #expect(seen == 1_000, "\(what)")
            #expect(try store.anchoredQuery(type: steps, anchor: last).samples.count == 7, "\(what)")
            #expect((store.partsAskedAhead.load(ordering: .relaxed) > 0) == (ahead && savedAfter > 0), "\(what)")
        }
    }

    /// A rows block given back (as `ohk_batch_free` does) is the store's
    /// next rows block, whose pages are written already; its rows are the
    /// next query's own.
    @Test func aFreedRowsBlockIsTheStoresNextRowsBlock() throws {
        let (store, anchors) = try filledStore(600, seed: 11)
        defer { store.close() }
        let ds = [QueryDescriptor(type: steps)]
        let first = try store.anchoredQuery(ds, anchor: nil, rows: Self.layout, rowsFrom: 0)
        let block = try #require(first.rows)
        try #require(first.spare).give(block)
        let anchor = anchors[anchors.count / 2]
        let later = try store.anchoredQuery(ds, anchor: anchor, rows: Self.layout, rowsFrom: 0)
        #expect(later.rows == block)
        let (rows, _) = expectedRows(try store.anchoredQuery(type: steps, anchor: anchor))
        #expect(later.count > 0 && Array(UnsafeRawBufferPointer(start: later.rows, count: later.count * 64)) == rows)
        if let b = later.rows { try #require(later.spare).give(b) }
    }

    /// A kept block too small for a query is left for a later one; a block
    /// larger than `SpareBlock.maxBytes`, or under `SpareBlock.minBytes`,
    /// is freed, not kept.
    @Test func aSpareBlockServesOnlyQueriesItFits() {
        let spare = SpareBlock()
        let small = malloc(4096)!
        spare.give(small)
        let large = spare.take(1 << 20)
        #expect(large != small)
        #expect(spare.take(1_000) == small)
        free(large)
        free(small)
        let huge = malloc(SpareBlock.maxBytes + 4096)!
        spare.give(huge)
        #expect(spare.count == 0)
        spare.give(malloc(SpareBlock.minBytes / 2)!)
        #expect(spare.count == 0, "a block under SpareBlock.minBytes is freed, not kept")
    }

    /// Rule 23 in a read large enough for a second thread to write the
    /// rows: the scan still finds the damaged record, past the rows it
    /// writes itself, before it hands the record on.
    @Test func rule23_aDamagedRecordIsAnErrorToALargeRowsQuery() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        let n = ColumnPipeline.threshold + 1_000
        try store.save(try (0..<n).map { try stepSample(Double($0 % 1_000), minute: $0) })
        try damageLastStep(store)
        #expect(errorCode {
            _ = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, rows: Self.layout, rowsFrom: 0)
        } == .storeCorrupt)
    }

    /// Past 65,536 rows the rows are written on a second thread.
    @Test func aLargeReadWritesTheSameRowsOnASecondThread() throws {
        let (store, _) = try filledStore(120_000, seed: 7)
        defer { store.close() }
        try expectSame([QueryDescriptor(type: steps)], nil, limit: 0, in: store, "a large read")
        try expectSame([QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)], nil, limit: 0, in: store,
                       "a large read of two types")
        try expectSame([QueryDescriptor(type: steps)], nil, limit: 0, in: store, "a large read, a caller's own layout",
                       layout: Self.otherLayout)
    }
}
