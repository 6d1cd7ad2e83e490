import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Heartbeat series (rule 39): samples whose value is their beats' times
/// since the start, change-tracked like any sample.
@Suite struct HeartbeatSeriesTests {
    private func series(_ times: [Double], gaps: Set<Int> = [], end: Double = 60) throws -> Sample {
        let beats = times.enumerated().map { HeartbeatSeries.Beat(timeSinceStart: $1, precededByGap: gaps.contains($0)) }
        return try Sample.heartbeatSeries(HeartbeatSeries(beats: beats), start: t0, end: t0.addingTimeInterval(end), source: appA)
    }

    @Test func rule39_aSeriesKeepsItsBeatsInOrderWithTheirGaps() throws {
        let store = try makeStore()
        defer { store.close() }
        let s = try series([0.9, 0.05, 1.8, 3.1], gaps: [3])  // saved out of order
        _ = try store.save([s])
        let read = try store.anchoredQuery(type: TypeCatalogue.heartbeatSeriesType, anchor: nil).samples
        #expect(read.count == 1)
        guard case .heartbeats(let h) = read[0].value else { Issue.record("not a heartbeat series"); return }
        #expect(h.beats.map(\.timeSinceStart) == [0.05, 0.9, 1.8, 3.1])
        #expect(h.beats.map(\.precededByGap) == [false, false, false, true])
        #expect(TypeCatalogue.lookup("HeartbeatSeries") == TypeCatalogue.heartbeatSeriesType)
        // Deleted like any sample: its deletion is reported.
        let anchor = try store.currentAnchor()
        try store.delete(uuids: [s.uuid])
        #expect(try store.anchoredQuery(type: TypeCatalogue.heartbeatSeriesType, anchor: anchor).deletedObjects.count == 1)
    }

    @Test func rule39_aSaveRefusesASeriesWithoutBeatsOrWithBeatsOutsideIt() throws {
        #expect(throws: OHKError.self) { try series([]) }
        #expect(throws: OHKError.self) { try series([-0.5, 1]) }
        #expect(throws: OHKError.self) { try series([1, .nan]) }
        #expect(throws: OHKError.self) { try series([1, 61]) }  // after its end
        // Beats can only be set sorted; a stored series out of order is refused.
        var unsorted = HeartbeatSeries(beats: [])
        unsorted.beats = [.init(timeSinceStart: 50), .init(timeSinceStart: 1)]
        #expect(throws: OHKError.self) {
            try Sample.heartbeatSeries(unsorted, start: t0, end: t0.addingTimeInterval(60), source: appA)
        }
        #expect(throws: OHKError.self) {
            try Sample(uuid: UUID(), type: TypeCatalogue.heartbeatSeriesType, startDate: t0, endDate: t0, value: .quantity(1),
                       source: appA, device: nil, metadata: [:], creationDate: nil, utcOffset: nil).validate()
        }
    }

    /// A store of format 10 could register HealthKit's later identifier as
    /// its own type: it is refused with the reason, not misread; and a
    /// custom type named like HealthKit's short name is still found.
    @Test func aCustomTypeOfTheNewIdentifierIsRefusedAndAShortNameStillFindsItsCustomType() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let mine = try store.registerCustomType("HeartbeatSeries", kind: .category(values: ["Calm": 0]))
        #expect(try store.sampleType("HeartbeatSeries") == mine)
        try store.env.write { txn in
            _ = try txn.put(store.trees.custom, Array(TypeCatalogue.heartbeatSeriesIdentifier.utf8),
                            TableCodec.encode(.category(values: ["x": 0])))
            try txn.setMetaU64(store.trees, .format, 10)
        }
        store.close()
        #expect { store = try makeStore(directory: dir) } throws: { "\($0)".contains("0.12") }
    }

    /// Format 11 holds heartbeat series; a format-10 store opens as the
    /// current format.
    @Test func aFormat10StoreOpensAsTheCurrentFormat() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        _ = try store.save([try stepSample(10)])
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, 10) }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        _ = try store.save([try series([1, 2])])
        #expect(try store.verify().isClean)
    }
}
