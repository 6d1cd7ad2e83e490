import FoundationEssentials
import Glibc
import Synchronization
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
        #expect(r.notImported.isEmpty)
        #expect(r.routes == 2 && r.routesWithoutFile == 2)  // a loose XML, no GPX beside it
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
           <WorkoutEvent type="HKWorkoutEventTypeLap" date="2025-12-20 13:51:00 +0100" duration="30" durationUnit="min">
            <MetadataEntry key="HKLapLength" value="400 m"/>
           </WorkoutEvent>
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
        #expect(r.notImported.isEmpty && r.routes == 1 && r.routesWithoutFile == 1)
        let (hike, w) = try #require(try workouts(store).first)
        let start = hike.startDate
        #expect(w.activityType == 24 && w.duration == 119.5 * 60)
        #expect(w.totalEnergyBurned == nil && w.totalDistance == nil)
        // The workout's segment (with its metadata) and the activity's lap;
        // the activity's copy of the segment is not kept twice.
        #expect(w.events == [
            WorkoutEvent(type: 7, start: start, end: start.addingTimeInterval(3600), metadata: ["HKSegmentIndex": .string("1")]),
            WorkoutEvent(type: 3, start: start.addingTimeInterval(3600), end: start.addingTimeInterval(5400),
                         metadata: ["HKLapLength": .string("400 m")]),
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

