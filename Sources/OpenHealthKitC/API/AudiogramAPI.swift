// openhealthkit.h section 120: Audiograms
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Audiograms through C (rule 40): saved from an array of sensitivity
// points (and their clamping ranges), read back as arrays borrowed from
// the batch.

/// Saves an audiogram (HKAudiogramSample, rule 40): its `point_count`
/// sensitivity points, each a frequency in Hz and each ear's hearing level
/// in dBHL (NaN: that ear not tested; masked 1, 0, or -1 for not said),
/// sorted by frequency as they are saved, and, when `clamping` is not
/// NULL, each point's clamping ranges (NaN: an open bound; all four NaN:
/// no range). The input's type, value and unit are not read. Returns
/// OHK_OK; OHK_ERR_INVALID_VALUE (no point, a frequency that is not
/// positive or appears twice, a point with neither ear, a range of an ear
/// not tested, or whose bounds are not finite or are out of order);
/// OHK_ERR_INVALID_ARGUMENT; OHK_ERR_INVALID_DATE_RANGE;
/// OHK_ERR_INVALID_METADATA; OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_save_audiogram(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?,
                                        _ sample: UnsafePointer<ohk_sample_input>?,
                                        _ audiogram: UnsafePointer<ohk_audiogram>?) -> ohk_status {
    cCall {
        guard let a = audiogram?.pointee else { throw CError(.invalidArgument, "audiogram is NULL") }
        try saveAudiogram(out_outcome, store, sample, a.points, a.clamping, a.point_count)
    }
}

private func saveAudiogram(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?, _ store: UnsafeMutablePointer<ohk_store>?,
                           _ sample: UnsafePointer<ohk_sample_input>?, _ points: UnsafePointer<ohk_audiogram_point>?,
                           _ clamping: UnsafePointer<ohk_audiogram_clamping>?, _ count: UInt64) throws {
    let s = try StoreHandle.get(store)
    let c = try input(sample, "sample", kind: .audiogram)
    let given = try buffer(points, count, "points")
    let ranges = try clamping.map { try buffer($0, count, "clamping") }
    var made: [Audiogram.Point] = []
    for (k, p) in given.enumerated() {
        let r = ranges?[k]
        let left = try ear(p.left_ear_db_hl, p.left_ear_masked, r?.left_ear_lower_db_hl ?? .nan, r?.left_ear_upper_db_hl ?? .nan, k)
        let right = try ear(p.right_ear_db_hl, p.right_ear_masked, r?.right_ear_lower_db_hl ?? .nan,
                            r?.right_ear_upper_db_hl ?? .nan, k)
        made.append(Audiogram.Point(frequency: p.frequency_hz, left: left, right: right))
    }
    let audiogram = Audiogram(points: made)
    try saveOne(out_outcome, s, c) { f in
        try Sample.audiogram(audiogram, start: f.start, end: f.end, source: f.source, device: f.device,
                             metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
    }
}

/// One ear of point `k` as C gives it: NaN level, no ear; NaN bounds, none.
private func ear(_ level: Double, _ masked: Int8, _ lower: Double, _ upper: Double, _ k: Int) throws -> Audiogram.Ear? {
    let range = lower.isNaN && upper.isNaN ? nil
        : Audiogram.ClampingRange(lowerBound: lower.isNaN ? nil : lower, upperBound: upper.isNaN ? nil : upper)
    guard !level.isNaN else {
        if range != nil { throw CError(.invalidValue, "point \(k) has a clamping range for an ear not tested") }
        return nil
    }
    return Audiogram.Ear(sensitivity: level, masked: masked < 0 ? nil : masked == 1, clampingRange: range)
}

/// Sample `sample_index`'s sensitivity points (an audiogram's):
/// *out_points points at *out_count points in order of frequency, one
/// contiguous array borrowed from the batch, made on first access.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (an index out of range, a
/// sample that is not an audiogram); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_audiogram(_ out_points: UnsafeMutablePointer<UnsafePointer<ohk_audiogram_point>?>?,
                                   _ out_count: UnsafeMutablePointer<UInt64>?,
                                   _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let points = try out(out_points, "out_points"), count = try out(out_count, "out_count")
        guard case .audiogram(let a, _) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not an audiogram")
        }
        points.pointee = a.baseAddress
        count.pointee = UInt64(a.count)
    }
}

/// Sample `sample_index`'s clamping ranges (an audiogram's), point for
/// point beside ohk_batch_audiogram's points: *out_clamping points at
/// *out_count entries borrowed from the batch (all NaN for a point
/// without a range). Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (an index
/// out of range, a sample that is not an audiogram); OHK_ERR_CLOSED. Any
/// thread.
@c public func ohk_batch_audiogram_clamping(_ out_clamping: UnsafeMutablePointer<UnsafePointer<ohk_audiogram_clamping>?>?,
                                            _ out_count: UnsafeMutablePointer<UInt64>?,
                                            _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let clamping = try out(out_clamping, "out_clamping"), count = try out(out_count, "out_count")
        guard case .audiogram(_, let c) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not an audiogram")
        }
        clamping.pointee = c.baseAddress
        count.pointee = UInt64(c.count)
    }
}
