// openhealthkit.h section 220: Category durations (sleep)
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// The time a category type's values cover per interval (rule 59), as
/// sleep apps compute it from SleepAnalysis: sources merged by priority
/// (for sleep, time in bed and the stages apart), each value's time the
/// union of its pieces. Intervals as ohk_store_statistics_collection's,
/// from the same `options`: `interval_count` OHK_INTERVAL_ units from
/// `anchor`, over `from` to `to`, in `time_zone` or the fixed
/// `utc_offset`, or each sample in its own offset with
/// OHK_STATISTICS_SAMPLE_LOCAL_TIME in `flags` (the only flag). *out_result receives them, values in ascending order;
/// free it with ohk_category_durations_free. Returns
/// OHK_ERR_INVALID_ARGUMENT (not a category type, an unknown option, a
/// zero count, an unknown unit or time zone), OHK_ERR_INVALID_DATE_RANGE,
/// OHK_ERR_UNKNOWN_TYPE, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_category_durations(_ out_result: UnsafeMutablePointer<UnsafeMutablePointer<ohk_category_durations_result>?>?,
                                            _ store: UnsafeMutablePointer<ohk_store>?,
                                            _ options: UnsafePointer<ohk_statistics_options>?) -> ohk_status {
    cCall {
        let out = try out(out_result, "out_result")
        let s = try StoreHandle.get(store)
        let c = try CollectionArguments(s, options)
        guard c.options.isSubset(of: .sampleLocalTime) else {
            throw CError(.invalidArgument, "category durations take no option but OHK_STATISTICS_SAMPLE_LOCAL_TIME")
        }
        let found = try s.categoryDurations(type: c.type, predicate: c.predicate, anchor: c.anchor, interval: c.interval,
                                            from: c.from, to: c.to, utcOffset: c.utcOffset, timeZone: c.timeZone,
                                            sampleLocalTime: c.options.contains(.sampleLocalTime))
        let valueCount = found.reduce(0) { $0 + $1.byValue.count }
        let intervals = mallocArray(of: ohk_category_interval.self, found.count)
        let values = mallocArray(of: ohk_category_duration.self, valueCount)
        var next = 0
        for (k, d) in found.enumerated() {
            let first = next
            for (value, seconds) in d.byValue.sorted(by: { $0.key < $1.key }) {
                values[next] = ohk_category_duration(value: Int64(value), seconds: seconds)
                next += 1
            }
            intervals[k] = ohk_category_interval(start: UnixTime.fromReference(d.startDate.timeIntervalSinceReferenceDate),
                                                 end: UnixTime.fromReference(d.endDate.timeIntervalSinceReferenceDate),
                                                 total: d.total, first_value: UInt64(first), value_count: UInt64(next - first))
        }
        let result = UnsafeMutablePointer<ohk_category_durations_result>.allocate(capacity: 1)
        result.initialize(to: ohk_category_durations_result(intervals: UnsafePointer(intervals), interval_count: UInt64(found.count),
                                                            values: UnsafePointer(values), value_count: UInt64(next)))
        out.pointee = result
    }
}

/// Frees a category durations result. NULL is ignored. Any thread.
@c public func ohk_category_durations_free(_ result: UnsafeMutablePointer<ohk_category_durations_result>?) {
    guard let r = result?.pointee else { return }
    free(UnsafeMutableRawPointer(mutating: r.intervals))
    free(UnsafeMutableRawPointer(mutating: r.values))
    result?.deallocate()
}