/// Routes (rule 32): each `<WorkoutRoute>`'s GPX file, found in the zip
/// (before or after the XML), in the unzipped folder, or beside the XML.
@Suite struct RouteImportTests {
    /// A GPX file as the Health app writes it; its points out of time
    /// order, one with an invalid course (-1).
    private let gpx = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
     <metadata><time>2020-08-23T17:40:02Z</time></metadata>
     <trk><name>Route</name><trkseg>
      <trkpt lon="-122.4195" lat="37.7750"><ele>21.7</ele><time>2018-02-01T16:25:18Z</time><extensions><speed>1.5</speed><course>90</course><hAcc>3.5</hAcc><vAcc>2.6</vAcc></extensions></trkpt>
      <trkpt lon="-122.4194" lat="37.7749"><ele>21.5</ele><time>2018-02-01T16:25:10Z</time><extensions><speed>1.6</speed><course>-1.000000</course><hAcc>3.7</hAcc><vAcc>2.8</vAcc></extensions></trkpt>
     </trkseg></trk>
    </gpx>
    """

    /// Fixture B's first route file (its second has none here).
    private let routeFile = "workout-routes/route_2018-02-01_8.25am.gpx"

    private func routes(_ store: Store) throws -> [(Sample, WorkoutRoute)] {
        try store.anchoredQuery(type: TypeCatalogue.routeType, anchor: nil).samples.compactMap { s in
            guard case .route(let r) = s.value else { return nil }
            return (s, r)
        }
    }

    private func expectTheRoute(_ store: Store, _ r: ImportReport) throws {
        #expect(r.routes == 2 && r.routesAdded == 1 && r.routesWithoutFile == 1)
        let all = try routes(store)
        #expect(all.count == 1)
        let (sample, route) = try #require(all.first)
        // Its workout is the walk that names the file (2018-02-01, 15:46:59Z).
        let workouts = try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil).samples
        let walk = try #require(workouts.first { $0.startDate == Date(timeIntervalSince1970: 1_517_500_019) })
        #expect(route.workout == walk.uuid)
        #expect(route.locations.map(\.timestamp) == [Date(timeIntervalSince1970: 1_517_502_310), Date(timeIntervalSince1970: 1_517_502_318)])
        #expect(route.locations[0].latitude == 37.7749 && route.locations[0].longitude == -122.4194)
        #expect(route.locations[0].course == nil && route.locations[1].course == 90)
        #expect(route.locations[0].altitude == 21.5 && route.locations[0].speed == 1.6 && route.locations[0].horizontalAccuracy == 3.7)
        #expect(sample.metadata["HKMetadataKeySyncVersion"] == .number(2))
    }

    @Test func rule32_aZipsRouteFilesAreReadWhereverTheyAreInIt() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/route.gpx", gpx)
        writeText(dir + "/other.gpx", gpx)
        // The routes before the XML, as the Health app writes its zip, and
        // a file no workout names.
        makeZip(dir + "/e.zip", [("apple_health_export/" + routeFile, dir + "/route.gpx"),
                                 ("apple_health_export/workout-routes/unnamed.gpx", dir + "/other.gpx"),
                                 ("apple_health_export/export.xml", fixtureB)])
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.zip", into: store)
        try expectTheRoute(store, r)
        #expect(r.contents.contains { $0.kind == "WorkoutRoute" && $0.count == 2 && $0.imported == 1 })
        // The file read is not listed as left out; the other one is.
        #expect(r.filesNotImported == ["workout-routes/*.gpx": 1])
        let again = try importFile(dir + "/e.zip", into: store)
        #expect(again.routesAdded == 0 && again.routesAlreadyStored == 1)
        #expect(try routes(store).count == 1)
    }

    @Test func rule32_anUnzippedFolderAndALooseXMLFindTheirRouteFiles() throws {
        for loose in [false, true] {
            let dir = temporaryDirectory()
            mkdir(dir + "/apple_health_export", 0o755)
            mkdir(dir + "/apple_health_export/workout-routes", 0o755)
            writeBytes(dir + "/apple_health_export/export.xml", readBytes(fixtureB))
            writeText(dir + "/apple_health_export/" + routeFile, gpx)
            let store = try newStore()
            defer { store.close() }
            let r = try importFile(loose ? dir + "/apple_health_export/export.xml" : dir, into: store)
            try expectTheRoute(store, r)
        }
    }

    /// Routes are saved in batches of a bounded size in bytes, not only
    /// of samples: a batch of hundreds of routes would hold a hundred
    /// megabytes. With the bound at one byte, each route is its own commit.
    @Test func routeBatchesAreBoundedInBytes() throws {
        let dir = temporaryDirectory()
        mkdir(dir + "/apple_health_export", 0o755)
        mkdir(dir + "/apple_health_export/workout-routes", 0o755)
        writeBytes(dir + "/apple_health_export/export.xml", readBytes(fixtureB))
        writeText(dir + "/apple_health_export/" + routeFile, gpx)
        writeText(dir + "/apple_health_export/workout-routes/route_2018-02-10_2.25pm.gpx",
                  gpx.replacing("2018-02-01T16:25", with: "2018-02-10T19:00"))
        for (bound, commits) in [(4 << 20, 1), (1, 2)] {
            let store = try newStore()
            defer { store.close() }
            let routeCommits = Mutex(0)
            try store.setCommitHook { c in
                if c.types.contains(TypeCatalogue.routeType) { routeCommits.withLock { $0 += 1 } }
            }
            var options = ImportOptions()
            options.batchBulkBytes = bound
            let r = try AppleHealthImport.run(dir, into: store, options: options)
            #expect(r.routesAdded == 2)
            #expect(routeCommits.withLock { $0 } == commits)
        }
    }

    /// A file reference that climbs out of the export reads nothing.
    @Test func aRouteFileOutsideTheExportIsNotRead() throws {
        let dir = temporaryDirectory()
        mkdir(dir + "/apple_health_export", 0o755)
        writeText(dir + "/secret.gpx", gpx)
        let xml = String(decoding: readBytes(fixtureB), as: UTF8.self)
            .replacing("/workout-routes/route_2018-02-01_8.25am.gpx", with: "/../secret.gpx")
        writeText(dir + "/apple_health_export/export.xml", xml)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir, into: store)
        #expect(r.routesAdded == 0 && r.routesWithoutFile == 2)
        #expect(try routes(store).isEmpty)
    }

    @Test func aRouteFileThatIsNotGPXIsSkippedWithItsReason() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/route.gpx", "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"></trkpt></trkseg></trk>")
        makeZip(dir + "/e.zip", [("apple_health_export/export.xml", fixtureB), ("apple_health_export/" + routeFile, dir + "/route.gpx")])
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.zip", into: store)
        #expect(r.failure == nil && r.routesAdded == 0)
        #expect(r.skipped[SkipReason(kind: .badValue, subject: "route file: malformed GPX")] == 1)
        #expect(try routes(store).isEmpty)
    }
}

/// Correlations (rule 33): a `<Correlation>` and its nested `<Record>`s,
/// which Apple's exports also list at top level.
@Suite struct CorrelationImportTests {
    /// Two records and their blood-pressure correlation; `withCorrelation`
    /// false leaves it out, `loneSystolic` makes its members two systolic.
    private func export(correlationFirst: Bool, withCorrelation: Bool = true, loneSystolic: Bool = false) -> String {
        let attributes = """
        sourceName="Beurer HealthCoach" sourceVersion="1.3.5.1" creationDate="2024-04-10 19:14:14 -0400" \
        startDate="2023-07-23 09:24:00 -0400" endDate="2023-07-23 09:24:00 -0400"
        """
        let meta = "<MetadataEntry key=\"HKExternalUUID\" value=\"IO009MEA000021\"/>"
        let sys = "<Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" \(attributes) unit=\"mmHg\" value=\"113\">\(meta)</Record>"
        let dia = "<Record type=\"HKQuantityTypeIdentifierBloodPressureDiastolic\" \(attributes) unit=\"mmHg\" value=\"66\">\(meta)</Record>"
        let members = loneSystolic ? sys + sys.replacing("113", with: "114") : dia + sys
        let correlation = withCorrelation
            ? "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" \(attributes)>\(meta)\(members)</Correlation>" : ""
        let body = correlationFirst ? correlation + sys + dia : sys + dia + correlation
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\(body)</HealthData>\n"
    }

    /// A blood pressure with a systolic value alone, and one whose member
    /// the store holds deleted: each skipped, the rest imported.
    @Test func rule33_aCorrelationTheStoreRefusesIsSkippedNotTheImport() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/lone.xml", export(correlationFirst: false, loneSystolic: true))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/lone.xml", into: store)
        #expect(r.failure == nil && r.correlations == 1 && r.correlationsAdded == 0)
        #expect(r.skipped[SkipReason(kind: .invalidSample, subject: "members of HKCorrelationTypeIdentifierBloodPressure")] == 1)
        #expect(r.added >= 1)

        // A member deleted in the store before the correlation is imported.
        writeText(dir + "/pair.xml", export(correlationFirst: false))
        let other = try newStore()
        defer { other.close() }
        let records = dir + "/records.xml"
        writeText(records, export(correlationFirst: false, withCorrelation: false))
        _ = try importFile(records, into: other)
        let dia = try other.anchoredQuery(type: SampleType.named("BloodPressureDiastolic"), anchor: nil).samples
        try other.delete(uuids: dia.map(\.uuid))
        let again = try importFile(dir + "/pair.xml", into: other)
        #expect(again.failure == nil && again.correlationsAdded == 0)
        #expect(again.skipped[SkipReason(kind: .invalidSample, subject: "members of HKCorrelationTypeIdentifierBloodPressure")] == 1)
    }

    @Test func rule33_aCorrelationGroupsTheTopLevelRecordsItRepeats() throws {
        for correlationFirst in [false, true] {
            let dir = temporaryDirectory()
            writeText(dir + "/export.xml", export(correlationFirst: correlationFirst))
            let store = try newStore()
            defer { store.close() }
            let r = try importFile(dir + "/export.xml", into: store)
            #expect(r.records == 2 && r.correlations == 1 && r.correlationsAdded == 1)
            #expect(r.added + r.alreadyStored == 2, "each record once, whichever comes first")
            let sys = try store.anchoredQuery(type: SampleType.named("BloodPressureSystolic"), anchor: nil).samples
            let dia = try store.anchoredQuery(type: SampleType.named("BloodPressureDiastolic"), anchor: nil).samples
            #expect(sys.count == 1 && dia.count == 1)
            let bp = try store.anchoredQuery(type: SampleType.named("BloodPressure"), anchor: nil).samples
            #expect(bp.count == 1)
            #expect(bp.first?.value == .correlation(Correlation(members: [sys[0].uuid, dia[0].uuid])))
            #expect(bp.first?.metadata["HKExternalUUID"] == .string("IO009MEA000021"))
            let again = try importFile(dir + "/export.xml", into: store)
            #expect(again.correlationsAdded == 0 && again.correlationsAlreadyStored == 1 && again.added == 0)
        }
    }
}

extension RouteImportTests {
    /// Exports from before iOS 13 hold a route's locations inline, and
    /// some routes there have no source or dates of their own.
    @Test func rule32_inlineLocationsOfOldExportsAreARoute() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2019-03-01 18:00:00 -0500" endDate="2019-03-01 18:30:00 -0500">
          <WorkoutRoute creationDate="2019-03-01 18:30:30 -0500">
           <Location date="2019-03-01 18:00:05 -0500" latitude="40.712900" longitude="-74.005900" altitude="10.8" horizontalAccuracy="4" verticalAccuracy="3" course="-1" speed="3.4"/>
           <Location date="2019-03-01 18:00:00 -0500" latitude="40.712800" longitude="-74.006000" altitude="10.5" horizontalAccuracy="5" verticalAccuracy="3" course="180" speed="3.5"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>
        """)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.routes == 1 && r.routesAdded == 1 && r.routesWithoutFile == 0)
        let (sample, route) = try #require(try routes(store).first)
        let start = Date(timeIntervalSince1970: 1_551_481_200)  // 2019-03-01 23:00:00Z
        #expect(sample.startDate == start && sample.endDate == start.addingTimeInterval(5))
        #expect(sample.source.name == "Watch")
        #expect(route.locations.map(\.latitude) == [40.7128, 40.7129])
        #expect(route.locations[0].course == 180 && route.locations[1].course == nil && route.locations[1].speed == 3.4)
        let workout = try #require(try store.anchoredQuery(type: TypeCatalogue.workoutType, anchor: nil).samples.first)
        #expect(route.workout == workout.uuid)
    }
}
