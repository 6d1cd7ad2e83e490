import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// Issue 4, item 3: the planner. Whichever way a query reads (the change
/// order from the anchor, the start index, or UUID lookups), it returns
/// the same samples, deleted objects, order and new anchor.
@Suite struct Planner {
    typealias Rng = ModelBased.Rng

    @Test func startIndexAndChangeOrderAgreeOnRandomStores() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(stores) {
            var r = Rng(state: seed &* 7919 &+ 1)
            let (store, anchors, _) = try randomStore(&r, otherType: false)
            defer { store.close() }
            for _ in 0..<10 {
                let p = randomStartPredicate(&r)
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.5) ? 0 : 1 + r.int(30)
                try expectPathsAgree(store, forcing: .startIndex, p, anchor, limit, seed)
            }
        }
    }

    /// The UUID-lookup path against the change-order walk: predicates that
    /// name live, deleted, pruned, other-type and unknown UUIDs, alone or
    /// in AND / OR, from random anchors with random limits.
    @Test func uuidLookupAndChangeOrderAgreeOnRandomStores() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(stores) {
            var r = Rng(state: seed &* 104_729 &+ 3)
            let (store, anchors, saved) = try randomStore(&r, otherType: true)
            defer { store.close() }
            let known = saved + [UUID(), UUID()]  // two never saved
            for _ in 0..<10 {
                func some() -> SamplePredicate { .uuids(Set((0..<(1 + r.int(6))).map { _ in known[r.int(known.count)] })) }
                let p: SamplePredicate
                switch r.int(4) {
                case 0: p = some()
                case 1: p = .and([some(), .quantity(.greaterThan, Double(r.int(100)), try HealthUnit("count"))])
                case 2: p = .or([some(), some()])
                default: p = .and([.sources([appA.bundleIdentifier]), .or([some(), some()])])
                }
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.5) ? 0 : 1 + r.int(5)
                try expectPathsAgree(store, forcing: .uuidLookup, p, anchor, limit, seed)
            }
        }
    }

    /// Several descriptors: each type's stream takes its own plan (the
    /// start index, UUID lookups or the walk) and the streams merge in
    /// store order, as the walk of every stream does.
    @Test func severalDescriptorsPlanEachStreamAndAgreeWithTheWalk() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(stores) {
            var r = Rng(state: seed &* 65_537 &+ 5)
            let (store, anchors, saved) = try randomStore(&r, otherType: true)
            defer { store.close() }
            for _ in 0..<10 {
                func some() -> SamplePredicate { .uuids(Set((0..<(1 + r.int(4))).map { _ in saved[r.int(saved.count)] })) }
                func any(_ unit: String) -> SamplePredicate? {
                    switch r.int(4) {
                    case 0: return nil
                    case 1: return some()
                    default: return randomStartPredicate(&r, unit: unit)
                    }
                }
                var descriptors = [QueryDescriptor(type: steps, predicate: any("count")),
                                   QueryDescriptor(type: heartRate, predicate: any("count/min"))]
                if r.chance(0.3) { descriptors.append(QueryDescriptor(type: steps, predicate: any("count"))) }
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.5) ? 0 : 1 + r.int(10)
                for plan in [QueryPlan.startIndex, .uuidLookup] {
                    try expectPathsAgree(store, forcing: plan, descriptors, anchor, limit, seed)
                }
            }
        }
    }

    /// One type without a predicate reads its change order directly (no
    /// streams, no planner): it agrees with the general scan, which the
    /// same type named twice takes, from random anchors with random limits,
    /// on stores with deletions, prunes and a type never saved.
    @Test func oneTypeWithoutPredicateAgreesWithTheGeneralScan() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(stores) {
            var r = Rng(state: seed &* 2_147_483_647 &+ 13)
            let (store, anchors, _) = try randomStore(&r, otherType: r.chance(0.5))
            defer { store.close() }
            for _ in 0..<10 {
                let type = r.chance(0.8) ? steps : heartRate
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.5) ? 0 : 1 + r.int(10)
                let direct = try store.anchoredQuery([QueryDescriptor(type: type, predicate: nil)], anchor: anchor, limit: limit)
                let scanned = try store.anchoredQuery([QueryDescriptor(type: type, predicate: nil),
                                                       QueryDescriptor(type: type, predicate: nil)], anchor: anchor, limit: limit)
                #expect(direct.sampleUUIDs == scanned.sampleUUIDs, "seed \(seed)")
                #expect(direct.samples.types == scanned.samples.types, "seed \(seed)")
                #expect(direct.deletedUUIDs == scanned.deletedUUIDs, "seed \(seed)")
                #expect(direct.newAnchor == scanned.newAnchor, "seed \(seed)")
            }
        }
    }

    /// The zone map against the walk, on stores of several blocks: mostly
    /// time-ordered saves with backfilled ones, two types, deletions and
    /// prunes; start ranges (alone, in AND / OR, with other terms) from
    /// random anchors with random limits, one type or two.
    @Test func zoneMapAndChangeOrderAgreeOnRandomStores() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(max(1, stores / 10)) {
            var r = Rng(state: seed &* 31_337 &+ 11)
            let (store, anchors, minutes) = try blockStore(&r)
            defer { store.close() }
            for _ in 0..<20 {
                func when() -> Date { t0.addingTimeInterval(Double(r.int(minutes + 60) - 30) * 60) }
                func range() -> SamplePredicate {
                    r.chance(0.5) ? .dateRange(start: when(), end: when(), options: .strictStartDate)
                        : .and([.startDate(.greaterThanOrEqual, when()), .startDate(.lessThan, when())])
                }
                var p = range()
                switch r.int(4) {
                case 0: p = .or([p, range()])
                case 1: p = .and([p, .sources([appA.bundleIdentifier])])
                default: break
                }
                var descriptors = [QueryDescriptor(type: steps, predicate: p)]
                if r.chance(0.3) { descriptors.append(QueryDescriptor(type: heartRate, predicate: range())) }
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.6) ? 0 : 1 + r.int(300)
                try expectPathsAgree(store, forcing: .zoneMap, descriptors, anchor, limit, seed)
            }
        }
    }

    /// A store spanning several zone-map blocks (4,096 positions each); the
    /// anchors handed out while it was filled that are still valid, and
    /// the minutes its starts span.
    private func blockStore(_ r: inout Rng) throws -> (Store, [QueryAnchor?], Int) {
        let store = try makeStore(mapSize: 64 << 20)
        var live: [UUID] = []
        var anchors: [QueryAnchor?] = [nil]
        var minute = 0
        for _ in 0..<(5 + r.int(4)) {
            switch r.int(5) {
            case 0 where live.count > 100:
                var victims: Set<UUID> = []
                for _ in 0..<(1 + r.int(300)) { victims.insert(live[r.int(live.count)]) }
                try store.delete(uuids: Array(victims))
                live.removeAll { victims.contains($0) }
            case 1 where r.chance(0.5):
                try store.prune(deletedBefore: Date())
                anchors = [nil]  // older anchors may have expired (rule 16)
            default:
                var batch: [Sample] = []
                for _ in 0..<(1000 + r.int(3000)) {
                    // Mostly in time order; one in ten backfills an earlier minute.
                    let m = r.chance(0.9) ? minute : r.int(max(1, minute))
                    minute += 1
                    if r.chance(0.2) {
                        let start = t0.addingTimeInterval(Double(m) * 60)
                        batch.append(try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"),
                                                         start: start, end: start, source: appB))
                    } else {
                        batch.append(try stepSample(1, minute: m, source: r.chance(0.5) ? appA : appB))
                    }
                }
                try store.save(batch)
                live += batch.map(\.uuid)
            }
            anchors.append(try store.currentAnchor())
        }
        return (store, anchors, minute)
    }

    /// A store of random saves, deletes and prunes (and, with `otherType`,
    /// heart-rate samples whose UUIDs no step query may return); the
    /// anchors handed out along the way that are still valid, and the
    /// UUIDs of every sample saved.
    private func randomStore(_ r: inout Rng, otherType: Bool) throws -> (Store, [QueryAnchor?], [UUID]) {
        let store = try makeStore()
        var live: [UUID] = [], saved: [UUID] = []
        var anchors: [QueryAnchor?] = [nil]
        for _ in 0..<(5 + r.int(15)) {
            switch r.int(6) {
            case 0 where !live.isEmpty:
                try store.delete(uuids: [live.remove(at: r.int(live.count))])
            case 1 where r.chance(0.3):
                try store.prune(deletedBefore: Date())
                anchors = [nil]  // older anchors may have expired (rule 16)
            case 2 where otherType:
                let start = t0.addingTimeInterval(Double(r.int(600)) * 60)
                let other = try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"),
                                                start: start, end: start, source: appA)
                try store.save([other])
                saved.append(other.uuid)
            default:
                let batch = try (0..<(1 + r.int(20))).map { _ in
                    try stepSample(Double(r.int(100)), minute: r.int(600), source: r.chance(0.5) ? appA : appB)
                }
                try store.save(batch)
                live += batch.map(\.uuid)
                saved += batch.map(\.uuid)
            }
            anchors.append(try store.currentAnchor())
        }
        return (store, anchors, saved)
    }

    /// The walk, the forced path and the planner's choice return the same
    /// samples, deleted objects, order and new anchor.
    private func expectPathsAgree(_ store: Store, forcing plan: QueryPlan, _ p: SamplePredicate,
                                  _ anchor: QueryAnchor?, _ limit: Int, _ seed: UInt64) throws {
        try expectPathsAgree(store, forcing: plan, [QueryDescriptor(type: steps, predicate: p)], anchor, limit, seed)
    }

    private func expectPathsAgree(_ store: Store, forcing plan: QueryPlan, _ descriptors: [QueryDescriptor],
                                  _ anchor: QueryAnchor?, _ limit: Int, _ seed: UInt64) throws {
        store.tuning.planOverride = .changeOrder
        let walked = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        store.tuning.planOverride = plan
        let forced = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        store.tuning.planOverride = nil
        let planned = try store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
        let what = descriptors.map { "\($0.type.identifier): \($0.predicate.map { "\($0)" } ?? "nil")" }
        for got in [forced, planned] {
            #expect(got.sampleUUIDs == walked.sampleUUIDs, "seed \(seed): \(what)")
            #expect(got.samples.map { $0.type } == walked.samples.map { $0.type }, "seed \(seed): \(what)")
            #expect(got.deletedUUIDs == walked.deletedUUIDs, "seed \(seed): \(what)")
            #expect(got.newAnchor == walked.newAnchor, "seed \(seed): \(what)")
        }
    }

    /// A start-index plan reads its positions' records as a walk reads
    /// (pages in place) where they lie near each other: a position whose
    /// record is gone is still an error, not a sample skipped.
    @Test func aStartIndexEntryWhoseRecordIsGoneIsAnError() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        try store.save((0..<200).map { try stepSample(1, minute: $0, source: appA) })
        let position = try store.anchoredQuery(type: steps, anchor: nil, limit: 100).newAnchor.position
        try store.env.write { txn in
            let (_, trees) = try #require(try store.storedTrees(steps, txn))
            #expect(try txn.delete(trees.records, u64: position))
        }
        store.tuning.planOverride = .startIndex
        defer { store.tuning.planOverride = nil }
        let p = SamplePredicate.and([.startDate(.greaterThanOrEqual, t0), .startDate(.lessThan, t0.addingTimeInterval(300 * 60))])
        #expect(throws: OHKError.self) { try store.anchoredQuery([QueryDescriptor(type: steps, predicate: p)], anchor: nil) }
    }

    @Test func uuidCandidatesOfPredicates() {
        let a = UUID(), b = UUID(), c = UUID()
        #expect(UUIDCandidates.of(.uuids([a, b])) == [a, b])
        #expect(UUIDCandidates.of(.and([.uuids([a, b]), .uuids([c]), .sources(["x"])])) == [c])
        #expect(UUIDCandidates.of(.or([.uuids([a]), .uuids([b])])) == [a, b])
        #expect(UUIDCandidates.of(.or([.uuids([a]), .sources(["x"])])) == nil)
        #expect(UUIDCandidates.of(.not(.uuids([a]))) == nil)
        #expect(UUIDCandidates.of([.uuids([a]), nil]) == nil)
        #expect(UUIDCandidates.of([.uuids([a]), .uuids([b])]) == [a, b])
    }

    @Test func startRangesOfPredicates() {
        let a = t0, b = t0.addingTimeInterval(3600)
        let ta = a.timeIntervalSinceReferenceDate, tb = b.timeIntervalSinceReferenceDate
        #expect(StartRange.of(.and([.startDate(.greaterThanOrEqual, a), .startDate(.lessThan, b)])) == StartRange(lo: ta, hi: tb))
        #expect(StartRange.of(.dateRange(start: a, end: b, options: .strictStartDate)) == StartRange(lo: ta, hi: tb))
        #expect(StartRange.of(.dateRange(start: a, end: b, options: [])) == StartRange(hi: tb))
        // strictEndDate: start <= end < e bounds the start too (rule 8b).
        #expect(StartRange.of(.dateRange(start: a, end: b, options: .strictEndDate)) == StartRange(hi: tb))
        #expect(StartRange.of(.dateRange(start: a, end: nil, options: .strictEndDate)) == nil)
        #expect(StartRange.of(.or([.startDate(.equal, a), .sources(["x"])])) == nil)
        #expect(StartRange.of(.not(.startDate(.lessThan, a))) == nil)
        #expect(StartRange.of([.startDate(.lessThan, a), nil]) == nil)
    }

    /// The start index's positions are sorted as the standard sort would,
    /// whether they form a few ascending sequences (merged) or many (the
    /// standard sort): already sorted, a sample range with its later
    /// tombstones, several delete rounds, two to five sequences in turn,
    /// two piles the first the smaller, reversed, random.
    @Test func startIndexPositionsSortAsTheStandardSort() {
        var r = Rng(state: 42)
        var cases: [[UInt64]] = [[], [7], [1, 2, 3], [3, 2, 1], Array(0..<1000).map { UInt64($0) }]
        // Buckets of 50 samples, every 10th deleted: its tombstone at a
        // position past the samples, after `rounds` rounds of deletions.
        for rounds in 1...6 {
            var ps: [UInt64] = []
            for bucket in 0..<40 {
                for k in 0..<50 where k % 10 != 0 { ps.append(UInt64(bucket * 50 + k)) }
                for round in 0..<rounds { ps.append(UInt64(100_000 * (round + 1) + bucket)) }
            }
            cases.append(ps)
        }
        // m sequences taken in turn: m piles (five: the standard sort).
        for m in 2...5 { cases.append((0..<300).flatMap { i in (0..<m).map { UInt64($0 * 1000 + i) } }) }
        // Two piles, the first the smaller.
        cases.append([UInt64(10_000)] + (0..<500).map { UInt64($0) } + [20_000, 500])
        cases.append(Array((0..<500).map { UInt64($0) }.reversed()))
        cases.append((0..<3000).map { _ in UInt64(r.int(1 << 40)) })
        // Positions in the top bits the piles mark theirs with.
        cases.append([3, 1 << 62, 1, 2])
        cases.append([5, 1, 7, 4, .max, 2, 1 << 62 | 1])
        // The largest pile not the first.
        cases.append([900, 901] + (0..<700).map { UInt64($0) } + [950])
        for ps in cases {
            var sorted = ps
            PositionPiles.sort(&sorted)
            #expect(sorted == ps.sorted(), "\(ps.prefix(12))")
        }
    }

    private func randomStartPredicate(_ r: inout Rng, unit: String = "count") -> SamplePredicate {
        func when() -> Date { t0.addingTimeInterval(Double(r.int(660) - 30) * 60) }
        let comparisons: [Comparison] = [.lessThan, .lessThanOrEqual, .equal, .greaterThanOrEqual, .greaterThan]
        var terms: [SamplePredicate] = []
        for _ in 0..<(1 + r.int(3)) {
            switch r.int(5) {
            case 0: terms.append(.startDate(comparisons[r.int(5)], when()))
            case 1: terms.append(.dateRange(start: r.chance(0.2) ? nil : when(), end: when(), options: DateRangeOptions(rawValue: r.int(4))))
            case 2: terms.append(.sources([appA.bundleIdentifier]))
            case 3: terms.append(.or([.startDate(.lessThan, when()), .startDate(.greaterThan, when())]))
            default: terms.append(.quantity(.greaterThan, Double(r.int(100)), try! HealthUnit(unit)))
            }
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }
}

func getenvString(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
