import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Correlations (rule 33): samples of a correlation type holding the
/// UUIDs of their member samples, which are saved with them or before.
@Suite struct CorrelationTests {
    let systolic = try! SampleType.named("BloodPressureSystolic")
    let diastolic = try! SampleType.named("BloodPressureDiastolic")
    let bloodPressure = try! SampleType.named("BloodPressure")
    let food = try! SampleType.named("Food")
    let energy = try! SampleType.named("DietaryEnergyConsumed")
    let mmHg = try! HealthUnit("mmHg")

    private func pressure(_ type: SampleType, _ value: Double) throws -> Sample {
        try Sample.quantity(type, value: value, unit: mmHg, start: t0, end: t0, source: appA)
    }

    private func reading(_ members: [Sample]) throws -> Sample {
        try Sample.correlation(bloodPressure, members: members.map(\.uuid), start: t0, end: t0, source: appA)
    }

    @Test func rule33_aCorrelationHoldsMembersSavedWithItOrBefore() throws {
        let store = try makeStore()
        defer { store.close() }
        let sys = try pressure(systolic, 120), dia = try pressure(diastolic, 80)
        let bp = try reading([sys, dia])
        _ = try store.save([sys, dia, bp])
        let read = try store.anchoredQuery(type: bloodPressure, anchor: nil).samples
        #expect(Array(read) == [bp])
        #expect(read[0].value == .correlation(Correlation(members: [sys.uuid, dia.uuid])))
        // The members are samples of their own types, in their own feeds.
        #expect(try store.anchoredQuery(type: systolic, anchor: nil).samples.map(\.uuid) == [sys.uuid])

        // Members stored before: a later save may group them again.
        let again = try Sample.correlation(bloodPressure, members: [sys.uuid, dia.uuid], start: t0, end: t0, source: appB)
        _ = try store.save([again])

        // Deleting a correlation leaves its members (no cascade is
        // documented; developers delete members by hand).
        try store.delete(uuids: [bp.uuid])
        #expect(try store.anchoredQuery(type: diastolic, anchor: nil).samples.map(\.uuid) == [dia.uuid])
        #expect(try store.verify().isClean)

        let meal = try Sample.quantity(energy, value: 500, unit: HealthUnit("kcal"), start: t0, end: t0, source: appA)
        let dinner = try Sample.correlation(food, members: [meal.uuid], start: t0, end: t0, source: appA)
        _ = try store.save([meal, dinner])
    }

    @Test func rule33_aSaveRefusesMissingMembersOrMembersItDoesNotAllow() throws {
        let store = try makeStore()
        defer { store.close() }
        let sys = try pressure(systolic, 120), dia = try pressure(diastolic, 80), sys2 = try pressure(systolic, 121)
        let steps1 = try stepSample(10)
        let refused: [(String, [Sample])] = [
            ("a member not saved", [sys, try reading([sys, dia])]),
            ("a member saved after it", [sys, try reading([sys, dia]), dia]),
            ("steps in a blood pressure", [sys, steps1, try reading([sys, steps1])]),
            ("two systolic and no diastolic", [sys, sys2, try reading([sys, sys2])]),
            ("a systolic alone", [sys, try reading([sys])]),
            ("a blood pressure in food", [sys, try Sample.correlation(food, members: [sys.uuid], start: t0, end: t0, source: appA)]),
            ("no member", [try reading([])]),
        ]
        for (what, samples) in refused {
            #expect(throws: OHKError.self, "\(what)") { try store.save(samples) }
            // All or nothing: not even the members were written.
            #expect(try store.anchoredQuery(type: systolic, anchor: nil).samples.isEmpty, "\(what)")
        }
        // A deleted member is not there.
        _ = try store.save([sys, dia])
        try store.delete(uuids: [dia.uuid])
        #expect(throws: OHKError.self) { try store.save([try reading([sys, dia])]) }
        #expect(throws: OHKError.self) {
            try Sample.correlation(steps, members: [sys.uuid], start: t0, end: t0, source: appA)
        }
    }
    /// HealthKit's correlation query: the correlation's own predicate,
    /// the member types its keys require, and each member of a keyed type
    /// matching that key's predicate; members of other types are ignored.
    @Test func rule37_aCorrelationQueryFiltersOnItsMembers() throws {
        let store = try makeStore()
        defer { store.close() }
        var readings: [Sample] = []
        var all: [Sample] = []
        for (s, d, at) in [(150.0, 95.0, 0.0), (118, 76, 60), (145, 70, 120)] {
            let sys = try Sample.quantity(systolic, value: s, unit: mmHg, start: t0 + at, end: t0 + at, source: appA)
            let dia = try Sample.quantity(diastolic, value: d, unit: mmHg, start: t0 + at, end: t0 + at, source: appA)
            let bp = try Sample.correlation(bloodPressure, members: [sys.uuid, dia.uuid], start: t0 + at, end: t0 + at, source: appA)
            readings.append(bp)
            all += [sys, dia, bp]
        }
        _ = try store.save(all)
        let meal = try Sample.quantity(energy, value: 500, unit: HealthUnit("kcal"), start: t0, end: t0, source: appA)
        _ = try store.save([meal, try Sample.correlation(food, members: [meal.uuid], start: t0, end: t0, source: appA)])

        func query(_ predicate: SamplePredicate?, _ members: [QueryDescriptor]) throws -> [UUID] {
            try store.correlationQuery(QueryDescriptor(type: bloodPressure, predicate: predicate), members: members).map(\.uuid)
        }
        let high = SamplePredicate.quantity(.greaterThanOrEqual, 140, mmHg)
        // No member predicates: every blood pressure, no food.
        #expect(try query(nil, []) == readings.map(\.uuid))
        // Systolic 140 or more: the first and the third.
        #expect(try query(nil, [QueryDescriptor(type: systolic, predicate: high)]) == [readings[0].uuid, readings[2].uuid])
        // Both high: the first only; the diastolic key's predicate applies to diastolic members only.
        #expect(try query(nil, [QueryDescriptor(type: systolic, predicate: high),
                                QueryDescriptor(type: diastolic, predicate: .quantity(.greaterThan, 90, mmHg))]) == [readings[0].uuid])
        // The correlation's own predicate comes first.
        #expect(try query(.startDate(.greaterThan, t0), [QueryDescriptor(type: systolic, predicate: high)]) == [readings[2].uuid])
        // A key is a required member type: a reading whose diastolic
        // sample is deleted no longer has one.
        let dia0 = try #require(try store.anchoredQuery(type: diastolic, anchor: nil).samples.first)
        try store.delete(uuids: [dia0.uuid])
        #expect(try query(nil, [QueryDescriptor(type: diastolic)]) == [readings[1].uuid, readings[2].uuid])
        #expect(try query(nil, [QueryDescriptor(type: systolic, predicate: high)]) == [readings[0].uuid, readings[2].uuid])
        // Keys a correlation cannot hold, a type twice, or a query on
        // another kind are refused.
        #expect(throws: OHKError.self) { try query(nil, [QueryDescriptor(type: energy)]) }
        #expect(throws: OHKError.self) { try query(nil, [QueryDescriptor(type: systolic), QueryDescriptor(type: systolic)]) }
        #expect(throws: OHKError.self) { try store.correlationQuery(QueryDescriptor(type: systolic), members: []) }
    }
}
