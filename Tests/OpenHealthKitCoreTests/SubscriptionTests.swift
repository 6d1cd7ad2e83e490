import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// Rule 11 of docs/semantics.md: durable subscriptions.
@Suite struct DurableSubscriptions {
    /// A consumer killed before acknowledging gets the same changes after
    /// a restart; after acknowledging it does not.
    @Test func rule11_unacknowledgedChangesComeAgainAfterACrash() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let create = DurableSubscription(name: "sync", descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try store.execute(create)
        create.stop()
        let batch = try [stepSample(1), stepSample(2)]
        try store.save(batch)
        let want = Set(batch.map(\.uuid))

        let crashed = subscriberRun(dir, "sync", acknowledge: false)
        #expect(Set(crashed.uuids) == want)
        let again = subscriberRun(dir, "sync", acknowledge: false)
        #expect(again.uuids == crashed.uuids)
        let acked = subscriberRun(dir, "sync", acknowledge: true)
        #expect(acked.acked && Set(acked.uuids) == want)
        #expect(try store.subscriptions().map(\.acknowledged.position) == [store.currentAnchor().position])

        let later = try stepSample(3)
        try store.save([later])
        let next = subscriberRun(dir, "sync", acknowledge: true)
        #expect(next.uuids == [later.uuid])
    }

    /// Without an acknowledgement the delivery comes again after the
    /// backoff; an acknowledgement counts once.
    @Test func rule11_redeliveryAfterBackoffAndAcknowledgeOnce() throws {
        let store = try makeStore()
        defer { store.close() }
        let events = Waiter()
        let deliveries = Locked<[([UUID], () throws -> Void)]>([])
        let sub = DurableSubscription(name: "retry", descriptors: [QueryDescriptor(type: steps)],
                                      backoff: .init(initial: 0.05, maximum: 0.2)) { _, r, ack in
            deliveries.withLock { $0.append((try! r.get().sampleUUIDs, ack)) }
            events.add("delivery")
        }
        try store.execute(sub)
        let s = try stepSample(1)
        try store.save([s])
        #expect(events.wait { events.value("delivery") >= 2 })  // not acknowledged: again
        let (first, second) = deliveries.withLock { ($0[0], $0[1]) }
        #expect(first.0 == [s.uuid] && second.0 == [s.uuid])
        #expect(errorCode { try first.1() } == .invalidArgument)  // superseded by the redelivery
        try second.1()
        #expect(errorCode { try second.1() } == .invalidArgument)  // twice
        #expect(try store.subscriptions().first?.acknowledged.position == store.currentAnchor().position)
        sub.stop()
    }

    /// Two subscription objects of one name (a program's two observers of
    /// a type with background delivery): when one acknowledges, the
    /// other's acknowledgement finds the stored position moved; it goes on
    /// from there, with the next change, rather than deliver the same
    /// changes again at every back-off.
    @Test func rule11_anAcknowledgementMadeElsewhereIsFollowedNotRedelivered() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.registerSubscription(named: "twice", descriptors: [QueryDescriptor(type: steps)], frequency: .immediate)
        let a = try stepSample(1)
        try store.save([a])
        let events = Waiter()
        let got = Locked<[String: [([UUID], () throws -> Void)]]>([:])
        func subscriber(_ who: String) -> DurableSubscription {
            // A back-off longer than the test: no redelivery but the fix's.
            DurableSubscription(name: "twice", descriptors: [QueryDescriptor(type: steps)],
                                backoff: .init(initial: 600, maximum: 600)) { _, r, ack in
                got.withLock { $0[who, default: []].append((try! r.get().sampleUUIDs, ack)) }
                events.add(who)
            }
        }
        let one = subscriber("one"), two = subscriber("two")
        try store.execute(one)
        try store.execute(two)
        defer { one.stop(); two.stop() }
        #expect(events.wait { events.value("one") >= 1 && events.value("two") >= 1 })
        let (ackOne, ackTwo) = got.withLock { ($0["one"]![0].1, $0["two"]![0].1) }
        try ackOne()
        #expect(errorCode { try ackTwo() } == .invalidArgument)  // acknowledged elsewhere
        let b = try stepSample(2, minute: 1)
        try store.save([b])
        #expect(events.wait { events.value("two") >= 2 })
        #expect(got.withLock { $0["two"]!.dropFirst().first?.0 } == [b.uuid])
    }

    /// An hourly subscription that fired does not fire again within the hour.
    @Test func rule11_frequencyBoundsHowOftenItFires() throws {
        let store = try makeStore()
        defer { store.close() }
        let events = Waiter()
        let sub = DurableSubscription(name: "hourly", descriptors: [QueryDescriptor(type: steps)], frequency: .hourly) { _, _, ack in
            try! ack()
            events.add("delivery")
        }
        sub.onDeferred = { events.add("deferred") }
        try store.execute(sub)
        try store.save([stepSample(1)])
        #expect(events.wait { events.value("delivery") == 1 })
        try store.save([stepSample(2)])
        #expect(events.wait { events.value("deferred") >= 1 })
        #expect(events.value("delivery") == 1)
        sub.stop()
    }

    @Test func rule11_subscriptionsAreListedRemovedAndCheckedByName() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = DurableSubscription(name: "a", descriptors: [QueryDescriptor(type: steps)], frequency: .daily) { _, _, _ in }
        try store.execute(a)
        a.stop()
        #expect(try store.subscriptions().map(\.name) == ["a"])
        #expect(try store.subscriptions().first?.frequency == .daily)
        let other = DurableSubscription(name: "a", descriptors: [QueryDescriptor(type: heartRate)]) { _, _, _ in }
        #expect(errorCode { try store.execute(other) } == .invalidArgument)
        #expect(errorCode { try store.removeSubscription(named: "nope") } == .notFound)
        try store.removeSubscription(named: "a")
        #expect(try store.subscriptions().isEmpty)
    }

    /// Pruning keeps deleted objects a subscription has not acknowledged.
    @Test func rule11_pruneKeepsWhatASubscriptionHasNotAcknowledged() throws {
        let store = try makeStore()
        defer { store.close() }
        let create = DurableSubscription(name: "keep", descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try store.execute(create)
        create.stop()
        let s = try stepSample(1)
        try store.save([s])
        try store.delete(uuids: [s.uuid])
        #expect(try store.pruneAll() == 0)
        let events = Waiter()
        let got = Locked<[UUID]>([])
        let sub = DurableSubscription(name: "keep", descriptors: [QueryDescriptor(type: steps)]) { _, r, ack in
            got.withLock { $0 += try! r.get().deletedUUIDs }
            try! ack()
            events.add("delivery")
        }
        try store.execute(sub)
        #expect(events.wait { events.value("delivery") == 1 })
        #expect(got.withLock { $0 } == [s.uuid])
        sub.stop()
        #expect(try store.pruneAll() == 1)
    }
}
