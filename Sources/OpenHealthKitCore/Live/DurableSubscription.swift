import Dispatch
import FoundationEssentials

/// A durable subscription (rule 11), our form of background delivery: a
/// named observer whose acknowledged position lives in the store. The
/// handler gets every matching change after that position together with
/// an `acknowledge` function; calling it moves the stored position in one
/// transaction. Until then the same changes come again — after a restart,
/// or in this process after a backoff (doubling from `backoff.initial` up
/// to `backoff.maximum` seconds) — so a consumer that crashes before
/// acknowledging loses nothing. Tombstones after the oldest acknowledged
/// position are kept whatever the retention. A new subscription starts at
/// the store's current position, or where `startingAt` says (rule 62).
/// `frequency` bounds how often it fires.
/// With `firesOnStart` (HealthKit's observers with background delivery,
/// rule 10b), the first look always calls the handler: with what was not
/// acknowledged, or with nothing and an acknowledgement that does nothing.
public final class DurableSubscription: LiveQuery, @unchecked Sendable {
    public typealias Handler = (DurableSubscription, Result<AnchoredQueryResult, OHKError>,
                                _ acknowledge: @escaping () throws -> Void) -> Void

    public struct Backoff: Sendable {
        public var initial: Double
        public var maximum: Double
        public init(initial: Double = 1, maximum: Double = 300) {
            self.initial = initial
            self.maximum = maximum
        }
    }

    public let name: String
    public let descriptors: [QueryDescriptor]
    public let frequency: DeliveryFrequency
    /// Where it starts if the store has no subscription of its name yet.
    public let start: SubscriptionStart
    private let backoff: Backoff
    private let maxBatchSize: Int
    private let handler: Handler
    private let timers = DispatchQueue(label: "org.openhealthkit.subscription-timers")

    /// Delivery state; `acknowledge` may be called from any thread.
    private struct State {
        var acknowledged: UInt64 = 0
        /// Where the next read starts: past changes known not to match.
        var scanFrom: QueryAnchor?
        /// The delivery waiting for its acknowledgement.
        var outstanding: (token: Int, to: QueryAnchor)?
        var token = 0
        var attempts = 0
        var lastFired = 0.0
        var timerPending = false
        /// The backoff expired: deliver again whatever the frequency.
        var redeliver = false
    }
    private let state = Locked(State())
    /// Called when a look is put off by the frequency bound (for tests).
    var onDeferred: (() -> Void)?
    /// The first look calls the handler whatever it finds (touched only
    /// on the query's thread).
    private var startCall: Bool

    public init(name: String, descriptors: [QueryDescriptor], frequency: DeliveryFrequency = .immediate,
                backoff: Backoff = Backoff(), maxBatchSize: Int = 0, firesOnStart: Bool = false,
                startingAt start: SubscriptionStart = .head, handler: @escaping Handler) {
        startCall = firesOnStart
        self.start = start
        self.name = name
        self.descriptors = descriptors
        self.frequency = frequency
        self.backoff = backoff
        self.maxBatchSize = maxBatchSize
        self.handler = handler
        super.init()
    }

