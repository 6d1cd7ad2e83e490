// openhealthkit.h section 110: Heartbeat series
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Heartbeat series through C (rule 39): saved from one array of beats,
// read back as one array borrowed from the batch.

/// Saves a heartbeat series (HKHeartbeatSeriesSample, rule 39): `count`
/// beats, each a time since `sample->start` and a gap flag, sorted as
/// they are saved; the series ends at `sample->end`, which must not come
/// before its last beat. The input's type, value and unit are not read.
/// Returns OHK_OK; OHK_ERR_INVALID_VALUE (no beat, a negative or
/// non-finite time, a beat after the end); OHK_ERR_INVALID_ARGUMENT;
/// OHK_ERR_INVALID_DATE_RANGE; OHK_ERR_INVALID_METADATA;
/// OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// blocks for the write transaction.
@c public func ohk_store_save_heartbeat_series(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                               _ store: UnsafeMutablePointer<ohk_store>?,
                                               _ sample: UnsafePointer<ohk_sample_input>?,
                                               _ beats: UnsafePointer<ohk_heartbeat>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(sample, "sample", kind: .heartbeatSeries)
        let series = HeartbeatSeries(beats: try buffer(beats, count, "beats").map {
            HeartbeatSeries.Beat(timeSinceStart: $0.time_since_start, precededByGap: $0.preceded_by_gap)
        })
        try saveOne(out_outcome, s, c) { f in
            try Sample.heartbeatSeries(series, start: f.start, end: f.end, source: f.source, device: f.device,
                                       metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        }
    }
}

/// Sample `sample_index`'s beats (a heartbeat series'): *out_beats points
/// at *out_count beats in time order, one contiguous array borrowed from
/// the batch, made on first access. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT (an index out of range, a sample that is not
/// a heartbeat series); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_heartbeats(_ out_beats: UnsafeMutablePointer<UnsafePointer<ohk_heartbeat>?>?,
                                    _ out_count: UnsafeMutablePointer<UInt64>?,
                                    _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let beats = try out(out_beats, "out_beats"), count = try out(out_count, "out_count")
        guard case .heartbeats(let b) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not a heartbeat series")
        }
        beats.pointee = b.baseAddress
        count.pointee = UInt64(b.count)
    }
}
