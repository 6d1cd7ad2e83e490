import FoundationEssentials

/// Where a new durable subscription starts (`Store.registerSubscription`,
/// `DurableSubscription(startingAt:)`); an existing one keeps its position.
public enum SubscriptionStart: Sendable, Equatable {
    /// The store's current position: changes committed after it (the default).
    case head
    /// The beginning: every retained change comes first, a backfill.
    case beginning
    /// After an anchor of this store.
    case anchor(QueryAnchor)
}

/// A durable subscription as an operator sees it (`Store.subscriptionStatus()`,
/// `ohk subscriptions`): its position and how far behind it is.
public struct SubscriptionStatus: Sendable, Equatable {
    public let name: String
    public let typeIdentifiers: [String]
    public let frequency: DeliveryFrequency
    /// Everything up to here was acknowledged.
    public let acknowledged: QueryAnchor
    /// The store's head when read.
    public let head: UInt64
    /// Changes of its types committed after its position: the deliveries
    /// it still owes (its predicates are not applied, so this bounds them).
    public let pendingChanges: Int
    /// When the delivery it last acknowledged was made; nil when it has
    /// acknowledged none.
    public let lastAcknowledged: Date?

    /// How long its oldest unacknowledged change may have waited: 0 when
    /// nothing is pending, else the time since its last acknowledgement
    /// (nil when it never acknowledged one).
    public func lagSeconds(at now: Date = Date()) -> Double? {
        guard pendingChanges > 0 else { return 0 }
        return lastAcknowledged.map { max(0, now.timeIntervalSince($0)) }
    }
}
