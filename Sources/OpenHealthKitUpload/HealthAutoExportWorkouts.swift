import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitImport
import OpenHealthKitJSON

/// Health Auto Export's workouts (its "Version 2" workout format, rule 67):
/// each becomes a workout sample, and its `route` a route sample of that
/// workout.
///
/// - The app's `id` names the workout for good; its sample's UUID comes
///   from the id and the content, and its sync identifier from the id, so
///   that a workout sent again unchanged adds nothing and one sent again
///   with more (the energy or the route finished later) replaces it
///   (rule 14). The route likewise, named by the id and its workout.
/// - `name` is HealthKit's activity type as the app shows it (`Running`,
///   `Traditional Strength Training`, `Outdoor Walk`); a name it cannot
///   place is saved as `Other`, the name kept in metadata.
/// - Totals (`activeEnergyBurned`, `distance`, `flightsClimbed`,
///   `totalSwimmingStrokeCount`) are converted from the app's units; the
///   heart-rate summary becomes the workout's HeartRate statistics; indoor
///   or outdoor, pool or open water, elevation, temperature and METs become
///   HealthKit's metadata keys.
/// - The per-minute series (`heartRateData`, `stepCount`, …) repeat what
///   the app sends as metrics: counted in `unmapped`, not saved twice.
extension HealthAutoExport {
    struct Quantity: Decodable {
        var qty: Double
        var units: String?
    }

    struct WorkoutPayload: Decodable {
        struct HeartRate: Decodable { var min: Quantity?, avg: Quantity?, max: Quantity? }
        struct Location: Decodable {
            var latitude: Double
            var longitude: Double
            var altitude: Double?
            var course: Double?
            var horizontalAccuracy: Double?
            var verticalAccuracy: Double?
            var speed: Double?
            var timestamp: String
        }

        var id: String
        var name: String
        var start: String
        var end: String
        var duration: Double?
        var location: String?
        var isIndoor: Bool?
        var activeEnergyBurned: Quantity?
        var distance: Quantity?
        var flightsClimbed: Quantity?
        var totalSwimmingStrokeCount: Quantity?
        var intensity: Quantity?
        var elevationUp: Quantity?
        var temperature: Quantity?
        var heartRate: HeartRate?
        var avgHeartRate: Quantity?
        var maxHeartRate: Quantity?
        var route: [Location]?
    }

    /// A workout as the app sent it, and the names of the per-minute
    /// series it carries with "Include Workout Metrics" (counted, not saved).
    struct WorkoutEntry: Decodable {
        var workout: WorkoutPayload
        var series: [String]

