import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rules 17 and 18 (docs/semantics.md) for text built to hurt: every case here crashed, hung or
/// overflowed the stack before the limits of docs/predicates.md ("Limits").
/// Each is a clear error, and the bound itself is not off by one.
@Suite struct HostileInputTests {
    private func predicateError(_ text: String) -> OHKError? {
        do { _ = try SamplePredicate(text); return nil } catch let e as OHKError { return e } catch { return nil }
    }

    private func unitError(_ text: String) -> OHKError? {
        do { _ = try HealthUnit(text); return nil } catch let e as OHKError { return e } catch { return nil }
    }

    @Test func rule18_aParameterNumberPastTheLimitIsAnErrorNotAnOverflow() {
        let e = predicateError("quantity > $9223372036854775808")
        #expect(e?.code == .invalidPredicate && e?.message.contains("parameter numbers go up to") == true)
        #expect(predicateError("quantity > $\(PredicateLimits.parameter + 1)")?.code == .invalidPredicate)
        // Within the limit, an unbound parameter is the usual error.
        #expect(predicateError("quantity > $\(PredicateLimits.parameter)")?.message.contains("has no value") == true)
    }

    @Test func rule18_nestingPastTheLimitIsAnErrorNotAStackOverflow() {
        let depth = PredicateLimits.nesting
        func parens(_ n: Int) -> String { String(repeating: "(", count: n) + "quantity > 1 count" + String(repeating: ")", count: n) }
        #expect(predicateError(parens(depth)) == nil)
        #expect(predicateError(parens(depth + 1))?.message.contains("nesting deeper than") == true)
        #expect(predicateError(parens(30_000))?.code == .invalidPredicate)
        let nots = String(repeating: "NOT ", count: 30_000) + "quantity > 1 count"
        #expect(predicateError(nots)?.code == .invalidPredicate)
        let ands = String(repeating: "AND(", count: 30_000) + "quantity > 1 count" + String(repeating: ")", count: 30_000)
        #expect(predicateError(ands)?.code == .invalidPredicate)
        let lists = "uuid IN " + String(repeating: "{", count: 30_000) + String(repeating: "}", count: 30_000)
        #expect(predicateError(lists)?.code == .invalidPredicate)
    }

    /// A predicate's depth is bounded at half the text's nesting, so the
    /// canonical text of any predicate parses back (the fuzzer found 180
    /// NOTs whose text, `NOT (…)` at each level, nested 360 deep).
    @Test func rule18_aPredicateDeeperThanTheLimitIsRefusedAndEveryOtherPrintsBack() throws {
        func nots(_ n: Int) -> String { String(repeating: "!", count: n) + "value IN {0, 1}" }
        // The IN list is an OR of two terms: one level more than the NOTs.
        let deepest = try SamplePredicate(nots(PredicateLimits.depth - 2))
        #expect(deepest.depth == PredicateLimits.depth)
        #expect(try SamplePredicate(deepest.description) == deepest)
        #expect(predicateError(nots(PredicateLimits.depth - 1))?.message.contains("nests deeper than") == true)
        #expect(predicateError(nots(180))?.code == .invalidPredicate)
    }

    /// A sample's record is at most 16 MB (so a read that meets a larger
    /// one knows it is damage): a larger save is refused, writing nothing.
    @Test func rule18_aSampleLargerThanTheRecordLimitIsRefused() throws {
        let store = try makeStore()
        defer { store.close() }
        let big = try stepSample(1, metadata: ["note": .string(String(repeating: "x", count: RecordCodec.maxSize))])
        #expect(errorCode { try store.save([try stepSample(2), big]) } == .invalidMetadata)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.isEmpty)
        let fits = try stepSample(3, metadata: ["note": .string(String(repeating: "x", count: RecordCodec.maxSize - 1000))])
        try store.save([fits])
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.map(\.uuid) == [fits.uuid])
    }

    /// A record holds a metadata key's length, and the number of keys, in
    /// 16 bits: more is a typed error, where it trapped.
    @Test func rule18_aMetadataKeyOrCountPastSixteenBitsIsRefused() throws {
        let store = try makeStore(mapSize: 64 << 20)
        defer { store.close() }
        #expect(errorCode { try store.save([try stepSample(1, metadata: [String(repeating: "k", count: 65_536): .bool(true)])]) }
                == .invalidMetadata)
        var many: [String: MetadataValue] = [:]
        for i in 0...65_535 { many["k\(i)"] = .bool(true) }
        #expect(errorCode { try store.save([try stepSample(2, metadata: many)]) } == .invalidMetadata)
        try store.save([try stepSample(3, metadata: [String(repeating: "k", count: 65_535): .bool(true)])])
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 1)
    }

    @Test func rule18_textPastTheLengthLimitIsRefusedBeforeItIsRead() {
        let long = "sourceName == '" + String(repeating: "x", count: PredicateLimits.textBytes) + "'"
        #expect(predicateError(long)?.message.contains("longer than the limit") == true)
    }

    @Test func rule18_hugePowersOfUnitsAreErrorsNotHangsOrInfinity() {
        for text in ["ms^123456789012", "kg^123456789012345590", "(kg^2)^2147483647", "m^99999999999999999999999",
                     "m^33", "(m^8)^8", "m^200",
                     "qc^-009223372036854775808m"] {  // the last is Int.min, where abs() trapped (a fuzzing find)
            #expect(unitError(text)?.code == .invalidUnit, "\(text)")
        }
        // A power that wrapped the 8-bit dimension made m^256 dimensionless.
        #expect(unitError(Array(repeating: "m^32", count: 8).joined(separator: "*"))?.code == .invalidUnit)
        // At the limit, a unit is a unit.
        #expect(unitError("m^\(UnitLimits.exponent)") == nil)
        #expect(unitError("(m^2)^3") == nil)
    }

    @Test func rule18_unitNestingAndLengthPastTheLimitsAreErrors() {
        func parens(_ n: Int) -> String { String(repeating: "(", count: n) + "kg" + String(repeating: ")", count: n) }
        #expect(unitError(parens(UnitLimits.nesting)) == nil)
        #expect(unitError(parens(UnitLimits.nesting + 1))?.code == .invalidUnit)
        #expect(unitError(parens(30_000))?.code == .invalidUnit)
        #expect(unitError(String(repeating: "m*", count: 200) + "m")?.code == .invalidUnit)
    }

    @Test func rule18_aConversionThatOverflowsIsAnErrorNotInfinity() throws {
        let teragram = try HealthUnit("Tg"), picogram = try HealthUnit("pg")
        #expect(errorCode { _ = try teragram.convert(1e300, to: picogram) } == .invalidValue)
        #expect(try teragram.convert(1, to: picogram) == 1e24)
    }

    @Test func rule18_aSaveWithAHostileUnitFailsAtOnceAndWritesNothing() throws {
        let store = try makeStore()
        defer { store.close() }
        #expect(errorCode {
            try store.save([try Sample.quantity(steps, value: 1, unit: HealthUnit("count^123456789012"),
                                                start: t0, end: t0, source: appA)])
        } == .invalidUnit)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.isEmpty)
    }
}
