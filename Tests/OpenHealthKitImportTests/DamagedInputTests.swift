import FoundationEssentials
import Glibc
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

@Suite struct DamagedInput {
    /// Bytes of `file` up to the middle of the line holding `marker`.
    private func cut(_ file: String, inLineWith marker: String) -> [UInt8] {
        let bytes = readBytes(file)
        let text = String(decoding: bytes, as: UTF8.self)
        let at = text.utf8.distance(from: text.utf8.startIndex, to: text.firstRange(of: marker)!.lowerBound)
        return Array(bytes[..<(at + 20)])
    }

    @Test func aTruncatedXMLImportsWhatPrecedesTheCutAndTheFullFileAddsTheRest() throws {
        let dir = temporaryDirectory()
        // Cut inside the Renpho BodyFatPercentage record: the 13 records before it are whole.
        writeBytes(dir + "/cut.xml", cut(fixtureB, inLineWith: "HKQuantityTypeIdentifierBodyFatPercentage"))
        let store = try newStore()
        defer { store.close() }
        let partial = try importFile(dir + "/cut.xml", into: store, batchSize: 4)
        guard case .truncated(let message)? = partial.failure else {
            Issue.record("expected a truncated-input failure, got \(String(describing: partial.failure))")
            return
        }
        #expect(message.contains("line"))
        #expect(partial.failure?.advice.contains("complete export") == true)
        // Height, BodyMass ×7 (one before the workouts, six after), and
        // the five workouts (lines 149 to 210).
        #expect(partial.added == 8 && partial.workoutsAdded == 5)
        let rest = try importFile(fixtureB, into: store)
        #expect(rest.failure == nil)
        #expect(rest.added == 28 && rest.workoutsAdded == 0)
        #expect(rest.alreadyStored == 8 && rest.workoutsAlreadyStored == 5)
        #expect(try store.counts().samples == 42)  // and the audiogram
    }

