// Types, units, quantities, metadata, sources and predicates of the
// HealthKit-shaped API.
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct ModelTests {
    /// Every type of the catalogue has its identifier constant, and every
    /// category value enum has the catalogue's integers.
    @Test func identifierConstantsCoverTheCatalogue() {
        let quantities = Set(TypeCatalogue.all.filter(\.isQuantity).map(\.identifier))
        let categories = Set(TypeCatalogue.all.filter { if case .category = $0.kind { true } else { false } }.map(\.identifier))
        #expect(Set(HKQuantityTypeIdentifier.all.map(\.rawValue)) == quantities)
        #expect(Set(HKCategoryTypeIdentifier.all.map(\.rawValue)) == categories)
        #expect(HKQuantityTypeIdentifier.stepCount.rawValue == "HKQuantityTypeIdentifierStepCount")
        #expect(HKQuantityTypeIdentifier.vo2Max.rawValue == "HKQuantityTypeIdentifierVO2Max")
        let sleep = try! SampleType.named(HKCategoryTypeIdentifier.sleepAnalysis.rawValue)
        for value in HKCategoryValueSleepAnalysis.allCases {
            #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysis" + "\(value)".prefix(1).uppercased() + "\(value)".dropFirst()) == value.rawValue)
        }
        #expect(HKCategoryValueSleepAnalysis.asleep == .asleepUnspecified)
    }

    @Test func typesCompareByIdentifier() {
        #expect(HKQuantityType(.stepCount) == HKObjectType.quantityType(forIdentifier: .stepCount))
        #expect(HKQuantityType(.stepCount) != HKQuantityType(.heartRate))
        #expect(Set([HKQuantityType(.stepCount), HKQuantityType(.stepCount)]).count == 1)
        #expect(HKQuantityType(.stepCount).aggregationStyle == .cumulative)
        #expect(HKQuantityType(.bodyMass).aggregationStyle == .discreteArithmetic)
        #expect(HKQuantityType(.bodyMass).is(compatibleWith: .pound()))
        #expect(!HKQuantityType(.bodyMass).is(compatibleWith: .meter()))
    }

    @Test func unitsParseCombineAndCompare() throws {
        #expect(HKUnit.gramUnit(with: .kilo) == HKUnit(from: "kg"))
        #expect(HKUnit.count().unitDivided(by: .minute()) == HKUnit(from: "count/min"))
        #expect(HKUnit.meter().unitRaised(toPower: 2) == HKUnit(from: "m^2"))
        #expect(HKUnit.second().reciprocal() == HKUnit(from: "1/s"))
        #expect(HKUnit.second().reciprocal().is(compatibleWithUnit: .hertz()))
        #expect(HKUnit.literUnit(with: .deci).unitMultiplied(by: .gram()) == HKUnit(from: "dL*g"))
        #expect(HKUnit.moleUnit(with: .milli, molarMass: 180.15588000005408).unitDivided(by: .liter()).is(compatibleWithUnit: HKUnit(from: "mg/dL")))
        #expect(HKUnit(from: "mL/min·kg").unitString == HKUnit(from: "mL/(min*kg)").unitString)
        #expect(throws: HKError.self) { try HKUnit(validating: "furlongs") }
        do { _ = try HKUnit(validating: "furlongs") } catch { #expect(error.code == .errorInvalidArgument) }
    }

    @Test func quantitiesConvertAndCompare() {
        let mass = HKQuantity(unit: .pound(), doubleValue: 154.323583529)
        #expect(abs(mass.doubleValue(for: .gramUnit(with: .kilo)) - 70) < 1e-9)
        #expect(mass.is(compatibleWith: .ounce()))
        #expect(!mass.is(compatibleWith: .second()))
        #expect(mass.compare(HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 71)) == .orderedAscending)
        #expect(mass.compare(HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 69)) == .orderedDescending)
        #expect(abs(HKQuantity(unit: .degreeCelsius(), doubleValue: 100).doubleValue(for: .degreeFahrenheit()) - 212) < 1e-9)
    }

    /// Samples come back with their values in the type's unit, their
    /// metadata kinds, device and source revision.
    @Test func samplesRoundTripThroughTheStore() async throws {
        let store = try freshHealthStore()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let device = HKDevice(name: "Scale", manufacturer: "Acme", model: "S1", hardwareVersion: "2", firmwareVersion: nil,
                              softwareVersion: "1.0", localIdentifier: nil, udiDeviceIdentifier: nil)
        let saved = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .pound(), doubleValue: 154.323583529),
                                     start: when, end: when, device: device,
                                     metadata: [HKMetadataKeyWasUserEntered: true, "reading": 3, "note": "after run",
                                                "measured": when, HKMetadataKeySyncIdentifier: "s1", HKMetadataKeySyncVersion: 2])
        let sleep = HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepREM.rawValue,
                                     start: when, end: when + 3600)
        try await store.save([saved, sleep])
        let got = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: HKQuantityType(.bodyMass)),
                                                                         .sample(type: HKCategoryType(.sleepAnalysis))],
                                                            anchor: nil).result(for: store).addedSamples
        let mass = try #require(got.first { $0.uuid == saved.uuid } as? HKQuantitySample)
        #expect(abs(mass.quantity.doubleValue(for: .gramUnit(with: .kilo)) - 70) < 1e-9)
        #expect(mass.quantity.doubleValue(for: .pound()) == saved.quantity.doubleValue(for: .pound()))
        #expect(mass.startDate == when && mass.endDate == when)
        #expect(mass.device == device)
        #expect(mass.sourceRevision == HKSourceRevision(source: .default(), version: nil))
        #expect(mass.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)
        #expect(mass.metadata?["reading"] as? Double == 3)
        #expect(mass.metadata?["note"] as? String == "after run")
        #expect(mass.metadata?["measured"] as? Date == when)
        let rem = try #require(got.first { $0.uuid == sleep.uuid } as? HKCategorySample)
        #expect(rem.value == HKCategoryValueSleepAnalysis.asleepREM.rawValue)
        #expect(rem.metadata == nil && rem.device == nil)

        // A deleted object keeps its sync identifier and version.
        try await store.delete(mass)
        let after = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: HKQuantityType(.bodyMass))], anchor: nil)
            .result(for: store)
        #expect(after.deletedObjects.map(\.uuid) == [saved.uuid])
        #expect(after.deletedObjects[0].metadata?[HKMetadataKeySyncIdentifier] as? String == "s1")
        #expect(after.deletedObjects[0].metadata?[HKMetadataKeySyncVersion] as? Double == 2)
    }

    /// Rule 24: a sample's creation date and UTC offset (written by an
    /// import, through the core) read back on HKSample, and a sample read
    /// and saved again into another store keeps them.
    @Test func rule24_creationDateAndUTCOffsetReadBackOnHKSample() async throws {
        let store = try freshHealthStore()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let core = try OpenHealthKitCore.Sample.quantity(
            try SampleType.named("HKQuantityTypeIdentifierBodyMass"), value: 70, unit: HealthUnit("kg"),
            start: when, end: when, source: Source(bundleIdentifier: "Renpho", name: "Renpho"),
            creationDate: when + 60, utcOffset: -25_200)
        try store.coreStore().save([core])
        let query = HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: HKQuantityType(.bodyMass))], anchor: nil)
        let got = try #require(try await query.result(for: store).addedSamples.first)
        #expect(got.creationDate == when + 60 && got.utcOffset == -25_200)
        let other = try freshHealthStore()
        try await other.save([got])
        let again = try #require(try await query.result(for: other).addedSamples.first)
        #expect(again.creationDate == when + 60 && again.utcOffset == -25_200)
        let made = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .pound(), doubleValue: 150),
                                    start: when, end: when)
        #expect(made.creationDate == nil && made.utcOffset == nil)
    }

    /// Each factory selects what HealthKit documents it selects; compound
    /// predicates combine them.
    @Test func predicateFactoriesSelectWhatTheySay() async throws {
        let store = try freshHealthStore()
        let early = steps(10, at: 0), late = steps(500, at: 120)
        let tagged = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 50),
                                      start: day0 + 3600, end: day0 + 3660,
                                      device: HKDevice(name: "Watch", manufacturer: "Apple", model: "Watch", hardwareVersion: nil,
                                                       firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil),
                                      metadata: ["HKWasUserEntered": true, "origin": "manual-entry"])
        try await store.save([early, late, tagged])
        func select(_ p: NSPredicate) async throws -> Set<UUID> {
            Set(try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount), predicate: p)],
                                                          anchor: nil).result(for: store).addedSamples.map(\.uuid))
        }
        let all: Set = [early.uuid, late.uuid, tagged.uuid]
        #expect(try await select(HKQuery.predicateForSamples(withStart: day0, end: day0 + 3600, options: .strictStartDate)) == [early.uuid])
        // Rule 8b: the end in [s, e) (HKQuery.h); early ends at s, tagged at e.
        #expect(try await select(HKQuery.predicateForSamples(withStart: day0 + 60, end: day0 + 3660, options: .strictEndDate)) == [early.uuid])
        #expect(try await select(HKQuery.predicateForSamples(withStart: day0 + 3600, end: nil)) == [late.uuid, tagged.uuid])
        #expect(try await select(HKQuery.predicateForObject(with: late.uuid)) == [late.uuid])
        #expect(try await select(HKQuery.predicateForObjects(with: [late.uuid, early.uuid])) == [late.uuid, early.uuid])
        #expect(try await select(HKQuery.predicateForObjects(from: HKSource.default())) == all)
        #expect(try await select(HKQuery.predicateForObjects(from: [HKSourceRevision(source: .default(), version: "9")])) == [])
        #expect(try await select(HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyName, allowedValues: ["Watch"])) == [tagged.uuid])
        #expect(try await select(HKQuery.predicateForObjects(from: [tagged.device!])) == [tagged.uuid])
        #expect(try await select(HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeyWasUserEntered)) == [tagged.uuid])
        #expect(try await select(HKQuery.predicateForObjects(withMetadataKey: "origin", allowedValues: ["manual-entry", "x"])) == [tagged.uuid])
        #expect(try await select(HKQuery.predicateForObjects(withMetadataKey: "origin", operatorType: .beginsWith, value: "manual")) == [tagged.uuid])
        #expect(try await select(HKQuery.predicateForQuantitySamples(with: .lessThan, quantity: HKQuantity(unit: .count(), doubleValue: 100))) == [early.uuid, tagged.uuid])
        let big = HKQuery.predicateForQuantitySamples(with: .greaterThan, quantity: HKQuantity(unit: .count(), doubleValue: 20))
        let first = HKQuery.predicateForSamples(withStart: nil, end: day0 + 3600)
        #expect(try await select(NSCompoundPredicate(andPredicateWithSubpredicates: [big, first])) == [])
        #expect(try await select(NSCompoundPredicate(orPredicateWithSubpredicates: [big, first])) == all)
        #expect(try await select(NSCompoundPredicate(notPredicateWithSubpredicate: big)) == [early.uuid])
        #expect(try await select(NSPredicate(value: true)) == all)
        #expect(try await select(NSPredicate(value: false)) == [])
        #expect(try await select(HKQuery.predicate(text: "quantity >= $1 AND metadata.origin == $2",
                                                   arguments: [HKQuantity(unit: .count(), doubleValue: 40), "manual-entry"])) == [tagged.uuid])
    }

    @Test func categoryPredicates() async throws {
        let store = try freshHealthStore()
        let samples = [HKCategoryValueSleepAnalysis.inBed, .asleepCore, .awake].enumerated().map { i, v in
            HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: v.rawValue, start: day0 + Double(i) * 60, end: day0 + Double(i + 1) * 60)
        }
        try await store.save(samples)
        func select(_ p: NSPredicate) async throws -> [Int] {
            try await HKAnchoredObjectQueryDescriptor(predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis), predicate: p)],
                                                      anchor: nil).result(for: store).addedSamples.map(\.value)
        }
        #expect(try await select(HKQuery.predicateForCategorySamples(with: .equalTo, value: HKCategoryValueSleepAnalysis.asleepCore.rawValue)) == [3])
        #expect(try await select(HKQuery.predicateForCategorySamples(valueIn: [0, 2])) == [0, 2])
    }

    @Test func errorsCarryHealthKitsDomainAndCode() {
        let e = HKError(.errorInvalidArgument, "bad")
        #expect(HKError.errorDomain == "com.apple.healthkit")
        #expect(e.errorCode == 3 && e.localizedDescription == "bad")
        #expect((e as NSError).code == 3)
        let core = HKError(core: OHKError(.notFound, "no such sample"))
        #expect(core.code == .errorNoData && core.underlyingError is OHKError)
        switch e as Error {
        case HKError.errorInvalidArgument: break
        default: Issue.record("the code pattern did not match")
        }
    }
}

extension HKUnit {
    /// Whether two units measure the same thing (through a quantity).
    fileprivate func `is`(compatibleWithUnit other: HKUnit) -> Bool {
        HKQuantity(unit: self, doubleValue: 1).is(compatibleWith: other)
    }
}
