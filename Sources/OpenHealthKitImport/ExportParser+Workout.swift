import CExpat
import Glibc
import OpenHealthKitCore

/// The `<Workout>` part of the parser: its attributes and its children,
/// which newer exports nest one level deeper inside `<WorkoutActivity>`
/// (whatever the DTD says; it is not validated).
extension ExportParser {
    /// Which child of a workout is open at depth 3.
    enum WorkoutChild {
        case event(Int)
        case activity(Int)
        case route(Int)
        case other
    }

    func workout(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout {
        let a = text(of: attributes)
        var w = ExportWorkout()
        w.activityType = a["workoutActivityType"] ?? ""
        w.duration = a["duration"]
        w.durationUnit = a["durationUnit"]
        w.totalDistance = a["totalDistance"]
        w.totalDistanceUnit = a["totalDistanceUnit"]
        w.totalEnergyBurned = a["totalEnergyBurned"]
        w.totalEnergyBurnedUnit = a["totalEnergyBurnedUnit"]
        return w
    }

    /// An element's attributes as text, by name (workouts and their parts
    /// are few: a dictionary costs nothing worth saving).
    private func text(of attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> [String: String] {
        var out: [String: String] = [:]
        forEach(attributes) { k, v in out[String(cString: k)] = String(cString: v) }
        return out
    }

    /// A child of the open workout: metadata, an event, statistics, an
    /// activity, a route.
    func workoutChild(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        switch String(cString: name) {
        case "MetadataEntry":
            if let entry = metadataEntry(attributes) { current!.metadata.append(entry) }
            workoutChild = .other
        case "WorkoutEvent":
            current!.workout!.events.append(event(attributes))
            workoutChild = .event(current!.workout!.events.count - 1)
        case "WorkoutStatistics":
            current!.workout!.statistics.append(statistics(attributes))
            workoutChild = .other
        case "WorkoutActivity":
            current!.workout!.activities.append(activity(attributes))
            workoutChild = .activity(current!.workout!.activities.count - 1)
        case "WorkoutRoute":
            current!.workout!.routes.append(ExportWorkout.Route(record: record(attributes)))
            workoutChild = .route(current!.workout!.routes.count - 1)
        default:
            unread(name, in: "Workout")
            workoutChild = .other
        }
    }

    /// A child of a workout's child: an event's metadata; an activity's
    /// metadata, statistics and events (kept with the workout's); a
    /// route's metadata, file reference, or inline locations.
    func workoutGrandchild(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        switch (workoutChild, String(cString: name)) {
        case (.event(let i)?, "MetadataEntry"):
            if let entry = metadataEntry(attributes) { current!.workout!.events[i].metadata.append(entry) }
        case (.activity(let i)?, "MetadataEntry"):
            if let entry = metadataEntry(attributes) { current!.workout!.activities[i].metadata.append(entry) }
        case (.activity(let i)?, "WorkoutStatistics"):
            current!.workout!.activities[i].statistics.append(statistics(attributes))
        case (.activity?, "WorkoutEvent"):
            current!.workout!.events.append(event(attributes))
            activityEvent = current!.workout!.events.count - 1
        case (.route(let i)?, "MetadataEntry"):
            if let entry = metadataEntry(attributes) { current!.workout!.routes[i].record.metadata.append(entry) }
        case (.route(let i)?, "Location"):
            current!.workout!.routes[i].locations.append(text(of: attributes))
        case (.route(let i)?, "FileReference"):
            forEach(attributes) { k, v in
                guard strcmp(k, "path") == 0 else { return }
                // "/workout-routes/x.gpx": relative to the export's folder.
                let path = String(cString: v)
                let file = path.hasPrefix("/") ? String(path.dropFirst()) : path
                current!.workout!.routes[i].path = file
                routeFiles.insert(file)
            }
        case (.event?, _): unread(name, in: "WorkoutEvent")
        case (.activity?, _): unread(name, in: "WorkoutActivity")
        case (.route?, _): unread(name, in: "WorkoutRoute")
        default: unread(name, in: nil)
        }
    }

    /// Five deep: the metadata of an event inside an activity (iOS 16's
    /// exports), kept with the event.
    func workoutGreatGrandchild(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        if let i = activityEvent, strcmp(name, "MetadataEntry") == 0 {
            if let entry = metadataEntry(attributes) { current!.workout!.events[i].metadata.append(entry) }
        } else {
            unread(name, in: activityEvent == nil ? nil : "WorkoutActivity > WorkoutEvent")
        }
    }

    private func event(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Event {
        let a = text(of: attributes)
        return ExportWorkout.Event(type: a["type"] ?? "", date: a["date"] ?? "", duration: a["duration"],
                                   durationUnit: a["durationUnit"])
    }

    private func statistics(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Statistics {
        let a = text(of: attributes)
        return ExportWorkout.Statistics(type: a["type"] ?? "", startDate: a["startDate"] ?? "", endDate: a["endDate"] ?? "",
                                        sum: a["sum"], average: a["average"], minimum: a["minimum"], maximum: a["maximum"],
                                        unit: a["unit"])
    }

    private func activity(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Activity {
        let a = text(of: attributes)
        return ExportWorkout.Activity(uuid: a["uuid"], startDate: a["startDate"] ?? "", endDate: a["endDate"],
                                      duration: a["duration"], durationUnit: a["durationUnit"])
    }
}
