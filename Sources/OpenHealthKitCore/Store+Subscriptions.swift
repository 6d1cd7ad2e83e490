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
    /// one starts at the store's current position.
    public func registerSubscription(named name: String, descriptors: [QueryDescriptor],
                                     frequency: DeliveryFrequency) throws {
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw OHKError(.invalidArgument, "a subscription name must be 1 to 255 bytes")
        }
        _ = try Self.group(descriptors, validatingWith: self)
        _ = try openSubscription(name, descriptors, frequency)
    }

    /// Creates the subscription or checks it against the stored one;
    /// returns its acknowledged position.
    func openSubscription(_ name: String, _ descriptors: [QueryDescriptor],
                          _ frequency: DeliveryFrequency) throws -> SubscriptionRecord {
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
                                         acknowledged: w.head, frequency: frequency)
            try w.touch(.subscriptions)
            try w.txn.put(trees.subs, key, rec.encoded())
            return rec
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
