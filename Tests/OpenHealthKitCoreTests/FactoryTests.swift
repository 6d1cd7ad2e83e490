import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Issue 4, item 1: HealthKit's predicate factories and the string
/// terms, on stored samples and deleted objects (rule 8).
@Suite struct PredicateFactories {
    let watch = Device(name: "Apple Watch", manufacturer: "Apple", model: "Watch6,1")
    let phone = Device(name: "iPhone", manufacturer: "Apple")

    private func sample(_ source: Source, _ device: Device?, _ metadata: [String: MetadataValue] = [:]) throws -> Sample {
        try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0, end: t0, source: source,
                            device: device, metadata: metadata)
    }

    @Test func textMatchesOnSamplesAndDeletedObjects() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = try sample(appA, watch, ["note": .string("morning walk")])
        let b = try sample(appB, phone)
        try store.save([a, b])
        func q(_ p: SamplePredicate) throws -> [UUID] { try store.anchoredQuery(type: steps, predicate: p, anchor: nil).sampleUUIDs }
        #expect(try q(.text(.source, .beginsWith, "com.example.")) == [a.uuid, b.uuid])
        #expect(try q(.text(.device(.name), .contains, "Watch")) == [a.uuid])
        #expect(try q(.text(.metadata("note"), .endsWith, "walk")) == [a.uuid])
        #expect(try q(.text(.sourceVersion, .beginsWith, "1.")) == [a.uuid])
        #expect(try q(SamplePredicate("device.model BEGINSWITH 'Watch'")) == [a.uuid])
        // Deleted objects keep the source but not the device: a device
        // term is unknown for them, so they are reported (rule 8).
        let anchor = try store.currentAnchor()
        try store.delete(uuids: [a.uuid, b.uuid])
        func deleted(_ p: SamplePredicate) throws -> [UUID] {
            try store.anchoredQuery(type: steps, predicate: p, anchor: anchor).deletedUUIDs
        }
        #expect(try deleted(.text(.source, .endsWith, ".b")) == [b.uuid])
        #expect(try deleted(.text(.device(.name), .contains, "Watch")) == [a.uuid, b.uuid])
    }

    /// predicateForSamples(withStart:end:options:) at equal instants.
    @Test func dateRangeModesAtTheBoundaries() throws {
        let store = try makeStore()
        defer { store.close() }
        func at(_ start: Double, _ end: Double) throws -> Sample {
            try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0.addingTimeInterval(start),
                                end: t0.addingTimeInterval(end), source: appA)
        }
        let inside = try at(0, 60), instant = try at(0, 0), before = try at(-60, 0), after = try at(60, 120)
        try store.save([inside, instant, before, after])
        func q(_ options: DateRangeOptions) throws -> [UUID] {
            try store.anchoredQuery(type: steps, predicate: .dateRange(start: t0, end: t0.addingTimeInterval(60), options: options),
                                    anchor: nil).sampleUUIDs
        }
        #expect(try q([]) == [inside.uuid, instant.uuid, before.uuid])            // end >= s && start < e
        #expect(try q(.strictStartDate) == [inside.uuid, instant.uuid])            // start in [s, e)
        #expect(try q(.strictEndDate) == [instant.uuid, before.uuid])              // end in [s, e)
        #expect(try q([.strictStartDate, .strictEndDate]) == [instant.uuid])       // both
    }

    /// Rule 8b: both strict options are HKQuery.h's half-open interval
    /// [s, e) ("the sample's end date must fall in the time period (>=
    /// startDate, < endDate)"), for samples and for deleted objects (whose
    /// dates are kept, so the predicate is definite for them), through the
    /// value, the text syntax and every plan. Minutes from t0; s = 10, e = 20.
    @Test func rule08b_strictDatesAreTheHalfOpenIntervalOfHKQueryH() throws {
        let store = try makeStore()
        defer { store.close() }
        let cases: [(name: String, start: Double, end: Double)] = [
            ("endsAtS", 5, 10), ("endsAtE", 15, 20), ("startsAtE", 20, 25), ("instantAtS", 10, 10),
            ("instantAtE", 20, 20), ("inside", 12, 18), ("spanning", 5, 25),
        ]
        var byName: [String: Sample] = [:]
        for c in cases {
            byName[c.name] = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0.addingTimeInterval(c.start * 60),
                                                 end: t0.addingTimeInterval(c.end * 60), source: appA)
        }
        try store.save(cases.map { byName[$0.name]! })
        let afterSaves = try store.currentAnchor()
        let s = t0.addingTimeInterval(600), e = t0.addingTimeInterval(1200)
        // What HKQuery.h's definitions select, written out per case.
        let expected: [(start: Date?, end: Date?, options: DateRangeOptions, names: Set<String>)] = [
            (s, e, [], ["endsAtS", "endsAtE", "instantAtS", "inside", "spanning"]),
            (s, e, .strictStartDate, ["endsAtE", "instantAtS", "inside"]),
            (s, e, .strictEndDate, ["endsAtS", "instantAtS", "inside"]),
            (s, e, [.strictStartDate, .strictEndDate], ["instantAtS", "inside"]),
            (nil, e, .strictEndDate, ["endsAtS", "instantAtS", "inside"]),
            (s, nil, .strictEndDate, Set(cases.map(\.name))),
            (nil, e, [.strictStartDate, .strictEndDate], ["endsAtS", "instantAtS", "inside"]),
            (s, nil, [.strictStartDate, .strictEndDate], ["endsAtE", "startsAtE", "instantAtS", "instantAtE", "inside"]),
        ]
        func names(_ uuids: [UUID]) -> Set<String> { Set(uuids.compactMap { u in byName.first { $0.value.uuid == u }?.key }) }
        func text(_ d: Date?) -> String { d.map { ISODate.format($0) } ?? "nil" }
        for row in expected {
            let p = SamplePredicate.dateRange(start: row.start, end: row.end, options: row.options)
            var options: [String] = []
            if row.options.contains(.strictStartDate) { options.append("strictStartDate") }
            if row.options.contains(.strictEndDate) { options.append("strictEndDate") }
            let parsed = try SamplePredicate("DATERANGE(\(([text(row.start), text(row.end)] + options).joined(separator: ", ")))")
            #expect(parsed == p)
            for plan: QueryPlan in [.changeOrder, .startIndex, .zoneMap] {
                store.tuning.planOverride = plan
                #expect(names(try store.anchoredQuery(type: steps, predicate: p, anchor: nil).sampleUUIDs) == row.names, "\(p) \(plan)")
                // NOT of a definite answer is definite: the complement.
                let complement = Set(cases.map(\.name)).subtracting(row.names)
                #expect(names(try store.anchoredQuery(type: steps, predicate: .not(p), anchor: nil).sampleUUIDs) == complement, "NOT \(p) \(plan)")
            }
            store.tuning.planOverride = nil
        }
        // Deleted objects keep their dates: the same sets, as deletions.
        try store.delete(uuids: cases.map { byName[$0.name]!.uuid })
        for row in expected {
            let p = SamplePredicate.dateRange(start: row.start, end: row.end, options: row.options)
            let r = try store.anchoredQuery(type: steps, predicate: p, anchor: afterSaves)
            #expect(r.samples.isEmpty && names(r.deletedUUIDs) == row.names, "deleted, \(p)")
            let negated = try store.anchoredQuery(type: steps, predicate: .not(p), anchor: afterSaves)
            #expect(names(negated.deletedUUIDs) == Set(cases.map(\.name)).subtracting(row.names), "deleted, NOT \(p)")
        }
    }

    @Test func devicesMatchOnEveryFieldNilIncluded() throws {
        let store = try makeStore()
        defer { store.close() }
        var phoneWithModel = phone
        phoneWithModel.model = "iPhone15,2"
        let a = try sample(appA, phone), b = try sample(appA, phoneWithModel), c = try sample(appA, nil)
        try store.save([a, b, c])
        func q(_ p: SamplePredicate) throws -> [UUID] { try store.anchoredQuery(type: steps, predicate: p, anchor: nil).sampleUUIDs }
        #expect(try q(.devices([phone])) == [a.uuid])
        #expect(try q(.devices([phone, phoneWithModel])) == [a.uuid, b.uuid])
        #expect(try q(.device(.model, allowed: [])) == [a.uuid, c.uuid])  // the empty set matches nil
    }

    @Test func sourceRevisionsAndMetadataAllowedValues() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = try sample(appA, nil, ["tag": .string("x")]), b = try sample(appB, nil, ["tag": .number(2)])
        try store.save([a, b])
        func q(_ p: SamplePredicate) throws -> [UUID] { try store.anchoredQuery(type: steps, predicate: p, anchor: nil).sampleUUIDs }
        #expect(try q(.sourceRevisions([appA])) == [a.uuid])
        #expect(try q(.sourceRevisions([Source(bundleIdentifier: appA.bundleIdentifier, name: "A", version: "9")])) == [])
        #expect(try q(.sourceVersions([nil])) == [b.uuid])
        #expect(try q(.metadata("tag", allowedValues: [.string("x"), .number(2)])) == [a.uuid, b.uuid])
        #expect(try q(.metadata("tag", allowedValues: [.number(3)])) == [])
    }
}
