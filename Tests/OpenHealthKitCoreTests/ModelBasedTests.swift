import FoundationEssentials
import Testing
import Glibc
@testable import OpenHealthKitCore

/// Random interleavings of saves, deletes, sync replacements, prunes and
/// batched anchored reads, checked against a plain in-memory model of the
/// rules; a consumer applying every batch must end with the model's set.
/// A failure names its seed: rerun with OHK_MODEL_SEED=<seed>.
@Suite struct ModelBased {
    typealias Rng = TestSupport.Rng

    /// What the model keeps of an object (as a sample or a tombstone).
    struct Object {
        let uuid: UUID
        let type: Int
        let minute: Int
        let value: Double
        let source: Int
        let sync: (String, Double)?
    }
    struct Entry { let seq: UInt64; let object: Object; let tomb: Bool }

    struct Model {
        var entries: [Entry] = []  // in seq order
        var head: UInt64 = 0
        var horizon: UInt64 = 0
        var known: Set<UUID> = []  // live or retained tombstone

        func live(_ u: UUID) -> Entry? { entries.first { $0.object.uuid == u && !$0.tomb } }

        mutating func tombstone(_ u: UUID) {
            let i = entries.firstIndex { $0.object.uuid == u && !$0.tomb }!
            let o = entries.remove(at: i).object
            head += 1
            entries.append(Entry(seq: head, object: o, tomb: true))
        }

        /// Rule 14, then a plain save.
        mutating func save(_ o: Object) -> SaveOutcome {
            var outcome = SaveOutcome.saved
            if let (id, v) = o.sync,
               let old = entries.first(where: { !$0.tomb && $0.object.source == o.source && $0.object.sync?.0 == id }) {
                guard v > old.object.sync!.1 else { return .notSavedOlderVersion(existing: old.object.uuid) }
                tombstone(old.object.uuid)
                outcome = .replaced(old.object.uuid)
            }
            head += 1
            entries.append(Entry(seq: head, object: o, tomb: false))
            known.insert(o.uuid)
            return outcome
        }
    }

    static let types = [steps, heartRate]
    static let units = [try! HealthUnit("count"), try! HealthUnit("count/min")]  // plausible heart rates (rule 56)
    static let sources = [appA, appB, Source(bundleIdentifier: "com.example.c", name: "C")]

    static func sample(_ o: Object) throws -> Sample {
        var md: [String: MetadataValue] = [:]
        if let (id, v) = o.sync { md = synced(id, v) }
        return try Sample.quantity(types[o.type], value: o.value, unit: units[o.type],
                                   start: t0.addingTimeInterval(Double(o.minute) * 60),
                                   end: t0.addingTimeInterval(Double(o.minute) * 60 + 60),
                                   source: sources[o.source], metadata: md, uuid: o.uuid)
    }

    static func randomPredicate(_ r: inout Rng, singleType: Int?, depth: Int = 0) -> SamplePredicate {
        switch r.int(depth > 1 ? 3 : 6) {
        case 0: return .startDate([.lessThan, .greaterThanOrEqual, .equal][r.int(3)], t0.addingTimeInterval(Double(r.int(40) * 60)))
        case 1: return .sources(Set((0..<r.int(3)).map { _ in sources[r.int(3)].bundleIdentifier }))
        case 2:
            if let t = singleType { return .quantity([.lessThan, .greaterThan][r.int(2)], Double(r.int(100)), units[t]) }
            return .startDate(.greaterThan, t0.addingTimeInterval(Double(r.int(40) * 60)))
        case 3: return .not(randomPredicate(&r, singleType: singleType, depth: depth + 1))
        case 4: return .and([randomPredicate(&r, singleType: singleType, depth: depth + 1), randomPredicate(&r, singleType: singleType, depth: depth + 1)])
        default: return .or([randomPredicate(&r, singleType: singleType, depth: depth + 1), randomPredicate(&r, singleType: singleType, depth: depth + 1)])
        }
    }

    /// The model's own three-valued evaluation (rule 8), written from the
    /// rules, not from the engine.
    static func eval(_ p: SamplePredicate, _ e: Entry) -> Truth {
        let o = e.object
        switch p {
        case .startDate(let op, let d): return Truth(op.holds(t0.addingTimeInterval(Double(o.minute) * 60), d))
        case .sources(let set): return Truth(set.contains(sources[o.source].bundleIdentifier))
        case .quantity(let op, let v, _): return e.tomb ? .unknown : Truth(op.holds(o.value, v))
        case .not(let q): return !eval(q, e)
        case .and(let qs):
            let ts = qs.map { eval($0, e) }
            return ts.contains(.no) ? .no : ts.contains(.unknown) ? .unknown : .yes
        case .or(let qs):
            let ts = qs.map { eval($0, e) }
            return ts.contains(.yes) ? .yes : ts.contains(.unknown) ? .unknown : .no
        default: fatalError("not generated")
        }
    }

