import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Audiograms through C (rule 40): saved from one array of sensitivity
// points, read back as one array borrowed from the batch.

/// Saves an audiogram (HKAudiogramSample, rule 40): `count` sensitivity
/// points, each a frequency in Hz and each ear's hearing level in dBHL
/// (NaN: that ear not tested; masked 1, 0, or -1 for not said), sorted by
/// frequency as they are saved. The input's type, value and unit are not
/// read. Returns OHK_OK; OHK_ERR_INVALID_VALUE (no point, a frequency that
/// is not positive or appears twice, a point with neither ear);
/// OHK_ERR_INVALID_ARGUMENT; OHK_ERR_INVALID_DATE_RANGE;
/// OHK_ERR_INVALID_METADATA; OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_save_audiogram(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?,
                                        _ sample: UnsafePointer<ohk_sample_input>?,
                                        _ points: UnsafePointer<ohk_audiogram_point>?, _ count: UInt64) -> Int32 {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(sample, "sample", kind: .audiogram)
        func ear(_ level: Double, _ masked: Int8) -> Audiogram.Ear? {
            level.isNaN ? nil : Audiogram.Ear(sensitivity: level, masked: masked < 0 ? nil : masked == 1)
        }
        let audiogram = Audiogram(points: try buffer(points, count, "points").map {
            Audiogram.Point(frequency: $0.frequency_hz, left: ear($0.left_ear_db_hl, $0.left_ear_masked),
                            right: ear($0.right_ear_db_hl, $0.right_ear_masked))
        })
        try saveOne(out_outcome, s, c) { f in
            try Sample.audiogram(audiogram, start: f.start, end: f.end, source: f.source, device: f.device,
                                 metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        }
    }
}

/// Sample `sample_index`'s sensitivity points (an audiogram's):
/// *out_points points at *out_count points in order of frequency, one
/// contiguous array borrowed from the batch, made on first access.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (an index out of range, a
/// sample that is not an audiogram); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_audiogram(_ out_points: UnsafeMutablePointer<UnsafePointer<ohk_audiogram_point>?>?,
                                   _ out_count: UnsafeMutablePointer<UInt64>?,
                                   _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> Int32 {
    cCall {
        let points = try out(out_points, "out_points"), count = try out(out_count, "out_count")
        guard case .audiogram(let a) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not an audiogram")
        }
        points.pointee = a.baseAddress
        count.pointee = UInt64(a.count)
    }
}
