// The example of Apple's article "Executing Anchored Object Queries"
// (developer.apple.com/documentation/healthkit). The seed's Swift is copied
// as it stands, inside a type that holds the `store` and `myAnchor` it
// names; the places where the seed says "Process the … samples" record what
// they get (marked `// test:`).
import Foundation
import OpenHealthKit
import Testing

private final class StepCountReader: @unchecked Sendable {
    let store: HKHealthStore
    var myAnchor: HKQueryAnchor?
    let transcript = Transcript()

    init(store: HKHealthStore) { self.store = store }

    /// "Create an Anchored Object Query" and execute it.
    func run() -> HKAnchoredObjectQuery {
        guard let stepCountType = HKObjectType.quantityType(forIdentifier: .stepCount) else {
            // This should never fail when using a defined constant.
            fatalError("*** Unable to get the step count type ***")
        }

        let query = HKAnchoredObjectQuery(type: stepCountType,
                                          predicate: nil,
                                          anchor: myAnchor,
                                          limit: HKObjectQueryNoLimit)
        { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in

            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                // Properly handle the error.
                return
            }

            self.myAnchor = newAnchor  // seed fix: inside a class, `self.` is required

            for stepCountSample in samples {
                // Process the new step count samples.
                self.transcript.record("new \(stepCountSample.uuid)")  // test
            }

            for deletedStepCountSamples in deletedObjects {
                // Process the deleted step count samples.
                self.transcript.record("deleted \(deletedStepCountSamples.uuid)")  // test
            }

            // The results come back on an anonymous background queue.
            // Dispatch to the main queue before modifying the UI.

            DispatchQueue.main.async {
                // Update the UI here.
                self.transcript.record("ui")  // test
            }
        }

        return query  // test: the caller adds the update handler, then executes
    }

    /// "Create a Long-Running Query"
    func addUpdateHandler(_ query: HKAnchoredObjectQuery) {
        query.updateHandler = { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in
            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                // Properly handle the error.
                return
            }

            self.myAnchor = newAnchor  // seed fix: inside a class, `self.` is required

            for stepCountSample in samples {
                // Process the step counts from the update.
                self.transcript.record("update new \(stepCountSample.uuid)")  // test
            }

            for deletedStepCountSamples in deletedObjects {
                // Process the deleted step count samples from the update.
                self.transcript.record("update deleted \(deletedStepCountSamples.uuid)")  // test
            }
        }
    }
}

@Suite struct Seed001Tests {
    /// "If the myAnchor property is nil, the query returns all the step
    /// count data currently available ... On subsequent runs, the code
    /// uses the anchor returned by the previous query. These queries
    /// return only the changes since the previous run."
    @Test func secondRunReturnsOnlyTheChanges() async throws {
        let healthStore = try freshHealthStore()
        let reader = StepCountReader(store: healthStore)
        let first = (0..<5).map { steps(Double(100 + $0), at: $0) }
        try await healthStore.save(first + [bodyMass(70, at: 0)])

        reader.store.execute(reader.run())  // store.execute(query)
        #expect(await reader.transcript.wait(forLinesStartingWith: "ui"))
        #expect(reader.transcript.lines == first.map { "new \($0.uuid)" } + ["ui"])
        #expect(reader.myAnchor != nil)

        let added = steps(7, at: 10)
        try await healthStore.save(added)
        try await healthStore.delete(first[2])
        reader.transcript.clear()
        reader.store.execute(reader.run())
        #expect(await reader.transcript.wait(forLinesStartingWith: "ui"))
        #expect(reader.transcript.lines == ["new \(added.uuid)", "deleted \(first[2].uuid)", "ui"])
    }

    /// "Now, when you run the query, it continues to monitor the HealthKit
    /// store after returning the initial results. The system calls the
    /// update handler whenever it detects a change."
    @Test func longRunningQueryReportsEachUpdate() async throws {
        let healthStore = try freshHealthStore()
        let reader = StepCountReader(store: healthStore)
        let query = reader.run()
        reader.addUpdateHandler(query)
        healthStore.execute(query)
        defer { healthStore.stop(query) }
        #expect(await reader.transcript.wait(forLinesStartingWith: "ui"))

        let a = steps(1, at: 1), b = steps(2, at: 2)
        try await healthStore.save(a)
        #expect(await reader.transcript.wait(forLinesStartingWith: "update new \(a.uuid)"))
        try await healthStore.save(b)
        try await healthStore.delete(a)
        #expect(await reader.transcript.wait(forLinesStartingWith: "update deleted \(a.uuid)"))
        #expect(reader.transcript.lines == ["ui", "update new \(a.uuid)", "update new \(b.uuid)", "update deleted \(a.uuid)"])

        // The update handler keeps `myAnchor` current: a one-shot query from
        // it finds nothing new.
        reader.transcript.clear()
        healthStore.execute(reader.run())
        #expect(await reader.transcript.wait(forLinesStartingWith: "ui"))
        #expect(reader.transcript.lines == ["ui"])
    }
}
