// openhealthkit.h section 240: Delivering changes into PostgreSQL
import COpenHealthKit
import Glibc
import OpenHealthKitCore
import OpenHealthKitPostgres

/// A PostgreSQL sink behind an `ohk_sink *` (docs/postgres.md). Its calls
/// take turns: one thread at a time delivers.
final class SinkHandle: Handle, @unchecked Sendable {
    override class var kindName: String { "ohk_sink" }
    let sink: PostgresSink
    let lock = Lock()
    init(_ sink: PostgresSink) { self.sink = sink }

    static func get(_ p: UnsafePointer<ohk_sink>?) throws -> SinkHandle {
        try Registry.get(p, SinkHandle.self, "sink")
    }
}

extension SinkError {
    /// The C status of a sink's failure (openhealthkit_types.h).
    var status: Int32 {
        switch kind {
        case .library: Int32(OHK_ERR_UNAVAILABLE)
        case .connect: Int32(OHK_ERR_SINK_CONNECT)
        case .connectionLost: Int32(OHK_ERR_SINK_CONNECTION_LOST)
        case .fenced: Int32(OHK_ERR_SINK_FENCED)
        case .server: Int32(OHK_ERR_SINK_REFUSED)
        case .checkpoint: Int32(OHK_ERR_SINK_CHECKPOINT)
        case .invalidArgument: Int32(OHK_ERR_INVALID_ARGUMENT)
        }
    }
}

/// A sink's failure on its way to C.
private func sinkCall(_ body: () throws -> Void) -> Int32 {
    cCall {
        do { try body() } catch let e as SinkError { throw CError(status: e.status, e.message) }
    }
}

/// Opens a sink that delivers `store`'s changes into PostgreSQL exactly
/// once (rule 61): connects to `url` (a libpq connection string), creates
/// the tables when missing (ohk_samples, ohk_changes,
/// ohk_sink_checkpoints), and takes the fence of (`person`, `name`), so
/// that an older sink of the same pair stops at its next commit. `name`
/// NULL is "default"; `person` NULL is the store's id; `batch_size` 0 is
/// 50,000 changes per transaction. Returns OHK_ERR_SINK_CONNECT when the
/// server is unreachable, refuses the credentials or has no such database
/// (the message names the URL without its password),
/// OHK_ERR_SINK_CHECKPOINT when this name and person were fed by another
/// store, OHK_ERR_UNAVAILABLE when libpq is not installed (it is opened
/// here, not linked). Free the sink with ohk_sink_free. Any thread.
@c public func ohk_sink_open_postgres(_ out_sink: UnsafeMutablePointer<UnsafeMutablePointer<ohk_sink>?>?,
                                      _ store: UnsafeMutablePointer<ohk_store>?, _ url: UnsafePointer<CChar>?,
                                      _ name: UnsafePointer<CChar>?, _ person: UnsafePointer<CChar>?,
                                      _ batch_size: UInt64) -> ohk_status {
    sinkCall {
        let out = try out(out_sink, "out_sink")
        out.pointee = nil
        let s = try StoreHandle.get(store)
        var options = SinkOptions()
        options.name = try optionalString(name, "name") ?? options.name
        options.person = try optionalString(person, "person")
        if batch_size > 0 {
            guard batch_size <= UInt64(Int32.max) else { throw CError(.invalidArgument, "batch_size \(batch_size) is too large") }
            options.batchSize = Int(batch_size)
        }
        let sink = try PostgresSink(store: s, url: try string(url, "url"), options: options)
        out.pointee = Registry.add(SinkHandle(sink))
    }
}

/// Delivers every change up to the store's head as it is now, one
/// transaction per batch, and returns when caught up. `progress` (may be
/// NULL) is called on this thread after each commit; returning non-zero
/// stops after that commit, with OHK_ERR_CANCELLED. Failures roll the
/// batch back and keep what was committed: OHK_ERR_SINK_FENCED (a newer
/// sink of the same name and person took over: free this one),
/// OHK_ERR_SINK_REFUSED (PostgreSQL refused a statement or a row; the
/// message names the sample), OHK_ERR_SINK_CONNECTION_LOST (call again,
/// or open a new sink: it resumes from PostgreSQL's checkpoint),
/// OHK_ERR_SINK_CHECKPOINT (deleted objects past the checkpoint were
/// pruned, or the checkpoint is ahead of the store). Any thread.
@c public func ohk_sink_deliver(_ sink: UnsafeMutablePointer<ohk_sink>?, _ progress: ohk_sink_progress_fn?,
                                _ user_data: UnsafeMutableRawPointer?) -> ohk_status {
    sinkCall {
        let h = try SinkHandle.get(sink)
        try h.lock.locked {
            if h.sink.isBroken { try h.sink.reconnect() }
            while try h.sink.deliverBatch() {
                if let progress, call(progress, h.sink.progress, user_data) != 0 {
                    throw CError(status: Int32(OHK_ERR_CANCELLED), "the progress callback asked to stop; what was committed stays")
                }
            }
        }
    }
}

/// Delivers as commits happen, from any process, until `progress`
/// returns non-zero (then OHK_OK). `progress` is called after each commit
/// and at least every quarter second while idle, on this thread. A lost
/// connection is retried with backoff (0.5 s doubling to 30 s) and the
/// sink resumes from PostgreSQL's checkpoint; the other failures end it
/// as in ohk_sink_deliver. Any thread; it blocks until stopped.
@c public func ohk_sink_follow(_ sink: UnsafeMutablePointer<ohk_sink>?, _ progress: ohk_sink_progress_fn?,
                               _ user_data: UnsafeMutableRawPointer?) -> ohk_status {
    sinkCall {
        guard let progress else { throw CError(.invalidArgument, "progress is NULL: nothing could stop the sink") }
        let h = try SinkHandle.get(sink)
        try h.lock.locked {
            if h.sink.isBroken { try h.sink.reconnect() }
            let s = h.sink
            try s.follow(shouldStop: { call(progress, s.progress, user_data) != 0 })
        }
    }
}

/// Writes where `sink` stands into *out: counts since it opened, the
/// position committed in PostgreSQL and the store's head when last read.
@c public func ohk_sink_get_progress(_ out_progress: UnsafeMutablePointer<ohk_sink_progress>?,
                                     _ sink: UnsafeMutablePointer<ohk_sink>?) -> ohk_status {
    sinkCall {
        let out = try out(out_progress, "out_progress")
        let h = try SinkHandle.get(sink)
        out.pointee = h.lock.locked { cProgress(h.sink.progress) }
    }
}

/// Closes the sink's connection and frees it. NULL is ignored. Not while
/// another thread is inside ohk_sink_deliver or ohk_sink_follow with it.
@c public func ohk_sink_free(_ sink: UnsafeMutablePointer<ohk_sink>?) {
    _ = Registry.remove(sink, SinkHandle.self)
}

private func cProgress(_ p: SinkProgress) -> ohk_sink_progress {
    ohk_sink_progress(saves: UInt64(p.saves), deletions: UInt64(p.deletions), batches: UInt64(p.batches),
                      position: p.position, head: p.head, start_position: p.startPosition)
}

private func call(_ progress: ohk_sink_progress_fn, _ p: SinkProgress, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    var c = cProgress(p)
    return progress(&c, userData)
}