    @Test func malformedXMLStopsWithItsLineAndKeepsWhatCameBefore() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/bad.xml", export([record(value: "70"), record(value: "71"), " <Record type=\"x\"></Recrd>",
                                            record(value: "72")].joined(separator: "\n")))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/bad.xml", into: store)
        guard case .damaged(let message)? = r.failure else {
            Issue.record("expected a damaged-input failure, got \(String(describing: r.failure))")
            return
        }
        #expect(message.contains("line 6"))
        #expect(message.contains("mismatched tag"))
        #expect(r.added == 2)
    }

    @Test func unknownElementsAreCountedNotFatal() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/e.xml", export([record(), " <FutureThing a=\"1\"><Inner/></FutureThing>",
                                          record(value: "71", inner: "<Surprise/>")].joined(separator: "\n")))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.xml", into: store)
        #expect(r.failure == nil)
        #expect(r.added == 2)
        // Each element not read is counted where it is: an unknown one at
        // the top (not what it holds), and one inside a record.
        #expect(r.notImported == ["FutureThing": 1, "Record > Surprise": 1])
        #expect(r.contents.contains(ImportReport.Row(kind: "Record > Surprise", count: 1, imported: 0,
                                                     note: "not an element Apple's exports have there: not read")))
        #expect(r.contents.contains(ImportReport.Row(kind: "FutureThing", count: 1, imported: 0,
                                                     note: "not an element of Apple's exports")))
    }

    @Test func recordsThatCannotBeMappedAreSkippedByReason() throws {
        let dir = temporaryDirectory()
        let records = [
            record(),                                                          // fine
            record(type: "HKDataTypeSleepDurationGoal", unit: "hr", value: "8"),
            record(unit: "furlong"),
            record(unit: "mi"),                                                // a length for a mass
            record(unit: nil),
            record(value: "heavy"),
            record(start: "2024-13-01 08:00:00 +0200"),
            record(start: "2024-05-01 09:00:00 +0200", end: "2024-05-01 08:00:00 +0200"),  // ends before it starts
            record(type: "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisDreaming"),
            record(type: "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: nil),
            record(type: "HKCategoryTypeIdentifierMindfulSession", unit: nil, value: nil),  // NotApplicable: no value
            record(inner: "<MetadataEntry key=\"HKMetadataKeySyncIdentifier\" value=\"only-the-id\"/>"),
            record(value: "-70"),                                              // no mass is negative (rule 56)
        ]
        writeText(dir + "/e.xml", export(records.joined(separator: "\n")))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.xml", into: store)
        #expect(r.failure == nil)
        #expect(r.records == 13)
        #expect(r.added == 2)
        let mass = "HKQuantityTypeIdentifierBodyMass", sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        #expect(r.skipped == [
            SkipReason(kind: .unknownType, subject: "HKDataTypeSleepDurationGoal"): 1,
            SkipReason(kind: .badUnit, subject: "furlong"): 1,
            SkipReason(kind: .incompatibleUnit, subject: "mi for \(mass)"): 1,
            SkipReason(kind: .missingField, subject: "unit of \(mass)"): 1,
            SkipReason(kind: .badValue, subject: mass): 2,
            SkipReason(kind: .badDate, subject: mass): 2,
            SkipReason(kind: .badValue, subject: sleep): 2,
            SkipReason(kind: .invalidSample, subject: mass): 1,
        ])
        #expect(r.firstLine[SkipReason(kind: .badUnit, subject: "furlong")] == 6)
        let mindful = try samples(store, "HKCategoryTypeIdentifierMindfulSession")
        #expect(mindful.map(\.value) == [.category(0)])
    }

    @Test func aFileThatIsNotAnExportIsRefusedBeforeAnythingIsWritten() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/other.xml", "<?xml version=\"1.0\"?><feed><Record type=\"x\"/></feed>")
        let store = try newStore()
        defer { store.close() }
        #expect(throws: ImportError.notAnExport("the root element is <feed>, not <HealthData>")) {
            _ = try importFile(dir + "/other.xml", into: store)
        }
        #expect(throws: ImportError.cannotOpen("\(dir)/missing.zip: No such file or directory")) {
            _ = try importFile(dir + "/missing.zip", into: store)
        }
        // A folder is searched for the export's XML: this one has none.
        #expect(throws: ImportError.notAnExport("\(dir) holds no export XML (a file whose root is <HealthData>); it holds other.xml")) {
            _ = try importFile(dir, into: store)
        }
        #expect(try store.counts().samples == 0)
    }

    @Test func aZipWithoutExportXMLIsNotAnExport() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/notes.txt", "hello")
        makeZip(dir + "/x.zip", [("notes.txt", dir + "/notes.txt")])
        let store = try newStore()
        defer { store.close() }
        #expect(throws: ImportError.notAnExport("\(dir)/x.zip holds no export XML (an entry whose root is <HealthData>); it holds notes.txt")) {
            _ = try importFile(dir + "/x.zip", into: store)
        }
    }

    @Test func aTruncatedZipImportsWhatPrecedesTheCutAndResumes() throws {
        let dir = temporaryDirectory()
        generatedExport(dir + "/export.xml", size: "3M")
        makeZip(dir + "/export.zip", [("apple_health_export/export.xml", dir + "/export.xml")])
        let zipped = readBytes(dir + "/export.zip")
        writeBytes(dir + "/cut.zip", Array(zipped[..<(zipped.count * 6 / 10)]))

        let whole = try newStore()
        let wholeReport = try importFile(dir + "/export.zip", into: whole)
        let expected = wholeReport.added
        let expectedSamples = try whole.counts().samples
        whole.close()

        let store = try newStore()
        defer { store.close() }
        let partial = try importFile(dir + "/cut.zip", into: store, batchSize: 1000)
        // A zip cut short (a download that stopped) is truncated, not
        // corrupt: the advice is to import a complete one.
        guard case .truncated(let message)? = partial.failure else {
            Issue.record("expected a truncated-input failure, got \(String(describing: partial.failure))")
            return
        }
        #expect(message.contains("zip ends inside its XML"))
        #expect(partial.failure?.advice.contains("complete export") == true)
        #expect(partial.added > expected / 3)
        #expect(partial.added < expected)
        let rest = try importFile(dir + "/export.zip", into: store)
        #expect(rest.failure == nil)
        #expect(rest.alreadyStored == partial.added)
        #expect(try store.counts().samples == expectedSamples)
    }

    /// An import killed mid-way leaves whole batches (each one transaction,
    /// rule 13 of docs/semantics.md); the next run adds exactly the rest.
    @Test func rule13_aKilledImportLeavesWholeBatchesAndTheNextRunResumes() throws {
        let dir = temporaryDirectory()
        generatedExport(dir + "/export.xml", size: "8M", seed: 7)
        let whole = try newStore()
        _ = try importFile(dir + "/export.xml", into: whole)
        let expected = try whole.counts().samples
        whole.close()

        let storeDir = dir + "/store"
        let store = try Store(directory: storeDir)
        defer { store.close() }
        let firstCommit = Waiter()
        let observer = ObserverQuery(type: try SampleType.named("HKQuantityTypeIdentifierStepCount")) { _, _, done in
            firstCommit.signal()
            done()
        }
        try store.execute(observer)
        guard let (pid, fd) = spawnWithOutput(siblingExecutable("ohk"),
                                              ["import", dir + "/export.xml", "--store", storeDir, "--batch-size", "300", "--quiet"]) else {
            Issue.record("cannot start ohk")
            return
        }
        #expect(firstCommit.wait(seconds: 60))
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(fd)
        observer.stop()
        let left = try store.counts().samples
        #expect(left > 0)
        #expect(left < expected)
        #expect(left % 300 == 0)  // whole batches only
        let rest = try importFile(dir + "/export.xml", into: store)
        // Records, heartbeat series, workouts and audiograms share the
        // batches; correlations, clinical records and ECGs come after the XML.
        #expect(rest.alreadyStored + rest.heartbeatSeriesAlreadyStored + rest.workoutsAlreadyStored
                + rest.audiogramsAlreadyStored + rest.correlationsAlreadyStored + rest.clinicalRecordsAlreadyStored
                + rest.electrocardiogramsAlreadyStored == left)
        #expect(try store.counts().samples == expected)
    }
}

