import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Audiograms (rule 40): samples whose value is their sensitivity points.
@Suite struct AudiogramTests {
    private func audiogram(_ points: [Audiogram.Point]) throws -> Sample {
        try Sample.audiogram(Audiogram(points: points), start: t0, end: t0, source: appA)
    }

    @Test func rule40_anAudiogramKeepsItsPointsByFrequencyWithEachEar() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = try audiogram([
            .init(frequency: 1000, left: .init(sensitivity: 20, masked: true), right: .init(sensitivity: 15)),
            .init(frequency: 250, left: .init(sensitivity: 35.0459, masked: false)),
            .init(frequency: 8000, right: .init(sensitivity: -5)),
        ])
        _ = try store.save([a])
        let read = try store.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples
        guard case .audiogram(let got) = read[0].value else { Issue.record("not an audiogram"); return }
        #expect(got.points.map(\.frequency) == [250, 1000, 8000])
        #expect(got.points[0].left == .init(sensitivity: 35.0459, masked: false) && got.points[0].right == nil)
        #expect(got.points[1].left?.masked == true && got.points[1].right?.masked == nil)
        #expect(got.points[2].left == nil && got.points[2].right?.sensitivity == -5)
        #expect(TypeCatalogue.lookup("Audiogram") == TypeCatalogue.audiogramType)
    }

    @Test func rule40_aSaveRefusesAnAudiogramItCannotDraw() throws {
        let ear = Audiogram.Ear(sensitivity: 20)
        #expect(throws: OHKError.self) { try audiogram([]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 0, left: ear)]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500, left: ear), .init(frequency: 500, right: ear)]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500)]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500, left: .init(sensitivity: .infinity))]) }
    }

    /// iOS 18.1's clamping ranges: kept per ear, either bound open; an
    /// audiogram without one is stored as before (payload version 1), so
    /// earlier libraries and content UUIDs see no change.
    @Test func rule40_clampingRangesAreKeptWithTheirEar() throws {
        let store = try makeStore()
        defer { store.close() }
        let both = Audiogram.ClampingRange(lowerBound: -10, upperBound: 90)
        let a = try audiogram([
            .init(frequency: 500, left: .init(sensitivity: 20, masked: true, clampingRange: both),
                  right: .init(sensitivity: 15, clampingRange: .init(upperBound: 80))),
            .init(frequency: 1000, left: .init(sensitivity: 25, clampingRange: .init(lowerBound: 0)), right: .init(sensitivity: 30)),
        ])
        _ = try store.save([a])
        let read = try store.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples
        guard case .audiogram(let got) = read[0].value, case .audiogram(let given) = a.value else {
            Issue.record("not an audiogram"); return
        }
        #expect(got == given)
        #expect(got.points[0].left?.clampingRange == both && got.points[0].right?.clampingRange?.lowerBound == nil)
        #expect(got.points[1].right?.clampingRange == nil)
        func version(_ a: Audiogram) -> UInt8 {
            var w = ByteWriter()
            AudiogramCodec.encode(a, into: &w)
            return w.bytes[0]
        }
        #expect(version(given) == 2)
        #expect(version(Audiogram(points: [.init(frequency: 500, left: .init(sensitivity: 20, masked: true))])) == 1)
    }

    @Test func rule40_aSaveRefusesAClampingRangeThatIsNotOne() throws {
        func ear(_ r: Audiogram.ClampingRange) -> Audiogram.Ear { .init(sensitivity: 20, clampingRange: r) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500, left: ear(.init()))]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500, left: ear(.init(lowerBound: .nan)))]) }
        #expect(throws: OHKError.self) { try audiogram([.init(frequency: 500, right: ear(.init(lowerBound: 50, upperBound: 40)))]) }
        #expect(throws: Never.self) { try audiogram([.init(frequency: 500, right: ear(.init(lowerBound: 40, upperBound: 40)))]) }
    }

    /// Format 14 brought clamping ranges; a format-13 store opens as the
    /// current format with its audiograms as they were.
    @Test func aFormat13StoreOpensAsTheCurrentFormat() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let old = try audiogram([.init(frequency: 500, left: .init(sensitivity: 20, masked: false))])
        _ = try store.save([old])
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, 13) }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(Schema.format >= 14)
        _ = try store.save([try audiogram([.init(frequency: 500, left: .init(sensitivity: 20, clampingRange: .init(upperBound: 70)))])])
        let read = try store.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples
        #expect(read.count == 2 && read[0].value == old.value)
        #expect(try store.verify().isClean)
    }
}
