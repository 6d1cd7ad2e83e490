import FoundationEssentials
import OpenHealthKitCore

/// Samples of the kinds beyond quantity and category, from the fields
/// `ohk changes` prints for them (UploadedKinds.swift). Each problem is a
/// 400 naming its field (`samples[2].workout.events[0].type`); what the
/// store refuses of a value (rules 31 to 33 and 39 to 42) is named by the
/// store's own message.
extension UploadDecoding {
    static func kindSample(_ u: UploadedSample, _ type: SampleType, _ e: Envelope, at path: String,
                           store: Store) throws -> Sample {
        func missing(_ field: String, _ what: String) -> APIError {
            APIError(.badRequest, "a \(TypeCatalogue.shortName(type)) sample needs its \(field) (\(what))", field: path + "." + field)
        }
        switch type.kind {
        case .workout:
            guard let w = u.workout else { throw missing("workout", "an object with activityType and duration") }
            return try Sample.workout(try workout(w, at: path + ".workout", store: store), start: e.start, end: e.end,
                                      source: e.source, device: e.device, metadata: e.metadata, uuid: e.uuid,
                                      creationDate: e.creationDate, utcOffset: e.utcOffset)
        case .route:
            guard let r = u.route else { throw missing("route", "an object with locations") }
            return try Sample.route(try route(r, at: path + ".route"), start: e.start, end: e.end, source: e.source,
                                    device: e.device, metadata: e.metadata, uuid: e.uuid, creationDate: e.creationDate,
                                    utcOffset: e.utcOffset)
        case .correlation:
            guard let texts = u.members else { throw missing("members", "a list of the members' UUIDs") }
            var members: [UUID] = []
            for (i, text) in texts.enumerated() {
                guard let m = UploadDecoding.uuid(text) else {
                    throw APIError(.badRequest, "'\(text)' is not a UUID", field: path + ".members[\(i)]")
                }
                members.append(m)
            }
            return try Sample.correlation(type, members: members, start: e.start, end: e.end, source: e.source,
                                          device: e.device, metadata: e.metadata, uuid: e.uuid,
                                          creationDate: e.creationDate, utcOffset: e.utcOffset)
        case .heartbeatSeries:
            guard let beats = u.beats else { throw missing("beats", "a list of [seconds since the start, preceded by a gap]") }
            let series = HeartbeatSeries(beats: beats.map { .init(timeSinceStart: $0.timeSinceStart, precededByGap: $0.precededByGap) })
            return try Sample.heartbeatSeries(series, start: e.start, end: e.end, source: e.source, device: e.device,
                                              metadata: e.metadata, uuid: e.uuid, creationDate: e.creationDate,
                                              utcOffset: e.utcOffset)
        case .audiogram:
            guard let points = u.sensitivityPoints else { throw missing("sensitivityPoints", "a list of points with frequencyHz") }
            return try Sample.audiogram(Audiogram(points: points.map(point)), start: e.start, end: e.end, source: e.source,
                                        device: e.device, metadata: e.metadata, uuid: e.uuid,
                                        creationDate: e.creationDate, utcOffset: e.utcOffset)
        case .electrocardiogram:
            guard let ecg = u.electrocardiogram else { throw missing("electrocardiogram", "an object with its voltages") }
            return try Sample.electrocardiogram(try electrocardiogram(ecg, at: path + ".electrocardiogram"),
                                                start: e.start, end: e.end, source: e.source, device: e.device,
                                                metadata: e.metadata, uuid: e.uuid, creationDate: e.creationDate,
                                                utcOffset: e.utcOffset)
        case .clinicalRecord:
            guard let c = u.clinicalRecord else { throw missing("clinicalRecord", "an object with its FHIR resource's data") }
            var resource: ClinicalRecord.FHIRResource?
            if c.resourceType != nil || c.data != nil {  // else a record without a resource
                guard let type = c.resourceType, let id = c.identifier, let version = c.fhirVersion, let data = c.data else {
                    throw missing("clinicalRecord", "resourceType, identifier, fhirVersion and data together, or none of them")
                }
                resource = .init(resourceType: type, identifier: id, fhirVersion: version, sourceURL: c.sourceURL,
                                 data: Array(data.utf8))
            }
            let record = ClinicalRecord(displayName: c.displayName, fhirResource: resource)
            return try Sample.clinicalRecord(type, record, start: e.start, end: e.end, source: e.source, device: e.device,
                                             metadata: e.metadata, uuid: e.uuid, creationDate: e.creationDate,
                                             utcOffset: e.utcOffset)
        case .quantity, .category:
            preconditionFailure("quantity and category samples are read in UploadDecoding.sample")
        }
    }

