import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

/// A workout's, route's or correlation's own fields in C form, as a batch
/// lends them (ohk_batch_workout, ohk_batch_route, ohk_batch_correlation).
enum CPart {
    case workout(ohk_workout)
    case route(ohk_route)
    case correlation(UnsafeBufferPointer<UInt8>)
    case heartbeats(UnsafeBufferPointer<ohk_heartbeat>)
    /// The points, and their clamping ranges point for point.
    case audiogram(UnsafeBufferPointer<ohk_audiogram_point>, UnsafeBufferPointer<ohk_audiogram_clamping>)
    case electrocardiogram(ohk_electrocardiogram)
    case clinicalRecord(ohk_clinical_record)
}

/// The memory behind a batch's `CPart`s: each array is one allocation,
/// kept until the batch is freed.
struct CPartMemory {
    private var allocations: [UnsafeMutableRawPointer] = []
    private var strings = CStringArena()

    /// The C form of `sample`'s own fields; a quantity or category sample
    /// has none (invalid argument).
    mutating func make(_ sample: Sample, index: Int) throws -> CPart {
        switch sample.value {
        case .workout(let w): return .workout(workout(w))
        case .route(let r): return .route(route(r))
        case .correlation(let c):
            let bytes = array(UInt8.self, c.members.count * 16)
            for (k, u) in c.members.enumerated() {
                UnsafeMutableRawPointer(bytes.baseAddress!).storeBytes(of: u.uuid, toByteOffset: 16 * k, as: uuid_t.self)
            }
            return .correlation(UnsafeBufferPointer(bytes))
        case .heartbeats(let h):
            let beats = array(ohk_heartbeat.self, h.beats.count)
            for (k, b) in h.beats.enumerated() {
                beats[k] = ohk_heartbeat(time_since_start: b.timeSinceStart, preceded_by_gap: b.precededByGap)
            }
            return .heartbeats(UnsafeBufferPointer(beats))
        case .audiogram(let a):
            let points = array(ohk_audiogram_point.self, a.points.count)
            let clamping = array(ohk_audiogram_clamping.self, a.points.count)
            for (k, p) in a.points.enumerated() {
                func masked(_ e: Audiogram.Ear?) -> Int8 { e?.masked.map { $0 ? 1 : 0 } ?? -1 }
                points[k] = ohk_audiogram_point(frequency_hz: p.frequency, left_ear_db_hl: p.left?.sensitivity ?? .nan,
                                                right_ear_db_hl: p.right?.sensitivity ?? .nan,
                                                left_ear_masked: masked(p.left), right_ear_masked: masked(p.right))
                let l = p.left?.clampingRange, r = p.right?.clampingRange
                clamping[k] = ohk_audiogram_clamping(
                    left_ear_lower_db_hl: l?.lowerBound ?? .nan, left_ear_upper_db_hl: l?.upperBound ?? .nan,
                    right_ear_lower_db_hl: r?.lowerBound ?? .nan, right_ear_upper_db_hl: r?.upperBound ?? .nan)
            }
            return .audiogram(UnsafeBufferPointer(points), UnsafeBufferPointer(clamping))
        case .electrocardiogram(let e):
            let voltages = array(Double.self, e.voltages.count)
            if !e.voltages.isEmpty { _ = voltages.initialize(from: e.voltages) }
            return .electrocardiogram(ohk_electrocardiogram(
                classification: Int32(e.classification.rawValue), symptoms_status: Int32(e.symptomsStatus.rawValue),
                lead: Int32(e.lead.rawValue), average_heart_rate: e.averageHeartRate ?? .nan,
                sampling_frequency_hz: e.samplingFrequency ?? .nan, voltages: UnsafePointer(voltages.baseAddress),
                voltage_count: UInt64(e.voltages.count)))
        case .clinicalRecord(let c):
            guard let r = c.fhirResource else {  // no resource: its fields NULL
                return .clinicalRecord(ohk_clinical_record(display_name: strings.add(c.displayName), resource_type: nil,
                                                           identifier: nil, fhir_version: nil, source_url: nil, data: nil,
                                                           data_length: 0))
            }
            let data = array(UInt8.self, r.data.count)
            if !r.data.isEmpty { _ = data.initialize(from: r.data) }
            return .clinicalRecord(ohk_clinical_record(
                display_name: strings.add(c.displayName), resource_type: strings.add(r.resourceType),
                identifier: strings.add(r.identifier), fhir_version: strings.add(r.fhirVersion),
                source_url: r.sourceURL.map { strings.add($0) }, data: UnsafePointer(data.baseAddress),
                data_length: UInt64(r.data.count)))
        case .quantity, .category:
            throw Self.noPart(index: index, type: sample.type)
        }
    }

