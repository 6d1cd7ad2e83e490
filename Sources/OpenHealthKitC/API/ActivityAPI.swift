// openhealthkit.h section 140: Activity summaries
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Activity summaries through C (rule 43): saved from an array, read into
// an array the library allocates, with the change sequence to ask from
// next time.

/// Saves `count` activity summaries in one transaction, each replacing
/// the store's summary of its day; one equal to the stored summary is
/// not a change. *out_written (may be NULL) gets how many were written.
/// Returns OHK_OK; OHK_ERR_INVALID_VALUE (a value negative or not finite,
/// an unknown move mode); OHK_ERR_INVALID_ARGUMENT (a day the Gregorian
/// calendar does not have, a day given twice, NULL with a count);
/// OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread; blocks for the write
/// transaction.
@c public func ohk_store_save_activity_summaries(_ out_written: UnsafeMutablePointer<UInt64>?,
                                                 _ store: UnsafeMutablePointer<ohk_store>?,
                                                 _ summaries: UnsafePointer<ohk_activity_summary>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let all = try buffer(summaries, count, "summaries").enumerated().map { k, c in
            let day = try ActivitySummary.Day(year: Int(c.year), month: Int(c.month), day: Int(c.day))
            guard let mode = c.move_mode == 0 ? .activeEnergy : UInt8(exactly: c.move_mode).flatMap(ActivitySummary.MoveMode.init) else {
                throw CError(.invalidValue, "summaries[\(k)].move_mode \(c.move_mode) is not an HKActivityMoveMode")
            }
            func v(_ x: Double) -> Double? { x.isNaN ? nil : x }
            return ActivitySummary(day: day, activeEnergyBurned: v(c.active_energy_burned),
                                   activeEnergyBurnedGoal: v(c.active_energy_burned_goal), appleMoveTime: v(c.apple_move_time),
                                   appleMoveTimeGoal: v(c.apple_move_time_goal), appleExerciseTime: v(c.apple_exercise_time),
                                   exerciseTimeGoal: v(c.exercise_time_goal), appleStandHours: v(c.apple_stand_hours),
                                   standHoursGoal: v(c.stand_hours_goal), moveMode: mode, isPaused: c.paused)
        }
        let written = try s.saveActivitySummaries(all)
        out_written?.pointee = UInt64(written)
    }
}

/// The summaries of the days `start_day` through `end_day` (each
/// written YYYYMMDD, 0: unbounded) that changed after change
/// `changed_after` (0: all), in calendar order: *out_summaries gets an
/// array of *out_count (NULL when 0), freed with
/// ohk_activity_summaries_free; *out_sequence (may be NULL) the
/// sequence of the store's last summary change, to pass as
/// `changed_after` next time (HKActivitySummaryQuery's updates). Returns
/// OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL, a day that is not one, an end
/// before the start, a sequence past the store's: another store's);
/// OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_activity_summaries(_ out_summaries: UnsafeMutablePointer<UnsafeMutablePointer<ohk_activity_summary>?>?,
                                            _ out_count: UnsafeMutablePointer<UInt64>?,
                                            _ out_sequence: UnsafeMutablePointer<UInt64>?,
                                            _ store: UnsafeMutablePointer<ohk_store>?,
                                            _ start_day: Int32, _ end_day: Int32, _ changed_after: UInt64) -> ohk_status {
    cCall {
        let list = try out(out_summaries, "out_summaries"), count = try out(out_count, "out_count")
        let (found, sequence) = try StoreHandle.get(store).activitySummaries(
            from: try day(start_day, "start_day"), through: try day(end_day, "end_day"), changedAfter: changed_after)
        list.pointee = nil
        count.pointee = UInt64(found.count)
        out_sequence?.pointee = sequence
        guard !found.isEmpty else { return }
        let array = UnsafeMutablePointer<ohk_activity_summary>.allocate(capacity: found.count)
        for (k, s) in found.enumerated() { array[k] = cSummary(s) }
        list.pointee = array
    }
}

/// Starts an activity summary query that stays current (HKActivitySummary-
/// Query with its update handler; rule 43): `callback` gets every summary
/// of the days `options->start_day` through `options->end_day` (YYYYMMDD,
/// 0: unbounded)
/// when the query starts, then, after each commit by this process or any
/// other that saved or changed summaries of those days, only those. A
/// commit that changes none makes no call. Callbacks run on a library
/// thread, one at a time, and may call the library (including
/// ohk_query_stop / ohk_query_free on their own query). On a failure the
/// callback gets status < 0 once and the query stops. *out_query receives
/// the query: free it with ohk_query_free, after which destroy(user_data)
/// runs (once, after the last callback; also when this call fails).
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL, a day that is not one,
/// an end before the start); OHK_ERR_CLOSED. Any thread.
@c public func ohk_query_start_activity_summaries(_ out_query: UnsafeMutablePointer<UnsafeMutablePointer<ohk_query>?>?,
                                                  _ store: UnsafeMutablePointer<ohk_store>?,
                                                  _ options: UnsafePointer<ohk_query_options>?,
                                                  _ callback: ohk_activity_summaries_fn?,
                                                  _ user_data: UnsafeMutableRawPointer?,
                                                  _ destroy: ohk_destroy_fn?) -> ohk_status {
    start(out_query, store, options, callback, user_data, destroy) { _, handle, p, o, callback in
        let context = handle.context
        return ActivitySummaryQuery(from: try day(o.start_day, "options.start_day"),
                                    through: try day(o.end_day, "options.end_day"),
                                    updates: true) { _, result, isUpdate in
            context.call {
                switch result {
                case .success(let found):
                    let c = found.map(cSummary)
                    c.withUnsafeBufferPointer { callback(p, 0, $0.baseAddress, UInt64($0.count), isUpdate, context.userData) }
                case .failure(let e):
                    callback(p, report(e), nil, 0, isUpdate, context.userData)
                }
            }
        }
    }
}

/// Frees an array from ohk_store_activity_summaries; NULL is a no-op.
@c public func ohk_activity_summaries_free(_ summaries: UnsafeMutablePointer<ohk_activity_summary>?) {
    summaries?.deallocate()
}

/// A day written YYYYMMDD; 0 is no bound.
private func day(_ n: Int32, _ what: String) throws -> ActivitySummary.Day? {
    guard n != 0 else { return nil }
    guard n > 0 else { throw CError(.invalidArgument, "\(what) \(n) is not a day (YYYYMMDD)") }
    return try ActivitySummary.Day(year: Int(n / 10_000), month: Int(n / 100 % 100), day: Int(n % 100))
}

/// A summary in C form, NaN where the day has no value.
private func cSummary(_ s: ActivitySummary) -> ohk_activity_summary {
    ohk_activity_summary(year: Int32(s.day.year), month: Int32(s.day.month), day: Int32(s.day.day),
                         active_energy_burned: s.activeEnergyBurned ?? .nan,
                         active_energy_burned_goal: s.activeEnergyBurnedGoal ?? .nan,
                         apple_move_time: s.appleMoveTime ?? .nan, apple_move_time_goal: s.appleMoveTimeGoal ?? .nan,
                         apple_exercise_time: s.appleExerciseTime ?? .nan, exercise_time_goal: s.exerciseTimeGoal ?? .nan,
                         apple_stand_hours: s.appleStandHours ?? .nan, stand_hours_goal: s.standHoursGoal ?? .nan,
                         move_mode: Int32(s.moveMode.rawValue), paused: s.isPaused)
}
