import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// Issue 4, item 3: the planner. Whichever way a query reads (the change
/// order from the anchor, or the start index), it returns the same
/// samples, deleted objects, order and new anchor.
@Suite struct Planner {
    typealias Rng = ModelBased.Rng

    @Test func startIndexAndChangeOrderAgreeOnRandomStores() throws {
        let stores = Int(getenvString("OHK_PLANNER_STORES") ?? "") ?? 150
        for seed in 0..<UInt64(stores) {
            var r = Rng(state: seed &* 7919 &+ 1)
            let store = try makeStore()
            defer { store.close() }
            var live: [UUID] = []
            var anchors: [QueryAnchor?] = [nil]
            for _ in 0..<(5 + r.int(15)) {
                switch r.int(6) {
                case 0 where !live.isEmpty:
                    let victim = live.remove(at: r.int(live.count))
                    try store.delete(uuids: [victim])
                case 1 where r.chance(0.3):
                    try store.prune(deletedBefore: Date())
                    anchors = [nil]  // older anchors may have expired (rule 16)
                default:
                    let batch = try (0..<(1 + r.int(20))).map { _ in
                        try stepSample(Double(r.int(100)), minute: r.int(600), source: r.chance(0.5) ? appA : appB)
                    }
                    try store.save(batch)
                    live += batch.map(\.uuid)
                }
                anchors.append(try store.currentAnchor())
            }
            for _ in 0..<10 {
                let p = randomStartPredicate(&r)
                let anchor = anchors[r.int(anchors.count)]
                let limit = r.chance(0.5) ? 0 : 1 + r.int(30)
                store.planOverride = .changeOrder
                let walked = try store.anchoredQuery(type: steps, predicate: p, anchor: anchor, limit: limit)
                store.planOverride = .startIndex
                let indexed = try store.anchoredQuery(type: steps, predicate: p, anchor: anchor, limit: limit)
                store.planOverride = nil
                let planned = try store.anchoredQuery(type: steps, predicate: p, anchor: anchor, limit: limit)
                for got in [indexed, planned] {
                    #expect(got.sampleUUIDs == walked.sampleUUIDs, "seed \(seed): \(p)")
                    #expect(got.deletedUUIDs == walked.deletedUUIDs, "seed \(seed): \(p)")
                    #expect(got.newAnchor == walked.newAnchor, "seed \(seed): \(p)")
                }
            }
        }
    }

    @Test func startRangesOfPredicates() {
        let a = t0, b = t0.addingTimeInterval(3600)
        let ta = a.timeIntervalSinceReferenceDate, tb = b.timeIntervalSinceReferenceDate
        #expect(StartRange.of(.and([.startDate(.greaterThanOrEqual, a), .startDate(.lessThan, b)])) == StartRange(lo: ta, hi: tb))
        #expect(StartRange.of(.dateRange(start: a, end: b, options: .strictStartDate)) == StartRange(lo: ta, hi: tb))
        #expect(StartRange.of(.dateRange(start: a, end: b, options: [])) == StartRange(hi: tb))
        #expect(StartRange.of(.or([.startDate(.equal, a), .sources(["x"])])) == nil)
        #expect(StartRange.of(.not(.startDate(.lessThan, a))) == nil)
        #expect(StartRange.of([.startDate(.lessThan, a), nil]) == nil)
    }

    private func randomStartPredicate(_ r: inout Rng) -> SamplePredicate {
        func when() -> Date { t0.addingTimeInterval(Double(r.int(660) - 30) * 60) }
        let comparisons: [Comparison] = [.lessThan, .lessThanOrEqual, .equal, .greaterThanOrEqual, .greaterThan]
        var terms: [SamplePredicate] = []
        for _ in 0..<(1 + r.int(3)) {
            switch r.int(5) {
            case 0: terms.append(.startDate(comparisons[r.int(5)], when()))
            case 1: terms.append(.dateRange(start: r.chance(0.2) ? nil : when(), end: when(), options: DateRangeOptions(rawValue: r.int(4))))
            case 2: terms.append(.sources([appA.bundleIdentifier]))
            case 3: terms.append(.or([.startDate(.lessThan, when()), .startDate(.greaterThan, when())]))
            default: terms.append(.quantity(.greaterThan, Double(r.int(100)), try! HealthUnit("count")))
            }
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }
}

func getenvString(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
