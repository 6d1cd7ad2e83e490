// HealthKit's rules for running queries, as OpenHealthKit keeps them.
import Foundation
@testable import OpenHealthKit
import TestSupport
import Testing

@Suite struct QueryRuleTests {
    /// HealthKit refuses an update handler on a query with a limit; here
    /// the refusal reaches the results handler and the query does not run.
    @Test func updateHandlerWithLimitIsRefused() async throws {
        let store = try freshHealthStore()
        try await store.save(steps(1, at: 0))
        let transcript = Transcript()
        let query = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: 10) { _, samples, _, _, error in
            transcript.record("results \(samples?.count ?? -1) \((error as? HKError)?.code == .errorInvalidArgument)")
        }
        query.updateHandler = { _, _, _, _, _ in transcript.record("update") }
        store.execute(query)
        #expect(await transcript.wait { !$0.isEmpty })
        try await store.save(steps(2, at: 1))
        // A second query sees that save; the refused one never runs.
        let probe = Transcript()
        store.execute(HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, s, _, _, _ in
            probe.record("\(s?.count ?? -1)")
        })
        #expect(await probe.wait { !$0.isEmpty })
        #expect(probe.lines == ["2"])
        #expect(transcript.lines == ["results -1 true"])
    }

    /// A query executes once; executing it again is refused without
    /// disturbing the first run.
    @Test func queryExecutedTwiceIsRefused() async throws {
        let store = try freshHealthStore()
        try await store.save(steps(1, at: 0))
        let transcript = Transcript()
        let query = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, samples, _, _, error in
            transcript.record(error == nil ? "samples \(samples!.count)" : "error \((error as? HKError)?.code == .errorInvalidArgument)")
        }
        store.execute(query)
        store.execute(query)
        #expect(await transcript.wait { $0.count == 2 })
        #expect(Set(transcript.lines) == ["samples 1", "error true"])
    }

    /// "The results come back on an anonymous background queue."
    @Test func handlersRunOffTheMainThread() async throws {
        let store = try freshHealthStore()
        let transcript = Transcript()
        store.execute(HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, _, _, _, _ in
            transcript.record("main \(Thread.isMainThread)")
        })
        store.save(steps(1, at: 0)) { _, _ in transcript.record("main \(Thread.isMainThread)") }
        #expect(await transcript.wait { $0.count == 2 })
        #expect(transcript.lines == ["main false", "main false"])
    }

    /// After `stop(_:)` returns, the query's handlers are not called.
    @Test func stoppedQueryIsSilent() async throws {
        let store = try freshHealthStore()
        let stopped = Transcript(), running = Transcript()
        func query(_ t: Transcript) -> HKAnchoredObjectQuery {
            let q = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, _, _, _, _ in
                t.record("snapshot")
            }
            q.updateHandler = { _, s, _, _, _ in t.record("update \(s?.count ?? -1)") }
            return q
        }
        let a = query(stopped), b = query(running)
        store.execute(a)
        store.execute(b)
        defer { store.stop(b) }
        #expect(await stopped.wait { !$0.isEmpty })
        #expect(await running.wait { !$0.isEmpty })
        store.stop(a)
        try await store.save(steps(1, at: 0))
        #expect(await running.wait { $0.count == 2 })
        #expect(stopped.lines == ["snapshot"])
    }

    /// The deprecated integer-anchor form: the handler gets an integer
    /// anchor that a later query resumes from.
    @available(*, deprecated)
    @Test func integerAnchorsResume() async throws {
        let store = try freshHealthStore()
        let first = [steps(1, at: 0), steps(2, at: 1)]
        try await store.save(first)
        let transcript = Transcript()
        let anchor = Shared(HKAnchoredObjectQueryNoAnchor)
        func run() {
            store.execute(HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: anchor.value, limit: HKObjectQueryNoLimit) { _, samples, newAnchor, _ in
                anchor.value = newAnchor
                transcript.record("\(samples?.map(\.uuid) ?? [])")
            })
        }
        run()
        #expect(await transcript.wait { $0.count == 1 })
        #expect(anchor.value > 0)
        let later = steps(3, at: 2)
        try await store.save(later)
        run()
        #expect(await transcript.wait { $0.count == 2 })
        #expect(transcript.lines == ["\(first.map(\.uuid))", "\([later.uuid])"])
    }

    /// Several descriptors, one anchor: each type with its own predicate.
    @Test func queryDescriptorsCombineTypesAndPredicates() async throws {
        let store = try freshHealthStore()
        let big = steps(500, at: 0), small = steps(5, at: 1), mass = bodyMass(80, at: 2)
        try await store.save([big, small, mass, bodyMass(60, at: 3)])
        let got = Transcript()
        let descriptors = [
            HKQueryDescriptor(sampleType: HKQuantityType(.stepCount),
                              predicate: HKQuery.predicateForQuantitySamples(with: .greaterThan, quantity: HKQuantity(unit: .count(), doubleValue: 100))),
            HKQueryDescriptor(sampleType: HKQuantityType(.bodyMass),
                              predicate: HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: .pound(), doubleValue: 170))),
        ]
        store.execute(HKAnchoredObjectQuery(queryDescriptors: descriptors, anchor: nil, limit: HKObjectQueryNoLimit) { _, samples, _, _, _ in
            for s in samples ?? [] { got.record(s.uuid.uuidString) }
            got.record("end")
        })
        #expect(await got.wait { $0.last == "end" })
        #expect(Set(got.lines.dropLast()) == [big.uuid.uuidString, mass.uuid.uuidString])
        #expect(!got.lines.contains(small.uuid.uuidString))
    }

    /// An anchor is archived with NSSecureCoding and read back equal; a
    /// damaged archive gives no anchor, and an anchor of another store is
    /// refused by the query.
    @Test func anchorsArchiveSecurelyAndBelongToTheirStore() async throws {
        let store = try freshHealthStore()
        try await store.save(steps(1, at: 0))
        let anchor = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                               anchor: nil).result(for: store).newAnchor
        let data = try NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true)
        let back = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
        #expect(back == anchor)
        #expect(HKQueryAnchor.supportsSecureCoding)

        var damaged = anchor.core.bytes
        damaged[5] ^= 0xFF
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode(Data(damaged) as NSData, forKey: "OHKAnchor")
        coder.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        #expect(HKQueryAnchor(coder: unarchiver) == nil)

        let other = try freshHealthStore()
        let e: HKError? = await {
            do {
                _ = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))],
                                                              anchor: anchor).result(for: other)
                return nil
            } catch { return error as? HKError }
        }()
        #expect(e?.code == .errorInvalidArgument)
        #expect(e?.localizedDescription.contains("store") == true)
    }

    /// Programs make `HKHealthStore()` wherever they need one: stores of one
    /// directory in one process share the open store, see each other's
    /// saves, and closing one leaves the others working.
    @Test func healthStoresOfOneDirectoryShareTheStore() async throws {
        let dir = temporaryDirectory()
        let a = HKHealthStore(directory: dir), b = HKHealthStore(directory: dir + "/.")
        #expect(try a.core() === b.core())
        let seen = Transcript()
        let live = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, _, _, _, _ in
            seen.record("snapshot")
        }
        live.updateHandler = { _, samples, _, _, _ in for s in samples ?? [] { seen.record("\(s.uuid)") } }
        a.execute(live)
        #expect(await seen.wait { !$0.isEmpty })
        let s = steps(1, at: 0)
        try await b.save(s)
        #expect(await seen.wait { $0.contains("\(s.uuid)") })
        a.stop(live)
        a.close()
        try await b.save(steps(2, at: 1))  // still open for b
        let e: HKError? = await { do { try await a.save(steps(3, at: 2)); return nil } catch { return error as? HKError } }()
        #expect(e?.code == .errorDatabaseInaccessible)
    }

    /// Observers and long-running queries see what another process wrote.
    @Test func changesFromAnotherProcessAreDelivered() async throws {
        let dir = temporaryDirectory()
        let store = HKHealthStore(directory: dir)
        let observed = Transcript(), updates = Transcript()
        let observer = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) { _, completion, error in
            observed.record(error.map { "error \($0)" } ?? "changed true")
            completion()
        }
        let live = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, _, _, _, _ in
            updates.record("snapshot")
        }
        live.updateHandler = { _, samples, deleted, _, error in
            if let error { updates.record("error \(error)") }
            for s in samples ?? [] { updates.record("+\(s.uuid)") }
            for d in deleted ?? [] { updates.record("-\(d.uuid)") }
        }
        store.execute(observer)
        store.execute(live)
        defer { store.stop(observer); store.stop(live) }
        #expect(await updates.wait { !$0.isEmpty })
        #expect(observer.waitForCompletions(1))  // the call at start (rule 10b)

        let (status, output) = run(siblingExecutable("ohk-test-writer"), [dir, "6"])
        #expect(status == 0)
        let alive = output.split(separator: "\n").map(String.init)
        #expect(alive.count == 4)
        #expect(observer.waitForCompletions(2))
        // The live samples arrive as added; the two deleted again arrive as
        // deletions (and as added too when a look fell between the save
        // and the delete).
        #expect(await updates.wait { $0.filter { $0.hasPrefix("-") }.count == 2 })
        #expect(!updates.lines.contains { $0.hasPrefix("error") }, "\(updates.lines)")
        let added = Set(updates.lines.filter { $0.hasPrefix("+") }.map { String($0.dropFirst()).uppercased() })
        let deleted = Set(updates.lines.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()).uppercased() })
        #expect(Set(alive.map { $0.uppercased() }).isSubset(of: added))
        #expect(deleted.isDisjoint(with: alive.map { $0.uppercased() }) && added.union(deleted).count == 6)
        #expect(observed.lines.allSatisfy { $0 == "changed true" }, "\(observed.lines)")
    }
}

/// A query that has ended lets go of itself and its store.
@Suite struct QueryLifetimeTests {
    @Test func endedQueryAndItsStoreAreFreed() async throws {
        weak var weakQuery: HKAnchoredObjectQuery?
        weak var weakStore: HKHealthStore?
        let transcript = Transcript()
        do {
            let store = try freshHealthStore()
            let query = HKAnchoredObjectQuery(type: HKQuantityType(.stepCount), predicate: nil, anchor: nil,
                                              limit: HKObjectQueryNoLimit) { _, _, _, _, _ in transcript.record("done") }
            weakQuery = query
            weakStore = store
            store.execute(query)
            #expect(await transcript.wait { !$0.isEmpty })
        }
        // The query's thread lets go after the handler returns; wait for
        // that (a bounded wait on the references, not a fixed sleep).
        let deadline = Date(timeIntervalSinceNow: 30)
        let tick = NSCondition()
        while (weakQuery != nil || weakStore != nil) && Date() < deadline {
            tick.withLock { _ = tick.wait(until: Date(timeIntervalSinceNow: 0.01)) }
        }
        #expect(weakQuery == nil)
        #expect(weakStore == nil)
    }
}
