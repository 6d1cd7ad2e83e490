import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitImport

/// The Health Auto Export app's REST payload (`POST …/health-auto-export`;
/// docs/semantics.md, rule 67): `{"data": {"metrics": [{"name", "units",
/// "data": [points]}], "workouts": [...]}}`, each point a sample.
///
/// - Each point has a date, no end and no UUID: it becomes a sample at that
///   instant, with a UUID derived from its content (metric, source, date,
///   values; the importer's `ContentUUID` in a namespace of this app's),
///   so that a re-sent or overlapping window adds nothing.
/// - It also gets a sync identifier of its metric, source and date, and a
///   version of when it was received: a point the app sends again with
///   another value (a bucket that grew) replaces the one stored (rule 14).
/// - Its `%` is a percentage (97), HealthKit's a fraction (0.97): divided
///   by 100. Other units are HealthKit's own strings, as the app writes
///   them (`count/min`, `kJ`, `mi`, `degF`).
/// - Workouts, with their routes, are read in HealthAutoExportWorkouts.swift.
/// - Metrics and shapes it cannot map are counted by name in the answer,
///   never dropped silently.
public enum HealthAutoExport {
    public struct Mapped {
        public var samples: [Sample] = []
        /// Points not saved, by metric name (with the reason in parentheses).
        public var unmapped: [String: Int] = [:]
        public var points = 0
    }

    struct Payload: Decodable {
        struct Body: Decodable {
            var metrics: [Metric]?
            var workouts: [WorkoutEntry]?
        }
        var data: Body
    }

    struct Metric: Decodable {
        var name: String
        var units: String?
        var data: [Point]
    }

    struct Point: Decodable {
        var date: String?
        var qty: Double?
        var source: String?
        var Min: Double?
        var Avg: Double?
        var Max: Double?
        var systolic: Double?
        var diastolic: Double?
        var startDate: String?
        var endDate: String?
        var value: Text?
        var mealTime: String?
        var reason: String?
        var sleepStart: String?
    }

