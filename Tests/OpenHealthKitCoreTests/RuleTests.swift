import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// One test per semantic rule of docs/semantics.md (1–8, 13–17), named after it.
@Suite struct SemanticRules {
    @Test func rule01_anchorIsOpaqueBytesThatRoundTripAndCompare() throws {
        let store = try makeStore()
        try store.save([stepSample(1)])
        let a = try store.anchoredQuery(type: steps, anchor: nil).newAnchor
        try store.save([stepSample(2)])
        let b = try store.anchoredQuery(type: steps, anchor: a).newAnchor
        #expect(try QueryAnchor(bytes: a.bytes) == a)
        #expect(try QueryAnchor(base64: b.base64) == b)
        #expect(a.storeID == store.storeID)
        #expect(try a.compare(to: b) == .before)
        #expect(try b.compare(to: a) == .after)
        #expect(try a.compare(to: a) == .same)
        let other = try makeStore()
        try other.save([stepSample(1)])
        let c = try other.anchoredQuery(type: steps, anchor: nil).newAnchor
        #expect(errorCode { _ = try a.compare(to: c) } == .anchorWrongStore)
    }

    @Test func rule02_badAnchorsAreErrorsThatSayWhich() throws {
        let store = try makeStore()
        try store.save([stepSample(1)])
        let a = try store.anchoredQuery(type: steps, anchor: nil).newAnchor
        let other = try makeStore()
        #expect(errorCode { _ = try other.anchoredQuery(type: steps, anchor: a) } == .anchorWrongStore)
        #expect(errorCode { _ = try QueryAnchor(bytes: Array(a.bytes.dropLast())) } == .anchorCorrupt)
        var flipped = a.bytes
        flipped[20] ^= 0x40
        #expect(errorCode { _ = try QueryAnchor(bytes: flipped) } == .anchorCorrupt)
        #expect(errorCode { _ = try QueryAnchor(bytes: []) } == .anchorCorrupt)
        #expect(errorCode { _ = try QueryAnchor(base64: "") } == .anchorCorrupt)  // empty text: truncated, not "no anchor"
        #expect(errorCode { _ = try QueryAnchor(base64: "not base64!") } == .anchorCorrupt)
        let future = QueryAnchor(storeID: store.storeID, position: a.position + 5, horizon: 0)
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: future) } == .anchorFromFuture)
        try store.delete(uuids: [try store.anchoredQuery(type: steps, anchor: nil).samples[0].uuid])
        try store.pruneAll()
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: a) } == .anchorExpired)
    }

    @Test func rule03_nilAnchorReturnsEverySampleAndRetainedDeletedObject() throws {
        let store = try makeStore()
        let s = try (0..<4).map { try stepSample(Double($0), minute: $0) }
        try store.save(s)
        try store.delete(uuids: [s[1].uuid])
        let r = try store.anchoredQuery(type: steps, anchor: nil)
        #expect(r.sampleUUIDs == [s[0].uuid, s[2].uuid, s[3].uuid])
        #expect(r.deletedUUIDs == [s[1].uuid])
        let legacyZero = try store.anchoredQuery(type: steps, anchor: QueryAnchor(fromValue: 0))
        #expect(legacyZero.sampleUUIDs == r.sampleUUIDs && legacyZero.deletedUUIDs == r.deletedUUIDs)
        // fromValue(n) is position n: the first save took position 1.
        let legacyOne = try store.anchoredQuery(type: steps, anchor: QueryAnchor(fromValue: 1))
        #expect(legacyOne.sampleUUIDs == [s[2].uuid, s[3].uuid])
    }

    @Test func rule04_anchorReturnsExactlyWhatChangedAfterItInStoreOrder() throws {
        let store = try makeStore()
        try store.save([stepSample(1, minute: 50)])
        let a = try store.anchoredQuery(type: steps, anchor: nil).newAnchor
        // Saved later but dated earlier: "newer" is store order, not sample date.
        let early = try stepSample(2, minute: 1)
        let late = try stepSample(3, minute: 100)
        try store.save([late])
        try store.save([early])
        let transient = try stepSample(4)
        try store.save([transient])
        try store.delete(uuids: [transient.uuid])
        let r = try store.anchoredQuery(type: steps, anchor: a)
        #expect(r.sampleUUIDs == [late.uuid, early.uuid])
        // Saved and deleted after A: only the deletion comes back.
        #expect(r.deletedUUIDs == [transient.uuid])
    }

    @Test func rule05_newAnchorIsLastReturnedWhenCutElseTheHead() throws {
        let store = try makeStore()
        let s = try (0..<5).map { try stepSample(Double($0)) }
        try store.save(s)
        try store.save([Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appA)])
        let head = try store.currentAnchor().position
        let cut = try store.anchoredQuery(type: steps, anchor: nil, limit: 2)
        #expect(cut.newAnchor.position == 2)
        let rest = try store.anchoredQuery(type: steps, anchor: cut.newAnchor, limit: 10)
        #expect(rest.sampleUUIDs == s[2...].map(\.uuid))
        #expect(rest.newAnchor.position == head)
        let none = try store.anchoredQuery(type: steps, predicate: .quantity(.greaterThan, 1e9, HealthUnit("count")), anchor: nil)
        #expect(none.samples.isEmpty && none.newAnchor.position == head)
    }

    @Test func rule05_batchedReadingYieldsEachChangeOnceWhateverIsWrittenMeanwhile() throws {
        let store = try makeStore()
        var expected: [UUID] = []
        for i in 0..<30 {
            let s = try stepSample(Double(i))
            try store.save([s])
            expected.append(s.uuid)
        }
        var anchor: QueryAnchor?
        var seen: [UUID] = []
        var deleted: [UUID] = []
        var round = 0
        while true {
            let r = try store.anchoredQuery(type: steps, anchor: anchor, limit: 7)
            seen += r.sampleUUIDs
            deleted += r.deletedUUIDs
            anchor = r.newAnchor
            if r.samples.isEmpty && r.deletedObjects.isEmpty { break }
            round += 1
            if round < 5 {  // writes between batches
                let s = try stepSample(Double(100 + round))
                try store.save([s])
                expected.append(s.uuid)
            }
            if round == 2 {
                try store.delete(uuids: [expected[0]])
            }
        }
        // expected[0] was returned before it was deleted, then its deletion.
        #expect(seen == expected)
        #expect(deleted == [expected[0]])
    }

    @Test func rule06_severalDescriptorsShareOneAnchor() throws {
        let store = try makeStore()
        let a = try stepSample(10)
        let b = try Sample.quantity(heartRate, value: 70, unit: HealthUnit("count/min"), start: t0, end: t0, source: appB)
        let c = try stepSample(500, source: appB)
        try store.save([a, b, c])
        let r = try store.anchoredQuery([QueryDescriptor(type: steps, predicate: .sources([appA.bundleIdentifier])),
                                         QueryDescriptor(type: heartRate)], anchor: nil)
        #expect(r.sampleUUIDs == [a.uuid, b.uuid])
        #expect(r.samples.type(at: 1) == heartRate)
        let d = try stepSample(1)
        try store.save([d])
        let next = try store.anchoredQuery([QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)], anchor: r.newAnchor)
        #expect(next.sampleUUIDs == [d.uuid])
        // Deleted objects of both types come from the one anchor, each with its own type and source.
        try store.delete(uuids: [b.uuid, a.uuid])
        let gone = try store.anchoredQuery([QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)], anchor: next.newAnchor)
        #expect(Set(gone.deletedUUIDs) == [a.uuid, b.uuid] && gone.samples.isEmpty)
        let hr = gone.deletedObjects.first { $0.uuid == b.uuid }, step = gone.deletedObjects.first { $0.uuid == a.uuid }
        #expect(hr?.type == heartRate && hr?.source == appB && step?.type == steps && step?.source == appA)
    }

    @Test func rule07_limitCountsSamplesAndDeletedObjectsTogether() throws {
        let store = try makeStore()
        let s = try (0..<4).map { try stepSample(Double($0)) }
        try store.save(s)
        let a = try store.currentAnchor()
        try store.delete(uuids: [s[0].uuid, s[1].uuid])
        let more = try stepSample(9)
        try store.save([more])
        let r = try store.anchoredQuery(type: steps, anchor: a, limit: 2)
        #expect(r.samples.count + r.deletedObjects.count == 2)
        #expect(r.deletedUUIDs == [s[0].uuid, s[1].uuid])
        let all = try store.anchoredQuery(type: steps, anchor: a, limit: 0)  // HKObjectQueryNoLimit
        #expect(all.deletedUUIDs.count == 2 && all.sampleUUIDs == [more.uuid])
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: nil, limit: -1) } == .invalidArgument)
    }

    @Test func rule08_predicatesJudgeDeletedObjectsInThreeValuedLogic() throws {
        let store = try makeStore()
        let small = try stepSample(50, minute: 0, metadata: synced("s-1", 1).merging([MetadataKey.wasUserEntered: .bool(true)]) { a, _ in a })
        let big = try stepSample(500, minute: 10)
        try store.save([small, big])
        let a = try store.currentAnchor()
        try store.delete(uuids: [small.uuid, big.uuid])
        func deleted(_ p: SamplePredicate) throws -> [UUID] { try store.anchoredQuery(type: steps, predicate: p, anchor: a).deletedUUIDs }
        // Quantity is not kept: unknown, so reported (NOT unknown is unknown).
        #expect(try deleted(.not(.quantity(.greaterThan, 100, HealthUnit("count")))) == [small.uuid, big.uuid])
        #expect(try deleted(.quantity(.greaterThan, 100, HealthUnit("count")))  == [small.uuid, big.uuid])
        // Dates, source and sync metadata are kept: judged exactly.
        #expect(try deleted(.startDate(.lessThan, t0.addingTimeInterval(300))) == [small.uuid])
        #expect(try deleted(.sources([appB.bundleIdentifier])) == [])
        #expect(try deleted(.metadata(MetadataKey.syncIdentifier, .equal, .string("s-1"))) == [small.uuid])
        // Other metadata is not kept: unknown.
        #expect(try deleted(.metadataExists(MetadataKey.wasUserEntered)) == [small.uuid, big.uuid])
        #expect(try deleted(.and([.startDate(.greaterThan, t0.addingTimeInterval(300)), .quantity(.lessThan, 1, HealthUnit("count"))])) == [big.uuid])
        let d = try store.anchoredQuery(type: steps, anchor: a).deletedObjects[0]
        #expect(d.metadata == synced("s-1", 1))
        #expect(d.source == appA && d.startDate == small.startDate && d.endDate == small.endDate)
    }

    @Test func rule13_saveIsAllOrNothingAndDurable() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(durable: true, directory: dir)
        let first = try stepSample(1)
        try store.save([first])
        let head = try store.currentAnchor().position
        let batch = try [stepSample(2), stepSample(3), stepSample(4, uuid: first.uuid)]
        #expect(errorCode { try store.save(batch) } == .duplicateUUID)
        let dupInBatch = try stepSample(5)
        #expect(errorCode { try store.save([dupInBatch, dupInBatch]) } == .duplicateUUID)
        #expect(try store.currentAnchor().position == head)
        let instant = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0, end: t0, source: appA)
        try store.save([instant])
        #expect(errorCode { _ = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0, end: t0.addingTimeInterval(-1), source: appA) } == .invalidDateRange)
        #expect(errorCode { _ = try Sample.quantity(steps, value: 1, unit: HealthUnit("kg"), start: t0, end: t0, source: appA) } == .incompatibleUnit)
        store.close()
        store = try makeStore(directory: dir)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs == [first.uuid, instant.uuid])
    }

    @Test func rule14_syncIdentifierReplacesOnlyWithAGreaterVersionPerSource() throws {
        let store = try makeStore()
        let v1 = try stepSample(10, metadata: synced("walk-1", 1))
        #expect(try store.save([v1]) == [.saved])
        let a = try store.currentAnchor()
        let v2 = try stepSample(20, metadata: synced("walk-1", 2))
        let stale = try stepSample(15, metadata: synced("walk-1", 2))
        let older = try stepSample(5, metadata: synced("walk-1", 1))
        #expect(try store.save([v2, stale, older]) == [.replaced(v1.uuid), .notSavedOlderVersion(existing: v2.uuid), .notSavedOlderVersion(existing: v2.uuid)])
        let r = try store.anchoredQuery(type: steps, anchor: a)
        #expect(r.sampleUUIDs == [v2.uuid])
        #expect(r.deletedUUIDs == [v1.uuid])
        #expect(r.deletedObjects[0].syncIdentifier == "walk-1" && r.deletedObjects[0].syncVersion == 1)
        // Scoped per source: another app's "walk-1" is its own.
        let otherApp = try stepSample(30, source: appB, metadata: synced("walk-1", 1))
        #expect(try store.save([otherApp]) == [.saved])
        // Both or neither.
        #expect(errorCode { _ = try stepSample(1, metadata: [MetadataKey.syncIdentifier: .string("x")]) } == .invalidMetadata)
        #expect(errorCode { _ = try stepSample(1, metadata: [MetadataKey.syncVersion: .number(1)]) } == .invalidMetadata)
    }

    @Test func rule15_deleteByObjectsUUIDsOrPredicateAllOrNothing() throws {
        let store = try makeStore()
        let s = try (0..<6).map { try stepSample(Double($0 * 100), minute: $0) }
        try store.save(s)
        try store.delete([s[0]])
        try store.delete(uuids: [s[1].uuid])
        let head = try store.currentAnchor().position
        #expect(errorCode { try store.delete(uuids: [s[2].uuid, UUID()]) } == .notFound)
        #expect(errorCode { try store.delete(uuids: [s[0].uuid]) } == .notFound)  // already deleted
        #expect(try store.currentAnchor().position == head)
        #expect(try store.delete(type: steps, predicate: .quantity(.greaterThanOrEqual, 400, HealthUnit("count"))) == 2)
        let live = try store.anchoredQuery(type: steps, anchor: nil)
        #expect(live.sampleUUIDs == [s[2].uuid, s[3].uuid])
        #expect(Set(live.deletedUUIDs) == Set([s[0].uuid, s[1].uuid, s[4].uuid, s[5].uuid]))
    }

    @Test func rule16_pruningMovesTheHorizonAndExpiresOnlyAnchorsThatMissedDeletions() throws {
        let store = try makeStore()
        let s = try (0..<6).map { try stepSample(Double($0)) }
        try store.save(s)
        let beforeDeletes = try store.currentAnchor()
        try store.delete(uuids: [s[0].uuid, s[1].uuid])
        let afterDeletes = try store.currentAnchor()
        #expect(try store.pruneAll() == 2)
        #expect(try store.currentAnchor().horizon == afterDeletes.position)
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: beforeDeletes) } == .anchorExpired)
        #expect(try store.anchoredQuery(type: steps, anchor: afterDeletes).samples.isEmpty)
        // An anchor handed out after the prune, even at a low position, is fine.
        let fresh = try store.anchoredQuery(type: steps, anchor: nil, limit: 1).newAnchor
        #expect(fresh.position < afterDeletes.position)
        try store.delete(uuids: [s[2].uuid])
        #expect(try store.anchoredQuery(type: steps, anchor: fresh).deletedUUIDs == [s[2].uuid])
        // Reading from nil in batches after a prune completes.
        var anchor: QueryAnchor?
        var seen = 0
        repeat {
            let r = try store.anchoredQuery(type: steps, anchor: anchor, limit: 1)
            seen += r.samples.count + r.deletedObjects.count
            anchor = r.newAnchor
            if r.samples.isEmpty && r.deletedObjects.isEmpty { break }
        } while true
        #expect(seen == 4)
        // Retention set at open prunes what is older.
        let dir = store.directory
        store.close()
        let reopened = try makeStore(retention: 0, directory: dir)
        #expect(try reopened.anchoredQuery(type: steps, anchor: nil).deletedObjects.isEmpty)
    }

    @Test func rule17_badInputIsATypedErrorAndWritesNothing() throws {
        let store = try makeStore()
        try store.save([stepSample(1)])
        let head = try store.currentAnchor().position
        #expect(errorCode { _ = try SampleType.named("HKQuantityTypeIdentifierBogus") } == .unknownType)
        #expect(errorCode { _ = try store.sampleType("org.nobody.Type") } == .unknownType)
        #expect(errorCode { _ = try HealthUnit("kg/") } == .invalidUnit)
        #expect(errorCode { _ = try Sample.quantity(steps, value: .nan, unit: HealthUnit("count"), start: t0, end: t0, source: appA) } == .invalidValue)
        #expect(errorCode { _ = try Sample.quantity(steps, value: .infinity, unit: HealthUnit("count"), start: t0, end: t0, source: appA) } == .invalidValue)
        #expect(errorCode { _ = try Sample.category(sleep, value: 42, start: t0, end: t0, source: appA) } == .invalidValue)
        #expect(errorCode { _ = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0, end: t0, source: appA, metadata: ["x": .number(.nan)]) } == .invalidMetadata)
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, predicate: .quantity(.greaterThan, 1, HealthUnit("kg")), anchor: nil) } == .incompatibleUnit)
        #expect(errorCode { _ = try store.anchoredQuery(type: sleep, predicate: .quantity(.greaterThan, 1, HealthUnit("count")), anchor: nil) } == .invalidPredicate)
        #expect(errorCode { _ = try store.anchoredQuery([], anchor: nil) } == .invalidArgument)
        #expect(try store.currentAnchor().position == head)
        store.close()
        store.close()  // idempotent
        #expect(errorCode { try store.save([stepSample(2)]) } == .closed)
        #expect(errorCode { _ = try store.anchoredQuery(type: steps, anchor: nil) } == .closed)
    }

    @Test func rule15_aUUIDListedTwiceIsDeletedOnce() throws {
        let store = try makeStore()
        defer { store.close() }
        let s = try (0..<3).map { try stepSample(Double($0), minute: $0) }
        try store.save(s)
        let anchor = try store.currentAnchor()
        try store.delete(uuids: [s[0].uuid, s[1].uuid, s[0].uuid])
        let after = try store.anchoredQuery(type: steps, anchor: anchor)
        #expect(Set(after.deletedObjects.map(\.uuid)) == [s[0].uuid, s[1].uuid] && after.deletedObjects.count == 2)
        // Deleted already: the whole call fails, as before.
        #expect(errorCode { try store.delete(uuids: [s[2].uuid, s[0].uuid]) } == .notFound)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.map(\.uuid) == [s[2].uuid])
    }
}
