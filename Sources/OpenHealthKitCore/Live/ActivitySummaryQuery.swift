/// An activity summary query (rule 43, HealthKit's
/// `HKActivitySummaryQuery`): the summaries of a range of days, then,
/// when made with `updates`, the ones saved or changed since, after each
/// commit (of any process) that changed one: only those, never an empty
/// call. Without `updates` it stops after the first results, as
/// HealthKit's does without an update handler. Run it with
/// `Store.execute(_:)`.
public final class ActivitySummaryQuery: LiveQuery, @unchecked Sendable {
    /// The summaries (the first call: every one in range, possibly none;
    /// later calls: the ones changed), and whether this is an update.
    public typealias Handler = (ActivitySummaryQuery, Result<[ActivitySummary], OHKError>, _ isUpdate: Bool) -> Void

    public let start: ActivitySummary.Day?
    public let end: ActivitySummary.Day?
    public let updates: Bool
    private let handler: Handler
    // Touched only on the query's thread.
    private var sequence: UInt64 = 0
    private var first = true

    /// The days from `start` through `end` (nil: unbounded).
    public init(from start: ActivitySummary.Day? = nil, through end: ActivitySummary.Day? = nil, updates: Bool,
                handler: @escaping Handler) {
        self.start = start
        self.end = end
        self.updates = updates
        self.handler = handler
        super.init()
    }

    override func validate() throws {
        if let start, let end, end < start {
            throw OHKError(.invalidArgument, "the activity summary query ends (\(end)) before it starts (\(start))")
        }
    }

    override func poll(_ store: Store, note: CommitNote?) {
        do {
            let (changed, now) = try store.activitySummaries(from: start, through: end, changedAfter: sequence)
            sequence = now
            if first {
                first = false
                deliver { handler(self, .success(changed), false) }
                if !updates { stop() }
            } else if !changed.isEmpty {
                deliver { handler(self, .success(changed), true) }
            }
        } catch {
            deliver { handler(self, .failure(OHKError(error)), !first) }
            stop()
        }
    }
}
