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
        var w = ExportWorkout()
        forEach(attributes) { k, v in
            let value = String(cString: v)
            switch String(cString: k) {
            case "workoutActivityType": w.activityType = value
            case "duration": w.duration = value
            case "durationUnit": w.durationUnit = value
            case "totalDistance": w.totalDistance = value
            case "totalDistanceUnit": w.totalDistanceUnit = value
            case "totalEnergyBurned": w.totalEnergyBurned = value
            case "totalEnergyBurnedUnit": w.totalEnergyBurnedUnit = value
            default: break
            }
        }
        return w
    }

    /// A child of the open workout: metadata, an event, statistics, an
    /// activity; a route is counted (routes are not imported yet).
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
            current!.workout!.routes.append(route(attributes))
            workoutChild = .route(current!.workout!.routes.count - 1)
        case let other:
            otherElements[other, default: 0] += 1
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
        case (.route(let i)?, "MetadataEntry"):
            if let entry = metadataEntry(attributes) { current!.workout!.routes[i].metadata.append(entry) }
        case (.route(let i)?, "Location"):
            var location: [String: String] = [:]
            forEach(attributes) { k, v in location[String(cString: k)] = String(cString: v) }
            current!.workout!.routes[i].locations.append(location)
        case (.route(let i)?, "FileReference"):
            forEach(attributes) { k, v in
                guard strcmp(k, "path") == 0 else { return }
                // "/workout-routes/x.gpx": relative to the export's folder.
                let path = String(cString: v)
                current!.workout!.routes[i].path = path.hasPrefix("/") ? String(path.dropFirst()) : path
            }
        default:
            break
        }
    }

    private func event(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Event {
        var e = ExportWorkout.Event()
        forEach(attributes) { k, v in
            let value = String(cString: v)
            switch String(cString: k) {
            case "type": e.type = value
            case "date": e.date = value
            case "duration": e.duration = value
            case "durationUnit": e.durationUnit = value
            default: break
            }
        }
        return e
    }

    private func statistics(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Statistics {
        var s = ExportWorkout.Statistics()
        forEach(attributes) { k, v in
            let value = String(cString: v)
            switch String(cString: k) {
            case "type": s.type = value
            case "startDate": s.startDate = value
            case "endDate": s.endDate = value
            case "sum": s.sum = value
            case "average": s.average = value
            case "minimum": s.minimum = value
            case "maximum": s.maximum = value
            case "unit": s.unit = value
            default: break
            }
        }
        return s
    }

    private func route(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Route {
        var r = ExportWorkout.Route()
        forEach(attributes) { k, v in
            let value = String(cString: v)
            switch String(cString: k) {
            case "sourceName": r.sourceName = value
            case "sourceVersion": r.sourceVersion = value
            case "device": r.device = value
            case "creationDate": r.creationDate = value
            case "startDate": r.startDate = value
            case "endDate": r.endDate = value
            default: break
            }
        }
        return r
    }

    private func activity(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) -> ExportWorkout.Activity {
        var a = ExportWorkout.Activity()
        forEach(attributes) { k, v in
            let value = String(cString: v)
            switch String(cString: k) {
            case "uuid": a.uuid = value
            case "startDate": a.startDate = value
            case "endDate": a.endDate = value
            case "duration": a.duration = value
            case "durationUnit": a.durationUnit = value
            default: break
            }
        }
        return a
    }
}
