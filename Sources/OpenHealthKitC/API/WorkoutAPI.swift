// openhealthkit.h section 100: Workouts, routes and correlations
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Workouts, routes and correlations through C (rules 31-33, 36): saved
// with their own fields, read back from a batch as contiguous arrays.

/// Saves a workout (HKWorkout, rule 31): `sample` gives what every sample
/// has (start, end, source, device, metadata, UUID, creation date, UTC
/// offset; its type is NULL or "HKWorkoutTypeIdentifier", its value and
/// unit are not read) and `workout` its own fields: activity type,
/// duration, totals, events, activities and statistics. `out_outcome`
/// (may be NULL) receives what the save did. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT; OHK_ERR_INVALID_VALUE (an unknown activity
/// or event type, a negative duration or total); OHK_ERR_UNKNOWN_TYPE (a
/// statistics type); OHK_ERR_INVALID_DATE_RANGE; OHK_ERR_INVALID_METADATA;
/// OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// blocks for the write transaction.
@c public func ohk_store_save_workout(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                      _ store: UnsafeMutablePointer<ohk_store>?,
                                      _ sample: UnsafePointer<ohk_sample_input>?,
                                      _ workout: UnsafePointer<ohk_workout>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(sample, "sample", kind: .workout)
        guard let workout else { throw CError(.invalidArgument, "workout is NULL") }
        let value = try CWorkoutInput.workout(workout.pointee, "workout")
        try saveOne(out_outcome, s, c) { f in
            try Sample.workout(value, start: f.start, end: f.end, source: f.source, device: f.device,
                               metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        }
    }
}

/// Saves a route (HKWorkoutRoute, rule 32): `count` locations, sorted by
/// time as they are saved, and spanning the route's interval (the
/// input's start and end are not read, nor its type, value and unit). With
/// `workout` (16 bytes, or NULL for a route of no workout) the route
/// belongs to that stored workout, checked in the same transaction.
/// Returns OHK_OK; OHK_ERR_NOT_FOUND (no live workout with that UUID);
/// OHK_ERR_INVALID_ARGUMENT; OHK_ERR_INVALID_VALUE (no location, one off
/// the Earth or not finite); OHK_ERR_INVALID_DATE_RANGE;
/// OHK_ERR_INVALID_METADATA; OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_save_route(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                    _ store: UnsafeMutablePointer<ohk_store>?,
                                    _ sample: UnsafePointer<ohk_sample_input>?, _ workout: UnsafePointer<UInt8>?,
                                    _ locations: UnsafePointer<ohk_location>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        var c = try input(sample, "sample", kind: .route)
        let points = try CWorkoutInput.locations(locations, count, "locations")
        guard !points.isEmpty else { throw CError(.invalidValue, "a route has at least one location") }
        let route = WorkoutRoute(workout: workout.map(UUIDBytes.read), locations: points)
        c.start = UnixTime.seconds(route.locations.first!.timestamp)
        c.end = UnixTime.seconds(route.locations.last!.timestamp)
        var builder = SampleBuilder(store: s)
        let f = try builder.fields(c, "sample")
        let made = try Sample.route(route, start: f.start, end: f.end, source: f.source, device: f.device,
                                    metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        let outcome = try route.workout.map { try s.saveRoute(made, of: $0) } ?? s.save([made])[0]
        out_outcome?.pointee = cOutcome(made.uuid, outcome)
    }
}

/// Saves a correlation (HKCorrelation, rule 33) and its `member_count`
/// members in one transaction, the members first: `correlation`'s type is
/// "HKCorrelationTypeIdentifierBloodPressure" or
/// "HKCorrelationTypeIdentifierFood" (its value and unit are not read), the
/// members are samples of the types it allows. A member the store holds
/// already (same UUID) is grouped, not saved again: its outcome is
/// OHK_SAVE_ALREADY_STORED. `out_outcomes` (NULL, or room for
/// member_count + 1) receives the members' outcomes in order, then the
/// correlation's. Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (a member of a
/// type the correlation does not hold); OHK_ERR_NOT_FOUND (a member that
/// was deleted); the errors of ohk_store_save. Any thread; blocks for the
/// write transaction.
@c public func ohk_store_save_correlation(_ out_outcomes: UnsafeMutablePointer<ohk_save_outcome>?,
                                          _ store: UnsafeMutablePointer<ohk_store>?,
                                          _ correlation: UnsafePointer<ohk_sample_input>?,
                                          _ members: UnsafePointer<ohk_sample_input>?, _ member_count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(correlation, "correlation", kind: .correlation)
        var builder = SampleBuilder(store: s)
        let memberSamples = try builder.buildAll(members, member_count)
        let f = try builder.fields(c, "correlation")
        let made = try Sample.correlation(try sampleType(c.type, s, "correlation.type"), members: memberSamples.map(\.uuid),
                                          start: f.start, end: f.end, source: f.source, device: f.device,
                                          metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        let results = try s.saveCorrelation(made, members: memberSamples)
        guard let out_outcomes else { return }
        for (i, r) in results.members.enumerated() { out_outcomes[i] = cOutcome(memberSamples[i].uuid, r) }
        out_outcomes[memberSamples.count] = cOutcome(made.uuid, results.correlation)
    }
}

