import FoundationEssentials

/// A workout's route (HealthKit's `HKWorkoutRoute`): the value of a sample
/// of HKWorkoutRouteTypeIdentifier, its locations in time order, and the
/// workout it belongs to (rule 32).
public struct WorkoutRoute: Hashable, Sendable {
    /// The workout's UUID; nil for a route of no workout.
    public var workout: UUID?
    /// Sorted by time, as HealthKit's route builder sorts them.
    public var locations: [RouteLocation]

    public init(workout: UUID?, locations: [RouteLocation]) {
        self.workout = workout
        // Routes come in time order: kept as they are, not copied (a copy
        // of 3,600 points faulted in fresh pages on every save).
        let inOrder = zip(locations, locations.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }
        self.locations = inOrder ? locations : locations.sorted { $0.timestamp < $1.timestamp }
    }
}

/// One point of a route: what HealthKit keeps of a `CLLocation`. The
/// optional fields are nil where the source gave none or marked them
/// invalid (CLLocation's negative accuracy, course or speed).
public struct RouteLocation: Hashable, Sendable {
    public var timestamp: Date
    /// Degrees, WGS 84.
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level.
    public var altitude: Double?
    /// Metres.
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    /// Degrees from true north.
    public var course: Double?
    /// Metres per second.
    public var speed: Double?

    public init(timestamp: Date, latitude: Double, longitude: Double, altitude: Double? = nil,
                horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
                course: Double? = nil, speed: Double? = nil) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
    }

    /// Altitude, horizontal and vertical accuracy, course and speed, in
    /// that order (how they are stored and printed).
    public var optionals: [Double?] { [altitude, horizontalAccuracy, verticalAccuracy, course, speed] }

    /// Which optionals are present, bit 0 for altitude to bit 4 for speed
    /// (the stored form's mask).
    var presentMask: UInt8 {
        (altitude != nil ? 1 : 0) | (horizontalAccuracy != nil ? 2 : 0) | (verticalAccuracy != nil ? 4 : 0)
            | (course != nil ? 8 : 0) | (speed != nil ? 16 : 0)
    }
}

extension WorkoutRoute {
    /// What a save refuses in a route (rule 32): no location, a latitude
    /// beyond ±90° or a longitude beyond ±180°, a value that is not finite.
    func validate(_ uuid: UUID) throws {
        guard !locations.isEmpty else { throw OHKError(.invalidValue, "route \(uuid) has no location") }
        for l in locations {
            guard l.timestamp.timeIntervalSinceReferenceDate.isFinite,
                  l.latitude.isFinite, abs(l.latitude) <= 90, l.longitude.isFinite, abs(l.longitude) <= 180 else {
                throw OHKError(.invalidValue, "route \(uuid): a location at \(l.latitude), \(l.longitude) is not on Earth")
            }
            guard l.altitude?.isFinite ?? true, l.horizontalAccuracy?.isFinite ?? true, l.verticalAccuracy?.isFinite ?? true,
                  l.course?.isFinite ?? true, l.speed?.isFinite ?? true else {
                throw OHKError(.invalidValue, "route \(uuid): a location's altitude, accuracy, course or speed is not finite")
            }
        }
    }
}

/// A route's stored form (a record payload, like a workout's fields).
enum RouteCodec {
    static let version: UInt8 = 1

    static func encode(_ r: WorkoutRoute, into out: inout ByteWriter) {
        out.u8(version)
        if let w = r.workout { out.u8(1); out.uuid(w) } else { out.u8(0) }
        out.u32(UInt32(r.locations.count))
        // Sized once, then stored in place: appending a route of 3,600
        // points field by field took most of its save.
        var size = 0
        for l in r.locations { size += 25 + 8 * l.presentMask.nonzeroBitCount }
        let at = out.bytes.count
        out.bytes.append(contentsOf: repeatElement(0, count: size))
        out.bytes.withUnsafeMutableBytes { b in
            var o = at
            func put(_ v: Double?) {
                guard let v else { return }
                b.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: o, as: UInt64.self)
                o += 8
            }
            for l in r.locations {
                put(l.timestamp.timeIntervalSinceReferenceDate)
                put(l.latitude)
                put(l.longitude)
                b[o] = l.presentMask
                o += 1
                put(l.altitude)
                put(l.horizontalAccuracy)
                put(l.verticalAccuracy)
                put(l.course)
                put(l.speed)
            }
        }
    }

    static func decode(_ r: inout ByteReader) throws -> WorkoutRoute {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "a route of an unknown version") }
        let workout = try r.u8() == 1 ? try r.uuid() : nil
        let n = Int(try r.u32())
        guard n <= r.remaining / 25 else { throw OHKError(.storeCorrupt, "a corrupt route") }
        var locations: [RouteLocation] = []
        locations.reserveCapacity(n)
        for _ in 0..<n {
            let t = try r.f64(), lat = try r.f64(), lon = try r.f64()
            let mask = try r.u8()
            func field(_ bit: UInt8) throws -> Double? { mask & bit != 0 ? try r.f64() : nil }
            // In the order they were written: one statement each.
            let altitude = try field(1), horizontal = try field(2), vertical = try field(4)
            let course = try field(8), speed = try field(16)
            locations.append(RouteLocation(timestamp: Date(timeIntervalSinceReferenceDate: t), latitude: lat, longitude: lon,
                                           altitude: altitude, horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                                           course: course, speed: speed))
        }
        // Stored sorted: no sort on the way out.
        var route = WorkoutRoute(workout: workout, locations: [])
        route.locations = locations
        return route
    }
}