    /// The error for a quantity or category sample, which has no fields of its own.
    static func noPart(index: Int, type: SampleType) -> CError {
        CError(.invalidArgument, "sample \(index) is a \(type.identifier) sample, not a workout, route, "
               + "correlation, heartbeat series, audiogram, electrocardiogram or clinical record")
    }

    func freeAll() {
        for p in allocations { p.deallocate() }
        strings.freeAll()
    }

    private mutating func array<T>(_ type: T.Type, _ count: Int) -> UnsafeMutableBufferPointer<T> {
        guard count > 0 else { return UnsafeMutableBufferPointer(start: nil, count: 0) }
        let b = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
        allocations.append(UnsafeMutableRawPointer(b.baseAddress!))
        return b
    }

    private mutating func workout(_ w: Workout) -> ohk_workout {
        let events = array(ohk_workout_event.self, w.events.count)
        for (k, e) in w.events.enumerated() {
            let m = metadata(e.metadata)
            events[k] = ohk_workout_event(type: Int32(e.type), start: UnixTime.seconds(e.start), end: UnixTime.seconds(e.end),
                                          metadata: UnsafePointer(m.baseAddress), metadata_count: UInt64(m.count))
        }
        let activities = array(ohk_workout_activity.self, w.activities.count)
        for (k, a) in w.activities.enumerated() {
            let m = metadata(a.metadata), s = statistics(a.statistics)
            activities[k] = ohk_workout_activity(uuid: a.uuid.uuid, activity_type: UInt64(a.activityType),
                                                 start: UnixTime.seconds(a.start), end: a.end.map(UnixTime.seconds) ?? .nan,
                                                 duration: a.duration ?? .nan,
                                                 metadata: UnsafePointer(m.baseAddress), metadata_count: UInt64(m.count),
                                                 statistics: UnsafePointer(s.baseAddress), statistics_count: UInt64(s.count))
        }
        let s = statistics(w.statistics)
        return ohk_workout(activity_type: UInt64(w.activityType), duration: w.duration,
                           total_energy_burned: w.totalEnergyBurned ?? .nan, total_distance: w.totalDistance ?? .nan,
                           total_swimming_stroke_count: w.totalSwimmingStrokeCount ?? .nan,
                           total_flights_climbed: w.totalFlightsClimbed ?? .nan,
                           events: UnsafePointer(events.baseAddress), event_count: UInt64(events.count),
                           activities: UnsafePointer(activities.baseAddress), activity_count: UInt64(activities.count),
                           statistics: UnsafePointer(s.baseAddress), statistics_count: UInt64(s.count))
    }

    private mutating func statistics(_ all: [WorkoutStatistics]) -> UnsafeMutableBufferPointer<ohk_workout_statistics> {
        let out = array(ohk_workout_statistics.self, all.count)
        for (k, s) in all.enumerated() {
            out[k] = ohk_workout_statistics(type: Interned.cString(s.type.identifier), start: UnixTime.seconds(s.start),
                                            end: UnixTime.seconds(s.end), sum: s.sum ?? .nan, average: s.average ?? .nan,
                                            minimum: s.minimum ?? .nan, maximum: s.maximum ?? .nan)
        }
        return out
    }

    /// Entries sorted by key, as ohk_batch_metadata gives a sample's.
    private mutating func metadata(_ m: [String: MetadataValue]) -> UnsafeMutableBufferPointer<ohk_metadata_entry> {
        let out = array(ohk_metadata_entry.self, m.count)
        for (k, e) in m.sorted(by: { $0.key < $1.key }).enumerated() {
            out[k] = ohk_metadata_entry(key: strings.add(e.key), value: CValue.make(e.value, strings: &strings))
        }
        return out
    }

    private mutating func route(_ r: WorkoutRoute) -> ohk_route {
        let out = array(ohk_location.self, r.locations.count)
        for (k, l) in r.locations.enumerated() {
            out[k] = ohk_location(timestamp: UnixTime.seconds(l.timestamp), latitude: l.latitude, longitude: l.longitude,
                                  altitude: l.altitude ?? .nan, horizontal_accuracy: l.horizontalAccuracy ?? .nan,
                                  vertical_accuracy: l.verticalAccuracy ?? .nan, course: l.course ?? .nan,
                                  speed: l.speed ?? .nan)
        }
        var c = ohk_route(locations: UnsafePointer(out.baseAddress), location_count: UInt64(out.count),
                          has_workout: r.workout != nil, workout: ohk_route().workout)
        if let w = r.workout { c.workout = w.uuid }
        return c
    }
}

