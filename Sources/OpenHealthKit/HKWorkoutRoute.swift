import Foundation
import OpenHealthKitCore

/// A point on the Earth (CoreLocation's type; Linux has no CoreLocation).
public struct CLLocationCoordinate2D: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What HealthKit keeps of CoreLocation's `CLLocation` (not in HealthKit:
/// Linux has no CoreLocation, so the package carries this subset). As in
/// CoreLocation, a negative accuracy, course or speed means "invalid".
public final class CLLocation: NSObject, @unchecked Sendable {
    public let coordinate: CLLocationCoordinate2D
    public let altitude: Double
    public let horizontalAccuracy: Double
    public let verticalAccuracy: Double
    public let course: Double
    public let speed: Double
    public let timestamp: Date

    public init(coordinate: CLLocationCoordinate2D, altitude: Double, horizontalAccuracy: Double,
                verticalAccuracy: Double, course: Double, speed: Double, timestamp: Date) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
        super.init()
    }

    init(_ l: RouteLocation) {
        coordinate = CLLocationCoordinate2D(latitude: l.latitude, longitude: l.longitude)
        altitude = l.altitude ?? 0
        // Unknown is CoreLocation's "invalid": a negative value (an
        // unknown altitude has a negative vertical accuracy).
        horizontalAccuracy = l.horizontalAccuracy ?? -1
        verticalAccuracy = l.altitude == nil ? -1 : l.verticalAccuracy ?? -1
        course = l.course ?? -1
        speed = l.speed ?? -1
        timestamp = l.timestamp
        super.init()
    }
}

/// Series types: the workout route type and the heartbeat series type.
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
    /// The workout route type (`HKWorkoutRouteTypeIdentifier`).
    public class func workoutRoute() -> HKSeriesType {
        HKSeriesType(identifier: TypeCatalogue.routeIdentifier, known: TypeCatalogue.routeType)
    }

    /// The heartbeat series type (`HKDataTypeIdentifierHeartbeatSeries`).
    public class func heartbeat() -> HKSeriesType {
        HKSeriesType(identifier: TypeCatalogue.heartbeatSeriesIdentifier, known: TypeCatalogue.heartbeatSeriesType)
    }

    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .route || type.kind == .heartbeatSeries else { throw .invalid("\(identifier) is not a series type kept here") }
        return type
    }
}

/// A workout's route (rule 32), read from the store: its locations come
/// through `HKWorkoutRouteQuery`. Routes come from imports and from
/// `HKWorkoutRouteBuilder`.
public final class HKWorkoutRoute: HKSeriesSample, @unchecked Sendable {
    let locations: [RouteLocation]

    init(_ r: WorkoutRoute, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        locations = r.locations
        super.init(count: r.locations.count, type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }
}

/// HKWorkoutRouteQuery: a route's locations, in time order, in batches
/// of at most 1,000, the last with `done` true. The handler runs on a
/// background queue.
public final class HKWorkoutRouteQuery: HKQuery, @unchecked Sendable {
    public typealias DataHandler = @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void

    private let route: HKWorkoutRoute
    private let handler: DataHandler

    public init(route workoutRoute: HKWorkoutRoute, dataHandler: @escaping DataHandler) {
        route = workoutRoute
        handler = dataHandler
        super.init(descriptors: [HKQueryDescriptor(sampleType: workoutRoute.sampleType, predicate: nil)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let locations = route.locations, handler = self.handler
        Self.onBackground {
            var at = 0
            repeat {
                let end = min(at + 1000, locations.count)
                handler(self, locations[at..<end].map(CLLocation.init), end == locations.count, nil)
                at = end
            } while at < locations.count
        }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, true, error) }
    }
}
