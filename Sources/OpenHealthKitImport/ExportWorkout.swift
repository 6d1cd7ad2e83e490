/// A `<Workout>` of export.xml as written: its own attributes and its
/// children (`WorkoutEvent`, `WorkoutStatistics`, `WorkoutActivity`),
/// still text. Carried by the `ExportRecord` of its common attributes.
struct ExportWorkout: Sendable {
    var activityType = ""
    var duration: String?
    var durationUnit: String?
    var totalDistance: String?
    var totalDistanceUnit: String?
    var totalEnergyBurned: String?
    var totalEnergyBurnedUnit: String?
    var events: [Event] = []
    var statistics: [Statistics] = []
    var activities: [Activity] = []
    var routes: [Route] = []

    struct Event: Sendable {
        var type = ""
        var date = ""
        var duration: String?
        var durationUnit: String?
        var metadata: [(key: String, value: String)] = []
    }

    /// Newer exports' figures per quantity type (`sum` for cumulative
    /// types, `average`, `minimum`, `maximum` for discrete ones).
    struct Statistics: Sendable {
        var type = ""
        var startDate = ""
        var endDate = ""
        var sum: String?
        var average: String?
        var minimum: String?
        var maximum: String?
        var unit: String?
    }

    /// A `<WorkoutRoute>`: the attributes and metadata every sample has,
    /// and the GPX file (`FileReference`) that holds its locations.
    struct Route: Sendable {
        var record = ExportRecord()
        /// Relative to the export's folder: "workout-routes/route_….gpx".
        var path: String?
        /// Exports from before iOS 13 hold the locations inline instead:
        /// `<Location date latitude longitude altitude horizontalAccuracy
        /// verticalAccuracy course speed/>`, each attribute as text.
        var locations: [[String: String]] = []
    }

    /// Newer exports' `<WorkoutActivity>`, nested in its workout.
    struct Activity: Sendable {
        var uuid: String?
        var startDate = ""
        var endDate: String?
        var duration: String?
        var durationUnit: String?
        var metadata: [(key: String, value: String)] = []
        var statistics: [Statistics] = []
    }
}