/// Saves the `count` samples the store does not hold yet and associates
/// every one with the stored workout whose UUID is the 16 bytes at
/// `workout`, in one transaction (HealthKit's add(_:to:), rule 36).
/// `out_outcomes` (NULL, or room for `count`) receives each one's outcome:
/// OHK_SAVE_ALREADY_STORED for a sample stored before, only associated
/// (found by its UUID; its other fields are not read).
/// Returns OHK_OK; OHK_ERR_NOT_FOUND (no live workout with that UUID, or
/// a sample deleted since); the errors of ohk_store_save. Any thread;
/// blocks for the write transaction.
@c public func ohk_store_add_to_workout(_ out_outcomes: UnsafeMutablePointer<ohk_save_outcome>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?, _ workout: UnsafePointer<UInt8>?,
                                        _ samples: UnsafePointer<ohk_sample_input>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        guard let workout else { throw CError(.invalidArgument, "workout is NULL") }
        let inputs = try buffer(samples, count, "samples")
        // Samples the store holds are only associated: found by UUID
        // first, they are not built (two thirds of associating 3,600
        // stored heart rates went to building them).
        let given = inputs.indices.filter { !UUIDBytes.isZero(inputs[$0].uuid) }.map { ($0, UUID(uuid: inputs[$0].uuid)) }
        let stored = zip(given, try s.holds(given.map(\.1))).filter(\.1).map(\.0)
        var isStored = [Bool](repeating: false, count: inputs.count)
        for (i, _) in stored { isStored[i] = true }
        var builder = SampleBuilder(store: s)
        var built: [Sample] = [], builtAt: [Int] = []
        for (i, c) in inputs.enumerated() where !isStored[i] {
            built.append(try builder.build(named: c, i))
            builtAt.append(i)
        }
        let results = try s.add(stored: stored.map(\.1), built, to: UUIDBytes.read(workout))
        guard let out_outcomes else { return }
        for (i, uuid) in stored { out_outcomes[i] = cOutcome(uuid, nil) }
        for (k, i) in builtAt.enumerated() { out_outcomes[i] = cOutcome(built[k].uuid, results[k]) }
    }
}

/// Sample `sample_index`'s workout fields into *out_workout; its arrays
/// and strings are borrowed from the batch. Made on first access. Returns
/// OHK_OK; OHK_ERR_INVALID_ARGUMENT (an index out of range, a sample that
/// is not a workout); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_workout(_ out_workout: UnsafeMutablePointer<ohk_workout>?,
                                 _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let out = try out(out_workout, "out_workout")
        guard case .workout(let w) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not a workout")
        }
        out.pointee = w
    }
}

/// Sample `sample_index`'s route into *out_route: its locations, one
/// contiguous array borrowed from the batch, and its workout. Made on
/// first access. Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (an index out of
/// range, a sample that is not a route); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_route(_ out_route: UnsafeMutablePointer<ohk_route>?,
                               _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let out = try out(out_route, "out_route")
        guard case .route(let r) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not a route")
        }
        out.pointee = r
    }
}

/// Sample `sample_index`'s members (a correlation's, HKCorrelation.objects):
/// *out_members points at *out_count UUIDs, 16 bytes each, borrowed from
/// the batch; ohk_predicate_uuids fetches the samples. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT (an index out of range, a sample that is not a
/// correlation); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_correlation(_ out_members: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                                     _ out_count: UnsafeMutablePointer<UInt64>?,
                                     _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let members = try out(out_members, "out_members"), count = try out(out_count, "out_count")
        guard case .correlation(let m) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not a correlation")
        }
        members.pointee = m.baseAddress
        count.pointee = UInt64(m.count / 16)
    }
}

/// Saves the one sample `make` builds from what every sample has (`c`'s
/// source, dates, metadata…); *out (may be NULL) receives what the save did.
func saveOne(_ out: UnsafeMutablePointer<ohk_save_outcome>?, _ s: Store, _ c: ohk_sample_input,
             _ make: (SampleBuilder.Fields) throws -> Sample) throws {
    var builder = SampleBuilder(store: s)
    let made = try make(try builder.fields(c, "sample"))
    // Saved first: `out?.pointee = f()` does not call f when out is NULL.
    let outcome = try s.save([made])[0]
    out?.pointee = cOutcome(made.uuid, outcome)
}

/// The input of a save of one kind: its type, when given, must be of it.
func input(_ p: UnsafePointer<ohk_sample_input>?, _ what: String,
                   kind: SampleType.Kind) throws -> ohk_sample_input {
    guard let p else { throw CError(.invalidArgument, "\(what) is NULL") }
    let c = p.pointee
    if let t = c.type {
        let type = try sampleType(t, nil, "\(what).type")
        guard type.kind == kind else {
            throw CError(.invalidArgument, "\(what).type \(type.identifier) is not a type this call saves (\(type.kindName) samples)")
        }
    } else if kind == .correlation || kind == .clinicalRecord {
        throw CError(.invalidArgument, "\(what).type is NULL: a \(kind == .correlation ? "correlation" : "clinical record") names its type")
    }
    return c
}
