// The example of Apple's overview of anchored object queries (HealthKit
// Programming Guide). The seed's code is Swift 2 with its braces lost; it
// is copied with those repaired (each change marked `// seed fix:`), inside
// the class whose `anchor` property it uses. What the test adds where the
// seed says "Process the results..." is marked `// test`.
import Foundation
import OpenHealthKit
import Testing

private final class StepCounter: @unchecked Sendable {
    let store: HKHealthStore
    var anchor: HKQueryAnchor?
    let transcript = Transcript()

    init(store: HKHealthStore) { self.store = store }

    func run() {
        guard let sampleType = HKObjectType.quantityType(forIdentifier: .stepCount) else {  // seed fix: Swift 2's quantityTypeForIdentifier(HKQuantityTypeIdentifierStepCount)
            fatalError("Unable to create a step count sample type")
        }  // seed fix: the else block was not closed
        let query = HKAnchoredObjectQuery(type: sampleType,
                                          predicate: nil,
                                          anchor: self.anchor,
                                          limit: Int(HKObjectQueryNoLimit)) { [unowned self](query, newSamples, deletedSamples, newAnchor, error) -> Void in
                                            guard let samples = newSamples as? [HKQuantitySample], let deleted = deletedSamples else {
                                                // Add proper error handling here...
                                                print("*** Unable to query for step counts: \(String(describing: error?.localizedDescription)) ***")  // seed fix: String(describing:) for the optional
                                                return  // seed fix: a guard's else must leave
                                            }  // seed fix: not closed
                                            // Process the results...
                                            self.anchor = newAnchor
                                            for sample in samples {
                                                self.transcript.record("sample \(sample.uuid) \(sample.quantity.doubleValue(for: .count()))")  // test
                                            }  // seed fix: not closed
                                            for deletedSample in deleted {
                                                self.transcript.record("deleted \(deletedSample.uuid)")  // test
                                            }  // seed fix: not closed
                                            self.transcript.record("end")  // test
        }  // seed fix: not closed
        store.execute(query)  // seed fix: step 4, "It executes the query using the HealthKit store", is missing from the code
    }
}

@Suite struct Seed003Tests {
    /// "The first time this code runs, the anchor property is set to nil.
    /// The query returns all the step count data currently available ...
    /// On subsequent runs ... only the step count samples that have been
    /// saved or deleted since the previous run."
    @Test func firstRunReadsEverythingLaterRunsOnlyWhatChanged() async throws {
        let store = try freshHealthStore()
        let counter = StepCounter(store: store)
        let first = [steps(10, at: 0), steps(20, at: 1)]
        try await store.save(first)

        counter.run()
        #expect(await counter.transcript.wait(forLinesStartingWith: "end"))
        #expect(counter.transcript.lines == ["sample \(first[0].uuid) 10.0", "sample \(first[1].uuid) 20.0", "end"])

        let second = steps(30, at: 2)
        try await store.save(second)
        try await store.delete(first[0])
        counter.transcript.clear()
        counter.run()
        #expect(await counter.transcript.wait(forLinesStartingWith: "end"))
        #expect(counter.transcript.lines == ["sample \(second.uuid) 30.0", "deleted \(first[0].uuid)", "end"])

        counter.transcript.clear()
        counter.run()
        #expect(await counter.transcript.wait(forLinesStartingWith: "end"))
        #expect(counter.transcript.lines == ["end"])
    }

    /// "Anchored object queries are mostly immutable. You can assign the
    /// query's updateHandler property after instantiating the object":
    /// the anchor the handler keeps is the one the query returned.
    @Test func anchorIsTheLastObjectReturned() async throws {
        let store = try freshHealthStore()
        let counter = StepCounter(store: store)
        try await store.save([steps(1, at: 0)])
        counter.run()
        #expect(await counter.transcript.wait(forLinesStartingWith: "end"))
        let kept = try #require(counter.anchor)
        // Another query from the same store position returns the same anchor.
        let again = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                              anchor: kept).result(for: store)
        #expect(again.addedSamples.isEmpty && again.deletedObjects.isEmpty)
        #expect(again.newAnchor == kept)
    }
}
