// openhealthkit.h section 200: Statistics
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// HKStatisticsQuery: the figures of quantity type `type` over every
/// sample that matches `predicate` (may be NULL), sources merged by
/// priority; `options` are OHK_STATISTICS_ bits (rules 25–29 of
/// docs/semantics.md). *out_result receives one interval: the earliest
/// start and the latest end of the matching samples, each counted whole.
/// Returns OHK_ERR_NOT_FOUND when no sample matches (HealthKit's
/// errorNoData); OHK_ERR_INVALID_ARGUMENT for options that do not fit the
/// type's aggregation style or a category type; OHK_ERR_UNKNOWN_TYPE,
/// OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_statistics(_ out_result: UnsafeMutablePointer<UnsafeMutablePointer<ohk_statistics_result>?>?,
                                    _ store: UnsafeMutablePointer<ohk_store>?,
                                    _ type: UnsafePointer<CChar>?,
                                    _ predicate: UnsafePointer<ohk_predicate>?,
                                    _ options: ohk_statistics_flags) -> ohk_status {
    cCall {
        let out = try out(out_result, "out_result")
        let s = try StoreHandle.get(store)
        let t = try sampleType(type, s, "type")
        let p = try predicate.map { try PredicateHandle.get($0) }
        guard let stats = try s.statistics(type: t, predicate: p, options: StatisticsOptions(rawValue: Int(options))) else {
            throw CError(.notFound, "no \(t.identifier) sample matches the query")
        }
        out.pointee = StatisticsResultC.make([stats], type: t, localTime: false)
    }
}

/// HKStatisticsCollectionQuery's results, of `options->type` (and
/// `predicate`), with the figures `flags` asks for, from `from` to `to`
/// (Unix seconds): one interval for each that overlaps them,
/// `interval_count` OHK_INTERVAL_ units long, one of them starting at
/// `anchor`, counted in one zone (rule 28): `time_zone`'s calendar (a tz
/// database name, "Europe/Paris": a day is 23 or 25 hours when its clocks
/// change), else the fixed `utc_offset` (seconds east of UTC; NULL
/// `time_zone`). Each interval's start and end are the instants it
/// covers. With OHK_STATISTICS_SAMPLE_LOCAL_TIME in `flags` (and no `time_zone`),
/// each sample counts in its own UTC offset instead, one without in
/// `utc_offset`, and start and end are wall-clock times written as UTC.
/// Intervals without data have NaN figures. Returns
/// OHK_ERR_INVALID_ARGUMENT (NULL options or of an unknown version, flags, a zero count, an unknown unit or
/// time zone, a time zone with OHK_STATISTICS_SAMPLE_LOCAL_TIME, more than
/// 1,000,000 intervals),
/// OHK_ERR_INVALID_DATE_RANGE (from after to), and the errors of
/// ohk_store_statistics. Any thread.
@c public func ohk_store_statistics_collection(_ out_result: UnsafeMutablePointer<UnsafeMutablePointer<ohk_statistics_result>?>?,
                                               _ store: UnsafeMutablePointer<ohk_store>?,
                                               _ options: UnsafePointer<ohk_statistics_options>?) -> ohk_status {
    cCall {
        let out = try out(out_result, "out_result")
        let s = try StoreHandle.get(store)
        let c = try CollectionArguments(s, options)
        out.pointee = StatisticsResultC.make(try c.collection(in: s), type: c.type,
                                             localTime: c.options.contains(.sampleLocalTime))
    }
}

/// Fills `options` with the defaults of its `version` (pass
/// OHK_STATISTICS_OPTIONS_VERSION): no type yet, every sample, the type's
/// own figure, intervals of one day from the Unix epoch, UTC. Writes only
/// the fields that version has. Returns OHK_OK, or
/// OHK_ERR_INVALID_ARGUMENT when options is NULL or the version is
/// unknown. Any thread; never blocks.
@c public func ohk_statistics_options_init(_ options: UnsafeMutablePointer<ohk_statistics_options>?,
                                           _ version: UInt32) -> ohk_status {
    cCall { try statisticsOptionsVersions.initialize(options, version) }
}

