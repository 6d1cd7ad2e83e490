import CLMDB
import FoundationEssentials

/// Durable subscriptions in the `subs` tree (rule 11).
extension Store {
    /// Every durable subscription of the store.
    public func subscriptions() throws -> [SubscriptionInfo] {
        try operation {
            try env.read { txn in
                let (_, horizon) = try position(txn)
                var out: [SubscriptionInfo] = []
                try txn.forEach(trees.subs) { k, v in
                    let rec = try SubscriptionRecord(v)
                    out.append(SubscriptionInfo(name: String(decoding: k, as: UTF8.self), typeIdentifiers: rec.typeIdentifiers,
                                                acknowledged: QueryAnchor(storeID: storeID, position: rec.acknowledged, horizon: horizon),
                                                frequency: rec.frequency))
                }
                return out
            }
        }
    }

    /// Removes a durable subscription (stop its running object first).
    /// Unknown names are an error.
    public func removeSubscription(named name: String) throws {
        try write { w in
            guard try w.txn.get(trees.subs, Array(name.utf8)) != nil else {
                throw OHKError(.notFound, "no subscription named '\(name)'")
            }
            try w.touch(.subscriptions)
            try w.txn.delete(trees.subs, Array(name.utf8))
        }
    }

    /// Creates a durable subscription without running it, or sets the
    /// frequency of the one of that name (its descriptors must be the
    /// same): what HealthKit's `enableBackgroundDelivery` records. A new
    /// one starts where `start` says: the store's current position (the
    /// default), the beginning (a backfill of every retained change), or
    /// after an anchor of this store (rule 62); an existing one keeps its
    /// position.
    public func registerSubscription(named name: String, descriptors: [QueryDescriptor],
                                     frequency: DeliveryFrequency, from start: SubscriptionStart = .head) throws {
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw OHKError(.invalidArgument, "a subscription name must be 1 to 255 bytes")
        }
        _ = try Self.group(descriptors, validatingWith: self)
        _ = try openSubscription(name, descriptors, frequency, start)
    }

    /// Creates the subscription or checks it against the stored one;
    /// returns its acknowledged position.
    func openSubscription(_ name: String, _ descriptors: [QueryDescriptor],
                          _ frequency: DeliveryFrequency, _ start: SubscriptionStart) throws -> SubscriptionRecord {
        let encoded = DescriptorCodec.encode(descriptors)
        return try write { w in
            let key = Array(name.utf8)
            if let raw = try w.txn.get(trees.subs, key) {
                var rec = try SubscriptionRecord(raw)
                guard rec.descriptors == encoded else {
                    throw OHKError(.invalidArgument, "subscription '\(name)' exists with other descriptors")
                }
                if rec.frequency != frequency {
                    rec.frequency = frequency
                    try w.touch(.subscriptions)
                    try w.txn.put(trees.subs, key, rec.encoded())
                }
                return rec
            }
            let rec = SubscriptionRecord(descriptors: encoded, typeIdentifiers: descriptors.map(\.type.identifier),
                                         acknowledged: try initialPosition(start, w), frequency: frequency)
            try w.touch(.subscriptions)
            try w.txn.put(trees.subs, key, rec.encoded())
            return rec
        }
    }

    /// The acknowledged position a new subscription starts at. An anchor
    /// is checked as a query from it is (rules 2 and 16); one from before
    /// the tombstone horizon is expired here even when a query would take
    /// it, since the subscription keeps only its position.
    private func initialPosition(_ start: SubscriptionStart, _ w: WriteContext) throws -> UInt64 {
        switch start {
        case .head: return w.head
        case .beginning: return 0
        case .anchor(let a):
            let position = try startPosition(a, head: w.head, horizon: w.horizon) - 1
            guard position >= w.horizon else {
                throw OHKError(.anchorExpired, "deleted objects after the anchor were pruned; subscribe from the beginning")
            }
            return position
        }
    }

    /// Every durable subscription with how far behind it is: the changes
    /// of its types after its position, and when it last acknowledged.
    /// Costs a step per pending change.
    public func subscriptionStatus() throws -> [SubscriptionStatus] {
        try readRetryingTrees { txn in
            let (head, horizon) = try position(txn)
            var ids: [String: UInt16] = [:]
            try txn.forEachType(trees) { identifier, id in ids[identifier] = id }
            var out: [SubscriptionStatus] = []
            try txn.forEach(trees.subs) { k, v in
                let rec = try SubscriptionRecord(v)
                var pending = 0
                for identifier in Set(rec.typeIdentifiers) {
                    guard let id = ids[identifier] else { continue }
                    guard let t = cache.withLock({ $0.typeTrees[id] }) else { throw NeedTree(typeID: id) }
                    let cursor = try txn.cursor(t.records)
                    defer { cursor.close() }
                    var entry = try cursor.seek(atLeast: rec.acknowledged + 1)
                    while entry != nil {
                        pending += 1
                        entry = try cursor.next()
                    }
                }
                out.append(SubscriptionStatus(
                    name: String(decoding: k, as: UTF8.self), typeIdentifiers: rec.typeIdentifiers, frequency: rec.frequency,
                    acknowledged: QueryAnchor(storeID: storeID, position: rec.acknowledged, horizon: horizon), head: head,
                    pendingChanges: pending,
                    lastAcknowledged: rec.lastFired == 0 ? nil : Date(timeIntervalSinceReferenceDate: rec.lastFired)))
            }
            return out
        }
    }

    /// Moves a subscription's acknowledged position from `from` to `to`
    /// in one transaction; refused when someone else moved it.
    func acknowledgeSubscription(_ name: String, from: UInt64, to: UInt64, firedAt: Double) throws {
        try write { w in
            let key = Array(name.utf8)
            guard let raw = try w.txn.get(trees.subs, key) else {
                throw OHKError(.notFound, "no subscription named '\(name)'")
            }
            var rec = try SubscriptionRecord(raw)
            guard rec.acknowledged == from else {
                throw OHKError(.invalidArgument, "subscription '\(name)' was acknowledged elsewhere")
            }
            rec.acknowledged = to
            rec.lastFired = firedAt
            try w.touch(.subscriptions)
            try w.txn.put(trees.subs, key, rec.encoded())
        }
    }

    /// The oldest acknowledged position of any subscription: tombstones
    /// after it are kept whatever their age (rule 11: never lost).
    func oldestAcknowledged(_ txn: Txn) throws -> UInt64 {
        var oldest = UInt64.max
        try txn.forEach(trees.subs) { _, v in oldest = min(oldest, try SubscriptionRecord(v).acknowledged) }
        return oldest
    }
}
