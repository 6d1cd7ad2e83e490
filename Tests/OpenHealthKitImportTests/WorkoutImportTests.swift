import FoundationEssentials
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

/// `<Workout>` elements become workouts (rule 31). The expected figures
/// were read from the fixtures with Python's ElementTree and converted by
/// hand here (1 mi = 1,609.344 m, 1 Cal = 1 kcal), not taken from this
/// importer's output.
@Suite struct WorkoutImportTests {
    private func date(_ unix: Double) -> Date { Date(timeIntervalSince1970: unix) }

    private func workouts(_ store: Store) throws -> [(Sample, Workout)] {
        try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil).samples.compactMap { s in
            guard case .workout(let w) = s.value else { return nil }
            return (s, w)
        }
    }

    @Test func rule31_exportWorkoutsAreImportedWithTheirEvents() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureB, into: store)
        #expect(r.workouts == 5 && r.workoutsAdded == 5)
        #expect(r.notImported == ["Audiogram": 1, "Me": 1, "WorkoutRoute": 2])
        #expect(r.contents.contains(ImportReport.Row(kind: "Workout", count: 5, imported: 5,
                                                     note: "with their events, statistics and activities")))
        let all = try workouts(store)
        #expect(all.count == 5)
        #expect(all.map(\.1.activityType).sorted() == [11, 52, 52, 52, 52])
        #expect(Set(all.map(\.0.source.name)) == ["Lose It!", "DonorOne's Apple\u{a0}Watch"])

        // The long walk of 2018-02-10 with its pause and resume.
        let (walk, w) = try #require(all.first { $0.0.startDate == date(1_518_288_610) })
        #expect(walk.endDate == date(1_518_301_527))
        #expect(w.activityType == 52)
        #expect(abs(w.duration - 204.681023834149 * 60) < 1e-9)
        #expect(abs(w.totalEnergyBurned! - 1091.486999999997) < 1e-9)
        #expect(abs(w.totalDistance! - 7.818211779985165 * 1609.344) < 1e-6)
        #expect(w.events == [WorkoutEvent(type: 1, start: date(1_518_294_872), end: date(1_518_294_872)),
                             WorkoutEvent(type: 2, start: date(1_518_295_508), end: date(1_518_295_508))])
        #expect(walk.utcOffset == -28_800)
        #expect(walk.metadata["HKTimeZone"] == .string("America/Los_Angeles"))

        // Importing again adds nothing.
        let again = try importFile(fixtureB, into: store)
        #expect(again.workoutsAdded == 0 && again.workoutsAlreadyStored == 5)
        #expect(try workouts(store).count == 5)
    }

    /// Export A's walk has eight segments, two of them starting together:
    /// kept as the export has them, in date order.
    @Test func segmentsAreKeptAsTheExportHasThem() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureA, into: store)
        let (walk, w) = try #require(try workouts(store).first)
        #expect(walk.startDate == date(1_545_062_099) && walk.endDate == date(1_545_065_282))
        #expect(w.events.count == 8 && w.events.allSatisfy { $0.type == 7 })
        let last = try #require(w.events.last)
        #expect(last.start == date(1_545_064_726))
        #expect(abs(last.end.timeIntervalSince(last.start) - 9.180822054545084 * 60) < 1e-6)
        let together = w.events.filter { $0.start == walk.startDate }.map { $0.end.timeIntervalSince($0.start) / 60 }
        #expect(together.count == 2 && abs(together[0] - 11.80219223300616) < 1e-9 && abs(together[1] - 17.86551037430763) < 1e-9)
        #expect(walk.metadata["HKIndoorWorkout"] == .bool(false))
    }

    @Test func rule31_newerExportsNestActivitiesStatisticsAndEventMetadata() throws {
        let dir = temporaryDirectory()
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2025-12-21 10:00:00 +0100"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeHiking" duration="119.5" durationUnit="min" sourceName="Watch" sourceVersion="26.2" creationDate="2025-12-20 14:50:20 +0100" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-12-20 12:51:00 +0100" duration="60" durationUnit="min">
           <MetadataEntry key="HKSegmentIndex" value="1"/>
          </WorkoutEvent>
          <WorkoutActivity uuid="936B9E1D-52B9-41CA-BCA9-9654D43F004E" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100" duration="119.5" durationUnit="min">
           <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-12-20 12:51:00 +0100" duration="60" durationUnit="min"/>
           <WorkoutEvent type="HKWorkoutEventTypeLap" date="2025-12-20 13:51:00 +0100" duration="30" durationUnit="min"/>
           <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100" sum="17599" unit="count"/>
           <MetadataEntry key="HKElevationAscended" value="45443 cm"/>
          </WorkoutActivity>
          <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100" average="120" minimum="75" maximum="157" unit="count/min"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100" sum="1389.98" unit="kcal"/>
          <WorkoutRoute sourceName="Watch" startDate="2025-12-20 12:51:00 +0100" endDate="2025-12-20 14:51:00 +0100">
           <FileReference path="/workout-routes/route_2025-12-20_2.51pm.gpx"/>
          </WorkoutRoute>
         </Workout>
         <Workout workoutActivityType="HKWorkoutActivityTypeSleeping" sourceName="Watch" startDate="2025-12-20 22:00:00 +0100" endDate="2025-12-21 06:00:00 +0100"/>
        </HealthData>
        """
        writeText(dir + "/export.xml", xml)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.workouts == 2 && r.workoutsAdded == 1)
        #expect(r.skipped == [SkipReason(kind: .badValue, subject: "workoutActivityType of HKWorkoutTypeIdentifier"): 1])
        #expect(r.notImported == ["WorkoutRoute": 1])
        let (hike, w) = try #require(try workouts(store).first)
        let start = hike.startDate
        #expect(w.activityType == 24 && w.duration == 119.5 * 60)
        #expect(w.totalEnergyBurned == nil && w.totalDistance == nil)
        // The workout's segment (with its metadata) and the activity's lap;
        // the activity's copy of the segment is not kept twice.
        #expect(w.events == [
            WorkoutEvent(type: 7, start: start, end: start.addingTimeInterval(3600), metadata: ["HKSegmentIndex": .string("1")]),
            WorkoutEvent(type: 3, start: start.addingTimeInterval(3600), end: start.addingTimeInterval(5400)),
        ])
        let activity = try #require(w.activities.first)
        #expect(activity.uuid == UUID(uuidString: "936B9E1D-52B9-41CA-BCA9-9654D43F004E"))
        #expect(activity.activityType == 24 && activity.duration == 119.5 * 60 && activity.end == start.addingTimeInterval(7200))
        #expect(activity.metadata["HKElevationAscended"] == .string("45443 cm"))
        #expect(activity.statistics.map(\.type.identifier) == ["HKQuantityTypeIdentifierStepCount"])
        #expect(activity.statistics.first?.sum == 17599)
        let heart = try #require(w.statistics.first { $0.type.identifier == "HKQuantityTypeIdentifierHeartRate" })
        // Heart rate is stored in count/s: 120 count/min is 2 count/s.
        #expect(abs(heart.average! - 2) < 1e-12 && abs(heart.minimum! - 1.25) < 1e-12 && heart.sum == nil)
        let energy = try #require(w.statistics.first { $0.type.identifier == "HKQuantityTypeIdentifierActiveEnergyBurned" })
        #expect(energy.sum == 1389.98)
    }
}
