import FoundationEssentials
import OpenHealthKitCore

/// `<Workout>` → a workout sample (rule 31): the activity type by name,
/// the duration and totals in canonical units (s, kcal, m), events with
/// their intervals, statistics per quantity type, activities; the common
/// attributes (source, device, dates, metadata) as for records.
extension RecordMapper {
    mutating func workout(_ r: ExportRecord, _ w: ExportWorkout) -> Result<Sample, SkipReason> {
        let subject = TypeCatalogue.workoutIdentifier
        guard let activityType = WorkoutActivityType.number(w.activityType) else {
            return .failure(SkipReason(kind: .badValue, subject: "workoutActivityType of \(subject)"))
        }
        guard !r.sourceName.isEmpty else { return .failure(SkipReason(kind: .missingField, subject: "sourceName")) }
        guard let (start, offset) = r.start,
              let end = r.end else {
            return .failure(SkipReason(kind: .badDate, subject: subject))
        }
        let source = source(r.sourceName, r.sourceVersion)
        let device = r.device.map { self.device($0) }
        let created = r.created
        do {
            // An export's duration may differ from end − start (paused
            // time, or an app that writes no interval): kept as given.
            let duration = try quantity(w.duration, w.durationUnit ?? "min", "s") ?? (end - start)
            var events: [WorkoutEvent] = []
            for e in w.events {
                guard let type = WorkoutEvent.typesByName[e.type.hasPrefix("HKWorkoutEventType") ? String(e.type.dropFirst(18)) : e.type],
                      let at = ExportTimestamp.parse(e.date) else { throw SkipReason(kind: .badValue, subject: "WorkoutEvent of \(subject)") }
                let length = try quantity(e.duration, e.durationUnit ?? "min", "s") ?? 0
                let event = WorkoutEvent(type: type, start: Date(timeIntervalSinceReferenceDate: at),
                                         end: Date(timeIntervalSinceReferenceDate: at + length), metadata: Self.metadata(e.metadata))
                // Newer exports repeat an activity's events at the workout's
                // level: one event, with the metadata of both.
                if let i = events.firstIndex(where: { ($0.type, $0.start, $0.end) == (event.type, event.start, event.end) }) {
                    events[i].metadata.merge(event.metadata) { kept, _ in kept }
                } else {
                    events.append(event)
                }
            }
            var activities: [WorkoutActivity] = []
            for a in w.activities {
                guard let from = ExportTimestamp.parse(a.startDate) else { throw SkipReason(kind: .badDate, subject: "WorkoutActivity of \(subject)") }
                let to = a.endDate.flatMap(ExportTimestamp.parse)
                activities.append(WorkoutActivity(
                    uuid: a.uuid.flatMap(UUID.init(uuidString:)) ?? RandomUUID.make(), activityType: activityType,
                    start: Date(timeIntervalSinceReferenceDate: from), end: to.map(Date.init(timeIntervalSinceReferenceDate:)),
                    duration: try quantity(a.duration, a.durationUnit ?? "min", "s"), metadata: Self.metadata(a.metadata),
                    statistics: try a.statistics.map { try statistics($0) }))
            }
            let workout = Workout(activityType: activityType, duration: duration,
                                  totalEnergyBurned: try quantity(w.totalEnergyBurned, w.totalEnergyBurnedUnit ?? "kcal", "kcal"),
                                  totalDistance: try quantity(w.totalDistance, w.totalDistanceUnit ?? "m", "m"),
                                  events: events, activities: activities, statistics: try w.statistics.map { try statistics($0) })
            let metadata = Self.metadata(r.metadata)
            let uuid = contentUUID(TypeCatalogue.workoutType, source, device, start, end, created, .workout(workout), metadata)
            return .success(try Sample.workout(workout, start: Date(timeIntervalSinceReferenceDate: start),
                                               end: Date(timeIntervalSinceReferenceDate: end), source: source, device: device,
                                               metadata: metadata, uuid: uuid,
                                               creationDate: created.map(Date.init(timeIntervalSinceReferenceDate:)), utcOffset: offset))
        } catch let reason as SkipReason {
            return .failure(reason)
        } catch let e as OHKError {
            return .failure(SkipReason(kind: e.code == .invalidDateRange ? .badDate : .invalidSample, subject: subject))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }

    /// A `<WorkoutRoute>` of the workout `workout`, with the locations of
    /// its GPX file (rule 32).
    /// A route without its own source or dates (some old exports) takes
    /// its workout's source and its first and last locations' times.
    mutating func route(_ route: ExportWorkout.Route, workout: UUID, locations: [RouteLocation]) -> Result<Sample, SkipReason> {
        let r = route.record, subject = TypeCatalogue.routeIdentifier
        guard !r.sourceName.isEmpty else { return .failure(SkipReason(kind: .missingField, subject: "sourceName of \(subject)")) }
        let first = locations.map(\.timestamp).min()?.timeIntervalSinceReferenceDate
        let last = locations.map(\.timestamp).max()?.timeIntervalSinceReferenceDate
        let given = r.start
        guard let start = given?.instant ?? first, let end = r.end ?? last else {
            return .failure(SkipReason(kind: .badDate, subject: subject))
        }
        let offset = given?.offset
        let source = source(r.sourceName, r.sourceVersion)
        let device = r.device.map { self.device($0) }
        let created = r.created
        let value = WorkoutRoute(workout: workout, locations: locations)
        let metadata = Self.metadata(r.metadata)
        let uuid = contentUUID(TypeCatalogue.routeType, source, device, start, end, created, .route(value), metadata)
        do {
            return .success(try Sample.route(value, start: Date(timeIntervalSinceReferenceDate: start),
                                             end: Date(timeIntervalSinceReferenceDate: end), source: source, device: device,
                                             metadata: metadata, uuid: uuid,
                                             creationDate: created.map(Date.init(timeIntervalSinceReferenceDate:)), utcOffset: offset))
        } catch let e as OHKError {
            return .failure(SkipReason(kind: e.code == .invalidDateRange ? .badDate : .invalidSample, subject: subject))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }

    /// The inline `<Location>`s of an old export's route.
    static func locations(_ inline: [[String: String]]) -> Result<[RouteLocation], SkipReason> {
        var out: [RouteLocation] = []
        for a in inline {
            guard let date = a["date"].flatMap(ExportTimestamp.parse), let lat = a["latitude"].flatMap(Double.init),
                  let lon = a["longitude"].flatMap(Double.init) else {
                return .failure(SkipReason(kind: .badValue, subject: "Location of \(TypeCatalogue.routeIdentifier)"))
            }
            // CLLocation's negative values mean "invalid": unknown here.
            let valid = { (key: String) in a[key].flatMap(Double.init).flatMap { $0 >= 0 ? $0 : nil } }
            out.append(RouteLocation(timestamp: Date(timeIntervalSinceReferenceDate: date), latitude: lat, longitude: lon,
                                     altitude: a["altitude"].flatMap(Double.init), horizontalAccuracy: valid("horizontalAccuracy"),
                                     verticalAccuracy: valid("verticalAccuracy"), course: valid("course"), speed: valid("speed")))
        }
        return .success(out)
    }

    /// `text` in `unit`, converted to `canonical`; nil when absent.
    private mutating func quantity(_ text: String?, _ unitText: String, _ canonical: String) throws -> Double? {
        guard let text else { return nil }
        guard let given = unit(unitText), let target = unit(canonical), given.isCompatible(with: target) else {
            throw SkipReason(kind: .badUnit, subject: unitText)
        }
        guard let v = Double(text), v.isFinite else { throw SkipReason(kind: .badValue, subject: TypeCatalogue.workoutIdentifier) }
        return try given.convert(v, to: target)
    }

    /// A `<WorkoutStatistics>` in its type's canonical unit.
    private mutating func statistics(_ s: ExportWorkout.Statistics) throws -> WorkoutStatistics {
        guard let type = type(s.type), let canonical = type.canonicalUnit else {
            throw SkipReason(kind: .unknownType, subject: s.type)
        }
        guard let from = ExportTimestamp.parse(s.startDate), let to = ExportTimestamp.parse(s.endDate) else {
            throw SkipReason(kind: .badDate, subject: "WorkoutStatistics of \(s.type)")
        }
        let unit = s.unit ?? canonical.description, target = canonical.description
        return WorkoutStatistics(type: type, start: Date(timeIntervalSinceReferenceDate: from),
                                 end: Date(timeIntervalSinceReferenceDate: to),
                                 sum: try quantity(s.sum, unit, target), average: try quantity(s.average, unit, target),
                                 minimum: try quantity(s.minimum, unit, target), maximum: try quantity(s.maximum, unit, target))
    }
}

extension RecordMapper {
    /// The heartbeat series of a heart-rate-variability record (rule 39):
    /// its `<InstantaneousBeatsPerMinute>` times, local times of day, as
    /// seconds since the record's start in its own UTC offset (a beat
    /// before midnight and the start after it, or the reverse, wrap
    /// around). A series starts at the earlier of the record's start and
    /// its first beat, and ends at the later of the record's end and its
    /// last beat. Its source, device, creation date and offset are the
    /// record's; no gap is marked (exports do not say). nil for a record
    /// without beats.
    mutating func heartbeats(of record: Sample, times: [String]) -> Result<Sample, SkipReason>? {
        guard !times.isEmpty else { return nil }
        let subject = TypeCatalogue.heartbeatSeriesIdentifier
        let start = record.startDate.timeIntervalSinceReferenceDate
        // The start's local time of day, whole seconds apart from the
        // fraction: a time since 1970 has no room left for hundredths.
        let local = start + Double(record.utcOffset ?? 0) + Date.timeIntervalBetween1970AndReferenceDate
        let whole = local.rounded(.down)
        let startWholeSeconds = Int((Int64(whole) % 86_400 + 86_400) % 86_400), startFraction = local - whole
        var offsets: [Double] = []
        offsets.reserveCapacity(times.count)
        for t in times {
            guard let clock = Self.timeOfDay(t) else { return .failure(SkipReason(kind: .badValue, subject: subject)) }
            // Whole seconds apart from the fraction: "2.34" stays 2.34.
            var d = Double(clock.wholeSeconds - startWholeSeconds) + (clock.fraction - startFraction)
            if d < -43_200 { d += 86_400 } else if d > 43_200 { d -= 86_400 }
            offsets.append(d)
        }
        let shift = min(0, offsets.min()!)
        let seriesStart = start + shift
        let beats = offsets.map { HeartbeatSeries.Beat(timeSinceStart: $0 - shift) }
        // Past the last beat even after rounding, on a whole millisecond so
        // that the series saves again after a trip through Unix seconds or
        // Python's microseconds: a save refuses a beat after the end.
        let last = beats.map(\.timeSinceStart).max()!
        var end = max(record.endDate.timeIntervalSinceReferenceDate, ((seriesStart + last) * 1000).rounded(.up) / 1000)
        while end - seriesStart < last { end = end.nextUp }
        let value = HeartbeatSeries(beats: beats)
        let created = record.creationDate?.timeIntervalSinceReferenceDate
        let uuid = contentUUID(TypeCatalogue.heartbeatSeriesType, record.source, record.device, seriesStart, end, created,
                               .heartbeats(value), [:])
        do {
            return .success(try Sample.heartbeatSeries(value, start: Date(timeIntervalSinceReferenceDate: seriesStart),
                                                       end: Date(timeIntervalSinceReferenceDate: end), source: record.source,
                                                       device: record.device, uuid: uuid, creationDate: record.creationDate,
                                                       utcOffset: record.utcOffset))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }

    /// A beat's local time of day as exports write it in the phone's
    /// locale: "7:00:01.10 AM", "19:00:01.10", "08:34:05,10" (a decimal
    /// comma), "3:10:02,11 a.m.", "午前7:00:01.10" (a marker in front), →
    /// whole seconds since midnight, and the fraction of a second.
    static func timeOfDay(_ text: String) -> (wholeSeconds: Int, fraction: Double)? {
        var clock = Substring(text)
        var pm: Bool?
        // Morning and afternoon markers, before or after the time.
        let markers: [(String, Bool)] = [("a.m.", false), ("p.m.", true), ("am", false), ("pm", true), ("午前", false),
                                         ("午後", true), ("上午", false), ("下午", true), ("오전", false), ("오후", true)]
        func isSpace(_ c: Character) -> Bool { c == " " || c == "\u{202F}" || c == "\u{A0}" }
        clock = clock.drop(while: isSpace)
        while let c = clock.last, isSpace(c) { clock = clock.dropLast() }
        for (marker, afternoon) in markers {
            if clock.lowercased().hasSuffix(marker) {
                pm = afternoon
                clock = clock.dropLast(marker.count)
            } else if clock.lowercased().hasPrefix(marker) {
                pm = afternoon
                clock = clock.dropFirst(marker.count)
            } else {
                continue
            }
            clock = clock.drop(while: isSpace)
            while let c = clock.last, isSpace(c) { clock = clock.dropLast() }
            break
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, var h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        // The seconds' whole part and fraction apart ("05,10": 5 and 0.10),
        // so that a fraction stays what was written.
        let sec = parts[2].split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "," })
        guard sec.count <= 2, let whole = Int(sec[0]),
              let fraction = sec.count == 2 ? (sec[1].allSatisfy(\Character.isASCII) ? Double("0." + sec[1]) : nil) : 0,
              (0..<60).contains(m), (0...60).contains(whole) else { return nil }
        if let pm {
            guard (1...12).contains(h) else { return nil }
            h = h % 12 + (pm ? 12 : 0)
        }
        guard (0..<24).contains(h) else { return nil }
        return (h * 3600 + m * 60 + whole, fraction)
    }
}

extension RecordMapper {
    /// `<Audiogram>` → an audiogram sample (rule 40): its attributes as a
    /// record's, each `<SensitivityPoint>` a frequency (in
    /// `frequencyUnit`, Hz by default) and per ear a hearing level (in
    /// `leftEarUnit`/`rightEarUnit`, dBHL by default) where the export has
    /// one, masked where it says (`leftEarMasked`/`rightEarMasked`), with
    /// the range it was clamped to where newer exports give one
    /// (`leftEarClampingRangeLowerBound`… in the ear's unit).
    mutating func audiogram(_ r: ExportRecord) -> Result<Sample, SkipReason> {
        let subject = TypeCatalogue.audiogramIdentifier
        guard !r.sourceName.isEmpty else { return .failure(SkipReason(kind: .missingField, subject: "sourceName of \(subject)")) }
        guard let given = r.start, let end = r.end else {
            return .failure(SkipReason(kind: .badDate, subject: subject))
        }
        var points: [Audiogram.Point] = []
        for a in r.sensitivityPoints ?? [] {
            guard let frequency = Self.measure(a["frequencyValue"], a["frequencyUnit"], default: "Hz") else {
                return .failure(SkipReason(kind: .badValue, subject: subject))
            }
            var ears: [Audiogram.Ear?] = []
            for side in ["leftEar", "rightEar"] {
                guard a[side + "Value"] != nil else { ears.append(nil); continue }
                guard let level = Self.measure(a[side + "Value"], a[side + "Unit"], default: "dBHL") else {
                    return .failure(SkipReason(kind: .badValue, subject: subject))
                }
                let masked = a[side + "Masked"].map { ["1", "true", "yes"].contains($0.lowercased()) }
                var bounds: [Double?] = []
                for bound in ["LowerBound", "UpperBound"] {
                    guard let text = a[side + "ClampingRange" + bound] else { bounds.append(nil); continue }
                    guard let b = Self.measure(text, a[side + "Unit"], default: "dBHL") else {
                        return .failure(SkipReason(kind: .badValue, subject: subject))
                    }
                    bounds.append(b)
                }
                let range = bounds.allSatisfy { $0 == nil } ? nil
                    : Audiogram.ClampingRange(lowerBound: bounds[0], upperBound: bounds[1])
                ears.append(Audiogram.Ear(sensitivity: level, masked: masked, clampingRange: range))
            }
            points.append(Audiogram.Point(frequency: frequency, left: ears[0], right: ears[1]))
        }
        let source = source(r.sourceName, r.sourceVersion)
        let device = r.device.map { self.device($0) }
        let created = r.created
        let value = Audiogram(points: points)
        let metadata = Self.metadata(r.metadata)
        let uuid = contentUUID(TypeCatalogue.audiogramType, source, device, given.instant, end, created, .audiogram(value), metadata)
        do {
            return .success(try Sample.audiogram(value, start: Date(timeIntervalSinceReferenceDate: given.instant),
                                                 end: Date(timeIntervalSinceReferenceDate: end), source: source, device: device,
                                                 metadata: metadata, uuid: uuid,
                                                 creationDate: created.map(Date.init(timeIntervalSinceReferenceDate:)),
                                                 utcOffset: given.offset))
        } catch let e as OHKError {
            return .failure(SkipReason(kind: e.code == .invalidDateRange ? .badDate : .invalidSample, subject: subject))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }

    /// A number written with its unit, in `canonical` (Hz, dBHL); nil when
    /// either does not read or the unit measures something else.
    static func measure(_ value: String?, _ unit: String?, default canonical: String) -> Double? {
        guard let value, let v = Double(value), v.isFinite, let to = try? HealthUnit(canonical),
              let from = try? HealthUnit(unit ?? canonical) else { return nil }
        return try? from.convert(v, to: to)
    }
}
