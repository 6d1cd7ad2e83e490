/// What tests change in how a store works, kept off its API: set once,
/// before the store is shared between threads.
struct StoreTuning {
    /// Forces a query plan (tests compare the plans; nil: by cost).
    var planOverride: QueryPlan?
    /// When saves write runs of the UUID index (tests make runs small).
    var uuidIndex = UUIDIndex.Tuning()
    /// The UUID index's hash, keyed by the store id (tests make every UUID
    /// collide).
    var uuidHash: UUIDHash
    /// Computes every statistics collection from its samples, as if no
    /// bucket were kept (tests compare the two).
    var statisticsFromSamples = false
    /// Whether a read in parts reads parts on a second thread where it
    /// can (`PartsAhead`): nil, when it pays; true, whenever the parts
    /// are enough (tests, on any machine); false, never.
    var partsAhead: Bool?
}
