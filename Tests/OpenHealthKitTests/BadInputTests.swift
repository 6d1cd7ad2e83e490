// What HealthKit rejects is rejected here with HealthKit's error code and a
// message, and nothing is written (issue 8, "Bad input").
import Foundation
@testable import OpenHealthKit
import Testing

/// The error `body` throws, as an HKError.
private func hkError(_ body: () async throws -> Void) async -> HKError? {
    do { try await body(); return nil } catch { return error as? HKError }
}

/// Every step-count and body-mass sample of `store`.
private func stored(_ store: HKHealthStore) async throws -> [HKSample] {
    try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: HKQuantityType(.stepCount)),
                                                           .sample(type: HKQuantityType(.bodyMass)),
                                                           .sample(type: HKCategoryType(.sleepAnalysis))],
                                              anchor: nil).result(for: store).addedSamples
}

@Suite struct BadInputTests {
    @Test func startAfterEndIsRefusedAndNothingIsWritten() async throws {
        let store = try freshHealthStore()
        let bad = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 1),
                                   start: day0 + 60, end: day0)
        let e = await hkError { try await store.save([steps(1, at: 0), bad]) }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("before it starts") == true)
        #expect(try await stored(store).isEmpty)
    }

    @Test func incompatibleUnitIsRefused() async throws {
        let store = try freshHealthStore()
        let bad = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 1),
                                   start: day0, end: day0)
        let e = await hkError { try await store.save(bad) }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("not compatible") == true)
        #expect(try await stored(store).isEmpty)
    }

    @Test func syncIdentifierWithoutVersionIsRefused() async throws {
        let store = try freshHealthStore()
        let bad = bodyMass(70, at: 0, metadata: [HKMetadataKeySyncIdentifier: "scale-1"])
        let e = await hkError { try await store.save(bad) }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains(HKMetadataKeySyncVersion) == true)
        #expect(try await stored(store).isEmpty)
    }

    @Test func unknownIdentifierIsRefusedBySavesAndQueries() async throws {
        let store = try freshHealthStore()
        #expect(HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNope")) == nil)
        #expect(HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(HKCategoryTypeIdentifier.sleepAnalysis.rawValue)) == nil)
        #expect(HKObjectType.categoryType(forIdentifier: .sleepAnalysis) == HKCategoryType(.sleepAnalysis))
        let nope = HKQuantityType(HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNope"))
        let e = await hkError {
            try await store.save(HKQuantitySample(type: nope, quantity: HKQuantity(unit: .count(), doubleValue: 1), start: day0, end: day0))
        }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("HKQuantityTypeIdentifierNope") == true)

        let transcript = Transcript()
        store.execute(HKAnchoredObjectQuery(type: nope, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, samples, deleted, anchor, error in
            transcript.record("\(samples == nil) \(deleted == nil) \(anchor == nil) \((error as? HKError)?.code == .errorInvalidArgument)")
        })
        #expect(await transcript.wait { !$0.isEmpty })
        #expect(transcript.lines == ["true true true true"])
    }

    @Test func categoryValueTheTypeDoesNotHaveIsRefused() async throws {
        let store = try freshHealthStore()
        let bad = HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: 99, start: day0, end: day0 + 60)
        let e = await hkError { try await store.save(bad) }
        #expect(e?.code == .errorInvalidArgument)
        #expect(try await stored(store).isEmpty)
    }

    @Test func metadataOfAnotherKindIsRefused() async throws {
        let store = try freshHealthStore()
        let e = await hkError { try await store.save(bodyMass(70, at: 0, metadata: ["list": [1, 2]])) }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("'list'") == true)
        #expect(try await stored(store).isEmpty)
    }

    @Test func deletingAnObjectNotInTheStoreIsNoData() async throws {
        let store = try freshHealthStore()
        let kept = steps(1, at: 0)
        try await store.save(kept)
        let e = await hkError { try await store.delete([kept, steps(2, at: 1)]) }
        #expect(e?.code == .errorNoData)
        #expect(try await stored(store).map(\.uuid) == [kept.uuid])  // all or nothing
    }

    @Test func completionFormsReportTheSameErrors() async throws {
        let store = try freshHealthStore()
        let transcript = Transcript()
        store.save(steps(1, at: 0)) { ok, error in transcript.record("save \(ok) \(error == nil)") }
        store.save(bodyMass(70, at: 0, metadata: [HKMetadataKeySyncVersion: 1])) { ok, error in
            transcript.record("bad \(ok) \((error as? HKError)?.code == .errorInvalidArgument)")
        }
        #expect(await transcript.wait { $0.count == 2 })
        #expect(Set(transcript.lines) == ["save true true", "bad false true"])
    }

    @Test func predicateTheStoreCannotEvaluateIsRefused() async throws {
        let store = try freshHealthStore()
        let block = NSPredicate { _, _ in true }
        let e = await hkError {
            _ = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount), predicate: block)],
                                                          anchor: nil).result(for: store)
        }
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("HKQuery's factories") == true)
        let op = HKQuery.predicateForQuantitySamples(with: .matches, quantity: HKQuantity(unit: .count(), doubleValue: 1))
        let e2 = await hkError {
            _ = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount), predicate: op)],
                                                          anchor: nil).result(for: store)
        }
        #expect(e2?.code == .errorInvalidArgument)
    }

    /// Neither initializer throws, as HealthKit's does not: the failure
    /// to open surfaces on first use, as an HKError.
    @Test func storeThatCannotBeOpenedIsInaccessible() async throws {
        let file = temporaryFile()
        let store = HKHealthStore(directory: file)
        let e = await hkError { try await store.save(steps(1, at: 0)) }
        #expect(e?.code == .errorDatabaseInaccessible)
        #expect(e?.localizedDescription.contains(file) == true)
        #expect(throws: HKError.self) { try store.coreStore() }
        let other = HKHealthStore(opening: file)  // what init() does with the default directory
        let e2 = await hkError { try await other.delete(steps(1, at: 0)) }
        #expect(e2?.code == .errorDatabaseInaccessible)
    }
}

/// A regular file, where a store directory cannot be.
private func temporaryFile() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-file-\(UUID())").path
    FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
    return path
}