    private static func activityType(_ name: String?, _ number: UInt?, at field: String) throws(APIError) -> UInt {
        if let name {
            guard let n = WorkoutActivityType.number(name) else {
                throw APIError(.badRequest, "'\(name)' is not an HKWorkoutActivityType (Running, Cycling, 37…)", field: field)
            }
            return n
        }
        guard let number else { throw APIError(.badRequest, "missing the activity type (a name, or activityTypeNumber)", field: field) }
        return number
    }

    private static func workout(_ w: UploadedWorkout, at path: String, store: Store) throws(APIError) -> Workout {
        var events: [WorkoutEvent] = []
        for (i, ev) in (w.events ?? []).enumerated() {
            let at = path + ".events[\(i)]"
            let name = ev.type.hasPrefix("HKWorkoutEventType") ? String(ev.type.dropFirst(18)) : ev.type
            guard let type = WorkoutEvent.typesByName[name]
                    ?? Int(ev.type).flatMap({ WorkoutEvent.typesByName.values.contains($0) ? $0 : nil }) else {
                throw APIError(.badRequest, "'\(ev.type)' is not an HKWorkoutEventType (Pause, Resume, Lap, Marker, "
                               + "MotionPaused, MotionResumed, Segment, PauseOrResumeRequest)", field: at + ".type")
            }
            let start = try date(ev.start, at + ".start")
            let end = try ev.end.map { text throws(APIError) in try date(text, at + ".end") } ?? start
            events.append(WorkoutEvent(type: type, start: start, end: end, metadata: (ev.metadata ?? [:]).mapValues(\.value)))
        }
        var activities: [WorkoutActivity] = []
        for (i, a) in (w.activities ?? []).enumerated() {
            let at = path + ".activities[\(i)]"
            guard let uuid = UploadDecoding.uuid(a.uuid) else { throw APIError(.badRequest, "'\(a.uuid)' is not a UUID", field: at + ".uuid") }
            let end = try a.end.map { text throws(APIError) in try date(text, at + ".end") }
            activities.append(WorkoutActivity(
                uuid: uuid, activityType: try activityType(a.activityType, nil, at: at + ".activityType"),
                start: try date(a.start, at + ".start"), end: end, duration: a.duration,
                metadata: (a.metadata ?? [:]).mapValues(\.value),
                statistics: try statistics(a.statistics, at: at + ".statistics", store: store)))
        }
        return Workout(activityType: try activityType(w.activityType, w.activityTypeNumber, at: path + ".activityType"),
                       duration: w.duration, totalEnergyBurned: w.totalEnergyBurnedKcal, totalDistance: w.totalDistanceM,
                       totalSwimmingStrokeCount: w.totalSwimmingStrokeCount, totalFlightsClimbed: w.totalFlightsClimbed,
                       events: events, activities: activities,
                       statistics: try statistics(w.statistics, at: path + ".statistics", store: store))
    }

