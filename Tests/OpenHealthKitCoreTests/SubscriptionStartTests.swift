import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rule 62: subscriptions an operator can run: started at the head, the
/// beginning or an anchor; listed with their position and lag.
@Suite struct SubscriptionStartTests {
    @Test func rule62_aNewSubscriptionStartsAtTheHeadTheBeginningOrAnAnchor() throws {
        let store = try makeStore()
        defer { store.close() }
        let first = try stepSample(1)
        try store.save([first])
        let afterFirst = try store.currentAnchor()
        let rest = try [stepSample(2, minute: 1), stepSample(3, minute: 2)]
        try store.save(rest)
        let d = [QueryDescriptor(type: steps)]
        try store.registerSubscription(named: "head", descriptors: d, frequency: .immediate)
        try store.registerSubscription(named: "all", descriptors: d, frequency: .immediate, from: .beginning)
        try store.registerSubscription(named: "mid", descriptors: d, frequency: .immediate, from: .anchor(afterFirst))
        let pending = Dictionary(uniqueKeysWithValues: try store.subscriptionStatus().map { ($0.name, $0.pendingChanges) })
        #expect(pending == ["head": 0, "all": 3, "mid": 2])
        // An existing subscription keeps its position, whatever the start asked.
        try store.registerSubscription(named: "head", descriptors: d, frequency: .immediate, from: .beginning)
        #expect(try store.subscriptionStatus().first { $0.name == "head" }?.pendingChanges == 0)

        // The backfill comes as the first delivery.
        let got = Locked<[UUID]>([])
        let events = Waiter()
        let sub = DurableSubscription(name: "fresh", descriptors: d, startingAt: .beginning) { _, r, ack in
            got.withLock { $0 += (try? r.get().sampleUUIDs) ?? [] }
            try? ack()
            events.add("delivery")
        }
        try store.execute(sub)
        #expect(events.wait { events.value("delivery") >= 1 })
        sub.stop()
        #expect(Set(got.withLock { $0 }) == Set(([first] + rest).map(\.uuid)))

        // Anchors are checked as a query checks them.
        let other = try makeStore()
        defer { other.close() }
        try other.save([try stepSample(9)])
        let foreign = try other.currentAnchor()
        #expect(errorCode { try store.registerSubscription(named: "x", descriptors: d, frequency: .immediate,
                                                             from: .anchor(foreign)) } == .anchorWrongStore)
        // (Subscriptions keep deleted objects from pruning: none is left to.)
        for name in ["head", "all", "mid", "fresh"] { try store.removeSubscription(named: name) }
        try store.delete(uuids: [first.uuid])
        #expect(try store.pruneAll() == 1)
        #expect(errorCode { try store.registerSubscription(named: "y", descriptors: d, frequency: .immediate,
                                                             from: .anchor(afterFirst)) } == .anchorExpired)
    }

    @Test func rule62_statusGivesPendingChangesAndLag() throws {
        let store = try makeStore()
        defer { store.close() }
        let d = [QueryDescriptor(type: steps)]
        try store.registerSubscription(named: "feed", descriptors: d, frequency: .immediate)
        var s = try #require(try store.subscriptionStatus().first)
        #expect(s.pendingChanges == 0 && s.lagSeconds() == 0 && s.lastAcknowledged == nil)
        try store.save([try stepSample(1), try stepSample(2, minute: 1)])
        try store.save([try Sample.category(sleep, value: 1, start: t0, end: t0.addingTimeInterval(60), source: appA)])
        s = try #require(try store.subscriptionStatus().first)
        #expect(s.pendingChanges == 2)  // sleep is not its type
        #expect(s.lagSeconds() == nil)  // changes wait, and it never acknowledged
        #expect(s.head == (try store.currentAnchor()).position)

        let events = Waiter()
        let sub = DurableSubscription(name: "feed", descriptors: d) { _, _, ack in
            try? ack()
            events.add("acknowledged")
        }
        try store.execute(sub)
        #expect(events.wait { events.value("acknowledged") >= 1 })
        sub.stop()
        s = try #require(try store.subscriptionStatus().first)
        #expect(s.pendingChanges == 0 && s.lagSeconds() == 0 && s.lastAcknowledged != nil)
        try store.save([try stepSample(3, minute: 2)])
        s = try #require(try store.subscriptionStatus().first)
        let lag = try #require(s.lagSeconds(at: s.lastAcknowledged!.addingTimeInterval(90)))
        #expect(s.pendingChanges == 1 && lag == 90)
    }
}
