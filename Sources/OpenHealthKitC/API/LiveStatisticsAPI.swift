// openhealthkit.h section 210: Statistics kept current
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

/// Starts a statistics collection that stays current (HKStatisticsCollection-
/// Query with its update handler; rule 34): `callback` gets the collection
/// ohk_store_statistics_collection computes from `options->statistics`
/// when the query starts, then again after each commit, by this process or any
/// other, that changes its figures, with the indexes of the intervals that
/// changed. A commit that changes no figure makes no call. Callbacks run on
/// a library thread, one at a time, and may call the library (including
/// ohk_query_stop / ohk_query_free on their own query). On a failure the
/// callback gets status < 0 once and the query stops. *out_query receives
/// the query: free it with ohk_query_free, after which destroy(user_data)
/// runs (once, after the last callback; also when this call fails).
/// Returns OHK_OK and the errors of ohk_store_statistics_collection. Any
/// thread.
@c public func ohk_query_start_statistics_collection(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                                     _ store: UnsafeMutablePointer<ohk_store>?,
                                                     _ options: UnsafePointer<ohk_query_options>?,
                                                     _ callback: ohk_statistics_fn?, _ user_data: UnsafeMutableRawPointer?,
                                                     _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, options, callback, user_data, destroy) { s, handle, p, o, callback in
        guard o.statistics != nil else { throw CError(.invalidArgument, "options.statistics is NULL") }
        let context = handle.context
        let c = try CollectionArguments(s, o.statistics)
        return c.liveQuery { _, result in
            context.call {
                switch result {
                case .success(let update):
                    let r = StatisticsResultC.make(update.statistics, type: c.type,
                                                   localTime: c.options.contains(.sampleLocalTime))
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