    static func runCase(seed: UInt64, operations: Int, uuidTuning: UUIDIndex.Tuning = UUIDIndex.Tuning(),
                        oneUUIDBucket: Bool = false) throws {
        var r = Rng(state: seed)
        let store = try makeStore()
        store.tuning.uuidIndex = uuidTuning
        store.tuning.uuidHash = UUIDHash(storeID: store.storeID, collideAll: oneUUIDBucket)
        defer { store.close() }
        var m = Model()
        var anchors: [(QueryAnchor, UInt64)] = []  // anchor, horizon when handed out
        var consumerAnchor: QueryAnchor?
        var consumerSet: Set<UUID> = []
        var nextMinute = 0
        var pruned: [UUID] = []  // free to be saved again

        func newObject() -> Object {
            nextMinute += 1
            let sync: (String, Double)? = r.chance(0.3) ? (["a", "b", "c"][r.int(3)], Double(1 + r.int(4))) : nil
            return Object(uuid: UUID(), type: r.int(2), minute: r.int(40), value: Double(r.int(100)), source: r.int(3), sync: sync)
        }

        for _ in 0..<operations {
            switch r.int(10) {
            case 0, 1, 2:  // save a batch
                var batch = (0..<(1 + r.int(4))).map { _ in newObject() }
                if !pruned.isEmpty, r.chance(0.2) {
                    let o = batch[0]
                    batch[0] = Object(uuid: pruned.remove(at: r.int(pruned.count)), type: o.type, minute: o.minute,
                                      value: o.value, source: o.source, sync: o.sync)
                }
                if r.chance(0.1), let dup = m.known.randomElement(using: &r) {
                    let o = batch[0]
                    batch.append(Object(uuid: dup, type: o.type, minute: o.minute, value: o.value, source: o.source, sync: nil))
                    let head = try store.currentAnchor().position
                    #expect(errorCode { try store.save(batch.map(sample)) } == .duplicateUUID, "seed \(seed)")
                    #expect(try store.currentAnchor().position == head, "seed \(seed)")
                    break
                }
                let outcomes = try store.save(batch.map(sample))
                let expected = batch.map { m.save($0) }
                #expect(outcomes == expected, "seed \(seed)")
            case 3:  // delete some live samples, sometimes with an unknown uuid
                let live = m.entries.filter { !$0.tomb }.map(\.object.uuid)
                guard !live.isEmpty else { break }
                let victims = Array(Set((0..<(1 + r.int(3))).map { _ in live[r.int(live.count)] }))
                if r.chance(0.15) {
                    #expect(errorCode { try store.delete(uuids: victims + [UUID()]) } == .notFound, "seed \(seed)")
                    break
                }
                try store.delete(uuids: victims)
                for v in victims { m.tombstone(v) }
            case 4:  // delete by type + predicate
                let t = r.int(2)
                let p = randomPredicate(&r, singleType: t)
                let victims = m.entries.filter { !$0.tomb && $0.object.type == t && eval(p, $0) == .yes }.map(\.object.uuid)
                #expect(try store.delete(type: types[t], predicate: p) == victims.count, "seed \(seed)")
                for v in victims { m.tombstone(v) }
            case 5:  // prune everything
                if r.chance(0.3) {
                    let dropped = m.entries.filter(\.tomb)
                    #expect(try store.pruneAll() == dropped.count, "seed \(seed)")
                    if let newest = dropped.map(\.seq).max() { m.horizon = max(m.horizon, newest) }
                    m.entries.removeAll(where: \.tomb)
                    for d in dropped { m.known.remove(d.object.uuid) }
                    pruned += dropped.map(\.object.uuid)
                }
            case 6, 7:  // a checked query
                let typeSet = [[0], [1], [0, 1]][r.int(3)]
                let p: SamplePredicate? = r.chance(0.4) ? nil : randomPredicate(&r, singleType: typeSet.count == 1 ? typeSet[0] : nil)
                let limit = r.int(8)
                let pick = anchors.isEmpty || r.chance(0.2) ? nil : anchors[r.int(anchors.count)]
                let from = pick?.0.position ?? 0
                if let (a, h) = pick, m.horizon > max(a.position, h) {
                    #expect(errorCode { _ = try store.anchoredQuery(typeSet.map { QueryDescriptor(type: types[$0], predicate: p) }, anchor: a, limit: limit) } == .anchorExpired, "seed \(seed)")
                    break
                }
                var want = m.entries.filter { $0.seq > from && typeSet.contains($0.object.type) }
                want = want.filter { e in
                    guard let p else { return true }
                    let t = eval(p, e)
                    return t == .yes || (e.tomb && t == .unknown)
                }
                let cut = limit > 0 && want.count >= limit
                if limit > 0 { want = Array(want.prefix(limit)) }
                let got = try store.anchoredQuery(typeSet.map { QueryDescriptor(type: types[$0], predicate: p) }, anchor: pick?.0, limit: limit)
                #expect(got.sampleUUIDs == want.filter { !$0.tomb }.map(\.object.uuid), "seed \(seed)")
                #expect(got.deletedUUIDs == want.filter(\.tomb).map(\.object.uuid), "seed \(seed)")
                #expect(got.newAnchor.position == (cut ? want.last!.seq : m.head), "seed \(seed)")
                anchors.append((got.newAnchor, m.horizon))
            default:  // the consumer reads one batch
                try consume(store, &consumerAnchor, &consumerSet, limit: 1 + r.int(5))
            }
        }
        while try consume(store, &consumerAnchor, &consumerSet, limit: 3) {}
        let modelLive = Set(m.entries.filter { !$0.tomb }.map(\.object.uuid))
        #expect(consumerSet == modelLive, "seed \(seed)")
    }