    /// A string the app may also send as a number.
    struct Text: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { text = s } else { text = String(try c.decode(Double.self)) }
        }
    }

    /// The payload's samples for `grant`, saved as its app's.
    public static func map(_ bytes: [UInt8], grant: Grant, receivedAt: Date) throws(APIError) -> Mapped {
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(bytes))
        } catch let e as DecodingError {
            throw UploadDecoding.describe(e)
        } catch {
            throw APIError(.badRequest, "the body is not JSON: \(error)")
        }
        var out = Mapped()
        let hasher = ContentUUID(namespace: namespace)
        let version = MetadataValue.number((receivedAt.timeIntervalSince1970 * 1000).rounded())
        for (m, metric) in (payload.data.metrics ?? []).enumerated() {
            let path = "data.metrics[\(m)]"
            out.points += metric.data.count
            if metric.name == "sleep_analysis" {
                try sleep(metric, path, grant, hasher, version, &out)
                continue
            }
            guard let suffix = HealthAutoExportNames.quantities[metric.name] else {
                out.unmapped[metric.name, default: 0] += metric.data.count
                continue
            }
            let unitText = metric.units.map { HealthAutoExportNames.units[$0] ?? $0 } ?? ""
            for (p, point) in metric.data.enumerated() {
                try quantities(metric.name, suffix, unitText, point, "\(path).data[\(p)]", grant, hasher, version, &out)
            }
        }
        try workouts(payload.data.workouts ?? [], grant, hasher, version, &out)
        return out
    }

    private static func quantities(_ name: String, _ suffix: String, _ unitText: String, _ point: Point, _ path: String,
                                   _ grant: Grant, _ hasher: ContentUUID, _ version: MetadataValue, _ out: inout Mapped) throws(APIError) {
        guard let dateText = point.date else { throw APIError(.badRequest, "a point needs its date", field: path + ".date") }
        let date = try self.date(dateText, path + ".date")
        // (type suffix, value, unit, metadata) of each sample the point makes.
        var made: [(String, Double, String, [String: MetadataValue])] = []
        switch name {
        case "blood_pressure":
            guard let s = point.systolic, let d = point.diastolic else {
                throw APIError(.badRequest, "a blood pressure point needs systolic and diastolic", field: path)
            }
            made = [("BloodPressureSystolic", s, "mmHg", [:]), ("BloodPressureDiastolic", d, "mmHg", [:])]
        case "heart_rate":
            guard let avg = point.Avg ?? point.qty else {
                throw APIError(.badRequest, "a heart rate point needs Avg (or qty)", field: path + ".Avg")
            }
            var meta: [String: MetadataValue] = [:]
            if let lo = point.Min, lo != avg { meta["HealthAutoExportMinimum"] = .number(lo) }
            if let hi = point.Max, hi != avg { meta["HealthAutoExportMaximum"] = .number(hi) }
            made = [(suffix, avg, unitText, meta)]
        default:
            guard let q = point.qty else { throw APIError(.badRequest, "a point needs its qty", field: path + ".qty") }
            var meta: [String: MetadataValue] = [:]
            if name == "blood_glucose", let t = point.mealTime {
                if t == "Before Meal" { meta["HKBloodGlucoseMealTime"] = .number(1) }
                if t == "After Meal" { meta["HKBloodGlucoseMealTime"] = .number(2) }
            }
            if name == "insulin_delivery", let r = point.reason {
                meta["HKInsulinDeliveryReason"] = .number(r == "Basal" ? 1 : 2)
            }
            made = [(suffix, q, unitText, meta)]
        }
        for (suffix, raw, unitText, meta) in made {
            // The table names catalogue types only (HealthAutoExportNames).
            let type = try! SampleType.named("HKQuantityTypeIdentifier" + suffix)
            guard grant.write.contains(type.identifier) else {
                throw APIError(.forbidden, "this token may not write \(type.identifier)", field: path)
            }
            // The app's % is 0-100; HealthKit's percent unit is a fraction.
            let value = unitText == "%" ? raw / 100 : raw
            let unit: HealthUnit
            do { unit = try HealthUnit(unitText) } catch {
                out.unmapped["\(name) (unit \(unitText))", default: 0] += 1
                continue
            }
            let key = "\(name)/\(suffix)/\(point.source ?? "")/\(Int64((date.timeIntervalSince1970 * 1000).rounded()))"
            var metadata = meta
            metadata[MetadataKey.syncIdentifier] = .string("hae:" + key)
            metadata[MetadataKey.syncVersion] = version
            do {
                out.samples.append(try Sample.quantity(type, value: value, unit: unit, start: date, end: date,
                                                       source: source(grant, point.source), metadata: metadata,
                                                       uuid: hasher.uuid(of: Array((key + "/\(value)/\(unit)").utf8),
                                                                                   start: date.timeIntervalSince1970)))
            } catch {
                throw APIError(error, field: path)
            }
        }
    }

    /// Unaggregated sleep (a point a stage, with its start and end) maps to
    /// SleepAnalysis samples; a night's aggregated totals cannot be placed
    /// in time, and are counted as unmapped.
    private static func sleep(_ metric: Metric, _ path: String, _ grant: Grant, _ hasher: ContentUUID, _ version: MetadataValue,
                              _ out: inout Mapped) throws(APIError) {
        let type = try! SampleType.named("HKCategoryTypeIdentifierSleepAnalysis")
        for (p, point) in metric.data.enumerated() {
            let at = "\(path).data[\(p)]"
            guard let startText = point.startDate, let endText = point.endDate, let stage = point.value?.text else {
                out.unmapped["sleep_analysis (aggregated: turn off Summarize Data for sleep)", default: 0] += 1
                continue
            }
            guard grant.write.contains(type.identifier) else {
                throw APIError(.forbidden, "this token may not write \(type.identifier)", field: at)
            }
            guard let name = HealthAutoExportNames.sleepStages[stage], let value = type.categoryValue(named: name) else {
                out.unmapped["sleep_analysis (stage \(stage))", default: 0] += 1
                continue
            }
            let start = try date(startText, at + ".startDate"), end = try date(endText, at + ".endDate")
            let key = "sleep_analysis/\(point.source ?? "")/\(Int64((start.timeIntervalSince1970 * 1000).rounded()))"
            do {
                out.samples.append(try Sample.category(type, value: value, start: start, end: end, source: source(grant, point.source),
                                                       metadata: [MetadataKey.syncIdentifier: .string("hae:" + key + "/\(name)"),
                                                                  MetadataKey.syncVersion: version],
                                                       uuid: hasher.uuid(of: Array((key + "/\(name)/\(end.timeIntervalSince1970)").utf8),
                                                                         start: start.timeIntervalSince1970)))
            } catch {
                throw APIError(error, field: at)
            }
        }
    }

    /// The token's app as the source; the app's own source names (devices,
    /// joined by `|`) as its name.
    private static func source(_ grant: Grant, _ name: String?) -> Source {
        Source(bundleIdentifier: grant.app, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? grant.app)
    }

    /// `2024-03-01 08:00:00 +0100`, also with a 12-hour clock
    /// (`2024-03-01 8:00:00 AM +0100`, the AM sometimes after a narrow
    /// no-break space), as the app writes dates; a day alone is midnight UTC.
    static func date(_ text: String, _ field: String) throws(APIError) -> Date {
        let parts = text.replacing("\u{202F}", with: " ").split(separator: " ")
        func fail() -> APIError {
            APIError(.badRequest, "'\(text)' is not a date as the app writes them (2024-03-01 08:00:00 +0100)", field: field)
        }
        guard parts.count >= 3, let offset = parts.last, offset.count == 5 else {
            if parts.count == 1, let d = ISODate.parse(parts[0]) { return d }
            throw fail()
        }
        var clock = parts[1].split(separator: ":").map(String.init)
        guard clock.count == 3, var hour = Int(clock[0]) else { throw fail() }
        if parts.count == 4 {
            let half = parts[2].uppercased()
            guard half == "AM" || half == "PM", (1...12).contains(hour) else { throw fail() }
            hour = hour % 12 + (half == "PM" ? 12 : 0)
        } else if parts.count != 3 {
            throw fail()
        }
        clock[0] = hour < 10 ? "0\(hour)" : "\(hour)"
        let iso = "\(parts[0])T\(clock.joined(separator: ":"))\(offset.prefix(3)):\(offset.suffix(2))"
        guard let d = ISODate.parse(Substring(iso)) else { throw fail() }
        return d
    }

    /// The namespace of Health Auto Export points (a fixed random UUID).
    static let namespace: [UInt8] = [0x3b, 0x91, 0x5c, 0x07, 0xe2, 0x4f, 0x4a, 0x61,
                                     0xa8, 0x33, 0x7d, 0x10, 0xc6, 0x9e, 0x52, 0xf4]
}
