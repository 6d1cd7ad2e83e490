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
        #expect(try q(.strictEndDate) == [inside.uuid])                            // end in (s, e]
        #expect(try q([.strictStartDate, .strictEndDate]) == [inside.uuid, instant.uuid])  // start >= s && end <= e
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
