// openhealthkit.h section 170: Long-running queries, observers and durable subscriptions
import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A running long-running query, observer or durable subscription.
final class QueryHandle: Handle, @unchecked Sendable {
    override class var kindName: String { "ohk_query" }
    let context: CallbackContext
    /// The C strings of the store's sources, for the batches it delivers.
    let names: CNames
    /// Set once, right after the core query is built.
    var query: LiveQuery?
    /// A durable subscription's latest delivery's acknowledgement.
    private let lock = Lock()
    private var ack: (() throws -> Void)?

    init(_ context: CallbackContext, names: CNames) {
        self.context = context
        self.names = names
    }

    func setAcknowledge(_ f: @escaping () throws -> Void) { lock.locked { ack = f } }

    func acknowledge() throws {
        let f = lock.locked { () -> (() throws -> Void)? in
            defer { ack = nil }
            return ack
        }
        guard let f else {
            throw CError(.invalidArgument, "nothing to acknowledge: no delivery is waiting (or it was acknowledged)")
        }
        try f()
    }

    static func get(_ p: UnsafePointer<ohk_query>?) throws -> QueryHandle {
        try Registry.get(p, QueryHandle.self, "query")
    }
}

/// Registers the handle, reads the options and checks the callback,
/// builds the core query with them, and executes it. On failure the
/// handle is gone and destroy(user_data) has run.
func start<Callback>(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                     _ store: UnsafeMutablePointer<ohk_store>?, _ options: UnsafePointer<ohk_query_options>?,
                     _ callback: Callback?, _ user_data: UnsafeMutableRawPointer?, _ destroy: ohk_destroy_fn?,
                     _ build: (Store, QueryHandle, UnsafeMutablePointer<ohk_query>, ohk_query_options, Callback) throws
                         -> LiveQuery) -> Int32 {
    let context = CallbackContext(userData: user_data, destroy: destroy)
    var pointer: UnsafeMutablePointer<ohk_query>?
    let status = cCall {
        let result = try out(out_query, "out_query")
        let s = try StoreHandle.handle(store)
        let handle = QueryHandle(context, names: s.names)
        let p: UnsafeMutablePointer<ohk_query> = Registry.add(handle)
        pointer = p
        let o = try queryOptions(options)
        guard let callback else { throw CError(.invalidArgument, "callback is NULL") }
        let q = try build(s.store, handle, p, o, callback)
        handle.query = q
        try s.store.execute(q)
        result.pointee = p
    }
    if status != 0 {
        if let pointer { _ = Registry.remove(pointer, QueryHandle.self) }
        context.release()
    }
    return status
}

/// Calls a results callback with a batch lent for the call.
private func deliver(_ fn: ohk_results_fn, _ p: UnsafeMutablePointer<ohk_query>, _ context: CallbackContext,
                     _ names: CNames, _ r: Result<AnchoredQueryResult, OHKError>, initial: Bool = false) {
    context.call {
        switch r {
        case .success(let result):
            let b = BatchHandle(result, names: names)
            b.borrowed = true
            b.isInitial = initial
            let bp: UnsafeMutablePointer<ohk_batch> = Registry.add(b)
            fn(p, 0, bp, context.userData)
            _ = Registry.remove(bp, BatchHandle.self)
        case .failure(let e):
            fn(p, report(e), nil, context.userData)
        }
    }
}

private func checkedBatchSize(_ n: UInt64) throws -> Int {
    guard n <= UInt64(Int32.max) else { throw CError(.invalidArgument, "max_batch_size \(n) is too large") }
    return Int(n)
}

/// Fills `options` with the defaults of its `version` (pass
/// OHK_QUERY_OPTIONS_VERSION): no descriptors, no anchor, no batch bound,
/// OHK_FREQUENCY_IMMEDIATE, every day, no statistics. Writes only the
/// fields that version has. Returns OHK_OK, or OHK_ERR_INVALID_ARGUMENT
/// when options is NULL or the version is unknown. Any thread; never
/// blocks.
@c public func ohk_query_options_init(_ options: UnsafeMutablePointer<ohk_query_options>?, _ version: UInt32) -> ohk_status {
    cCall { try queryOptionsVersions.initialize(options, version) }
}

/// Starts a long-running anchored query (HKAnchoredObjectQuery with an
/// update handler): `callback` gets the snapshot after `options->anchor`
/// (NULL: all live samples; ohk_batch_is_initial tells it apart), then
/// every later change set that matches `options->descriptors`, from this
/// process or any other, in commit order, nothing skipped or repeated;
/// each batch carries its new anchor. One transaction is never split,
/// except into batches of at most `options->max_batch_size` objects (0: no
/// bound). Callbacks run on a library thread, one at a time; they
/// may call the library, including ohk_query_stop / ohk_query_free on
/// their own query. On a failure the callback gets status < 0 once and the
/// query stops. *out_query receives the query: free it with
/// ohk_query_free, after which destroy(user_data) runs (once, after the
/// last callback; also when this call fails). Returns OHK_OK and the
/// errors of ohk_store_fetch. Any thread; never waits for the snapshot.
@c public func ohk_query_start_anchored(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?,
                                        _ options: UnsafePointer<ohk_query_options>?,
                                        _ callback: ohk_results_fn?, _ user_data: UnsafeMutableRawPointer?,
                                        _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, options, callback, user_data, destroy) { s, handle, p, o, callback in
        let ds = try OpenHealthKitC.descriptors(o.descriptors, o.descriptor_count, s)
        let context = handle.context, names = handle.names
        return AnchoredObjectQuery(descriptors: ds, anchor: try AnchorValue.read(o.anchor),
                                   maxBatchSize: try checkedBatchSize(o.max_batch_size),
                                   resultsHandler: { _, r in deliver(callback, p, context, names, r, initial: true) },
                                   updateHandler: { _, r in deliver(callback, p, context, names, r) })
    }
}

