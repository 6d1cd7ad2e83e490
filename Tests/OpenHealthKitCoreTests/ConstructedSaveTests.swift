import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// A save of samples that `Sample`'s constructors made (`save(constructed:)`,
/// the C library's and the importer's) does not validate them a second
/// time; every other save validates what it saves.
@Suite struct ConstructedSaveTests {
    /// A sample made without a constructor, as a store's decoder makes
    /// them, is validated by `save(_:)` and `saveNew(_:)`: one that ends
    /// before it starts is refused, and nothing is saved.
    @Test func aSampleNotMadeByAConstructorIsValidatedBySave() throws {
        let store = try makeStore()
        defer { store.close() }
        let bad = Sample(uuid: UUID(), type: steps, startDate: t0, endDate: t0.addingTimeInterval(-60),
                         value: .quantity(1), source: appA, device: nil, metadata: [:])
        #expect(errorCode { try store.save([bad]) } == .invalidDateRange)
        #expect(errorCode { _ = try store.saveNew([bad]) } == .invalidDateRange)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 0)
    }

    /// Constructed samples are saved as `save(_:)` saves them: the same
    /// outcomes and the same samples read back; a second `saveNew` of
    /// them skips every one.
    @Test func constructedSamplesAreSavedAsAnySaveSavesThem() throws {
        let plain = try makeStore(), constructed = try makeStore()
        defer { plain.close(); constructed.close() }
        let samples = try (0..<50).map { try stepSample(Double($0), minute: $0) }
        #expect(try plain.save(samples) == constructed.save(constructed: samples))
        #expect(Array(try plain.anchoredQuery(type: steps, anchor: nil).samples)
                == Array(try constructed.anchoredQuery(type: steps, anchor: nil).samples))
        #expect(try constructed.saveNew(constructed: samples).allSatisfy { $0 == nil })
    }
}
