// openhealthkit.h section 130: Electrocardiograms
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Electrocardiograms (rule 41) through C: saved from one struct, read
// back as one struct borrowed from the batch, its voltages contiguous.

/// Saves an electrocardiogram (HKElectrocardiogram, rule 41): its
/// classification, symptoms status, average heart rate (beats per
/// minute, NaN for none) and `ecg->voltage_count` voltages in microvolts
/// at `ecg->sampling_frequency_hz`, the first at `sample->start`; the
/// recording ends at `sample->end`, which must not come before its last
/// voltage. The input's type, when given, must be the electrocardiogram
/// type; its value and unit are not read. Returns
/// OHK_OK; OHK_ERR_INVALID_VALUE (an unknown classification, symptoms
/// status or lead, voltages without a sampling frequency, a value that is
/// not finite, voltages past the end); OHK_ERR_INVALID_ARGUMENT;
/// OHK_ERR_INVALID_DATE_RANGE; OHK_ERR_INVALID_METADATA;
/// OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// blocks for the write transaction.
@c public func ohk_store_save_electrocardiogram(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                                _ store: UnsafeMutablePointer<ohk_store>?,
                                                _ sample: UnsafePointer<ohk_sample_input>?,
                                                _ ecg: UnsafePointer<ohk_electrocardiogram>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(sample, "sample", kind: .electrocardiogram)
        guard let e = ecg?.pointee else { throw CError(.invalidArgument, "ecg is NULL") }
        guard let classification = UInt8(exactly: e.classification).flatMap(Electrocardiogram.Classification.init) else {
            throw CError(.invalidValue, "ecg->classification \(e.classification) is not an HKElectrocardiogram.Classification")
        }
        guard let symptoms = UInt8(exactly: e.symptoms_status).flatMap(Electrocardiogram.SymptomsStatus.init) else {
            throw CError(.invalidValue, "ecg->symptoms_status \(e.symptoms_status) is not an HKElectrocardiogram.SymptomsStatus")
        }
        guard let lead = e.lead == 0 ? .appleWatchSimilarToLeadI : UInt8(exactly: e.lead).flatMap(Electrocardiogram.Lead.init) else {
            throw CError(.invalidValue, "ecg->lead \(e.lead) is not an HKElectrocardiogram.Lead")
        }
        let recording = Electrocardiogram(
            classification: classification, symptomsStatus: symptoms,
            averageHeartRate: e.average_heart_rate.isNaN ? nil : e.average_heart_rate,
            samplingFrequency: e.sampling_frequency_hz.isNaN ? nil : e.sampling_frequency_hz, lead: lead,
            voltages: Array(try buffer(e.voltages, e.voltage_count, "ecg->voltages")))
        try saveOne(out_outcome, s, c) { f in
            try Sample.electrocardiogram(recording, start: f.start, end: f.end, source: f.source, device: f.device,
                                         metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        }
    }
}

/// Sample `sample_index`'s recording (an electrocardiogram's): *out_ecg is
/// filled, its voltages one contiguous array borrowed from the batch,
/// made on first access. Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (an
/// index out of range, a sample that is not an electrocardiogram);
/// OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_electrocardiogram(_ out_ecg: UnsafeMutablePointer<ohk_electrocardiogram>?,
                                           _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let o = try out(out_ecg, "out_ecg")
        guard case .electrocardiogram(let e) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not an electrocardiogram")
        }
        o.pointee = e
    }
}