/// Starts an observer query (HKObserverQuery): after each commit, by any
/// process, that saved or deleted something `options->descriptors` match,
/// `callback` gets the identifiers of the matching types that changed
/// (borrowed for the call). It does not fire at start, and never without
/// a matching change. Returning from the callback is HealthKit's
/// completion handler. Threads, stopping, freeing and destroy as for
/// ohk_query_start_anchored. Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_UNKNOWN_TYPE, OHK_ERR_INVALID_PREDICATE, OHK_ERR_CLOSED,
/// OHK_ERR_STORAGE. Any thread.
@c public func ohk_query_start_observer(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?,
                                        _ options: UnsafePointer<ohk_query_options>?,
                                        _ callback: ohk_observer_fn?, _ user_data: UnsafeMutableRawPointer?,
                                        _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, options, callback, user_data, destroy) { s, handle, p, o, callback in
        let ds = try OpenHealthKitC.descriptors(o.descriptors, o.descriptor_count, s)
        let context = handle.context
        return ObserverQuery(descriptors: ds) { _, r, completion in
            context.call {
                switch r {
                case .success(let types):
                    let names: [UnsafePointer<CChar>?] = types.map { Interned.cString($0.identifier) }.sorted { strcmp($0, $1) < 0 }
                    names.withUnsafeBufferPointer { callback(p, 0, $0.baseAddress, UInt64($0.count), context.userData) }
                case .failure(let e):
                    callback(p, report(e), nil, 0, context.userData)
                }
            }
            completion()
        }
    }
}

/// Opens the durable subscription `options->subscription_name` (created at
/// the store's current position if new; ohk_store_register_subscription
/// starts one elsewhere, and `options->anchor` is not read): `callback` gets every
/// matching change after the subscription's acknowledged position, from
/// any process. Acknowledge a delivery with ohk_query_acknowledge (from
/// any thread, during or after the callback); until then the same changes
/// come again, after a restart or after a backoff (1 s doubling to 300 s),
/// so a consumer that crashes loses nothing. `options->frequency`
/// (OHK_FREQUENCY_...) bounds how often it fires. Batches hold at most
/// `options->max_batch_size` objects (0: no bound). Threads, stopping,
/// freeing and destroy as for ohk_query_start_anchored. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT (name empty or over 255 bytes, unknown
/// frequency), the errors of ohk_store_fetch. Any thread.
@c public func ohk_query_start_subscription(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                            _ store: UnsafeMutablePointer<ohk_store>?,
                                            _ options: UnsafePointer<ohk_query_options>?,
                                            _ callback: ohk_results_fn?, _ user_data: UnsafeMutableRawPointer?,
                                            _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, options, callback, user_data, destroy) { s, handle, p, o, callback in
        let n = try string(o.subscription_name, "options.subscription_name")
        let f = try deliveryFrequency(o.frequency)
        let ds = try OpenHealthKitC.descriptors(o.descriptors, o.descriptor_count, s)
        let context = handle.context, names = handle.names
        return DurableSubscription(name: n, descriptors: ds, frequency: f,
                                   maxBatchSize: try checkedBatchSize(o.max_batch_size)) { [weak handle] _, r, ack in
            handle?.setAcknowledge(ack)
            deliver(callback, p, context, names, r)
        }
    }
}

/// Acknowledges the subscription's latest delivery: its position is stored
/// in one transaction and the next delivery starts after it. Returns
/// OHK_OK; OHK_ERR_INVALID_ARGUMENT (not a subscription, nothing waiting,
/// or already acknowledged); OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread,
/// including the callback; blocks for a write transaction.
@c public func ohk_query_acknowledge(_ query: UnsafeMutablePointer<ohk_query>?) -> ohk_status {
    cCall {
        let h = try QueryHandle.get(query)
        guard h.query is DurableSubscription else {
            throw CError(.invalidArgument, "query is not a durable subscription")
        }
        try h.acknowledge()
    }
}

/// Removes the durable subscription `name` from the store (its position is
/// forgotten; tombstones it held back may then be pruned). Returns OHK_OK,
/// OHK_ERR_NOT_FOUND, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED,
/// OHK_ERR_STORAGE. Any thread; blocks for a write transaction.
@c public func ohk_store_remove_subscription(_ store: UnsafeMutablePointer<ohk_store>?, _ name: UnsafePointer<CChar>?) -> ohk_status {
    cCall { try StoreHandle.get(store).removeSubscription(named: try string(name, "name")) }
}

/// Stops a query: no callback of it starts after this returns. From
/// another thread it waits for a running callback to return; from inside
/// the query's own callback it returns at once. Idempotent; the handle
/// stays valid until ohk_query_free. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED (a freed handle).
@c public func ohk_query_stop(_ query: UnsafeMutablePointer<ohk_query>?) -> ohk_status {
    cCall { try QueryHandle.get(query).query?.stop() }
}

/// Stops the query (see ohk_query_stop) and frees it; destroy(user_data)
/// then runs once (after the running callback, when called from inside
/// it). NULL is ignored. Any thread.
@c public func ohk_query_free(_ query: UnsafeMutablePointer<ohk_query>?) {
    guard let h = Registry.remove(query, QueryHandle.self) else { return }
    h.query?.stop()
    h.context.release()
}
