import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// The scan evaluates predicates in their compiled form; it must give
/// exactly the three-valued result of `SamplePredicate.evaluate` (rule 8)
/// for every kind of term, on samples and on deleted objects.
@Suite struct CompiledPredicates {
    typealias Rng = ModelBased.Rng

    static let sources = [appA, appB]
    static let kg = try! HealthUnit("kg"), lb = try! HealthUnit("lb"), g = try! HealthUnit("g")

    static func time(_ r: inout Rng) -> Date { t0.addingTimeInterval(Double(r.int(6) * 60)) }
    static func op(_ r: inout Rng) -> Comparison {
        [.lessThan, .lessThanOrEqual, .equal, .notEqual, .greaterThanOrEqual, .greaterThan][r.int(6)]
    }

    /// Every term the compiler flattens, and some it leaves to the enum.
    static func randomPredicate(_ r: inout Rng, category: Bool, depth: Int = 0) -> SamplePredicate {
        switch r.int(depth > 2 ? 9 : 12) {
        case 0:
            let options: DateRangeOptions = [[], .strictStartDate, .strictEndDate, [.strictStartDate, .strictEndDate]][r.int(4)]
            return .dateRange(start: r.chance(0.2) ? nil : time(&r), end: r.chance(0.2) ? nil : time(&r), options: options)
        case 1: return .startDate(op(&r), time(&r))
        case 2: return .endDate(op(&r), time(&r))
        case 3: return category ? .categoryValue(op(&r), r.int(4)) : .quantity(op(&r), Double(r.int(5)), [kg, lb, g][r.int(3)])
        case 4: return .sources(Set(sources.prefix(r.int(3)).map(\.bundleIdentifier)))
        case 5: return .metadataExists(r.chance(0.5) ? MetadataKey.syncIdentifier : "note")
        case 6: return .metadata(MetadataKey.syncVersion, op(&r), .number(Double(r.int(3))))
        case 7: return .text(.metadata("note"), .beginsWith, "x")
        case 8: return .uuids([])
        case 9: return .not(randomPredicate(&r, category: category, depth: depth + 1))
        case 10: return .and((0..<r.int(4)).map { _ in randomPredicate(&r, category: category, depth: depth + 1) })
        default: return .or((0..<r.int(4)).map { _ in randomPredicate(&r, category: category, depth: depth + 1) })
        }
    }

    static func randomSample(_ r: inout Rng, category: Bool) throws -> Sample {
        let start = time(&r), end = start.addingTimeInterval(Double(r.int(3) * 60))
        var metadata: [String: MetadataValue] = [:]
        if r.chance(0.5) { metadata = synced("s", Double(r.int(3))) }
        if r.chance(0.3) { metadata["note"] = .string(r.chance(0.5) ? "xy" : "yx") }
        let source = sources[r.int(2)]
        if category {
            return try Sample.category(sleep, value: r.int(4), start: start, end: end, source: source, metadata: metadata)
        }
        return try Sample.quantity(bodyMass, value: Double(r.int(5)), unit: kg, start: start, end: end,
                                   source: source, metadata: metadata)
    }

    @Test func rule08_compiledAndEnumEvaluationAgreeOnSamplesAndDeletedObjects() throws {
        var r = Rng(state: 20261123)
        let ctx = EvalContext(type: bodyMass, source: { Self.sources[Int($0)] }, device: { _ in nil })
        let categoryCtx = EvalContext(type: sleep, source: ctx.source, device: ctx.device)
        var seen: [Truth: Int] = [:]
        for round in 0..<3_000 {
            let category = round % 3 == 0
            let p = Self.randomPredicate(&r, category: category)
            let compiled = CompiledPredicate(p, type: category ? sleep : bodyMass)
            for _ in 0..<8 {
                let s = try Self.randomSample(&r, category: category)
                let sourceID = UInt32(Self.sources.firstIndex(of: s.source)!)
                let record = RecordCodec.encodeSample(s, sourceID: sourceID, deviceID: 0)
                record.withUnsafeBytes { raw in
                    let view = RecordView(bytes: raw)
                    let tomb = RecordCodec.encodeTombstone(of: view, deletionDate: t0)
                    for bytes in [record, tomb] {
                        bytes.withUnsafeBytes { b in
                            let v = RecordView(bytes: b)
                            let c = category ? categoryCtx : ctx
                            let want = p.evaluate(v, c)
                            #expect(compiled.evaluate(v, c) == want, "round \(round): \(p) on \(v.isTombstone ? "a deleted object" : "a sample")")
                            seen[want, default: 0] += 1
                        }
                    }
                }
            }
        }
        // The cases are not degenerate: every truth value came up often.
        #expect(seen.count == 3 && seen.values.allSatisfy { $0 > 1_000 }, "\(seen)")
    }