    /// Applies one batch to the consumer's set; restarts from nil when its
    /// anchor expired. Returns whether the batch had anything.
    @discardableResult
    static func consume(_ store: Store, _ anchor: inout QueryAnchor?, _ set: inout Set<UUID>, limit: Int) throws -> Bool {
        let descriptors = types.map { QueryDescriptor(type: $0) }
        let r: AnchoredQueryResult
        do {
            r = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        } catch let e as OHKError where e.code == .anchorExpired {
            anchor = nil
            set = []
            return true
        }
        for s in r.samples { set.insert(s.uuid) }
        for d in r.deletedObjects { set.remove(d.uuid) }
        anchor = r.newAnchor
        return !(r.samples.isEmpty && r.deletedObjects.isEmpty)
    }

    @Test func randomInterleavingsMatchTheModel() throws {
        let env = getenv("OHK_MODEL_SEED").map { String(cString: $0) }
        if let env, let seed = UInt64(env) {
            try Self.runCase(seed: seed, operations: 60)
            return
        }
        for c in 0..<UInt64(1000) { try Self.runCase(seed: 0xC0FFEE &+ c, operations: 30) }
    }

    /// The same with the UUID index's runs tiny: every save of two or more
    /// samples writes a run, and a fourth run merges them all (`UUIDIndex`).
    @Test func randomInterleavingsMatchTheModelWithUUIDRuns() throws {
        let tiny = UUIDIndex.Tuning(runThreshold: 2, maxRuns: 3)
        let env = getenv("OHK_MODEL_SEED").map { String(cString: $0) }
        if let env, let seed = UInt64(env) {
            try Self.runCase(seed: seed, operations: 60, uuidTuning: tiny)
            return
        }
        for c in 0..<UInt64(600) { try Self.runCase(seed: 0xBEEF &+ c, operations: 40, uuidTuning: tiny) }
    }

    /// The same with merges of runs one entry a transaction: a merge is
    /// under way across most operations, its run holding a prefix of the
    /// merged runs' entries (`UUIDIndex.MergePlan`).
    @Test func randomInterleavingsMatchTheModelWithMergesInSteps() throws {
        let steps = UUIDIndex.Tuning(runThreshold: 2, maxRuns: 2, mergeStepEntries: 1)
        for c in 0..<UInt64(400) { try Self.runCase(seed: 0x57E9 &+ c, operations: 40, uuidTuning: steps) }
    }

    /// The same with every UUID in one bucket of the index's hash, with
    /// one filter (`UUIDHash.collideAll`): each entry found is confirmed
    /// against its record, so UUIDs are told apart by the records alone,
    /// across types, for tombstones, and beside runs (rules 13, 15, 16).
    @Test func randomInterleavingsMatchTheModelWithEveryUUIDInOneBucket() throws {
        let tiny = UUIDIndex.Tuning(runThreshold: 2, maxRuns: 3)
        for c in 0..<UInt64(300) {
            try Self.runCase(seed: 0xB0C4 &+ c, operations: 40, oneUUIDBucket: true)
            try Self.runCase(seed: 0xB0C5 &+ c, operations: 40, uuidTuning: tiny, oneUUIDBucket: true)
        }
    }
}

extension Set {
    func randomElement(using r: inout ModelBased.Rng) -> Element? {
        isEmpty ? nil : self[index(startIndex, offsetBy: r.int(count))]
    }
}
