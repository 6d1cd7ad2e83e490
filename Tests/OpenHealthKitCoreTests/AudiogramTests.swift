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
}
