#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitUpload

/// `GET /v1/people/{person}/statistics?type=…&interval=day&from=…&to=…&tz=…`:
/// a quantity type's statistics collection, sources merged by priority
/// (rules 25–29), or the hours each value of a category type covers
/// (rule 59), as `ohk stats TYPE --by … --format json` prints them.
/// `options` picks the figures (sum, average, min, max, mostRecent,
/// duration; default: the type's own), `bySource=true` adds each
/// source's rows, `unit` converts. Times are read and printed in `tz` (a
/// zone), else `utcOffset`, else UTC; `localTime=true` counts each sample
/// in its own offset.
struct StatisticsRequest: Sendable {
    let type: String
    let interval: String
    let from: String?
    let to: String?
    let tz: String?
    let utcOffset: String?
    let localTime: Bool
    let bySource: Bool
    let options: [String]
    let unit: String?

    init(query: [(String, String)]) throws(APIError) {
        func value(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
        guard let type = value("type") else { throw APIError(.badRequest, "name the type: type=StepCount", field: "type") }
        self.type = type
        interval = value("interval") ?? "day"
        from = value("from")
        to = value("to")
        tz = value("tz")
        utcOffset = value("utcOffset")
        localTime = value("localTime") == "true"
        bySource = value("bySource") == "true"
        options = value("options").map { $0.split(separator: ",").map(String.init) } ?? []
        unit = value("unit")
    }

    func read(_ store: Store, _ grant: Grant) throws(APIError) -> String {
        let t: SampleType
        do { t = try store.sampleType(type) } catch { throw APIError(.badRequest, "unknown type '\(type)'", field: "type") }
        guard grant.read.contains(t.identifier) else {
            throw APIError(.forbidden, "this token may not read \(t.identifier)", field: "type")
        }
        if case .category = t.kind { return try categories(store, t) }
        if case .workout = t.kind { return try workouts(store, t) }
        guard case .quantity(let canonical, let style) = t.kind else {
            throw APIError(.badRequest, "\(t.identifier) is a \(t.kindName) type: statistics are of quantity, category "
                           + "and workout types", field: "type")
        }
        var chosen: StatisticsOptions = []
        let names: [String: StatisticsOptions] = ["sum": .cumulativeSum, "average": .discreteAverage, "min": .discreteMin,
                                                  "max": .discreteMax, "mostRecent": .mostRecent, "duration": .duration]
        for name in options {
            guard let o = names[name] else {
                throw APIError(.badRequest, "options are \(names.keys.sorted().joined(separator: ", ")), not '\(name)'", field: "options")
            }
            chosen.insert(o)
        }
        if chosen.isEmpty { chosen = style == .cumulative ? .cumulativeSum : .discreteAverage }
        if bySource { chosen.insert(.separateBySource) }
        let shown: HealthUnit?
        do { shown = try unit.map { try HealthUnit($0) } } catch { throw APIError(.badRequest, "'\(unit!)' is not a unit", field: "unit") }
        if let shown, !shown.isCompatible(with: canonical) {
            throw APIError(.badRequest, "unit '\(shown)' does not measure \(t.identifier) (\(canonical))", field: "unit")
        }
        let (time, by) = try timeAndInterval()
        do {
            let rows = try StatisticsRows.compute(store, type: t, options: chosen, interval: by, from: from, to: to,
                                                  time: time, unit: shown)
            return rows?.json ?? "[]"
        } catch {
            throw Self.refusal(error)
        }
    }

    /// The time each value covers per interval, in hours (rule 59), as
    /// `ohk stats SleepAnalysis --by day --format json` prints it.
    private func categories(_ store: Store, _ t: SampleType) throws(APIError) -> String {
        try rows(t, "the hours each value covers") { time, by in
            try CategoryRows.compute(store, type: t, interval: by, from: from, to: to, time: time)?.json
        }
    }

    /// Workouts per interval, each counted once (rule 57), as `ohk stats
    /// Workout --format json` prints them.
    private func workouts(_ store: Store, _ t: SampleType) throws(APIError) -> String {
        try rows(t, "workouts, minutes, kilometres and kilocalories per interval") { time, by in
            try WorkoutRows.compute(store, interval: by, from: from, to: to, time: time)?.json
        }
    }

    /// Rows of a type whose statistics take no options, bySource or unit
    /// (`what` says what they are); `[]` when the store has nothing to count.
    private func rows(_ t: SampleType, _ what: String,
                      _ compute: (StatsTime, StatisticsInterval) throws -> String?) throws(APIError) -> String {
        guard options.isEmpty, !bySource, unit == nil else {
            throw APIError(.badRequest, "\(t.identifier)'s statistics are \(what) (no options, bySource or unit)", field: "type")
        }
        let (time, by) = try timeAndInterval()
        do {
            return try compute(time, by) ?? "[]"
        } catch {
            throw Self.refusal(error)
        }
    }

    private func timeAndInterval() throws(APIError) -> (StatsTime, StatisticsInterval) {
        do {
            return (try StatsTime.make(tz: tz, utcOffset: utcOffset, localTime: localTime) { .offset(0) },
                    try StatsTime.interval(interval))
        } catch let e as StatsTimeError {
            throw APIError(.badRequest, e.message.replacing("--by", with: "interval").replacing("--", with: ""),
                           field: ["tz", "utcOffset", "localTime", "interval"].first { e.message.contains($0) } ?? "interval")
        } catch {
            throw APIError(error)
        }
    }

    /// A from/to that does not read is the request's fault; the rest the store's.
    private static func refusal(_ error: any Error) -> APIError {
        if let e = error as? StatsTimeError {
            return APIError(.badRequest, e.message.replacing("--", with: ""), field: e.message.contains("--to") ? "to" : "from")
        }
        return APIError(error)
    }
}
#endif
