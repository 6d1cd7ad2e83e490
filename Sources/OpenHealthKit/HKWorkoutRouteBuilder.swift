import Foundation
import OpenHealthKitCore
import Synchronization

/// Builds a workout's route while the workout runs (rule 32): locations
/// are inserted in pieces, in any order, and `finishRoute(with:metadata:)`
/// saves them, sorted by time, as one route of a saved workout, linked to
/// it (rule 36). As in HealthKit, what was inserted is kept in memory
/// until then: a builder released or discarded before it finishes loses it.
/// After `finishRoute` or `discard()`, every call fails with
/// `errorInvalidArgument` (HealthKit raises an exception after `discard()`).
public final class HKWorkoutRouteBuilder: NSObject, @unchecked Sendable {
    private struct State {
        var locations: [RouteLocation] = []
        var metadata: [String: MetadataValue] = [:]
        /// Set by finishRoute, discard or a failed insert: why calls fail.
        var ended: String?
    }

    private let store: HKHealthStore
    private let device: HKDevice?
    private let state = Mutex(State())

    /// A builder for routes saved to `healthStore`; `device` is what
    /// recorded the locations (nil: this program).
    public init(healthStore: HKHealthStore, device: HKDevice?) {
        store = healthStore
        self.device = device
        super.init()
    }

    /// Adds locations, in any order. A location off the Earth, or not
    /// finite, fails the call and ends the builder, as HealthKit's does.
    public func insertRouteData(_ routeData: [CLLocation], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        store.complete(completion) { () throws(HKError) in try self.insert(routeData) }
    }

    public func insertRouteData(_ routeData: [CLLocation]) async throws {
        try insert(routeData)
    }

    /// Merges `metadata` into the route's, as `addEntries(from:)` does; a
    /// value that is not metadata fails the call and changes nothing.
    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        store.complete(completion) { () throws(HKError) in try self.merge(metadata) }
    }

    public func addMetadata(_ metadata: [String: Any]) async throws {
        try merge(metadata)
    }

    /// Saves the route of `workout`, which must be saved already, with
    /// the inserted locations sorted by time and the metadata added (and
    /// `metadata`, which wins over it). No location is an error.
    public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?,
                            completion: @escaping @Sendable (HKWorkoutRoute?, (any Error)?) -> Void) {
        HKQuery.onBackground {
            do throws(HKError) {
                completion(try self.finish(workout, metadata), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?) async throws -> HKWorkoutRoute {
        try finish(workout, metadata)
    }

    /// Drops what was inserted and ends the builder.
    public func discard() {
        state.withLock { $0 = State(locations: [], metadata: [:], ended: "the route builder was discarded") }
    }

    private func insert(_ routeData: [CLLocation]) throws(HKError) {
        let made = routeData.map(RouteLocation.init)
        try state.withLock { s throws(HKError) in
            if let ended = s.ended { throw .invalid(ended) }
            guard let first = made.first else { return }
            // Checked as a save checks it, so that a bad point fails here.
            do {
                _ = try Sample.route(WorkoutRoute(workout: nil, locations: made), start: first.timestamp,
                                     end: first.timestamp, source: HKSourceRevision.local.core)
            } catch {
                s.ended = "the route builder ended when an insert failed"
                throw HKError(core: error)
            }
            s.locations += made
        }
    }

    private func merge(_ metadata: [String: Any]) throws(HKError) {
        let added = try MetadataBridge.core(metadata)
        try state.withLock { s throws(HKError) in
            if let ended = s.ended { throw .invalid(ended) }
            s.metadata.merge(added) { _, new in new }
        }
    }

    private func finish(_ workout: HKWorkout, _ metadata: [String: Any]?) throws(HKError) -> HKWorkoutRoute {
        let last = try MetadataBridge.core(metadata)
        let (locations, coreMetadata) = try state.withLock { s throws(HKError) -> ([RouteLocation], [String: MetadataValue]) in
            if let ended = s.ended { throw .invalid(ended) }
            guard !s.locations.isEmpty else { throw .invalid("a route needs at least one location") }
            return (s.locations, s.metadata.merging(last) { _, new in new })
        }
        let core = try store.coreStore()
        let route = WorkoutRoute(workout: workout.uuid, locations: locations)
        let sorted = route.locations
        let source = HKSourceRevision.local
        let sample = try hk {
            try Sample.route(route, start: sorted.first!.timestamp, end: sorted.last!.timestamp, source: source.core,
                             device: device?.core, metadata: coreMetadata)
        }
        // The route and its workout's check in one transaction: a save
        // refuses a workout that is not stored (rule 36).
        _ = try hk { try core.saveRoute(sample, of: workout.uuid) }
        state.withLock { $0.ended = "the route builder has finished its route" }
        return HKWorkoutRoute(route, type: HKSeriesType.workoutRoute(), start: sample.startDate, end: sample.endDate,
                              uuid: sample.uuid, sourceRevision: source, device: device, metadata: .given(MetadataBridge.healthKit(coreMetadata)),
                              creationDate: nil, utcOffset: nil)
    }
}

private extension RouteLocation {
    /// CoreLocation's negative "invalid" accuracy, course and speed are
    /// unknown here; an invalid vertical accuracy means no altitude.
    init(_ l: CLLocation) {
        self.init(timestamp: l.timestamp, latitude: l.coordinate.latitude, longitude: l.coordinate.longitude,
                  altitude: l.verticalAccuracy < 0 ? nil : l.altitude,
                  horizontalAccuracy: l.horizontalAccuracy < 0 ? nil : l.horizontalAccuracy,
                  verticalAccuracy: l.verticalAccuracy < 0 ? nil : l.verticalAccuracy,
                  course: l.course < 0 ? nil : l.course, speed: l.speed < 0 ? nil : l.speed)
    }
}