    /// A workout's or activity's statistics, converted to each type's
    /// canonical unit from the `unit` they name.
    private static func statistics(_ list: [UploadedWorkoutStatistics]?, at path: String,
                                   store: Store) throws(APIError) -> [WorkoutStatistics] {
        var out: [WorkoutStatistics] = []
        for (i, s) in (list ?? []).enumerated() {
            let at = path + "[\(i)]"
            guard let type = try? store.sampleType(s.type), let canonical = type.canonicalUnit else {
                throw APIError(.badRequest, "'\(s.type)' is not a quantity type", field: at + ".type")
            }
            var unit = canonical
            if let text = s.unit {
                guard let u = try? HealthUnit(text), u.isCompatible(with: canonical) else {
                    throw APIError(.badRequest, "'\(text)' is not a unit of \(type.identifier) (\(canonical))", field: at + ".unit")
                }
                unit = u
            }
            func canonicalValue(_ v: Double?) -> Double? { v.map { (try? unit.convert($0, to: canonical)) ?? $0 } }
            out.append(WorkoutStatistics(type: type, start: try date(s.start, at + ".start"), end: try date(s.end, at + ".end"),
                                         sum: canonicalValue(s.sum), average: canonicalValue(s.average),
                                         minimum: canonicalValue(s.minimum), maximum: canonicalValue(s.maximum)))
        }
        return out
    }

    private static func route(_ r: UploadedRoute, at path: String) throws(APIError) -> WorkoutRoute {
        var workout: UUID?
        if let text = r.workout {
            guard let u = UploadDecoding.uuid(text) else { throw APIError(.badRequest, "'\(text)' is not a UUID", field: path + ".workout") }
            workout = u
        }
        let locations = r.locations.map { l in
            let f = l.fields + Array(repeating: nil, count: 8 - l.fields.count)
            return RouteLocation(timestamp: Date(timeIntervalSince1970: f[0]!), latitude: f[1]!, longitude: f[2]!,
                                 altitude: f[3], horizontalAccuracy: f[4], verticalAccuracy: f[5], course: f[6], speed: f[7])
        }
        return WorkoutRoute(workout: workout, locations: locations)
    }

    private static func point(_ p: UploadedAudiogramPoint) -> Audiogram.Point {
        func ear(_ level: Double?, _ masked: Bool?, _ lower: Double?, _ upper: Double?) -> Audiogram.Ear? {
            level.map { .init(sensitivity: $0, masked: masked,
                              clampingRange: lower == nil && upper == nil ? nil : .init(lowerBound: lower, upperBound: upper)) }
        }
        return Audiogram.Point(frequency: p.frequencyHz,
                               left: ear(p.leftEarDBHL, p.leftEarMasked, p.leftEarClampingLowerBoundDBHL, p.leftEarClampingUpperBoundDBHL),
                               right: ear(p.rightEarDBHL, p.rightEarMasked, p.rightEarClampingLowerBoundDBHL,
                                          p.rightEarClampingUpperBoundDBHL))
    }

    private static func electrocardiogram(_ e: UploadedElectrocardiogram, at path: String) throws(APIError) -> Electrocardiogram {
        /// A case of `T` by the name `ohk changes` prints (`sinusRhythm`).
        func named<T: CaseIterable>(_ text: String?, _ field: String, default value: T) throws(APIError) -> T {
            guard let text else { return value }
            guard let v = T.allCases.first(where: { "\($0)" == text }) else {
                throw APIError(.badRequest, "'\(text)' is not one of " + T.allCases.map { "\($0)" }.joined(separator: ", "),
                               field: path + "." + field)
            }
            return v
        }
        return Electrocardiogram(classification: try named(e.classification, "classification", default: .notSet),
                                 symptomsStatus: try named(e.symptomsStatus, "symptomsStatus", default: .notSet),
                                 averageHeartRate: e.averageHeartRateBPM, samplingFrequency: e.samplingFrequencyHz,
                                 lead: try named(e.lead, "lead", default: .appleWatchSimilarToLeadI),
                                 voltages: e.voltagesMicrovolts ?? [])
    }
}
