// openhealthkit.h section 210: Statistics kept current
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

/// Starts a statistics collection that stays current (HKStatisticsCollection-
/// Query with its update handler; rule 34): `callback` gets the collection
/// of ohk_store_statistics_collection with the same arguments when the
/// query starts, then again after each commit, by this process or any
/// other, that changes its figures, with the indexes of the intervals that
/// changed. A commit that changes no figure makes no call. Callbacks run on
/// a library thread, one at a time, and may call the library (including
/// ohk_query_stop / ohk_query_free on their own query). On a failure the
/// callback gets status < 0 once and the query stops. *out_query receives
/// the query: free it with ohk_query_free, after which destroy(user_data)
/// runs (once, after the last callback; also when this call fails).
/// Returns OHK_OK and the errors of ohk_store_statistics_collection. Any
/// thread.
@c public func ohk_query_statistics_collection(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                               _ store: UnsafeMutablePointer<ohk_store>?,
                                               _ type: UnsafePointer<CChar>?,
                                               _ predicate: UnsafePointer<ohk_predicate>?,
                                               _ options: ohk_statistics_flags, _ anchor: Double, _ interval_count: UInt32,
                                               _ interval_unit: ohk_interval_unit, _ from: Double, _ to: Double,
                                               _ utc_offset: Int32, _ time_zone: UnsafePointer<CChar>?,
                                               _ callback: ohk_statistics_fn?, _ user_data: UnsafeMutableRawPointer?,
                                               _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, user_data, destroy) { s, handle, p in
        guard let callback else { throw CError(.invalidArgument, "callback is NULL") }
        let context = handle.context
        let c = try CollectionArguments(s, type, predicate, options, anchor, interval_count, interval_unit, from, to,
                                        utc_offset, time_zone)
        return c.liveQuery { _, result in
            context.call {
                switch result {
                case .success(let update):
                    let r = StatisticsResultC.make(update.statistics)
                    let changed = update.changed.map { UInt64($0) }
                    changed.withUnsafeBufferPointer { c in
                        callback(p, 0, r, c.baseAddress, UInt64(c.count), context.userData)
                    }
                    ohk_statistics_result_free(r)
                case .failure(let e):
                    callback(p, report(e), nil, nil, 0, context.userData)
                }
            }
        }
    }
}
