import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// What `ohk mcp`'s tools answer, as JSON text, from a store read at each
/// call (a commit by `ohk import` or `ohk serve` shows at the next one).
/// Every answer is bounded: at most `rowCap` rows, and an answer that was
/// cut says so and how to ask for the rest. Times are UTC ISO 8601 unless
/// a time zone was asked for, and every figure names its unit.
/// (No MCP types here: the tools' arguments arrive as `ToolArguments`.)
package struct HealthAnswers {
    /// The most rows (intervals, samples, workouts, changes) one answer holds.
    package static let rowCap = 500

    let store: Store

    package init(store: Store) { self.store = store }

    /// A tool that cannot answer: the assistant reads the message.
    package struct Refusal: Error {
        package let message: String
        package init(_ message: String) { self.message = message }
    }

    /// What the store holds: each type's samples, first start, last end
    /// and sources, and the anchor of this moment.
    package func summary() throws -> String {
        let counts = try store.counts()
        var types: [String] = []
        for t in counts.types {
            var o = JSONObject()
            o.add("type", t.type.identifier)
            o.add("name", TypeCatalogue.shortName(t.type))
            o.add("kind", t.type.kindName)
            o.add("samples", int: t.samples)
            if let u = t.type.displayUnit?.description ?? t.type.canonicalUnitText { o.add("unit", u) }
            if let span = try TypeSpan(t.type, store) {
                o.add("first", time: span.first)
                o.add("last", time: span.last)
                o.add("sources", raw: JSONObject.array(span.sources.map { JSONObject.quoted($0) }))
            }
            types.append(o.closed)
        }
        var o = JSONObject()
        o.add("samples", int: counts.samples)
        o.add("types", raw: JSONObject.array(types))
        o.add("times", "UTC, ISO 8601")
        o.add("anchor", counts.anchor.base64)
        o.add("hint", "ask statistics for figures per hour, day, week, month or year; latest for recent values")
        return o.closed
    }

    /// A type's figures per interval, sources merged by priority, as `ohk
    /// stats TYPE --by INTERVAL --format json` prints them: a quantity
    /// type's statistics, a category type's hours per value (sleep by
    /// night), workouts per interval.
    package func statistics(type name: String, interval: String?, from: String?, to: String?, timeZone: String?,
                            figures: [String], bySource: Bool, unit: String?) throws -> String {
        let type = try sampleType(name)
        let time = try statsTime(timeZone)
        let by = try Self.interval(interval ?? "day")
        // Rows as `ohk stats` computes them, at most rowCap of them shown.
        var rows: [[String]], json: () -> String
        switch type.kind {
        case .category:
            guard figures.isEmpty, !bySource, unit == nil else {
                throw Refusal("\(type.identifier)'s statistics are the hours each value covers: no statistics, by_source or unit")
            }
            guard var r = try CategoryRows.compute(store, type: type, interval: by, from: from, to: to, time: time) else {
                return empty(type, time, interval)
            }
            rows = r.rows
            r.rows = Array(rows.prefix(Self.rowCap))
            json = { r.json }
        case .workout:
            guard figures.isEmpty, !bySource, unit == nil else {
                throw Refusal("workouts per interval take no statistics, by_source or unit: call workouts for each one")
            }
            guard var r = try WorkoutRows.compute(store, interval: by, from: from, to: to, time: time) else {
                return empty(type, time, interval)
            }
            rows = r.rows
            r.rows = Array(rows.prefix(Self.rowCap))
            json = { r.json }
        case .quantity(let canonical, let style):
            var chosen: StatisticsOptions = []
            let names: [String: StatisticsOptions] = ["sum": .cumulativeSum, "average": .discreteAverage, "min": .discreteMin,
                                                      "max": .discreteMax, "mostRecent": .mostRecent, "duration": .duration]
            for f in figures {
                guard let o = names[f] else {
                    throw Refusal("statistics are \(names.keys.sorted().joined(separator: ", ")), not '\(f)'")
                }
                chosen.insert(o)
            }
            if chosen.isEmpty { chosen = style == .cumulative ? .cumulativeSum : .discreteAverage }
            if bySource { chosen.insert(.separateBySource) }
            let shown = try unit.map { try Self.unit($0, measuring: type, canonical) }
            do {
                try chosen.check(for: type)
            } catch let e as OHKError {
                throw Refusal(e.message)
            }
            guard var r = try StatisticsRows.compute(store, type: type, options: chosen, interval: by, from: from, to: to,
                                                     time: time, unit: shown) else {
                return empty(type, time, interval)
            }
            rows = r.rows
            r.rows = Array(rows.prefix(Self.rowCap))
            json = { r.json }
        default:
            throw Refusal("\(type.identifier) is a \(type.kindName) type: statistics are of quantity, category and workout types")
        }
        var o = JSONObject()
        o.add("type", type.identifier)
        o.add("interval", interval ?? "day")
        o.add("timeZone", time.name)
        o.add("rows", raw: json())
        o.add("rowCount", int: rows.count)
        if rows.count > Self.rowCap {
            o.add("cut", "\(rows.count - Self.rowCap) more rows not shown: ask again with from=\(rows[Self.rowCap][0]), "
                  + "or a larger interval")
        }
        return o.closed
    }

    private func empty(_ type: SampleType, _ time: StatsTime, _ interval: String?) -> String {
        var o = JSONObject()
        o.add("type", type.identifier)
        o.add("interval", interval ?? "day")
        o.add("timeZone", time.name)
        o.add("rows", raw: "[]")
        o.add("rowCount", int: 0)
        o.add("note", "the store has no \(type.identifier) samples")
        return o.closed
    }

    /// The `count` latest samples of a type (by start), each with its value
    /// in the type's display unit, or `unit`.
    package func latest(type name: String, count: Int, unit: String?) throws -> String {
        let type = try sampleType(name)
        guard (1...Self.rowCap).contains(count) else { throw Refusal("count is 1 to \(Self.rowCap), not \(count)") }
        let shown: HealthUnit? = try unit.map { u in
            guard let canonical = type.canonicalUnit else { throw Refusal("\(type.identifier) has no unit: its values are names") }
            return try Self.unit(u, measuring: type, canonical)
        }
        let all = try store.anchoredQuery(type: type, anchor: nil).samples
        var starts: [Double] = []
        starts.reserveCapacity(all.count)
        all.forEach { starts.append($0.startTime) }
        let picked = all.indices.sorted { starts[$0] > starts[$1] }.prefix(count)
        var rows: [String] = []
        for i in picked {
            let s = all[i]
            var o = JSONObject()
            o.add("start", time: s.startDate)
            o.add("end", time: s.endDate)
            switch s.value {
            case .quantity(let q):
                let u = shown ?? type.displayUnit ?? type.canonicalUnit!
                o.add("value", raw: TextForms.number(try type.canonicalUnit!.convert(q, to: u)))
                o.add("unit", u.description)
            case .category(let c):
                o.add("value", int: c)
                o.add("valueName", type.categoryValueName(c))
            default:
                o.add("value", raw: JSONObject.sample(s).closed)
            }
            o.add("source", s.source.name)
            rows.append(o.closed)
        }
        var o = JSONObject()
        o.add("type", type.identifier)
        o.add("times", "UTC, ISO 8601")
        o.add("samples", raw: JSONObject.array(rows))
        o.add("of", int: all.count)
        return o.closed
    }

    /// Workouts from `from` to `to` (ISO dates or date-times; default every
    /// one), the latest first, each counted once (copies an app wrote
    /// again left out, rule 57), with their totals.
    package func workouts(from: String?, to: String?, limit: Int) throws -> String {
        guard (1...Self.rowCap).contains(limit) else { throw Refusal("limit is 1 to \(Self.rowCap), not \(limit)") }
        let start = try from.map { try date($0, "from") }, end = try to.map { try date($0, "to") }
        let all = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType)], anchor: nil).samples
        let originals = WorkoutDuplicates.originals(all)
        var picked: [Sample] = []
        var copies = 0
        for (i, original) in originals.enumerated() {  // nil: an original
            let s = all[i]
            if let start, s.endDate < start { continue }
            if let end, s.startDate >= end { continue }
            if original != nil { copies += 1 } else { picked.append(s) }  // a copy names its original
        }
        picked.sort { $0.startDate > $1.startDate }
        let shown = picked.prefix(limit)
        let rows = shown.compactMap { s -> String? in
            guard case .workout(let w) = s.value else { return nil }
            var o = JSONObject()
            o.add("activity", WorkoutActivityType.names[w.activityType] ?? String(w.activityType))
            o.add("start", time: s.startDate)
            o.add("end", time: s.endDate)
            o.add("durationMinutes", number: w.duration / 60)
            if let d = w.totalDistance { o.add("distanceKilometres", number: d / 1000) }
            if let e = w.totalEnergyBurned { o.add("energyKilocalories", number: e) }
            o.add("source", s.source.name)
            return o.closed
        }
        var o = JSONObject()
        o.add("times", "UTC, ISO 8601")
        o.add("workouts", raw: JSONObject.array(rows))
        o.add("matching", int: picked.count)
        o.add("likelyDuplicatesLeftOut", int: copies)
        if picked.count > shown.count, let last = shown.last {
            o.add("cut", "\(picked.count - shown.count) older workouts not shown: ask again with to=\(TextForms.time(last.startDate))")
        }
        return o.closed
    }

    /// What changed after `anchor` (nil: from the start): counts per type,
    /// the first changes, and the anchor to ask from next.
    package func changes(since anchor: String?, types names: [String]) throws -> String {
        let start: QueryAnchor?
        do {
            start = try anchor.map { try QueryAnchor(base64: $0) }
        } catch {
            throw Refusal("'\(anchor!)' is not an anchor: pass the anchor an earlier answer gave, or none for everything")
        }
        let types = try names.isEmpty ? store.counts().types.map(\.type) : names.map(sampleType)
        guard !types.isEmpty else { return #"{"added":{},"deleted":{},"changes":[],"more":false}"# }
        let page = try store.anchoredQuery(types.map { QueryDescriptor(type: $0) }, anchor: start, limit: Self.rowCap)
        var added: [String: Int] = [:], deleted: [String: Int] = [:]
        var rows: [String] = []
        for s in page.samples {
            added[s.type.identifier, default: 0] += 1
            var o = JSONObject()
            o.add("added", s.type.identifier)
            o.add("uuid", uuid: s.uuid)
            o.add("start", time: s.startDate)
            if case .quantity(let q) = s.value, let c = s.type.canonicalUnit {
                let u = s.type.displayUnit ?? c
                o.add("value", raw: TextForms.number((try? c.convert(q, to: u)) ?? q))
                o.add("unit", u.description)
            }
            rows.append(o.closed)
        }
        for d in page.deletedObjects {
            deleted[d.type.identifier, default: 0] += 1
            var o = JSONObject()
            o.add("deleted", d.type.identifier)
            o.add("uuid", uuid: d.uuid)
            rows.append(o.closed)
        }
        func counts(_ c: [String: Int]) -> JSONObject {
            var o = JSONObject()
            for (k, v) in c.sorted(by: { $0.key < $1.key }) { o.add(k, int: v) }
            return o
        }
        let more = page.samples.count + page.deletedObjects.count >= Self.rowCap
        var o = JSONObject()
        o.add("added", object: counts(added))
        o.add("deleted", object: counts(deleted))
        o.add("changes", raw: JSONObject.array(rows))
        o.add("anchor", page.newAnchor.base64)
        o.add("more", bool: more)
        if more { o.add("cut", "at most \(Self.rowCap) changes an answer: ask again with this anchor for the rest") }
        return o.closed
    }

    // MARK: helpers

    /// `text` as a unit of `type`'s dimension (its canonical unit `canonical`).
    private static func unit(_ text: String, measuring type: SampleType, _ canonical: HealthUnit) throws -> HealthUnit {
        guard let h = try? HealthUnit(text) else { throw Refusal("'\(text)' is not a unit (count/min, kg, km, kcal…)") }
        guard h.isCompatible(with: canonical) else {
            throw Refusal("unit '\(text)' does not measure \(type.identifier), whose unit is \(canonical)")
        }
        return h
    }

    func sampleType(_ name: String) throws -> SampleType {
        do {
            return try store.sampleType(name)
        } catch {
            throw Refusal("unknown type '\(name)': store_summary lists the store's types (StepCount, HeartRate, SleepAnalysis…)")
        }
    }

    private func statsTime(_ zone: String?) throws -> StatsTime {
        do {
            return try StatsTime.make(tz: zone, utcOffset: nil, localTime: false) { .offset(0) }
        } catch let e as StatsTimeError {
            throw Refusal(e.message)
        } catch {
            throw Refusal("'\(zone ?? "")' is not a time zone: a tz database name such as Europe/Paris")
        }
    }

    private static func interval(_ text: String) throws -> StatisticsInterval {
        do { return try StatsTime.interval(text) } catch {
            throw Refusal("interval is hour, day, week, month or year, or N of them (2day), not '\(text)'")
        }
    }

    private func date(_ text: String, _ what: String) throws -> Date {
        guard let d = ISODate.parse(Substring(text)) ?? ISODate.parse(Substring(text + "T00:00:00Z")) else {
            throw Refusal("\(what) '\(text)' is not an ISO 8601 date or date-time (2024-03-01, 2024-03-01T08:00:00Z)")
        }
        return d
    }
}