/// C workouts and locations → the core's, refusing what C can get wrong
/// (NULL arrays with a count, bad UTF-8, unknown types); the core's own
/// checks (rules 31 and 32) come when the sample is made.
enum CWorkoutInput {
    static func workout(_ c: ohk_workout, _ what: String) throws -> Workout {
        var events: [WorkoutEvent] = []
        for (k, e) in try buffer(c.events, c.event_count, "\(what).events").enumerated() {
            let at = "\(what).events[\(k)]"
            events.append(WorkoutEvent(type: Int(e.type), start: try UnixTime.date(e.start, "\(at).start"),
                                       end: try UnixTime.date(e.end, "\(at).end"),
                                       metadata: try CMetadata.read(e.metadata, e.metadata_count, "\(at).metadata")))
        }
        var activities: [WorkoutActivity] = []
        for (k, a) in try buffer(c.activities, c.activity_count, "\(what).activities").enumerated() {
            let at = "\(what).activities[\(k)]"
            activities.append(WorkoutActivity(
                uuid: UUIDBytes.isZero(a.uuid) ? RandomUUID.make() : UUID(uuid: a.uuid), activityType: try activityType(a.activity_type, at),
                start: try UnixTime.date(a.start, "\(at).start"),
                end: a.end.isNaN ? nil : try UnixTime.date(a.end, "\(at).end"),
                duration: a.duration.isNaN ? nil : a.duration,
                metadata: try CMetadata.read(a.metadata, a.metadata_count, "\(at).metadata"),
                statistics: try statistics(a.statistics, a.statistics_count, "\(at).statistics")))
        }
        return Workout(activityType: try activityType(c.activity_type, what), duration: c.duration,
                       totalEnergyBurned: optional(c.total_energy_burned),
                       totalDistance: optional(c.total_distance),
                       totalSwimmingStrokeCount: optional(c.total_swimming_stroke_count),
                       totalFlightsClimbed: optional(c.total_flights_climbed),
                       events: events, activities: activities,
                       statistics: try statistics(c.statistics, c.statistics_count, "\(what).statistics"))
    }

    /// `count` locations; NaN optionals become absent ones.
    static func locations(_ p: UnsafePointer<ohk_location>?, _ count: UInt64, _ what: String) throws -> [RouteLocation] {
        try buffer(p, count, what).enumerated().map { k, l in
            RouteLocation(timestamp: try UnixTime.date(l.timestamp, "\(what)[\(k)].timestamp"),
                          latitude: l.latitude, longitude: l.longitude, altitude: optional(l.altitude),
                          horizontalAccuracy: optional(l.horizontal_accuracy), verticalAccuracy: optional(l.vertical_accuracy),
                          course: optional(l.course), speed: optional(l.speed))
        }
    }

    private static func statistics(_ p: UnsafePointer<ohk_workout_statistics>?, _ count: UInt64,
                                   _ what: String) throws -> [WorkoutStatistics] {
        try buffer(p, count, what).enumerated().map { k, s in
            WorkoutStatistics(type: try sampleType(s.type, nil, "\(what)[\(k)].type"),
                              start: try UnixTime.date(s.start, "\(what)[\(k)].start"),
                              end: try UnixTime.date(s.end, "\(what)[\(k)].end"),
                              sum: optional(s.sum), average: optional(s.average),
                              minimum: optional(s.minimum), maximum: optional(s.maximum))
        }
    }

    private static func activityType(_ raw: UInt64, _ what: String) throws -> UInt {
        guard let t = UInt(exactly: raw), WorkoutActivityType.names[t] != nil else {
            throw CError(.invalidValue, "\(what).activity_type \(raw) is not an HKWorkoutActivityType")
        }
        return t
    }

    private static func optional(_ x: Double) -> Double? { x.isNaN ? nil : x }
}

/// C metadata entries → the core's dictionary; a key given twice is refused.
enum CMetadata {
    static func read(_ p: UnsafePointer<ohk_metadata_entry>?, _ count: UInt64,
                     _ what: @autoclosure () -> String) throws -> [String: MetadataValue] {
        var metadata: [String: MetadataValue] = [:]
        for (k, e) in try buffer(p, count, what()).enumerated() {
            let key = try string(e.key, "\(what())[\(k)].key")
            guard metadata.updateValue(try CValue.metadataValue(e.value, "\(what())[\(k)].value"), forKey: key) == nil else {
                throw CError(.invalidMetadata, "\(what()): metadata key '\(key)' appears twice")
            }
        }
        return metadata
    }
}