        static let seriesNames = ["heartRateData", "heartRateRecovery", "activeEnergy", "basalEnergy", "stepCount",
                                  "walkingAndRunningDistance", "cyclingCadence", "cyclingDistance", "cyclingPower",
                                  "cyclingSpeed", "swimDistance", "swimStroke"]

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            workout = try WorkoutPayload(from: decoder)
            let keys = try decoder.container(keyedBy: AnyKey.self)
            series = Self.seriesNames.filter { keys.contains(AnyKey(stringValue: $0)) }
        }
    }

    /// The app's names that are not HealthKit's with the spaces taken out.
    static let activityNames: [String: String] = [
        "Run": "Running", "Walk": "Walking", "Swim": "Swimming", "Hike": "Hiking", "Cycle": "Cycling",
        "Cycling": "Cycling", "Rower": "Rowing", "Stair Stepper": "StairClimbing", "HIIT": "HighIntensityIntervalTraining",
        "Wheelchair Walk": "WheelchairWalkPace", "Wheelchair Run": "WheelchairRunPace",
    ]

    /// HealthKit's activity type of the app's workout name; nil when it has none.
    static func activityType(_ name: String) -> UInt? {
        var base = Substring(name)
        for prefix in ["Outdoor ", "Indoor ", "Pool ", "Open Water "] where base.hasPrefix(prefix) {
            base = base.dropFirst(prefix.count)
        }
        let spelled = activityNames[String(base)] ?? String(base)
        return WorkoutActivityType.number(spelled.split(separator: " ").joined())
    }

    /// `q` in `canonical`, from the app's unit (`bpm`, `kmph` as HealthKit
    /// spells them); nil when absent. A figure that is not a finite number
    /// of that dimension is counted in `unmapped` under `field`.
    private static func value(_ q: Quantity?, in canonical: HealthUnit, default unit: String, _ field: String,
                              _ out: inout Mapped) -> Double? {
        guard let q else { return nil }
        let text = q.units.map { HealthAutoExportNames.units[$0] ?? $0 } ?? unit
        guard q.qty.isFinite, let u = try? HealthUnit(text), u.isCompatible(with: canonical),
              let v = try? u.convert(q.qty, to: canonical) else {
            out.unmapped["workouts.\(field) (unit \(q.units ?? unit))", default: 0] += 1
            return nil
        }
        return v
    }

    static func workouts(_ list: [WorkoutEntry], _ grant: Grant, _ hasher: ContentUUID, _ version: MetadataValue,
                         _ out: inout Mapped) throws(APIError) {
        let workoutType = TypeCatalogue.workoutType, routeType = TypeCatalogue.routeType
        for (i, entry) in list.enumerated() {
            let w = entry.workout, path = "data.workouts[\(i)]"
            out.points += 1
            guard grant.write.contains(workoutType.identifier) else {
                throw APIError(.forbidden, "this token may not write \(workoutType.identifier)", field: path)
            }
            let start = try date(w.start, path + ".start"), end = try date(w.end, path + ".end")
            var metadata: [String: MetadataValue] = [:]
            let type = activityType(w.name)
            if type == nil { metadata["HealthAutoExportName"] = .string(w.name) }
            if let indoor = w.isIndoor ?? w.location.map({ $0 == "Indoor" || $0 == "Pool" }) {
                metadata["HKIndoorWorkout"] = .bool(indoor)
            }
            if w.location == "Pool" { metadata["HKSwimmingLocationType"] = .number(1) }
            if w.location == "Open Water" { metadata["HKSwimmingLocationType"] = .number(2) }
            // Quantities in metadata are text with their unit, as exports write them.
            if let cm = value(w.elevationUp, in: try! HealthUnit("cm"), default: "m", "elevationUp", &out) {
                metadata["HKElevationAscended"] = .string("\(TextForms.exactNumber(cm)) cm")
            }
            if let t = w.temperature, t.qty.isFinite, let u = t.units {
                metadata["HKWeatherTemperature"] = .string("\(TextForms.exactNumber(t.qty)) \(u)")
            }
            if let m = w.intensity, m.qty.isFinite { metadata["HKAverageMETs"] = .string("\(TextForms.exactNumber(m.qty)) kcal/hr·kg") }
            let heart = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")
            let perSecond = heart.canonicalUnit!
            let average = value(w.heartRate?.avg ?? w.avgHeartRate, in: perSecond, default: "count/min", "heartRate", &out)
            let maximum = value(w.heartRate?.max ?? w.maxHeartRate, in: perSecond, default: "count/min", "heartRate", &out)
            let minimum = value(w.heartRate?.min, in: perSecond, default: "count/min", "heartRate", &out)
            let statistics = [average, maximum, minimum].allSatisfy({ $0 == nil }) ? [] :
                [WorkoutStatistics(type: heart, start: start, end: end, average: average, minimum: minimum, maximum: maximum)]
            let count = try! HealthUnit("count")
            let energy = value(w.activeEnergyBurned, in: try! HealthUnit("kcal"), default: "kcal", "activeEnergyBurned", &out)
            let distance = value(w.distance, in: try! HealthUnit("m"), default: "km", "distance", &out)
            let strokes = value(w.totalSwimmingStrokeCount, in: count, default: "count", "totalSwimmingStrokeCount", &out)
            let flights = value(w.flightsClimbed, in: count, default: "count", "flightsClimbed", &out)
            let workout = Workout(activityType: type ?? 3000, duration: w.duration ?? end.timeIntervalSince(start),
                                  totalEnergyBurned: energy, totalDistance: distance, totalSwimmingStrokeCount: strokes,
                                  totalFlightsClimbed: flights, statistics: statistics)
            let source = Source(bundleIdentifier: grant.app, name: grant.app)
            let saved: Sample
            do {
                saved = try named("workout/" + w.id, hasher, version, start, metadata) { uuid, metadata in
                    try Sample.workout(workout, start: start, end: end, source: source, metadata: metadata, uuid: uuid)
                }
            } catch {
                throw APIError(error, field: path)
            }
            out.samples.append(saved)
            for name in entry.series { out.unmapped["workouts.\(name) (sent as metrics too)", default: 0] += 1 }
            guard let points = w.route, !points.isEmpty else { continue }
            guard grant.write.contains(routeType.identifier) else {
                throw APIError(.forbidden, "this token may not write \(routeType.identifier)", field: path + ".route")
            }
            var locations: [RouteLocation] = []
            for (p, l) in points.enumerated() {
                let at = "\(path).route[\(p)]"
                // CoreLocation marks an unknown accuracy, course or speed negative.
                func known(_ x: Double?) -> Double? { x.flatMap { $0 >= 0 ? $0 : nil } }
                locations.append(RouteLocation(timestamp: try date(l.timestamp, at + ".timestamp"), latitude: l.latitude,
                                               longitude: l.longitude, altitude: l.altitude,
                                               horizontalAccuracy: known(l.horizontalAccuracy),
                                               verticalAccuracy: known(l.verticalAccuracy), course: known(l.course),
                                               speed: known(l.speed)))
            }
            let route = WorkoutRoute(workout: saved.uuid, locations: locations)
            do {
                let (first, last) = (route.locations.first!.timestamp, route.locations.last!.timestamp)
                out.samples.append(try named("route/" + w.id, hasher, version, first, [:]) { uuid, metadata in
                    try Sample.route(route, start: first, end: last, source: source, metadata: metadata, uuid: uuid)
                })
            } catch {
                throw APIError(error, field: path + ".route")
            }
        }
    }

    /// A sample named by `key` (the app's id) and its content: its UUID
    /// derives from both, its sync identifier from the key alone, with
    /// `version` (when it arrived) as the sync version.
    private static func named(_ key: String, _ hasher: ContentUUID, _ version: MetadataValue, _ start: Date,
                              _ base: [String: MetadataValue],
                              _ make: (UUID, [String: MetadataValue]) throws -> Sample) throws -> Sample {
        var metadata = base
        // The content, without a UUID or a version: the same whenever sent.
        let content = JSONObject.sample(try make(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), metadata)).closed
        metadata[MetadataKey.syncIdentifier] = .string("hae:" + key)
        metadata[MetadataKey.syncVersion] = version
        return try make(hasher.uuid(of: Array((key + "/" + content).utf8), start: start.timeIntervalSince1970), metadata)
    }
}
