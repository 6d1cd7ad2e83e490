import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Sample queries (rule 30): live samples only, in the sort's order with
/// ties in store order, at most the limit, whichever way they are read.
@Suite struct SampleQueryTests {
    /// A store of two types whose samples start across many start-index
    /// buckets, last from nothing to days, and are saved out of time order;
    /// some are deleted again.
    private func randomStore(seed: UInt64) throws -> (Store, deleted: Set<UUID>) {
        var rng = SplitMix(seed: seed)
        let store = try makeStore()
        var saved: [Sample] = []
        for i in 0..<600 {
            let start = t0.addingTimeInterval(Double(rng.next() % 400_000))
            let length = [0, 60, 3_600, 30_000, 200_000][Int(rng.next() % 5)]
            let type = i % 3 == 0 ? heartRate : steps
            let unit = try HealthUnit(type == heartRate ? "count/min" : "count")
            saved.append(try Sample.quantity(type, value: Double(rng.next() % 200), unit: unit, start: start,
                                             end: start.addingTimeInterval(Double(length)), source: appA))
            // Ties: a few samples share a start or an end.
            if i % 50 == 0 { saved.append(try Sample.quantity(type, value: 1, unit: unit, start: start, end: start, source: appB)) }
        }
        _ = try store.save(saved)
        let deleted = Set(saved.enumerated().filter { $0.offset % 7 == 0 }.map(\.element.uuid))
        try store.delete(uuids: Array(deleted))
        return (store, deleted)
    }

    @Test func rule30_sampleQueryIsASortOfEveryMatchCutAtTheLimit() throws {
        let (store, deleted) = try randomStore(seed: 30)
        let window = SamplePredicate.dateRange(start: t0.addingTimeInterval(50_000), end: t0.addingTimeInterval(300_000), options: [])
        let sorts: [[SampleSort]] = [[], [SampleSort(.startDate)], [SampleSort(.startDate, ascending: false)],
                                     [SampleSort(.endDate)], [SampleSort(.endDate, ascending: false)],
                                     [SampleSort(.startDate, ascending: false), SampleSort(.endDate)],
                                     [SampleSort(.endDate), SampleSort(.startDate, ascending: false)]]
        let strict = SamplePredicate.dateRange(start: t0.addingTimeInterval(100_000), end: t0.addingTimeInterval(250_000),
                                               options: .strictStartDate)
        for descriptors in [[QueryDescriptor(type: steps)],
                            [QueryDescriptor(type: steps), QueryDescriptor(type: heartRate, predicate: window)],
                            [QueryDescriptor(type: steps, predicate: strict)]] {
            // Store order, every live match: the anchored query's samples.
            let all = try store.anchoredQuery(descriptors, anchor: nil).samples.map { $0 }
            #expect(!all.isEmpty && all.allSatisfy { !deleted.contains($0.uuid) })
            for sort in sorts {
                let expected = all.enumerated().sorted { a, b in
                    for k in sort {
                        let (x, y) = k.key == .startDate ? (a.element.startDate, b.element.startDate)
                                                         : (a.element.endDate, b.element.endDate)
                        if x != y { return k.ascending ? x < y : x > y }
                    }
                    return a.offset < b.offset
                }.map(\.element.uuid)
                for limit in [0, 1, 7, 100, 5_000] {
                    let got = try store.sampleQuery(descriptors, sort: sort, limit: limit).map(\.uuid)
                    let want = limit == 0 ? expected : Array(expected.prefix(limit))
                    // Compared whole, reported by the first difference (not two long lists).
                    let same = got == want
                    let firstDifference = Array(zip(got, want)).firstIndex { $0 != $1 } ?? min(got.count, want.count)
                    #expect(same, "sort \(sort), limit \(limit), \(descriptors.count) descriptors: \(got.count) samples for \(want.count), first difference at \(firstDifference)")
                }
            }
        }
    }

    @Test func rule30_sampleQueryRefusesANegativeLimitAndAnEmptyQuery() throws {
        let store = try makeStore()
        #expect(throws: OHKError.self) { try store.sampleQuery([QueryDescriptor(type: steps)], limit: -1) }
        #expect(throws: OHKError.self) { try store.sampleQuery([]) }
        #expect(try store.sampleQuery([QueryDescriptor(type: steps)], sort: [SampleSort(.startDate)], limit: 3).isEmpty)
    }

    /// HKSourceQuery's core: each bundle identifier once, of live matches.
    @Test func sourcesAreThoseOfLiveMatchingSamplesEachOnce() throws {
        let store = try makeStore()
        let a2 = Source(bundleIdentifier: appA.bundleIdentifier, name: "A", version: "2.0")
        let c = Source(bundleIdentifier: "com.example.c", name: "C")
        let gone = try stepSample(5, minute: 3, source: c)
        _ = try store.save([try stepSample(1, source: appA), try stepSample(2, minute: 1, source: a2),
                            try stepSample(3, minute: 2, source: appB), gone])
        try store.delete(uuids: [gone.uuid])
        let all = try store.sources([QueryDescriptor(type: steps)])
        #expect(all.map(\.bundleIdentifier) == ["com.example.a", "com.example.b"])
        let late = SamplePredicate.dateRange(start: t0.addingTimeInterval(90), end: nil, options: [])
        #expect(try store.sources([QueryDescriptor(type: steps, predicate: late)]).map(\.bundleIdentifier) == ["com.example.a", "com.example.b"])
        let first = SamplePredicate.dateRange(start: nil, end: t0.addingTimeInterval(30), options: [])
        #expect(try store.sources([QueryDescriptor(type: steps, predicate: first)]).map(\.bundleIdentifier) == ["com.example.a"])
        #expect(try store.sources([QueryDescriptor(type: heartRate)]).isEmpty)
    }
}