    /// Rule 8 for the predicates that are one interval of start times
    /// (start comparisons joined by AND, a date range with
    /// `strictStartDate` alone), which are tested as two comparisons: the
    /// same results as the enum, bounds that meet or cross included.
    @Test func rule08_startIntervalsAgreeWithTheEnum() throws {
        var r = Rng(state: 75)
        let ctx = EvalContext(type: bodyMass, source: { Self.sources[Int($0)] }, device: { _ in nil })
        func term(_ r: inout Rng) -> SamplePredicate {
            if r.chance(0.3) {
                return .dateRange(start: r.chance(0.2) ? nil : Self.time(&r), end: r.chance(0.2) ? nil : Self.time(&r),
                                  options: .strictStartDate)
            }
            let op: Comparison = [.lessThan, .lessThanOrEqual, .equal, .greaterThanOrEqual, .greaterThan][r.int(5)]
            return .startDate(op, Self.time(&r))
        }
        var seen: [Truth: Int] = [:]
        for round in 0..<2_000 {
            let p: SamplePredicate = r.chance(0.3) ? term(&r) : .and((0..<r.int(4)).map { _ in term(&r) })
            let compiled = CompiledPredicate(p, type: bodyMass)
            #expect(compiled.program.starts != nil, "round \(round): \(p) is a start interval")
            for _ in 0..<8 {
                let s = try Self.randomSample(&r, category: false)
                let record = RecordCodec.encodeSample(s, sourceID: UInt32(Self.sources.firstIndex(of: s.source)!), deviceID: 0)
                record.withUnsafeBytes { raw in
                    let tomb = RecordCodec.encodeTombstone(of: RecordView(bytes: raw), deletionDate: t0)
                    for bytes in [record, tomb] {
                        bytes.withUnsafeBytes { b in
                            let v = RecordView(bytes: b)
                            let want = p.evaluate(v, ctx)
                            #expect(compiled.evaluate(v, ctx) == want, "round \(round): \(p)")
                            seen[want, default: 0] += 1
                        }
                    }
                }
            }
        }
        #expect((seen[.yes] ?? 0) > 1_000 && (seen[.no] ?? 0) > 1_000, "\(seen)")
        // Other shapes keep the nodes' walk.
        for p: SamplePredicate in [.startDate(.notEqual, t0), .endDate(.lessThan, t0), .or([.startDate(.lessThan, t0)]),
                                   .dateRange(start: t0, end: nil, options: []),
                                   .and([.startDate(.lessThan, t0), .quantity(.lessThan, 1, Self.kg)])] {
            #expect(CompiledPredicate(p, type: bodyMass).program.starts == nil, "\(p)")
        }
    }

    /// Several descriptors of one type: their OR is what a scan includes.
    @Test func severalPredicatesOfOneTypeCompileToTheirOr() throws {
        #expect(CompiledPredicate.any(of: [nil, .startDate(.lessThan, t0)], type: steps) == nil)
        let early = SamplePredicate.startDate(.lessThan, t0.addingTimeInterval(60))
        let late = SamplePredicate.startDate(.greaterThan, t0.addingTimeInterval(120))
        let either = try #require(CompiledPredicate.any(of: [early, late], type: steps))
        let ctx = EvalContext(type: steps, source: { _ in appA }, device: { _ in nil })
        for (minute, want) in [(0, Truth.yes), (1, .no), (2, .no), (3, .yes)] {
            let s = try stepSample(1, minute: minute)
            RecordCodec.encodeSample(s, sourceID: 0, deviceID: 0).withUnsafeBytes { b in
                #expect(either.evaluate(RecordView(bytes: b), ctx) == want, "minute \(minute)")
            }
        }
    }
}