    override func validate() throws {
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw OHKError(.invalidArgument, "a subscription name must be 1 to 255 bytes")
        }
        guard maxBatchSize >= 0, backoff.initial > 0, backoff.maximum >= backoff.initial else {
            throw OHKError(.invalidArgument, "maxBatchSize must be ≥ 0 and 0 < backoff.initial ≤ backoff.maximum")
        }
    }

    override func prepare(_ store: Store) throws {
        _ = try Store.group(descriptors, validatingWith: store)
        let rec = try store.openSubscription(name, descriptors, frequency, start)
        let anchor = QueryAnchor(storeID: store.storeID, position: rec.acknowledged, horizon: 0)
        state.withLock {
            $0.acknowledged = rec.acknowledged
            $0.scanFrom = rec.acknowledged == 0 ? nil : anchor
            $0.lastFired = rec.lastFired
        }
    }

    override func poll(_ store: Store, note: CommitNote?) {
        let now = Date().timeIntervalSinceReferenceDate
        let (busy, from, waitUntil) = state.withLock { s -> (Bool, QueryAnchor?, Double?) in
            if s.outstanding != nil { return (true, nil, nil) }  // a timer or the acknowledgement resumes
            let due = s.redeliver ? 0 : s.lastFired + frequency.interval
            return due > now ? (false, nil, due) : (false, s.scanFrom, nil)
        }
        let first = startCall
        startCall = false
        if busy { return }
        if let waitUntil {
            if first { callAtStart(store) }
            schedule(after: waitUntil - now)
            onDeferred?()
            return
        }
        let r: AnchoredQueryResult
        do {
            r = try store.anchoredQuery(descriptors, anchor: from, limit: maxBatchSize)
        } catch {
            deliver { handler(self, .failure(OHKError(error)), {}) }
            stop()
            return
        }
        guard !r.samples.isEmpty || !r.deletedObjects.isEmpty else {
            state.withLock { $0.scanFrom = r.newAnchor }
            if first { deliver { handler(self, .success(r), {}) } }
            return
        }
        let (token, acknowledgedAt, delay) = state.withLock { s -> (Int, UInt64, Double) in
            s.token += 1
            s.attempts += 1
            s.redeliver = false
            s.lastFired = now
            s.outstanding = (s.token, r.newAnchor)
            let delay = min(backoff.initial * Double(1 << min(s.attempts - 1, 30)), backoff.maximum)
            return (s.token, s.acknowledged, delay)
        }
        let acknowledge = { [weak self, weak store] in
            guard let self, let store else { throw OHKError(.closed, "the subscription's store is gone") }
            try self.acknowledge(token: token, from: acknowledgedAt, store: store)
        }
        deliver { handler(self, .success(r), acknowledge) }
        schedule(after: delay, redeliveringToken: token)
    }

    /// The call at start when the frequency bound puts the look off: an
    /// empty result from the store's current position; its
    /// acknowledgement does nothing.
    private func callAtStart(_ store: Store) {
        do {
            let empty = try store.anchoredQuery(descriptors, anchor: store.currentAnchor(), limit: 1)
            deliver { handler(self, .success(empty), {}) }
        } catch {
            deliver { handler(self, .failure(OHKError(error)), {}) }
        }
    }

    private func acknowledge(token: Int, from: UInt64, store: Store) throws {
        do {
            try state.withLock { s in
                guard let out = s.outstanding, out.token == token else {
                    throw OHKError(.invalidArgument, "this delivery of subscription '\(name)' was already acknowledged or expired")
                }
                try store.acknowledgeSubscription(name, from: from, to: out.to.position, firedAt: s.lastFired)
                s.acknowledged = out.to.position
                s.scanFrom = out.to
                s.outstanding = nil
                s.attempts = 0
            }
        } catch let e as OHKError where e.code == .notFound || e.message.contains("acknowledged elsewhere") {
            resynchronise(store)
            throw e
        }
        storeChanged()  // more may have arrived meanwhile
    }

    /// Someone else moved or removed the stored subscription (another
    /// subscription object of the same name, in this process or another):
    /// go on from where the store says, or stop when it is gone, rather
    /// than deliver the same changes again for ever.
    private func resynchronise(_ store: Store) {
        guard let stored = try? store.subscriptions().first(where: { $0.name == name }) else {
            stop()
            return
        }
        state.withLock { s in
            s.acknowledged = stored.acknowledged.position
            s.scanFrom = stored.acknowledged.position == 0 ? nil : QueryAnchor(storeID: store.storeID, position: stored.acknowledged.position, horizon: 0)
            s.outstanding = nil
            s.attempts = 0
        }
        storeChanged()
    }

    /// Looks again after `seconds`: for the frequency bound, or to deliver
    /// unacknowledged changes again.
    private func schedule(after seconds: Double, redeliveringToken token: Int? = nil) {
        if token == nil {
            let already = state.withLock { s -> Bool in
                defer { s.timerPending = true }
                return s.timerPending
            }
            if already { return }
        }
        timers.asyncAfter(deadline: .now() + max(0, seconds)) { [weak self] in
            guard let self else { return }
            self.state.withLock { s in
                if token == nil { s.timerPending = false }
                if let token, s.outstanding?.token == token {
                    s.outstanding = nil
                    s.redeliver = true
                }
            }
            self.storeChanged()
        }
    }
}