/// A one-shot event with a bounded wait.
final class Waiter: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var fired = false

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        fired = true
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// True when signalled within `seconds`.
    func wait(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !fired {
            if pthread_cond_timedwait(&condition, &mutex, &deadline) != 0 { return fired }
        }
        return true
    }

    @Test func aZipCorruptInItsMiddleIsDamagedNotTruncated() throws {
        let dir = temporaryDirectory()
        generatedExport(dir + "/export.xml", size: "3M")
        makeZip(dir + "/export.zip", [("apple_health_export/export.xml", dir + "/export.xml")])
        var zipped = readBytes(dir + "/export.zip")
        // Overwrite a stretch of the deflated data well before its end.
        for i in (zipped.count * 4 / 10)..<(zipped.count * 4 / 10 + 4096) { zipped[i] = UInt8(truncatingIfNeeded: i &* 131) }
        writeBytes(dir + "/bad.zip", zipped)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/bad.zip", into: store, batchSize: 1000)
        guard case .damaged? = r.failure else {
            Issue.record("expected a damaged-input failure, got \(String(describing: r.failure))")
            return
        }
        #expect(r.failure?.advice.contains("export again") == true)
        #expect(r.added > 0)
    }

    /// After damage the files the XML names are not read: their rows say
    /// so, and a run on the whole export adds them.
    @Test func filesNamedBeforeTheDamageAreReportedNotRead() throws {
        let dir = temporaryDirectory()
        let folder = dir + "/apple_health_export"
        mkdir(dir + "/apple_health_export", 0o755)
        mkdir(folder + "/workout-routes", 0o755)
        writeText(folder + "/workout-routes/route_1.gpx", "<gpx/>")  // not read
        let workout = """
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" \
        startDate="2024-05-01 07:00:00 +0200" endDate="2024-05-01 07:30:00 +0200">
          <WorkoutRoute sourceName="Watch" startDate="2024-05-01 07:00:00 +0200" endDate="2024-05-01 07:30:00 +0200">
           <FileReference path="/workout-routes/route_1.gpx"/>
          </WorkoutRoute>
         </Workout>
        """
        // Cut inside the record after the workout.
        let whole = export([record(), workout, record(value: "71")].joined(separator: "\n"))
        writeText(folder + "/export.xml", String(whole.prefix(whole.count - 30)))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(folder, into: store)
        guard case .truncated? = r.failure else {
            Issue.record("expected a truncated-input failure, got \(String(describing: r.failure))")
            return
        }
        #expect(r.contents.contains { $0.kind == "WorkoutRoute" && $0.note.hasSuffix("1 not read: the import stopped before the files") })
        #expect(r.contents.contains(ImportReport.Row(kind: "workout-routes/*.gpx", count: 1, imported: 0,
                                                     note: "not read: the import stopped before the files")))
    }

    /// A stop by the caller keeps the report whole: the elements read, and
    /// the files not read because of the stop.
    @Test func aStoppedImportReportsWhatItReadAndTheFilesItDidNot() throws {
        let dir = temporaryDirectory()
        let folder = dir + "/apple_health_export"
        mkdir(folder, 0o755)
        mkdir(folder + "/workout-routes", 0o755)
        writeText(folder + "/workout-routes/route_1.gpx", "<gpx/>")  // not read
        writeBytes(folder + "/export.xml", readBytes(fixtureB))
        let store = try newStore()
        defer { store.close() }
        let r = try AppleHealthImport.run(folder, into: store, options: ImportOptions(shouldStop: { true }))
        #expect(r.failure == .cancelled)
        #expect(r.exportDate == "2021-01-22 17:37:58 -0800" && r.characteristics?.biologicalSex == .male)
        #expect(r.contents.contains(ImportReport.Row(kind: "workout-routes/*.gpx", count: 1, imported: 0,
                                                     note: "not read: the import stopped before the files")))
    }
}
