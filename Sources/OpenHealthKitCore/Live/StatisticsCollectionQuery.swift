import FoundationEssentials

/// A statistics collection kept current (HKStatisticsCollectionQuery with
/// its update handler; rule 34): the handler gets the collection when the
/// query starts, then, after each commit by any process that changes the
/// figures, the collection again with the intervals whose figures changed.
/// A commit that changes no figure (another type, or samples outside the
/// intervals) makes no call. Run it with `Store.execute(_:)`.
public final class StatisticsCollectionQuery: LiveQuery, @unchecked Sendable {
    /// One delivery: the whole collection, and which intervals changed.
    public struct Update: Sendable {
        /// Every interval, as `Store.statisticsCollection` gives them.
        public let statistics: [Statistics]
        /// The indexes in `statistics` of the intervals whose figures
        /// changed since the last delivery; all of them in the first.
        public let changed: [Int]
        /// True for the first delivery, when the query starts.
        public let isInitial: Bool
    }

    public typealias Handler = (StatisticsCollectionQuery, Result<Update, OHKError>) -> Void

    public let type: SampleType
    public let predicate: SamplePredicate?
    public let options: StatisticsOptions
    public let anchorDate: Date
    public let interval: StatisticsInterval
    public let from: Date
    public let to: Date
    public let utcOffset: Int
    public let timeZone: ZoneRules?
    private let handler: Handler
    // Set by `prepare` before the first poll, then touched only on the
    // query's thread.
    private var anchor: QueryAnchor?
    private var last: [Statistics] = []
    /// The first poll delivers the collection `prepare` read.
    private var startCall = true

    /// The arguments are those of `Store.statisticsCollection`.
    public init(type: SampleType, predicate: SamplePredicate? = nil, options: StatisticsOptions, anchor: Date,
                interval: StatisticsInterval, from: Date, to: Date, utcOffset: Int = 0, timeZone: ZoneRules? = nil,
                handler: @escaping Handler) {
        self.type = type
        self.predicate = predicate
        self.options = options
        anchorDate = anchor
        self.interval = interval
        self.from = from
        self.to = to
        self.utcOffset = utcOffset
        self.timeZone = timeZone
        self.handler = handler
        super.init()
    }

    override func validate() throws {
        try options.check(for: type)
        guard interval.count > 0 else { throw OHKError(.invalidArgument, "a statistics interval needs a positive count") }
    }

    override func prepare(_ store: Store) throws {
        _ = try Store.group([QueryDescriptor(type: type, predicate: predicate)], validatingWith: store)
        // The anchor before the figures: a commit between the two is
        // counted now and looked at again by a poll, never missed. A bad
        // date range or time zone fails the start, not the first delivery.
        anchor = try store.currentAnchor()
        last = try collection(store)
    }

    private func collection(_ store: Store) throws -> [Statistics] {
        try store.statisticsCollection(type: type, predicate: predicate, options: options, anchor: anchorDate,
                                       interval: interval, from: from, to: to, utcOffset: utcOffset, timeZone: timeZone)
    }

    override func poll(_ store: Store, note: CommitNote?) {
        if startCall {
            startCall = false
            let update = Update(statistics: last, changed: Array(last.indices), isInitial: true)
            deliver { handler(self, .success(update)) }
        }
        do {
            // Commits since the collection was read, by any process (also
            // those made before this query's thread first ran).
            let (types, next) = try store.changedTypes([QueryDescriptor(type: type, predicate: predicate)], since: anchor)
            anchor = next
            guard !types.isEmpty else { return }
            let now = try collection(store)
            let changed = now.indices.filter { last.count != now.count || now[$0] != last[$0] }
            last = now
            guard !changed.isEmpty else { return }
            let update = Update(statistics: now, changed: changed, isInitial: false)
            deliver { handler(self, .success(update)) }
        } catch {
            deliver { handler(self, .failure(OHKError(error))) }
            stop()
        }
    }
}
