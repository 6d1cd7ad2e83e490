// The example of Apple's page for HKObserverQuery
// init(queryDescriptors:updateHandler:), with an inner anchored query. The
// seed's Swift is copied as it stands, in a function that gives it the
// `store` and `anchor` it names; what the test adds where the seed says
// "Process ... here" is marked `// test`.
import Foundation
@testable import OpenHealthKit
import Testing

private final class Monitor: @unchecked Sendable {
    let store: HKHealthStore
    var anchor: HKQueryAnchor?
    let transcript = Transcript()

    init(store: HKHealthStore) { self.store = store }

    func start() -> HKObserverQuery {
        let store = self.store  // test: the seed's `store`

        // Create the data types.
        let stepCountType = HKQuantityType(.stepCount)
        let pushCountType = HKQuantityType(.pushCount)

        // Specify the desired sample types.
        let stepDescriptor = HKQueryDescriptor(sampleType: stepCountType, predicate: nil)
        let pushDescriptor = HKQueryDescriptor(sampleType: pushCountType, predicate: nil)

        // Create the query.
        let observerQuery = HKObserverQuery(queryDescriptors: [stepDescriptor, pushDescriptor])
        { query, updatedSampleTypes, completionHandler, error in

            if let error = error {
                // Handle errors here.
                self.transcript.record("error \(error)")  // test
            }

            if let types = updatedSampleTypes {
                self.transcript.record("types \(types.map(\.identifier).sorted())")  // test
                let descriptors = types.map { type in
                    HKQueryDescriptor(sampleType: type, predicate: nil)
                }

                // Create an inner query to access the changed data.
                let anchorQuery = HKAnchoredObjectQuery(queryDescriptors: descriptors,
                                                        anchor: self.anchor,  // seed fix: `anchor` is this class's property
                                                        limit: HKObjectQueryNoLimit)
                {
                    anchorQuery, samples, deleted, newAnchor, error in
                    if let error = error {
                        // Handle errors here.
                        self.transcript.record("error \(error)")  // test
                    }

                    DispatchQueue.main.async {
                        // Update the anchor.
                        self.anchor = newAnchor  // seed fix: `anchor` is this class's property

                        // Process the samples and deleted objects here.
                        for s in samples ?? [] { self.transcript.record("sample \(s.uuid)") }  // test
                        for d in deleted ?? [] { self.transcript.record("deleted \(d.uuid)") }  // test

                        // Call the observer's completion handler.
                        completionHandler()
                    }
                }

                // Run the inner query.
                store.execute(anchorQuery)
            }
        }

        store.execute(observerQuery)  // test: the seed leaves running it to the caller
        return observerQuery  // test
    }
}

@Suite struct Seed004Tests {
    /// "The system calls the update handler block you provide every time
    /// something saves or deletes samples matching this query", with the
    /// types that changed; the inner anchored query reads the change, and
    /// the completion handler is called once per update. The first call
    /// comes when the query starts, with every observed type (rule 10b).
    @Test func observerWithInnerQueryDeliversEachChangeAndCompletes() async throws {
        let store = try freshHealthStore()
        let monitor = Monitor(store: store)
        monitor.anchor = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                                   anchor: nil).result(for: store).newAnchor  // test: start from now
        let query = monitor.start()
        defer { store.stop(query) }
        let both = "types [\"HKQuantityTypeIdentifierPushCount\", \"HKQuantityTypeIdentifierStepCount\"]"
        #expect(query.waitForCompletions(1))
        #expect(monitor.transcript.lines == [both])

        let step = steps(100, at: 0)
        try await store.save(step)
        #expect(query.waitForCompletions(2))
        #expect(monitor.transcript.lines == [both, "types [\"HKQuantityTypeIdentifierStepCount\"]", "sample \(step.uuid)"])

        let push = steps(3, at: 1, type: .pushCount)
        try await store.save(push)
        #expect(query.waitForCompletions(3))
        try await store.save(bodyMass(70, at: 2))  // not observed: no call
        try await store.delete(step)
        #expect(query.waitForCompletions(4))
        #expect(monitor.transcript.lines == [
            both,
            "types [\"HKQuantityTypeIdentifierStepCount\"]", "sample \(step.uuid)",
            "types [\"HKQuantityTypeIdentifierPushCount\"]", "sample \(push.uuid)",
            "types [\"HKQuantityTypeIdentifierStepCount\"]", "deleted \(step.uuid)",
        ])
        #expect(query.completionCount == 4)
    }
}
