// The examples of Apple's page for HKAnchoredObjectQueryDescriptor. The
// seed's Swift is copied as it stands, in functions that give it the
// `store`, `anchor` and `updateTask` it names; changes are marked `// seed
// fix:`, and what the test adds where the seed says "Process the … here" is
// marked `// test`.
import Foundation
import OpenHealthKit
import Testing

private let transcript = Transcript()
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    transcript.record(items.map { "\($0)" }.joined(separator: separator))
}

/// "Batch Read Existing Data": returns the final anchor and every batch.
private func seedBatchRead(store: HKHealthStore) async throws -> (HKQueryAnchor?, [[HKQuantitySample]]) {
    var batches: [[HKQuantitySample]] = []  // test

    let stepType = HKQuantityType(.stepCount)

    // Start by reading all matching data.
    var anchor: HKQueryAnchor? = nil
    var results: HKAnchoredObjectQueryDescriptor<HKQuantitySample>.Result


    repeat {
        // Create a query descriptor that reads a batch
        // of 100 matching samples.
        let anchorDescriptor =
        HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: stepType)],
            anchor: anchor,
            limit: 100
        )

        results = try await anchorDescriptor.result(for: store)
        anchor = results.newAnchor

        // Process the batch of results here.
        batches.append(results.addedSamples)  // test

    } while (results.addedSamples != []) || (results.deletedObjects != [])  // seed fix: `&&` stopped after the first batch with no deletions; the loop ends when both are empty

    return (anchor, batches)  // test
}

/// "Monitor for Changes"
private func seedMonitor(store: HKHealthStore, anchor: HKQueryAnchor?) -> Task<Void, Error> {
    var updateTask: Task<Void, Error>  // test: the seed's property

    let stepType = HKQuantityType(.stepCount)

    // Create a query descriptor.
    let anchorDescriptor =
    HKAnchoredObjectQueryDescriptor(
        predicates: [.quantitySample(type: stepType)],
        anchor: anchor
    )

    let updateQueue = anchorDescriptor.results(for: store)

    updateTask = Task {
        for try await update in updateQueue {
            // Process the update here.
            print(update)
        }
    }

    return updateTask  // test
}

@Suite(.serialized) struct Seed002Tests {
    /// "Continue reading batches until there's no new data": 1,050 steps in
    /// batches of 100 are read once each, in store order, and the loop ends.
    @Test func batchLoopOf100ReadsEverySampleOnce() async throws {
        let store = try freshHealthStore()
        let saved = (0..<1050).map { steps(Double($0), at: $0) }
        try await store.save(saved)
        try await store.save([bodyMass(70, at: 0)])  // another type: not read

        let (anchor, batches) = try await seedBatchRead(store: store)
        #expect(batches.map(\.count) == Array(repeating: 100, count: 10) + [50, 0])
        #expect(batches.flatMap { $0 }.map(\.uuid) == saved.map(\.uuid))
        #expect(batches.flatMap { $0 }.map { $0.quantity.doubleValue(for: .count()) } == (0..<1050).map(Double.init))

        // The final anchor is the end: a new sample is all a later batch reads.
        let later = steps(5, at: 2000)
        try await store.save(later)
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                             anchor: anchor, limit: 100).result(for: store)
        #expect(next.addedSamples == [later])
    }

    /// "The first result represents any changes currently in the HealthKit
    /// store, and additional results represent changes as they occur."
    @Test func resultsSequenceYieldsSnapshotThenEachChange() async throws {
        transcript.clear()
        let store = try freshHealthStore()
        let before = steps(1, at: 0)
        try await store.save(before)
        let (anchor, _) = try await seedBatchRead(store: store)
        let pending = steps(2, at: 1)  // saved after the anchor, before the monitor starts
        try await store.save(pending)

        let task = seedMonitor(store: store, anchor: anchor)
        defer { task.cancel() }
        #expect(await transcript.wait { $0.count == 1 })
        #expect(mentions(transcript.lines[0], only: [pending], of: [before, pending]))

        let added = steps(3, at: 2)
        try await store.save(added)
        #expect(await transcript.wait { $0.count == 2 })
        try await store.delete(before)
        #expect(await transcript.wait { $0.count == 3 })
        let lines = transcript.lines
        #expect(mentions(lines[1], only: [added], of: [before, pending, added]))
        #expect(mentions(lines[2], only: [before], of: [before, pending, added]))
        #expect(lines[2].contains("<HKDeletedObject> \(before.uuid)"))
    }
}

/// True when the printed update names the samples in `only` and no
/// other of `all`.
private func mentions(_ line: String, only: [HKSample], of all: [HKSample]) -> Bool {
    all.allSatisfy { line.contains($0.uuid.uuidString) == only.contains($0) }
}
