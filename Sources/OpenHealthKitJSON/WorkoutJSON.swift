import FoundationEssentials
import OpenHealthKitCore

/// A workout's own fields in `ohk`'s JSON (numbers exact: they read
/// back equal when uploaded to `ohk serve` or a replica): the activity type by
/// HealthKit's name and number, the duration in seconds, totals in their
/// canonical units (kcal, m, counts), events, activities and statistics.
extension JSONObject {
    package static func workout(_ w: Workout) -> JSONObject {
        var o = JSONObject()
        o.add("activityType", WorkoutActivityType.names[w.activityType])
        o.add("activityTypeNumber", int: Int(clamping: w.activityType))
        o.add("duration", exact: w.duration)
        if let v = w.totalEnergyBurned { o.add("totalEnergyBurnedKcal", exact: v) }
        if let v = w.totalDistance { o.add("totalDistanceM", exact: v) }
        if let v = w.totalSwimmingStrokeCount { o.add("totalSwimmingStrokeCount", exact: v) }
        if let v = w.totalFlightsClimbed { o.add("totalFlightsClimbed", exact: v) }
        if !w.events.isEmpty { o.add("events", raw: array(w.events.map { event($0).closed })) }
        if !w.activities.isEmpty { o.add("activities", raw: array(w.activities.map { activity($0).closed })) }
        if !w.statistics.isEmpty { o.add("statistics", raw: array(w.statistics.map { statistics($0).closed })) }
        return o
    }

    /// A route: its workout, then its locations, each
    /// `[unix seconds, latitude, longitude, altitude, horizontal accuracy,
    /// vertical accuracy, course, speed]` (null where unknown), compact
    /// because routes hold thousands.
    package static func route(_ r: WorkoutRoute) -> JSONObject {
        var o = JSONObject()
        o.add("workout", r.workout?.uuidString)
        let points = r.locations.map { l in
            let fields = [l.timestamp.timeIntervalSince1970, l.latitude, l.longitude] + l.optionals
            return "[" + fields.map { $0.map(TextForms.exactNumber) ?? "null" }.joined(separator: ",") + "]"
        }
        o.add("locations", raw: array(points))
        return o
    }

    private static let eventNames = Dictionary(uniqueKeysWithValues: WorkoutEvent.typesByName.map { ($1, $0) })

    private static func event(_ e: WorkoutEvent) -> JSONObject {
        var o = JSONObject()
        o.add("type", eventNames[e.type] ?? String(e.type))
        o.add("start", TextForms.time(e.start))
        o.add("end", TextForms.time(e.end))
        if !e.metadata.isEmpty { o.add("metadata", object: metadata(e.metadata)) }
        return o
    }

    private static func activity(_ a: WorkoutActivity) -> JSONObject {
        var o = JSONObject()
        o.add("uuid", a.uuid.uuidString)
        o.add("activityType", WorkoutActivityType.names[a.activityType])
        o.add("start", TextForms.time(a.start))
        if let end = a.end { o.add("end", TextForms.time(end)) }
        if let d = a.duration { o.add("duration", exact: d) }
        if !a.statistics.isEmpty { o.add("statistics", raw: array(a.statistics.map { statistics($0).closed })) }
        if !a.metadata.isEmpty { o.add("metadata", object: metadata(a.metadata)) }
        return o
    }

    private static func statistics(_ s: WorkoutStatistics) -> JSONObject {
        var o = JSONObject()
        o.add("type", s.type.identifier)
        o.add("start", TextForms.time(s.start))
        o.add("end", TextForms.time(s.end))
        if let v = s.sum { o.add("sum", exact: v) }
        if let v = s.average { o.add("average", exact: v) }
        if let v = s.minimum { o.add("minimum", exact: v) }
        if let v = s.maximum { o.add("maximum", exact: v) }
        o.add("unit", s.type.canonicalUnitText)
        return o
    }
}