/// The C arguments of a statistics collection, read once, for the call
/// that computes it and the one that keeps it current.
struct CollectionArguments {
    let type: SampleType
    let predicate: SamplePredicate?
    let options: StatisticsOptions
    let anchor: Date, from: Date, to: Date
    let interval: StatisticsInterval
    let utcOffset: Int
    let timeZone: ZoneRules?

    init(_ s: Store, _ options: UnsafePointer<ohk_statistics_options>?) throws {
        guard let o = try statisticsOptionsVersions.read(options) else {
            throw CError(.invalidArgument, "statistics options are NULL")
        }
        self.type = try sampleType(o.type, s, "options.type")
        self.predicate = try o.predicate.map { try PredicateHandle.get($0) }
        self.options = StatisticsOptions(rawValue: Int(o.flags))
        self.anchor = try UnixTime.date(o.anchor, "options.anchor")
        let units: [StatisticsInterval.Unit] = [.second, .minute, .hour, .day, .week, .month, .year]
        guard o.interval_unit >= 0, Int(o.interval_unit) < units.count else {
            throw CError(.invalidArgument,
                         "unknown interval unit \(o.interval_unit) (OHK_INTERVAL_SECOND ... OHK_INTERVAL_YEAR)")
        }
        guard o.interval_count > 0 else { throw CError(.invalidArgument, "options.interval_count must be positive") }
        interval = StatisticsInterval(Int(o.interval_count), units[Int(o.interval_unit)])
        self.from = try UnixTime.date(o.from, "options.from")
        self.to = try UnixTime.date(o.to, "options.to")
        utcOffset = Int(o.utc_offset)
        timeZone = try o.time_zone.map { try ZoneRules(try string($0, "options.time_zone")) }
    }

    func collection(in s: Store) throws -> [Statistics] {
        try s.statisticsCollection(type: type, predicate: predicate, options: options, anchor: anchor, interval: interval,
                                   from: from, to: to, utcOffset: utcOffset, timeZone: timeZone)
    }

    func liveQuery(_ handler: @escaping StatisticsCollectionQuery.Handler) -> StatisticsCollectionQuery {
        StatisticsCollectionQuery(type: type, predicate: predicate, options: options, anchor: anchor, interval: interval,
                                  from: from, to: to, utcOffset: utcOffset, timeZone: timeZone, handler: handler)
    }
}

/// Frees a statistics result and its strings. NULL is ignored. Any thread.
@c public func ohk_statistics_result_free(_ result: UnsafeMutablePointer<ohk_statistics_result>?) {
    guard let r = result?.pointee else { return }
    for i in 0..<Int(r.source_count) {
        free(UnsafeMutablePointer(mutating: r.sources[i].bundle_identifier))
        free(UnsafeMutablePointer(mutating: r.sources[i].name))
    }
    free(UnsafeMutableRawPointer(mutating: r.intervals))
    free(UnsafeMutableRawPointer(mutating: r.sources))
    StatisticsResultC.block(result!).deinitialize(count: 1).deallocate()
}

/// Sets the order in which statistics merge the sources of `type` (rule
/// 27): these `count` bundle identifiers first, in this order, then the
/// others in the default order (watches, phones, then other sources, the
/// newest first); a count of 0 restores the default. Returns
/// OHK_ERR_INVALID_ARGUMENT (a source twice, an empty one),
/// OHK_ERR_UNKNOWN_TYPE, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_set_source_priority(_ store: UnsafeMutablePointer<ohk_store>?,
                                             _ type: UnsafePointer<CChar>?,
                                             _ bundle_identifiers: UnsafePointer<UnsafePointer<CChar>?>?,
                                             _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let t = try sampleType(type, s, "type")
        let ids = try buffer(bundle_identifiers, count, "bundle_identifiers").enumerated().map {
            try string($1, "bundle_identifiers[\($0)]")
        }
        try s.setSourcePriority(ids, for: t)
    }
}

/// The order set with ohk_store_set_source_priority: *out_list receives
/// the bundle identifiers, one per line, or NULL when none was set; free
/// it with ohk_string_free. Any thread.
@c public func ohk_store_source_priority(_ out_list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                         _ store: UnsafeMutablePointer<ohk_store>?,
                                         _ type: UnsafePointer<CChar>?) -> ohk_status {
    sourceList(out_list, store, type) { s, t in try s.sourcePriority(for: t) }
}

