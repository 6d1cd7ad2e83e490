// openhealthkit.h section 180: Durable subscriptions: where they start, how far behind they are
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// Registers the durable subscription `options->subscription_name`, of
/// `options->descriptors`, without running it (what HealthKit's
/// enableBackgroundDelivery records), or updates the frequency of the one
/// of that name, whose descriptors must be the same. A new one starts
/// where `options->anchor` says (rule 62): NULL at the store's current
/// position; "no anchor" (all zero bytes) at the beginning, so that every
/// retained change is delivered first, a backfill; another anchor after
/// it (an anchor of another store, from the future, or from before pruned
/// deletions is refused as a query refuses it). An existing subscription
/// keeps its position. Open it to receive with
/// ohk_query_start_subscription. Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_UNKNOWN_TYPE, the OHK_ERR_ANCHOR_ errors, OHK_ERR_CLOSED,
/// OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_register_subscription(_ store: UnsafeMutablePointer<ohk_store>?,
                                              _ options: UnsafePointer<ohk_query_options>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let o = try queryOptions(options)
        let n = try string(o.subscription_name, "options.subscription_name")
        let f = try deliveryFrequency(o.frequency)
        let ds = try OpenHealthKitC.descriptors(o.descriptors, o.descriptor_count, s)
        let start: SubscriptionStart = o.anchor == nil ? .head : try AnchorValue.read(o.anchor).map { .anchor($0) } ?? .beginning
        try s.registerSubscription(named: n, descriptors: ds, frequency: f, from: start)
    }
}

/// Every durable subscription of the store and how far behind it is
/// (what `ohk subscriptions` lists): *out_statuses receives *out_count
/// entries, to free with ohk_subscription_statuses_free. Costs a step per
/// change a subscription has not acknowledged. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_subscriptions(_ out_statuses: UnsafeMutablePointer<UnsafeMutablePointer<ohk_subscription_status>?>?,
                                       _ out_count: UnsafeMutablePointer<UInt64>?,
                                       _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let statuses = try out(out_statuses, "out_statuses"), count = try out(out_count, "out_count")
        let found = try StoreHandle.get(store).subscriptionStatus()
        let now = Date()
        let array = mallocArray(of: ohk_subscription_status.self, found.count)
        for (i, s) in found.enumerated() {
            let types = mallocArray(of: UnsafePointer<CChar>?.self, s.typeIdentifiers.count)
            for (k, t) in s.typeIdentifiers.enumerated() { types[k] = UnsafePointer(ownedCString(t)) }
            array[i] = ohk_subscription_status(
                name: UnsafePointer(ownedCString(s.name)), types: UnsafePointer(types), type_count: UInt64(s.typeIdentifiers.count),
                frequency: Int32(s.frequency.rawValue), acknowledged: AnchorValue.make(s.acknowledged),
                position: s.acknowledged.position, head: s.head, pending_changes: UInt64(s.pendingChanges),
                last_acknowledged: s.lastAcknowledged?.timeIntervalSince1970 ?? .nan,
                lag_seconds: s.lagSeconds(at: now) ?? .nan)
        }
        statuses.pointee = array
        count.pointee = UInt64(found.count)
    }
}

/// Frees what ohk_store_subscriptions gave (`count` entries). NULL is
/// ignored. Any thread.
@c public func ohk_subscription_statuses_free(_ statuses: UnsafeMutablePointer<ohk_subscription_status>?, _ count: UInt64) {
    guard let statuses else { return }
    for i in 0..<Int(count) {
        let s = statuses[i]
        free(UnsafeMutablePointer(mutating: s.name))
        for k in 0..<Int(s.type_count) { free(UnsafeMutablePointer(mutating: s.types[k])) }
        free(UnsafeMutableRawPointer(mutating: s.types))
    }
    free(statuses)
}
