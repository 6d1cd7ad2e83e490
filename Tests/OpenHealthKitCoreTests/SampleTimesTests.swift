import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// A sample's creation date and UTC offset (rule 24, store format 7).
@Suite struct SampleTimesTests {
    private let created = t0.addingTimeInterval(-3600)
    private let pacific = -8 * 3600

    private func timed(_ value: Double, minute: Int = 0, metadata: [String: MetadataValue] = [:],
                       creation: Date?, offset: Int?) throws -> Sample {
        try Sample.quantity(steps, value: value, unit: HealthUnit("count"),
                            start: t0.addingTimeInterval(Double(minute) * 60),
                            end: t0.addingTimeInterval(Double(minute) * 60 + 60),
                            source: appA, metadata: metadata, creationDate: creation, utcOffset: offset)
    }

    @Test func rule24_creationDateAndUTCOffsetAreKeptAsGivenAndReadBack() throws {
        let store = try makeStore()
        defer { store.close() }
        let both = try timed(1, metadata: ["HKWasUserEntered": .bool(true), "note": .string("x")],
                             creation: created, offset: pacific)
        let onlyOffset = try timed(2, minute: 1, creation: nil, offset: 5 * 3600 + 1800)
        let onlyCreation = try timed(3, minute: 2, metadata: ["k": .number(4)], creation: created, offset: nil)
        let neither = try stepSample(4, minute: 3)
        let utc = try timed(5, minute: 4, creation: nil, offset: 0)
        let category = try Sample.category(sleep, value: 0, start: t0, end: t0.addingTimeInterval(60),
                                           source: appB, creationDate: created, utcOffset: 3600)
        try store.save([both, onlyOffset, onlyCreation, neither, utc, category])

        let read = try store.anchoredQuery(type: steps, anchor: nil).samples
        #expect(Array(read) == [both, onlyOffset, onlyCreation, neither, utc])
        #expect(read.map(\.creationDate) == [created, nil, created, nil, nil])
        #expect(read.map(\.utcOffset) == [pacific, 19_800, nil, nil, 0])
        // The metadata after the optional fields reads whole.
        #expect(read[0].metadata == ["HKWasUserEntered": .bool(true), "note": .string("x")])
        #expect(read[2].metadata == ["k": .number(4)])
        var fields: [(Double?, Int?)] = []
        read.forEach { fields.append(($0.creationTime, $0.utcOffset)) }
        #expect(fields.map(\.0) == [created.timeIntervalSinceReferenceDate, nil, created.timeIntervalSinceReferenceDate, nil, nil])
        #expect(fields.map(\.1) == [pacific, 19_800, nil, nil, 0])
        let sleepRead = try store.anchoredQuery(type: sleep, anchor: nil).samples
        #expect(sleepRead[0].creationDate == created && sleepRead[0].utcOffset == 3600)
        #expect(try store.verify().isClean)
    }

    @Test func rule24_aSaveStampsNoCreationDate() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([try stepSample(1)])
        let read = try store.anchoredQuery(type: steps, anchor: nil).samples
        #expect(read[0].creationDate == nil && read[0].utcOffset == nil)
    }

    @Test func rule24_aDeletedObjectKeepsNeitherCreationDateNorOffset() throws {
        let store = try makeStore()
        defer { store.close() }
        let s = try timed(1, metadata: ["HKMetadataKeySyncIdentifier": .string("a"), "HKMetadataKeySyncVersion": .number(1)],
                          creation: created, offset: pacific)
        try store.save([s])
        let anchor = try store.currentAnchor()
        try store.delete([s])
        let gone = try store.anchoredQuery(type: steps, anchor: anchor).deletedObjects
        // The tombstone's sync fields still read: the optional fields were not copied.
        #expect(gone.count == 1 && gone[0].syncIdentifier == "a" && gone[0].syncVersion == 1)
        #expect(try store.verify().isClean)
    }

    @Test func rule24_anOffsetBeyond18HoursOrAnUnreadableCreationDateIsRefused() throws {
        #expect(throws: OHKError.self) { try timed(1, creation: nil, offset: 18 * 3600 + 1) }
        #expect(throws: OHKError.self) { try timed(1, creation: nil, offset: -18 * 3600 - 1) }
        #expect(throws: OHKError.self) { try timed(1, creation: Date(timeIntervalSinceReferenceDate: .nan), offset: nil) }
        #expect(try timed(1, creation: nil, offset: -18 * 3600).utcOffset == -64_800)
    }

    /// Format 7 (rule 21): a format-6 store opens as the current format, its records
    /// unchanged, and new records carry the optional fields.
    @Test func aFormat6StoreOpensAsTheCurrentFormatWithItsRecordsUnchanged() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let old = try stepSample(1, metadata: ["note": .string("format 6")])
        try store.save([old])
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, 6) }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let new = try timed(2, minute: 1, creation: created, offset: pacific)
        try store.save([new])
        let read = try store.anchoredQuery(type: steps, anchor: nil).samples
        #expect(Array(read) == [old, new] && read[0].metadata == old.metadata && read[1].utcOffset == pacific)
        #expect(try store.verify().isClean)
    }
}