/// Bundle identifiers one per line into *out_list, NULL when none.
private func sourceList(_ out_list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                        _ store: UnsafeMutablePointer<ohk_store>?, _ type: UnsafePointer<CChar>?,
                        _ read: (Store, SampleType) throws -> [String]) -> Int32 {
    cCall {
        let out = try out(out_list, "out_list")
        let s = try StoreHandle.get(store)
        let ids = try read(s, try sampleType(type, s, "type"))
        out.pointee = ids.isEmpty ? nil : ownedCString(ids.joined(separator: "\n"))
    }
}

/// The order statistics merge the type's sources in now (rule 27): the
/// order set with ohk_store_set_source_priority, then the default order
/// of the other sources with a sample of the type. *out_list receives the
/// bundle identifiers, one per line, or NULL when there are none; free
/// it with ohk_string_free. Reads the type's samples. Any thread.
@c public func ohk_store_source_priority_in_force(_ out_list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                  _ store: UnsafeMutablePointer<ohk_store>?,
                                                  _ type: UnsafePointer<CChar>?) -> ohk_status {
    sourceList(out_list, store, type) { s, t in try s.sourcePriorityInForce(for: t) }
}

/// `Statistics` as the C structs: one malloc'ed block per array.
enum StatisticsResultC {
    /// A result and, after it where C does not look, what an Arrow export
    /// of it needs: the type (its unit) and whether its times are
    /// wall-clock ones.
    struct Block {
        var result: ohk_statistics_result
        let type: SampleType
        let localTime: Bool
    }

    /// The block a result handed to C is the start of.
    static func block(_ r: UnsafePointer<ohk_statistics_result>) -> UnsafeMutablePointer<Block> {
        UnsafeMutableRawPointer(mutating: r).assumingMemoryBound(to: Block.self)
    }

    static func make(_ stats: [Statistics], type: SampleType, localTime: Bool) -> UnsafeMutablePointer<ohk_statistics_result> {
        let sourceCount = stats.reduce(0) { $0 + $1.bySource.count }
        let intervals = mallocArray(of: ohk_statistics_interval.self, stats.count)
        let sources = mallocArray(of: ohk_statistics_source.self, sourceCount)
        var next = 0
        for (k, st) in stats.enumerated() {
            let first = next
            for source in st.sources {
                guard let v = st.bySource[source.bundleIdentifier] else { continue }
                sources[next] = ohk_statistics_source(bundle_identifier: UnsafePointer(strdup(source.bundleIdentifier)),
                                                      name: UnsafePointer(strdup(source.name)), values: values(v))
                next += 1
            }
            intervals[k] = ohk_statistics_interval(start: UnixTime.fromReference(st.startDate.timeIntervalSinceReferenceDate),
                                                   end: UnixTime.fromReference(st.endDate.timeIntervalSinceReferenceDate),
                                                   values: values(st.values), first_source: UInt64(first),
                                                   source_count: UInt64(next - first))
        }
        let out = UnsafeMutablePointer<Block>.allocate(capacity: 1)
        out.initialize(to: Block(result: ohk_statistics_result(intervals: UnsafePointer(intervals),
                                                               interval_count: UInt64(stats.count),
                                                               sources: UnsafePointer(sources), source_count: UInt64(next)),
                                 type: type, localTime: localTime))
        // `result` is the block's first field: its address is the block's.
        return UnsafeMutableRawPointer(out).assumingMemoryBound(to: ohk_statistics_result.self)
    }

    private static func values(_ v: StatisticsValues) -> ohk_statistics_values {
        func unix(_ d: Date?) -> Double { d.map { UnixTime.fromReference($0.timeIntervalSinceReferenceDate) } ?? .nan }
        return ohk_statistics_values(sum: v.sum ?? .nan, average: v.average ?? .nan, minimum: v.minimum ?? .nan,
                                     maximum: v.maximum ?? .nan, most_recent: v.mostRecent ?? .nan,
                                     most_recent_start: unix(v.mostRecentStart), most_recent_end: unix(v.mostRecentEnd),
                                     duration: v.duration ?? .nan, count: UInt64(v.count ?? 0))
    }
}
