// A tutorial's example of HKAnchoredObjectQuery and HKQueryAnchor in
// practice (snapshot, then changes, with the anchor kept between runs). The
// seed's Swift is copied as it stands, inside functions that give it the
// `healthStore` it names; every change is marked `// seed fix:`.
import Foundation
import OpenHealthKit
import Testing

/// The seed's `print` calls land here (this file's `print` shadows the
/// standard library's), so the tests read what the seed printed.
private let transcript = Transcript()
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    transcript.record(items.map { "\($0)" }.joined(separator: separator))
}

/// Seed 000, first example: the body-mass snapshot from a nil anchor.
private func seedBodyMassQuery(healthStore: HKHealthStore) {
    let bodyMassType = HKObjectType.quantityType(forIdentifier: .bodyMass)!  // seed fix: unwrap the optional type

    // Create the query.
    let query = HKAnchoredObjectQuery(type: bodyMassType,
                                      predicate: nil,
                                      anchor: nil,
                                      limit: HKObjectQueryNoLimit) { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in  // seed fix: `HKObjectQueryNoLimit()` is a constant, and `)` closes the call
                                        guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                                            fatalError("*** An error occurred during the initial query: \(errorOrNil!.localizedDescription) ***")
                                        }

                                        for bodyMassSample in samples {
                                            print("Samples: \(bodyMassSample)")
                                        }

                                        for deletedBodyMassSample in deletedObjects {
                                            print("deleted: \(deletedBodyMassSample)")
                                        }
                                        print("done")  // test: marks the end of the handler
    }
    healthStore.execute(query)
}

/// Seed 000, second example: the anchor kept in UserDefaults between runs.
private func seedPersistedAnchorQuery(healthStore: HKHealthStore) {
    guard let bodyMassType = HKObjectType.quantityType(forIdentifier: .bodyMass) else {
        fatalError("*** Unable to get the body mass type ***")
    }

    var anchor = HKQueryAnchor.init(fromValue: 0)

    if UserDefaults.standard.object(forKey: "Anchor") != nil {
        let data = UserDefaults.standard.object(forKey: "Anchor") as! Data
        anchor = NSKeyedUnarchiver.unarchiveObject(with: data) as! HKQueryAnchor
    }

    let query = HKAnchoredObjectQuery(type: bodyMassType,
                                      predicate: nil,
                                      anchor: anchor,
                                      limit: HKObjectQueryNoLimit) { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in
                                        guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                                            fatalError("*** An error occurred during the initial query: \(errorOrNil!.localizedDescription) ***")
                                        }

                                        anchor = newAnchor!
                                        let data : Data = NSKeyedArchiver.archivedData(withRootObject: newAnchor as Any)
                                        UserDefaults.standard.set(data, forKey: "Anchor")

                                        for bodyMassSample in samples {
                                            print("Samples: \(bodyMassSample)")
                                        }

                                        for deletedBodyMassSample in deletedObjects {
                                            print("deleted: \(deletedBodyMassSample)")
                                        }

                                        print("Anchor: \(anchor)")
    }
    healthStore.execute(query)
}

/// Seed 000, third example: the update handler of a long-running query.
private func seedUpdateHandler(query: HKAnchoredObjectQuery) {
    query.updateHandler = { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in

            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                // Handle the error here.
                fatalError("*** An error occurred during an update: \(errorOrNil!.localizedDescription) ***")
            }
            print("update: \(samples.count) samples, \(deletedObjects.count) deleted")  // test: the snippet stops here; what the update saw
    }  // seed fix: the snippet's closure is not closed
}

@Suite(.serialized) struct Seed000Tests {
    /// "Pass nil to receive all the matching samples and recently deleted
    /// objects currently in the HealthKit store."
    @Test func bodyMassQueryPrintsStoredSamplesAndDeletedObjects() async throws {
        transcript.clear()
        let healthStore = try freshHealthStore()
        let kept = [bodyMass(70, at: 0), bodyMass(71.5, at: 1)]
        let gone = bodyMass(72, at: 2)
        try await healthStore.save(kept + [gone])
        try await healthStore.delete(gone)

        seedBodyMassQuery(healthStore: healthStore)
        #expect(await transcript.wait(forLinesStartingWith: "done"))
        #expect(transcript.lines == kept.map { "Samples: \($0)" } + ["deleted: \(HKDeletedObjectDescription(gone))", "done"])
    }

    /// "You want to keep track of the Anchor because it is not persisted.
    /// This can be done with UserDefaults": the second run reads only what
    /// changed after the first.
    @Test func anchorArchivedInUserDefaultsResumesWhereItStopped() async throws {
        UserDefaults.standard.removeObject(forKey: "Anchor")
        defer { UserDefaults.standard.removeObject(forKey: "Anchor") }
        transcript.clear()
        let healthStore = try freshHealthStore()
        let first = [bodyMass(70, at: 0), bodyMass(71, at: 1)]
        try await healthStore.save(first)

        seedPersistedAnchorQuery(healthStore: healthStore)  // first launch: no stored anchor
        #expect(await transcript.wait(forLinesStartingWith: "Anchor: "))
        #expect(transcript.lines.filter { $0.hasPrefix("Samples: ") } == first.map { "Samples: \($0)" })
        #expect(UserDefaults.standard.object(forKey: "Anchor") is Data)

        let later = bodyMass(69.5, at: 2)
        try await healthStore.save(later)
        try await healthStore.delete(first[0])
        transcript.clear()
        seedPersistedAnchorQuery(healthStore: healthStore)  // second launch: the archived anchor
        #expect(await transcript.wait(forLinesStartingWith: "Anchor: "))
        #expect(transcript.lines.dropLast() == ["Samples: \(later)", "deleted: \(HKDeletedObjectDescription(first[0]))"])

        transcript.clear()
        seedPersistedAnchorQuery(healthStore: healthStore)  // nothing changed since
        #expect(await transcript.wait(forLinesStartingWith: "Anchor: "))
        #expect(transcript.lines.count == 1)
    }

    /// "When a change is made in Health to body Mass ..., you will be
    /// immediately notified without having to run the query manually."
    @Test func updateHandlerIsToldOfEachChange() async throws {
        transcript.clear()
        let healthStore = try freshHealthStore()
        let query = HKAnchoredObjectQuery(type: HKQuantityType(.bodyMass), predicate: nil, anchor: nil,
                                          limit: HKObjectQueryNoLimit) { _, _, _, _, _ in print("snapshot") }
        seedUpdateHandler(query: query)
        healthStore.execute(query)
        defer { healthStore.stop(query) }
        #expect(await transcript.wait(forLinesStartingWith: "snapshot"))

        let a = bodyMass(80, at: 0)
        try await healthStore.save(a)
        #expect(await transcript.wait(forLinesStartingWith: "update: 1 samples, 0 deleted"))
        try await healthStore.delete(a)
        #expect(await transcript.wait(forLinesStartingWith: "update: 0 samples, 1 deleted"))
        try await healthStore.save(steps(10, at: 1))  // another type: no call
        try await healthStore.save(bodyMass(81, at: 2))
        #expect(await transcript.wait { $0.filter { $0.hasPrefix("update:") }.count == 3 })
        #expect(transcript.lines == ["snapshot", "update: 1 samples, 0 deleted", "update: 0 samples, 1 deleted",
                                     "update: 1 samples, 0 deleted"])
    }
}

/// How a deleted object prints: the description of `HKDeletedObject`
/// for a sample's UUID.
private func HKDeletedObjectDescription(_ sample: HKSample) -> String { "<HKDeletedObject> \(sample.uuid)" }
