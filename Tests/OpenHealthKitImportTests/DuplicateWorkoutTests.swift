import FoundationEssentials
import Testing
@testable import OpenHealthKitCore
@testable import OpenHealthKitImport

/// Rule 57: workouts an app wrote again (the same activity, start, end,
/// duration and totals; only the creation date differs) are kept, as
/// HealthKit keeps them, reported by the import and `ohk stats`, and
/// counted once in workout totals: the copy created first counts.
@Suite struct DuplicateWorkoutTests {
    private func workout(_ activity: String, km: String, kcal: String, created: String, start: String, end: String) -> String {
        " <Workout workoutActivityType=\"HKWorkoutActivityType\(activity)\" duration=\"30\" durationUnit=\"min\" "
            + "totalDistance=\"\(km)\" totalDistanceUnit=\"km\" totalEnergyBurned=\"\(kcal)\" totalEnergyBurnedUnit=\"Cal\" "
            + "sourceName=\"Connect\" creationDate=\"\(created)\" startDate=\"\(start)\" endDate=\"\(end)\"/>"
    }

    /// Three runs in November 2020, two of them written again by Connect
    /// (one of those twice), and a ride: seven workouts, four counted.
    private var body: String {
        [
            workout("Running", km: "5", kcal: "300", created: "2020-11-02 08:00:00 +0100",
                    start: "2020-11-02 07:00:00 +0100", end: "2020-11-02 07:30:00 +0100"),
            workout("Running", km: "5", kcal: "300", created: "2020-12-01 10:00:00 +0100",
                    start: "2020-11-02 07:00:00 +0100", end: "2020-11-02 07:30:00 +0100"),
            workout("Running", km: "5", kcal: "300", created: "2021-01-01 10:00:00 +0100",
                    start: "2020-11-02 07:00:00 +0100", end: "2020-11-02 07:30:00 +0100"),
            workout("Running", km: "8", kcal: "450", created: "2020-11-09 08:00:00 +0100",
                    start: "2020-11-09 07:00:00 +0100", end: "2020-11-09 07:30:00 +0100"),
            workout("Running", km: "8", kcal: "450", created: "2020-12-01 10:00:00 +0100",
                    start: "2020-11-09 07:00:00 +0100", end: "2020-11-09 07:30:00 +0100"),
            // The same start as the first run, but another distance: not a copy.
            workout("Running", km: "6", kcal: "300", created: "2020-11-16 08:00:00 +0100",
                    start: "2020-11-02 07:00:00 +0100", end: "2020-11-02 07:30:00 +0100"),
            workout("Cycling", km: "20", kcal: "500", created: "2020-11-20 08:00:00 +0100",
                    start: "2020-11-20 07:00:00 +0100", end: "2020-11-20 07:30:00 +0100"),
        ].joined(separator: "\n")
    }

    @Test func rule57_likelyDuplicateWorkoutsAreReportedAndCountedOnce() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", export(body))
        let store = dir + "/store"
        let imported = ohk(["import", dir + "/export.xml", "--store", store, "--json"])
        struct Report: Decodable { let workoutsAdded: Int; let likelyDuplicateWorkouts: Int }
        let report = try decode(Report.self, imported.output)
        #expect(report.workoutsAdded == 7 && report.likelyDuplicateWorkouts == 3, "\(imported.output)")
        let text = ohk(["import", dir + "/export.xml", "--store", store]).output
        #expect(text.contains("likely duplicates 3 workouts copy another"), "\(text)")
        let summary = ohk(["stats", "--store", store]).output
        #expect(summary.contains("Workout") && summary.contains("7 (3 likely duplicates)"), "\(summary)")
        // Totals count each workout once: 5 + 8 + 6 + 20 km, not 5 × 3 + 8 × 2 + 6 + 20.
        let csv = ohk(["stats", "Workout", "--by", "month", "--tz", "Europe/Paris", "--format", "csv", "--store", store]).output
        #expect(csv == "start,end,workouts,duration (min),distance (km),energy (kcal),duplicates not counted\n"
                + "2020-11-01T00:00:00+01:00,2020-12-01T00:00:00+01:00,4,120,39,1550,3\n", "\(csv)")
        let weekly = ohk(["stats", "Workout", "--by", "week", "--from", "2020-11-02", "--to", "2020-11-15", "--tz", "UTC",
                          "--format", "csv", "--store", store]).output.split(separator: "\n")
        #expect(weekly.dropFirst().map { $0.split(separator: ",")[2] } == ["2", "1"], "\(weekly)")
    }

    /// The rule itself, on samples: the copy created first counts, then
    /// the first given; a workout without a creation date counts last.
    @Test func rule57_theCopyCreatedFirstCounts() throws {
        let t = Date(timeIntervalSinceReferenceDate: 630_000_000)
        let source = Source(bundleIdentifier: "com.garmin.connect", name: "Connect")
        func run(_ created: Double?, km: Double = 5) throws -> Sample {
            try Sample.workout(Workout(activityType: 37, duration: 1800, totalEnergyBurned: 300, totalDistance: km * 1000),
                               start: t, end: t.addingTimeInterval(1800), source: source,
                               creationDate: created.map { t.addingTimeInterval($0) })
        }
        let samples = [try run(nil), try run(500), try run(100), try run(100), try run(100, km: 6)]
        #expect(WorkoutDuplicates.originals(samples) == [2, 2, nil, 2, nil])
    }
}
