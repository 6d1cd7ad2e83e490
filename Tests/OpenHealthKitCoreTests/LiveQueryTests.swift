import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// Rules 9, 10 and 12 of docs/semantics.md: long-running queries and observers.
@Suite struct LiveQueries {
    /// Saves and deletes from several threads while a query runs; the
    /// consumer must end with exactly the store's set, nothing twice.
    @Test(arguments: [0, 7])
    func rule09_exactlyOnceAcrossSnapshotAndUpdatesWithConcurrentWriters(maxBatchSize: Int) throws {
        let store = try makeStore()
        defer { store.close() }
        for i in 0..<20 { try store.save([stepSample(Double(i))]) }
        let consumer = Consumer()
        let query = consumer.query(steps, maxBatchSize: maxBatchSize)
        try store.execute(query)
        let writers = (0..<3).map { w in
            startThread {
                var mine: [UUID] = []
                for i in 0..<40 {
                    let batch = (0..<(1 + i % 4)).map { _ in try! stepSample(Double(w * 1000 + i)) }
                    try! store.save(batch)
                    mine += batch.map(\.uuid)
                    if i % 5 == 4 { try! store.delete(uuids: [mine.removeFirst()]) }
                }
            }
        }
        for t in writers { pthread_join(t, nil) }
        #expect(consumer.waitUntilCaughtUp(with: store))
        let truth = Set(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs)
        #expect(consumer.live == truth)
        #expect(consumer.errors == [])
        if maxBatchSize > 0 { #expect(consumer.maxBatch <= maxBatchSize) }
        query.stop()
    }

    /// The same with the writes made by another process.
    @Test func rule09_changesFromAnotherProcessArrive() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let consumer = Consumer()
        let query = consumer.query(steps)
        try store.execute(query)
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "30"])
        #expect(writer.status == 0, "writer failed: \(writer.output)")
        let alive = Set(writer.output.split(separator: "\n").compactMap { UUID(uuidString: String($0)) })
        #expect(alive.count == 20)
        #expect(consumer.waitUntilCaughtUp(with: store))
        #expect(consumer.live == alive)
        #expect(consumer.errors == [])
        query.stop()
        // The writer's source was interned by the other process; this one
        // learns it from the snapshot.
        let sources = Set(try store.anchoredQuery(type: steps, anchor: nil).samples.map(\.source.bundleIdentifier))
        #expect(sources == ["org.openhealthkit.test-writer"])
    }

    /// A reader that knows every device reads a new source another process
    /// added without a device. (The crash this guards against, in
    /// `NameLookup.ensure`, was met by `ohk changes --follow`; its
    /// command-line test reproduces it, this one checks the result.)
    @Test func aNewSourceFromAnotherProcessWithoutANewDeviceIsRead() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        try store.save([Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: t0, end: t0,
                                        source: appA, device: Device(name: "Watch"))])
        let anchor = try store.anchoredQuery(type: steps, anchor: nil).newAnchor  // learns source 1 and device 1
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        // Only the writer's samples: a new source, no device at all.
        let descriptors = [QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)]
        let sources = Set(try store.anchoredQuery(descriptors, anchor: anchor).samples.map(\.source.bundleIdentifier))
        #expect(sources == ["org.openhealthkit.test-writer"])
    }

    /// A type tree another process created, opened by one thread while
    /// another thread's read had already begun: LMDB refuses the new handle
    /// in the older transaction (EINVAL), so that read starts over instead
    /// of failing. (Met as "cannot open cursor: Invalid argument" by two
    /// live queries of one process racing on a type a second process made.)
    @Test func aTreeOpenedDuringAReadIsReadAgainNotAnError() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        var attempts = 0
        let count = try store.readRetryingTrees { txn -> Int in
            attempts += 1
            let id = try #require(try store.existingTypeID(steps, txn))
            // The other thread's open, played here after this read began.
            if attempts == 1 { try store.openTypeTree(id) }
            let trees = try #require(store.cache.withLock { $0.typeTrees[id] })
            let cursor = try txn.cursor(trees.records)
            defer { cursor.close() }
            return txn.entries(trees.records)
        }
        #expect(attempts == 2)
        #expect(count == 3)
    }

    @Test func rule09_queryExecutesOnceAndStopIsIdempotent() throws {
        let store = try makeStore()
        defer { store.close() }
        let got = Waiter()
        let query = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, _ in got.add("results") },
                                        updateHandler: { _, _ in got.add("update") })
        try store.execute(query)
        #expect(got.wait { got.value("results") == 1 })
        #expect(errorCode { try store.execute(query) } == .invalidArgument)
        query.stop()
        query.stop()
        #expect(query.isStopped)
        let stopped = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, _ in })
        stopped.stop()
        #expect(errorCode { try store.execute(stopped) } == .invalidArgument)
    }

    /// stop() from another thread returns only after the running handler.
    @Test func rule09_stopWaitsForTheRunningHandler() throws {
        let store = try makeStore()
        defer { store.close() }
        let events = Waiter()
        let order = Locked<[String]>([])
        let query = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, _ in
            events.add("entered")
            _ = events.wait { events.value("release") == 1 }
            order.withLock { $0.append("handler returned") }
        })
        try store.execute(query)
        #expect(events.wait { events.value("entered") == 1 })
        let stopper = startThread {
            events.add("stopping")
            query.stop()
            order.withLock { $0.append("stop returned") }
        }
        #expect(events.wait { events.value("stopping") == 1 })
        events.add("release")
        pthread_join(stopper, nil)
        #expect(order.withLock { $0 } == ["handler returned", "stop returned"])
    }

    /// A handler may save, query and stop its own query.
    @Test func rule12_handlerMaySaveQueryAndStopItself() throws {
        let store = try makeStore()
        defer { store.close() }
        let consumer = Consumer()
        let echo = try stepSample(99)
        let query = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, r in
            consumer.apply(try! r.get())
        }, updateHandler: { q, r in
            let r = try! r.get()
            consumer.apply(r)
            if r.sampleUUIDs.contains(echo.uuid) {
                q.stop()  // from inside: returns at once
                consumer.waiter.add("stopped")
            } else {
                _ = try! store.anchoredQuery(type: steps, anchor: nil)
                try! store.save([echo])
            }
        })
        try store.execute(query)
        #expect(consumer.waiter.wait { consumer.calls >= 1 })
        try store.save([stepSample(1)])
        #expect(consumer.waiter.wait { consumer.live.contains(echo.uuid) })
        #expect(consumer.waiter.wait { query.isStopped })
        #expect(consumer.live.count == 2)
    }

    /// close stops the store's queries, waits for a running handler, and
    /// refuses new ones.
    @Test func rule12_closeStopsQueriesAndWaitsForRunningHandlers() throws {
        let store = try makeStore()
        let events = Waiter()
        let order = Locked<[String]>([])
        let query = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, _ in
            events.add("entered")
            _ = events.wait { events.value("release") == 1 }
            order.withLock { $0.append("handler returned") }
        }, updateHandler: { _, _ in events.add("update") })
        try store.execute(query)
        #expect(events.wait { events.value("entered") == 1 })
        let closer = startThread {
            events.add("closing")
            store.close()
            order.withLock { $0.append("close returned") }
        }
        #expect(events.wait { events.value("closing") == 1 })
        events.add("release")
        pthread_join(closer, nil)
        #expect(order.withLock { $0 } == ["handler returned", "close returned"])
        #expect(query.isStopped)
        let late = AnchoredObjectQuery(type: steps, anchor: nil, resultsHandler: { _, _ in })
        #expect(errorCode { try store.execute(late) } == .closed)
    }

    /// An observer fires for matching changes only, with the changed types.
    @Test func rule10_observerFiresOnlyForMatchingChanges() throws {
        let store = try makeStore()
        defer { store.close() }
        let calls = Locked<[Set<SampleType>]>([])
        let events = Waiter()
        let observer = ObserverQuery(descriptors: [QueryDescriptor(type: steps, predicate: .sources([appA.bundleIdentifier])),
                                                   QueryDescriptor(type: heartRate)]) { _, r, done in
            calls.withLock { $0.append(try! r.get()) }
            done()
            events.add("call")
        }
        try store.execute(observer)
        try store.save([stepSample(1, source: appB)])  // does not match
        let hr = try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appB)
        try store.save([hr])
        #expect(events.wait { calls.withLock { $0.flatMap { $0 } }.contains(heartRate) })
        try store.save([stepSample(2, source: appA)])
        #expect(events.wait { calls.withLock { $0.flatMap { $0 } }.contains(steps) })
        let all = calls.withLock { $0 }
        #expect(all.allSatisfy { !$0.isEmpty })
        #expect(all.count == 2)
        #expect(all == [[heartRate], [steps]])
        observer.stop()
    }

    @Test func rule10_observerSeesAnotherProcessesWrites() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let events = Waiter()
        let observer = ObserverQuery(type: steps) { _, r, done in
            if (try? r.get()) == [steps] { events.add("steps") }
            done()
        }
        try store.execute(observer)
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        #expect(events.wait { events.value("steps") >= 1 })
        observer.stop()
    }

    /// A process's own commits reach its live queries directly and do not
    /// wake the store's watcher thread, which wakes for other processes'
    /// commits. (A third thread woken on two cores just when the query's
    /// thread should run put the in-process observer at 30 µs, not −3.)
    @Test func rule10_ownCommitsSkipTheWatcherOtherProcessesWakeIt() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let events = Waiter()
        let observer = ObserverQuery(type: steps) { _, _, done in
            done()
            events.add("calls")
        }
        try store.execute(observer)
        for i in 1...50 {
            try store.save([stepSample(Double(i))])
            #expect(events.wait { events.value("calls") >= i })
        }
        // A few looks at most, not one a commit: the thread may first go
        // to sleep after the first commits and find the counter changed,
        // and on a loaded machine (a full test run on two cores) it can
        // be that late twice before it sleeps.
        let looks = store.watcherLooks
        #expect(looks <= 3)
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        #expect(events.wait { store.watcherLooks > looks })
        observer.stop()
    }

    /// An observer without predicates is told the types this process's
    /// commits changed without reading the store (`CommitNote`), and gets
    /// the same calls it would get by reading: one per commit that
    /// changed a matching type, with exactly the types changed. After a
    /// prune, which moves the horizon, and after another process's
    /// commit, it reads the store.
    @Test func rule10_anObserverIsToldWhatThisProcessesCommitsChanged() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let calls = Locked<[Set<SampleType>]>([])
        let events = Waiter()
        let observer = ObserverQuery(descriptors: [QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)]) { _, r, done in
            calls.withLock { $0.append(try! r.get()) }
            done()
            events.add("calls")
        }
        try store.execute(observer)
        func hr() throws -> Sample {
            try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0, source: appA)
        }
        func waitForCalls(_ n: Int) { #expect(events.wait { events.value("calls") >= n }) }
        let first = try stepSample(1)
        try store.save([first])
        waitForCalls(1)
        try store.save([try hr()])
        waitForCalls(2)
        try store.save([try stepSample(2), try hr()])
        waitForCalls(3)
        try store.save([try Sample.quantity(bodyMass, value: 70, unit: HealthUnit("kg"), start: t0, end: t0, source: appA)])
        try store.save([try stepSample(3)])  // one call: body mass is not observed
        waitForCalls(4)
        try store.delete([first])
        waitForCalls(5)
        // Reads: the first look at start, and one for each time the watcher
        // looked (at most once, when its thread first slept after a commit
        // of this process and found the counter changed).
        func expectReads(_ n: Int) {
            #expect(observer.storeReads >= n && observer.storeReads <= n + store.watcherLooks,
                    "\(observer.storeReads) reads, \(store.watcherLooks) looks")
        }
        expectReads(1)
        try store.pruneAll()  // no new position: no call, but a read
        try store.save([try hr()])
        waitForCalls(6)
        expectReads(2)
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "1"])
        #expect(writer.status == 0)
        waitForCalls(7)
        expectReads(3)
        #expect(calls.withLock { $0 } == [[steps], [heartRate], [steps, heartRate], [steps], [steps], [heartRate], [steps]])
        observer.stop()
    }

    /// Rule 5: a read of this process's latest commit takes the head from
    /// memory (`Store.position`); after another process commits, reads
    /// see that commit's head, not the remembered one.
    @Test func rule05_anAnchorAfterAnotherProcessesCommitIsAtItsHead() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        try store.save([try stepSample(1), try stepSample(2)])
        let mine = try store.currentAnchor()
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        let theirs = try store.currentAnchor()
        #expect(theirs.position > mine.position)
        let r = try store.anchoredQuery(type: steps, anchor: mine)
        #expect(r.samples.count + r.deletedObjects.count > 0)
        #expect(r.newAnchor == theirs)
        try store.save([try stepSample(3)])
        #expect(try store.currentAnchor().position == theirs.position + 1)
    }

    /// Cancelling the task that iterates stops the query.
    ///
    /// The first element is awaited, not waited for. A blocking wait here
    /// held one of the cooperative pool's threads (two, on two cores) while
    /// the task it waited for needed one, so the task ran only once another
    /// test's job freed a thread or Dispatch's monitor added one: on one CPU
    /// (`taskset -c 0`) the blocking form took 0.99 s and this one 0.003 s.
    /// In a full suite under sanitizers, where every job is slow, that
    /// queueing could pass the wait's 30 s bound.
    @Test(.timeLimit(.minutes(2))) func rule09_cancellingTheConsumingTaskStopsTheQuery() async throws {
        let store = try makeStore()
        defer { store.close() }
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            for try await _ in store.results([QueryDescriptor(type: steps)], anchor: nil) { arrived.yield() }
        }
        var firstArrival = arrivals.makeAsyncIterator()
        #expect(await firstArrival.next() != nil)
        #expect(store.liveQueryCount == 1)
        task.cancel()
        _ = await task.result
        #expect(store.liveQueryCount == 0)
    }

    /// The async sequence's first element is the one-shot result; ending
    /// the iteration stops the query.
    @Test func rule09_asyncResultsStartWithTheOneShotResult() async throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([stepSample(1), stepSample(2)])
        let d = [QueryDescriptor(type: steps)]
        let once = try await store.result(d, anchor: nil)
        var seen: [[UUID]] = []
        for try await r in store.results(d, anchor: nil) {
            seen.append(r.sampleUUIDs)
            if seen.count == 1 {
                #expect(r.sampleUUIDs == once.sampleUUIDs && r.newAnchor == once.newAnchor)
                try store.save([stepSample(3)])
            } else {
                break
            }
        }
        #expect(seen.count == 2 && seen[1].count == 1)
        // Breaking out terminated the stream, which stopped the query.
        #expect(store.liveQueryCount == 0)
    }
}
