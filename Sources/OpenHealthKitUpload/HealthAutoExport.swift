import CCrypto
import FoundationEssentials
import OpenHealthKitCore

/// The Health Auto Export app's REST payload (`POST …/health-auto-export`;
/// docs/semantics.md, rule 67): `{"data": {"metrics": [{"name", "units",
/// "data": [points]}], "workouts": [...]}}`, each point a sample.
///
/// - Each point has a date, no end and no UUID: it becomes a sample at that
///   instant, with a UUID derived from its content (metric, source, date,
///   values), so that a re-sent or overlapping window adds nothing.
/// - It also gets a sync identifier of its metric, source and date, and a
///   version of when it was received: a point the app sends again with
///   another value (a bucket that grew) replaces the one stored (rule 14).
/// - Its `%` is a percentage (97), HealthKit's a fraction (0.97): divided
///   by 100. Other units are HealthKit's own strings, as the app writes
///   them (`count/min`, `kJ`, `mi`, `degF`).
/// - Metrics, shapes and workouts it cannot map are counted by name in the
///   answer, never dropped silently.
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
            var workouts: [Ignored]?
        }
        var data: Body
    }

    struct Metric: Decodable {
        var name: String
        var units: String?
        var data: [Point]
    }

    /// Anything, counted only (workouts, for now).
    struct Ignored: Decodable {
        init(from decoder: any Decoder) throws {}
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
    public static func map(_ bytes: [UInt8], grant: Grant, store: Store, receivedAt: Date) throws(APIError) -> Mapped {
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(bytes))
        } catch let e as DecodingError {
            throw UploadDecoding.describe(e)
        } catch {
            throw APIError(.badRequest, "the body is not JSON: \(error)")
        }
        var out = Mapped()
        let version = MetadataValue.number((receivedAt.timeIntervalSince1970 * 1000).rounded())
        for (m, metric) in (payload.data.metrics ?? []).enumerated() {
            let path = "data.metrics[\(m)]"
            out.points += metric.data.count
            if metric.name == "sleep_analysis" {
                try sleep(metric, path, grant, store, version, &out)
                continue
            }
            guard let suffix = HealthAutoExportNames.quantities[metric.name] else {
                out.unmapped[metric.name, default: 0] += metric.data.count
                continue
            }
            let unitText = metric.units.map { HealthAutoExportNames.units[$0] ?? $0 } ?? ""
            for (p, point) in metric.data.enumerated() {
                try quantities(metric.name, suffix, unitText, point, "\(path).data[\(p)]", grant, store, version, &out)
            }
        }
        if let w = payload.data.workouts, !w.isEmpty { out.unmapped["workouts (not mapped yet)", default: 0] += w.count }
        return out
    }

    private static func quantities(_ name: String, _ suffix: String, _ unitText: String, _ point: Point, _ path: String,
                                   _ grant: Grant, _ store: Store, _ version: MetadataValue, _ out: inout Mapped) throws(APIError) {
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
                                                       uuid: uuid(key + "/\(value)/\(unit)", date)))
            } catch {
                throw APIError(error, field: path)
            }
        }
    }

    /// Unaggregated sleep (a point a stage, with its start and end) maps to
    /// SleepAnalysis samples; a night's aggregated totals cannot be placed
    /// in time, and are counted as unmapped.
    private static func sleep(_ metric: Metric, _ path: String, _ grant: Grant, _ store: Store, _ version: MetadataValue,
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
                                                       uuid: uuid(key + "/\(name)/\(end.timeIntervalSince1970)", start)))
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

    /// A version-8 UUID: 48 bits of the start in milliseconds (as version 7,
    /// so that a window's samples sit together in the UUID index), the rest
    /// from SHA-256 of a namespace of this payload and the point's content.
    static func uuid(_ content: String, _ start: Date) -> UUID {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let bytes = Array("org.openhealthkit.health-auto-export\n".utf8) + Array(content.utf8)
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        let ms = UInt64(max(0, min(start.timeIntervalSince1970 * 1000, Double(1 << 48 - 1))))
        for i in 0..<6 { digest[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        digest[6] = (digest[6] & 0x0f) | 0x80  // version 8
        digest[8] = (digest[8] & 0x3f) | 0x80  // RFC variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
