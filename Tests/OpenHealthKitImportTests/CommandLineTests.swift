import FoundationEssentials
import Glibc
import Testing
import OpenHealthKitCore

/// `ohk` as users run it: a separate process, its output and exit code.
@Suite struct CommandLine {
    struct ImportJSON: Decodable { let records: Int; let added: Int; let alreadyStored: Int; let failure: String? }
    struct StatsJSON: Decodable {
        struct Counts: Decodable { let samples: Int; let deletedObjects: Int }
        let samples: Int; let deletedObjects: Int; let types: [String: Counts]; let anchor: String
    }
    struct SampleJSON: Decodable {
        let uuid: String; let type: String; let value: Double; let unit: String?; let source: String
        let creationDate: String?; let utcOffset: Int?
    }
    struct DeletedJSON: Decodable { let uuid: String; let type: String }
    struct Line: Decodable { let added: SampleJSON?; let deleted: DeletedJSON?; let anchor: String? }
    struct QueryJSON: Decodable { let samples: [SampleJSON]; let deletedObjects: [DeletedJSON]; let anchor: String }

    private func lines(_ output: String) throws -> [Line] {
        try output.split(separator: "\n").map { try decode(Line.self, String($0)) }
    }

    private func importedStore() throws -> String {
        let store = temporaryDirectory() + "/store"
        let r = ohk(["import", fixtureB, "--store", store, "--json"])
        #expect(r.status == 0)
        let report = try decode(ImportJSON.self, r.output)
        #expect(report.records == 37 && report.added == 36)
        return store
    }

    @Test func importThenStatsThenAgainAddsNothing() throws {
        let store = try importedStore()
        let stats = try decode(StatsJSON.self, ohk(["stats", "--store", store, "--json"]).output)
        #expect(stats.samples == 42)  // 36 records, 5 workouts and an audiogram
        #expect(stats.types["HKQuantityTypeIdentifierBodyMass"]?.samples == 7)
        #expect(stats.types["HKWorkoutTypeIdentifier"]?.samples == 5)
        let again = try decode(ImportJSON.self, ohk(["import", fixtureB, "--store", store, "--json"]).output)
        #expect(again.added == 0 && again.alreadyStored == 36)
        let text = ohk(["import", fixtureB, "--store", store]).output
        #expect(text.contains("unknown type: c: 1 (first at line 217)"))
        #expect(text.contains("Audiogram") && text.contains("2 without their file in the export"), "\(text)")
        #expect(text.contains("Workout                  5  imported; with their events, statistics and activities; 5 already stored"), "\(text)")
    }

    /// Rule 38: `ohk stats` shows the characteristics an export's `<Me>` set.
    @Test func rule38_statsShowsTheCharacteristicsOfTheExport() throws {
        let store = try importedStore()
        struct Me: Decodable { let characteristics: [String: String] }
        let me = try decode(Me.self, ohk(["stats", "--store", store, "--json"]).output)
        #expect(me.characteristics == ["dateOfBirth": "1971-07-09", "biologicalSex": "Male"])
        #expect(ohk(["stats", "--store", store]).output.contains("characteristics  dateOfBirth 1971-07-09, biologicalSex Male"))
    }

    /// The quickstart's story: snapshot, one change, exactly that change.
    @Test func changesFromTheReturnedAnchorShowExactlyTheNewSample() throws {
        let store = try importedStore()
        let snapshot = try lines(ohk(["changes", "--since", "none", "--store", store]).output)
        #expect(snapshot.compactMap(\.added).count == 42)  // records, workouts and an audiogram
        let anchor = try #require(snapshot.last?.anchor)
        let add = ohk(["add", "BodyMass", "72.5", "--unit", "kg", "--start", "2024-03-01T08:00:00Z", "--store", store])
        #expect(add.status == 0)
        let uuid = add.output.split(separator: "\n").first.map(String.init) ?? ""
        let delta = try lines(ohk(["changes", "--since", anchor, "--store", store]).output)
        #expect(delta.count == 2)
        #expect(delta.first?.added?.uuid == uuid)
        #expect(delta.first?.added?.value == 72.5)
        #expect(delta.first?.added?.unit == "g" || delta.first?.added?.unit == "kg")
        #expect(delta.first?.added?.creationDate == nil && delta.first?.added?.utcOffset == nil)
        let deleted = ohk(["delete", uuid, "--store", store])
        #expect(deleted.status == 0)
        let after = try lines(ohk(["changes", "--since", try #require(delta.last?.anchor), "--store", store]).output)
        #expect(after.compactMap(\.deleted).map(\.uuid) == [uuid])
    }

    @Test func anAnchorFileKeepsThePlaceBetweenRuns() throws {
        let store = try importedStore()
        let file = temporaryDirectory() + "/state.anchor"
        #expect(ohk(["changes", "--since", "none", "--anchor-file", file, "--store", store]).status == 0)
        let nothing = try lines(ohk(["changes", "--anchor-file", file, "--store", store]).output)
        #expect(nothing.count == 1 && nothing[0].anchor != nil)
        _ = ohk(["add", "StepCount", "12", "--store", store])
        let one = try lines(ohk(["changes", "--anchor-file", file, "--store", store]).output)
        #expect(one.compactMap(\.added).map(\.type) == ["HKQuantityTypeIdentifierStepCount"])
    }

    /// `ohk check` on an imported store: ok, with its counts.
    @Test func checkReportsAnImportedStoreClean() throws {
        let store = try importedStore()
        let r = ohk(["check", "--store", store])
        #expect(r.status == 0 && r.output.hasPrefix("ok: ") && r.output.contains("samples"), "\(r.output)")
    }

    /// A compound unit needs no quotes after its number: of the three
    /// walking heart-rate averages (87, 112.5 and 89 count/min), one.
    @Test func compoundUnitsNeedNoQuotesInWhere() throws {
        let store = try importedStore()
        let walking = ohk(["query", "WalkingHeartRateAverage", "--where", "quantity > 100 count/min", "--format", "csv",
                           "--store", store])
        #expect(walking.status == 0 && walking.output.split(separator: "\n").count == 1 + 1, "\(walking.output)")
    }

    /// Rule 34: `ohk rebuild-statistics` reads every sample again, and the
    /// weekly figures it gives are the ones the writes kept.
    @Test func rule34_rebuildStatisticsKeepsEveryFigure() throws {
        let store = try importedStore()
        let daily = ["stats", "BodyMass", "--by", "week", "--average", "--max", "--most-recent", "--by-source", "--format", "csv",
                     "--store", store]
        let before = ohk(daily)
        let r = ohk(["rebuild-statistics", "--store", store])
        #expect(r.status == 0 && r.output.hasPrefix("rebuilt from ") && !r.output.hasPrefix("rebuilt from 0 "), "\(r.output)")
        let after = ohk(daily)
        #expect(before.status == 0 && before.output.split(separator: "\n").count > 1 && after.output == before.output,
                "\(before.output)")
    }

    /// Rule 23: `ohk check` on a store with damaged pages names them and
    /// exits 1, without opening the store through LMDB.
    @Test func rule23_checkNamesDamagedPagesAndExits1() throws {
        let store = try importedStore()
        #expect(renumberPages(store) > 0)
        let r = ohk(["check", "--store", store])
        #expect(r.status == 1 && r.output.contains("says it is page"), "\(r.status) \(r.output)")
    }

    /// Rule 55: a bare number is refused where the type's display and
    /// canonical units differ (a heart rate of 60 would be 60 count/s), and
    /// the message names both units; where they agree it is in that unit.
    @Test func rule55_aBareNumberNeedsAUnitWhereDisplayAndCanonicalDiffer() throws {
        let store = temporaryDirectory() + "/store"
        let bare = ohk(["add", "HeartRate", "60", "--store", store], mergeStderr: true)
        #expect(bare.status == 64 && bare.output.contains("count/min") && bare.output.contains("count/s"), "\(bare.output)")
        #expect(ohk(["add", "StepCount", "60", "--store", store]).status == 0)
        let steps = ohk(["query", "StepCount", "--format", "csv", "--store", store]).output
        #expect(steps.contains(",60,count,"), "\(steps)")
    }

    /// Rule 59 from the command line: sleep per night, sources merged (two
    /// sources' time in bed counts once), a night filed under the day it
    /// ends, noon to noon in the query's zone.
    @Test func rule59_ohkStatsGivesSleepPerNight() throws {
        let dir = temporaryDirectory()
        func sleep(_ value: String, _ source: String, _ start: String, _ end: String) -> String {
            " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(source)\" "
                + "value=\"HKCategoryValueSleepAnalysis\(value)\" startDate=\"\(start)\" endDate=\"\(end)\"/>"
        }
        writeText(dir + "/export.xml", export([
            sleep("InBed", "iPhone", "2020-11-01 22:00:00 +0100", "2020-11-02 07:00:00 +0100"),
            sleep("InBed", "Sleep app", "2020-11-01 22:30:00 +0100", "2020-11-02 07:30:00 +0100"),
            sleep("AsleepCore", "Apple Watch", "2020-11-01 23:00:00 +0100", "2020-11-02 03:00:00 +0100"),
            sleep("AsleepDeep", "Apple Watch", "2020-11-02 03:00:00 +0100", "2020-11-02 04:30:00 +0100"),
        ].joined(separator: "\n")))
        let store = dir + "/store"
        #expect(ohk(["import", dir + "/export.xml", "--store", store]).status == 0)
        let csv = ohk(["stats", "SleepAnalysis", "--from", "2020-11-02", "--to", "2020-11-03", "--tz", "Europe/Paris",
                       "--format", "csv", "--store", store]).output
        #expect(csv == "night,end,InBed (h),AsleepCore (h),AsleepDeep (h),any (h)\n"
                + "2020-11-02,2020-11-02T12:00:00+01:00,9.5,4,1.5,9.5\n"
                + "2020-11-03,2020-11-03T12:00:00+01:00,0,0,0,0\n", "\(csv)")
        #expect(ohk(["stats", "SleepAnalysis", "--sum", "--store", store]).status == 64)
    }

    /// `ohk subscriptions` lists each durable subscription with its
    /// position, pending changes and lag, and removes one by name.
    @Test func rule62_ohkSubscriptionsListsPositionPendingAndLag() throws {
        let dir = temporaryDirectory() + "/store"
        let store = try Store(directory: dir)
        let steps = try store.sampleType("StepCount")
        let source = Source(bundleIdentifier: "com.example.cli", name: "CLI")
        func sample(_ i: Int) throws -> Sample {
            try Sample.quantity(steps, value: Double(i + 1), unit: HealthUnit("count"),
                                start: Date(timeIntervalSinceReferenceDate: 7e8 + Double(i) * 60),
                                end: Date(timeIntervalSinceReferenceDate: 7e8 + Double(i) * 60 + 60), source: source)
        }
        _ = try store.save([try sample(0), try sample(1)])
        try store.registerSubscription(named: "exporter", descriptors: [QueryDescriptor(type: steps)],
                                       frequency: .daily, from: .beginning)
        try store.registerSubscription(named: "alerts", descriptors: [QueryDescriptor(type: steps)], frequency: .immediate)
        store.close()

        struct Row: Decodable { let name: String; let position: Int; let head: Int; let pendingChanges: Int; let lagSeconds: Double?
                                let frequency: String; let types: [String] }
        let out = ohk(["subscriptions", "--json", "--store", dir])
        #expect(out.status == 0)
        let rows = try out.output.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        #expect(rows.map(\.name).sorted() == ["alerts", "exporter"])
        let exporter = try #require(rows.first { $0.name == "exporter" })
        #expect(exporter.position == 0 && exporter.pendingChanges == 2 && exporter.lagSeconds == nil)
        #expect(exporter.frequency == "daily" && exporter.types == [steps.identifier])
        let alerts = try #require(rows.first { $0.name == "alerts" })
        #expect(alerts.position == alerts.head && alerts.pendingChanges == 0 && alerts.lagSeconds == 0)
        let table = ohk(["subscriptions", "--store", dir]).output
        #expect(table.hasPrefix("name") && table.contains("never") && table.contains("exporter"))
        #expect(ohk(["subscriptions", "--remove", "exporter", "--store", dir]).status == 0)
        #expect(!ohk(["subscriptions", "--store", dir]).output.contains("exporter"))
        #expect(ohk(["subscriptions", "--remove", "exporter", "--store", dir], mergeStderr: true).status == 1)
    }

    /// Issue 48 item 12: a CSV is named as such, not as a damaged export;
    /// a date-time without an offset is named so; a type in the wrong case
    /// and a unit spelt otherwise get HealthKit's spelling.
    @Test func messagesSayWhatToWriteInstead() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/steps.csv", "date,steps\n2020-11-01,1234\n")
        let csv = ohk(["import", dir + "/steps.csv", "--store", dir + "/store"], mergeStderr: true)
        #expect(csv.status != 0 && csv.output.contains("a CSV file") && csv.output.contains("export.zip")
                && !csv.output.contains("export again"), "\(csv.output)")
        let store = try importedStore()
        let naive = ohk(["query", "StepCount", "--since", "2020-11-01T08:00:00", "--store", store], mergeStderr: true)
        #expect(naive.status == 64 && naive.output.contains("has no UTC offset"), "\(naive.output)")
        let lower = ohk(["query", "stepcount", "--store", store], mergeStderr: true)
        #expect(lower.status != 0 && lower.output.contains("did you mean StepCount?"), "\(lower.output)")
        let speed = ohk(["add", "WalkingSpeed", "5", "--unit", "km/h", "--store", store], mergeStderr: true)
        #expect(speed.status != 0 && speed.output.contains("write km/hr"), "\(speed.output)")
    }

    /// `ohk add --metadata` types its values as HealthKit and the importer
    /// do: booleans, numbers and dates, not text.
    @Test func addTypesItsMetadataValues() throws {
        let dir = temporaryDirectory() + "/store"
        let r = ohk(["add", "StepCount", "1", "--metadata", "HKWasUserEntered=true", "--metadata", "n=3",
                     "--metadata", "when=2024-03-01T08:00:00Z", "--metadata", "note=hello", "--store", dir])
        #expect(r.status == 0, "\(r.output)")
        let store = try Store(directory: dir)
        defer { store.close() }
        let sample = try #require(try store.anchoredQuery(type: try SampleType.named("StepCount"), anchor: nil).samples.first)
        #expect(sample.metadata["HKWasUserEntered"] == .bool(true))
        #expect(sample.metadata["n"] == .number(3))
        #expect(sample.metadata["when"] == .date(try #require(ISODate.parse("2024-03-01T08:00:00Z"))))
        #expect(sample.metadata["note"] == .string("hello"))
    }

    /// `ohk --version` prints the library's version, the C header's.
    @Test func versionIsTheHeadersVersion() throws {
        let header = String(decoding: readBytes(repositoryRoot + "/include/openhealthkit_types.h"), as: UTF8.self)
        let line = try #require(header.split(separator: "\n").first { $0.hasPrefix("#define OHK_VERSION_STRING") })
        let r = ohk(["--version"])
        let printed = r.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(r.status == 0 && line.contains("\"\(printed)\""), "\(r.output)")
        #expect(r.output.hasPrefix(LibraryVersion.string))
    }

    /// A feed's first run: an anchor file that does not exist yet means
    /// from the beginning (said on stderr), and is written for the next run.
    @Test func aMissingAnchorFileStartsFromTheBeginning() throws {
        let store = try importedStore()
        let file = temporaryDirectory() + "/new.anchor"
        let first = ohk(["changes", "--anchor-file", file, "--store", store], mergeStderr: true)
        #expect(first.status == 0 && first.output.contains("does not exist yet: starting from the beginning"))
        #expect(first.output.components(separatedBy: "\"added\"").count - 1 == 42)
        let again = try lines(ohk(["changes", "--anchor-file", file, "--store", store]).output)
        #expect(again.count == 1 && again[0].anchor != nil)
    }

    /// Rule 2: an empty anchor, given or in a file, is a truncated one (an
    /// error), never "from the start"; `none` is.
    @Test func anEmptyAnchorIsAnErrorNotTheStart() throws {
        let store = try importedStore()
        let empty = ohk(["query", "BodyMass", "--anchor", "", "--store", store], mergeStderr: true)
        #expect(empty.status != 0 && empty.output.contains("the anchor is empty"))
        let file = temporaryDirectory() + "/state.anchor"
        #expect(close(open(file, O_CREAT | O_WRONLY, 0o644)) == 0)
        let fromFile = ohk(["changes", "--anchor-file", file, "--store", store], mergeStderr: true)
        #expect(fromFile.status != 0 && fromFile.output.contains("is empty"))
        #expect(ohk(["query", "BodyMass", "--anchor", "none", "--store", store]).status == 0)
    }

    @Test func queryPrintsSamplesAndTheNewAnchor() throws {
        let store = try importedStore()
        let r = ohk(["query", "BodyMass", "--where", "source == \"Renpho\"", "--format", "json", "--store", store])
        #expect(r.status == 0)
        let q = try decode(QueryJSON.self, r.output)
        #expect(q.samples.count == 2)
        #expect(q.samples.allSatisfy { $0.source == "Renpho" })
        // Rule 24: what the export said of each record's creation and offset.
        #expect(q.samples.allSatisfy { $0.creationDate?.hasPrefix("20") == true && $0.utcOffset == -28_800 }, "\(r.output)")
        let later = try decode(QueryJSON.self, ohk(["query", "BodyMass", "--anchor", q.anchor, "--format", "json", "--store", store]).output)
        #expect(later.samples.isEmpty)
        let table = ohk(["query", "HKQuantityTypeIdentifierHeight", "--unit", "cm", "--store", store]).output
        #expect(table.contains("175.26"))
        #expect(table.contains("1 samples, 0 deleted objects"))
        // A unit applies to the types it fits; the others keep their own.
        let mixed = ohk(["query", "Height", "StepCount", "--unit", "cm", "--store", store])
        #expect(mixed.status == 0)
        #expect(mixed.output.contains("175.26") && mixed.output.contains("  143 count  "))
    }

    /// Figures per interval, worked out from the fixture by hand: its three
    /// step counts (143, 66, 223) on 2014-09-19 at 10:28–10:50 in UTC−8
    /// (18:28–18:50 UTC), and body masses of 195 lb on 2018-12-27 and
    /// 188.826 lb on 2019-01-02 (rules 26, 28). Each start names its
    /// instant; CSV and JSON carry the end and the unit.
    @Test func statsPrintsFiguresPerIntervalAsTableCSVAndJSON() throws {
        let store = try importedStore()
        let utc = ["TZ": "UTC"]
        let csv = ohk(["stats", "BodyMass", "--by", "month", "--max", "--unit", "lb", "--from", "2018-12-01",
                       "--to", "2019-01-31", "--format", "csv", "--store", store], setting: utc)
        #expect(csv.status == 0)
        #expect(csv.output == "start,end,max,unit\n2018-12-01T00:00:00Z,2019-01-01T00:00:00Z,195,lb\n"
                + "2019-01-01T00:00:00Z,2019-02-01T00:00:00Z,188.826,lb\n", "\(csv.output)")
        struct Row: Decodable { let start: String; let end: String; let sum: Double?; let unit: String }
        let days = try decode([Row].self, ohk(["stats", "StepCount", "--format", "json", "--store", store], setting: utc).output)
        #expect(days.map(\.start) == ["2014-09-19T00:00:00Z"] && days.map(\.end) == ["2014-09-20T00:00:00Z"])
        #expect(days.map(\.sum) == [432] && days.map(\.unit) == ["count"])
        let table = ohk(["stats", "StepCount", "--by", "hour", "--utc-offset", "-08:00", "--store", store]).output
        #expect(table.contains("2014-09-19T10:00:00-08:00") && table.contains("432"), "\(table)")
        let paris = ohk(["stats", "StepCount", "--tz", "Europe/Paris", "--store", store]).output
        #expect(paris.contains("2014-09-19T00:00:00+02:00") && paris.contains("432"), "\(paris)")
        // Without --tz: the machine's zone (TZ here), as `date` uses it.
        let kolkata = ohk(["stats", "StepCount", "--by", "hour", "--store", store], setting: ["TZ": "Asia/Kolkata"]).output
        #expect(kolkata.contains("2014-09-19T23:00:00+05:30") && kolkata.contains("143")
                && kolkata.contains("2014-09-20T00:00:00+05:30") && kolkata.contains("289"), "\(kolkata)")
        #expect(ohk(["stats", "StepCount", "--tz", "Mars/Olympus_Mons", "--store", store]).status == 64)
        let noSleep = ohk(["stats", "SleepAnalysis", "--store", store])
        #expect(noSleep.status == 0 && noSleep.output == "no SleepAnalysis samples\n", "\(noSleep.output)")
        #expect(ohk(["stats", "HeartbeatSeries", "--store", store]).status == 64)
        #expect(ohk(["stats", "StepCount", "--by", "fortnight", "--store", store]).status == 64)
        #expect(ohk(["stats", "StepCount", "--unit", "kg", "--store", store]).status == 64)
        #expect(ohk(["stats", "StepCount", "--tz", "UTC", "--utc-offset", "+01:00", "--store", store]).status == 64)
        #expect(ohk(["stats", "StepCount", "--tz", "UTC", "--local-time", "--store", store]).status == 64)
    }

    /// Rule 28's one rule for date ranges, at its edges: a day is the whole
    /// day in the query's time, so --to includes it, with or without --tz;
    /// a date-time without an offset is read in that time and --to's is
    /// excluded; intervals start at --from (a week from a Sunday holds no
    /// day before it); --local-time counts each sample in its own day and
    /// prints wall-clock times.
    @Test func rule28_cliDateRangesIncludeTheLastDayAndStartAtTheFirst() throws {
        let store = try importedStore()
        func rows(_ args: [String], _ setting: [String: String] = ["TZ": "UTC"]) -> [String] {
            let r = ohk(["stats", "StepCount", "--format", "csv", "--store", store] + args, setting: setting)
            #expect(r.status == 0, "\(args): \(r.output)")
            return Array(r.output.split(separator: "\n").dropFirst().map(String.init))
        }
        // --to names the last day: 2014-09-19 alone, in UTC−8, in UTC and in Los Angeles.
        #expect(rows(["--from", "2014-09-19", "--to", "2014-09-19", "--utc-offset", "-08:00"])
                == ["2014-09-19T00:00:00-08:00,2014-09-20T00:00:00-08:00,432,count"])
        #expect(rows(["--from", "2014-09-17", "--to", "2014-09-19"]).map { $0.prefix(10) } == ["2014-09-17", "2014-09-18", "2014-09-19"])
        #expect(rows(["--from", "2014-09-17", "--to", "2014-09-19"]).last?.hasSuffix(",432,count") == true)
        #expect(rows(["--from", "2014-09-19", "--to", "2014-09-19", "--tz", "America/Los_Angeles"])
                == ["2014-09-19T00:00:00-07:00,2014-09-20T00:00:00-07:00,432,count"])
        #expect(rows(["--from", "2014-09-18", "--to", "2014-09-18"]) == ["2014-09-18T00:00:00Z,2014-09-19T00:00:00Z,,count"])
        // A date-time without an offset is a wall-clock time in the query's; --to's instant is excluded.
        #expect(rows(["--by", "hour", "--from", "2014-09-19T10:00:00", "--to", "2014-09-19T11:00:00", "--utc-offset", "-08:00"])
                == ["2014-09-19T10:00:00-08:00,2014-09-19T11:00:00-08:00,432,count"])
        #expect(rows(["--by", "hour", "--from", "2014-09-19T18:00:00Z", "--to", "2014-09-19T18:30:00Z"])
                == ["2014-09-19T18:00:00Z,2014-09-19T19:00:00Z,432,count"])
        // Weeks start at --from: 2014-09-14 is a Sunday; without --from, on the Monday before the first sample.
        #expect(rows(["--by", "week", "--from", "2014-09-14", "--to", "2014-09-20"])
                == ["2014-09-14T00:00:00Z,2014-09-21T00:00:00Z,432,count"])
        #expect(rows(["--by", "week"]) == ["2014-09-15T00:00:00Z,2014-09-22T00:00:00Z,432,count"])
        // 18:28 UTC is 23:58 in Kolkata; with --local-time it counts on its own day, 10:28 at UTC−8.
        #expect(rows(["--from", "2014-09-19", "--to", "2014-09-20"], ["TZ": "Asia/Kolkata"])
                == ["2014-09-19T00:00:00+05:30,2014-09-20T00:00:00+05:30,143,count",
                    "2014-09-20T00:00:00+05:30,2014-09-21T00:00:00+05:30,289,count"])
        #expect(rows(["--local-time", "--from", "2014-09-19", "--to", "2014-09-19"], ["TZ": "Asia/Kolkata"])
                == ["2014-09-19T00:00:00,2014-09-20T00:00:00,432,count"])
        let bad = ohk(["stats", "StepCount", "--from", "2014-09-19T10:00", "--store", store], mergeStderr: true)
        #expect(bad.status == 64 && bad.output.contains("2020-11-01T08:00:00"), "\(bad.output)")
        #expect(ohk(["stats", "StepCount", "--from", "2014-09-20", "--to", "2014-09-19", "--store", store]).status == 64)
    }

    /// Issue 32's command line: the latest N, sorting, date bounds, CSV,
    /// numbers that print as entered, one timestamp format, per-type spans.
    @Test func queryLatestSortDatesCSVAndCleanNumbers() throws {
        let store = try importedStore()
        // Body masses of the fixture, latest first: 2020-10-05 (140 lb), then 2020-04-18 (138 lb).
        let latest = ohk(["query", "BodyMass", "--latest", "2", "--unit", "lb", "--store", store]).output
        let rows = latest.split(separator: "\n").prefix(2).map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.map { $0[0] } == ["2020-10-05T20:02:41Z", "2020-04-18T13:52:26Z"], "\(latest)")
        #expect(rows.map { "\($0[3]) \($0[4])" } == ["140 lb", "138 lb"])
        let csv = ohk(["query", "BodyMass", "--since", "2018-12-01", "--until", "2019-02-01", "--sort", "start", "--desc",
                       "--unit", "lb", "--format", "csv", "--store", store]).output.split(separator: "\n")
        #expect(csv.first == "start,end,type,value,unit,source,uuid,deleted")
        #expect(csv.dropFirst().map { $0.split(separator: ",")[3] } == ["188.826", "195"], "\(csv)")
        // A stored 62 count/min (1.0333… count/s) prints as 62.
        #expect(ohk(["add", "HeartRate", "62", "--unit", "count/min", "--start", "2024-03-01T08:00:00.25Z",
                     "--store", store]).status == 0)
        let heart = ohk(["query", "HeartRate", "--unit", "bpm", "--store", store]).output
        #expect(heart.contains("2024-03-01T08:00:00.250Z") && heart.contains("  62 bpm  "), "\(heart)")
        // Without --unit: the type's display unit, count/min for heart rate.
        let plain = ohk(["query", "HeartRate", "--store", store]).output
        #expect(plain.contains("  62 count/min  "), "\(plain)")
        // Per type: first and last date, and the sources.
        let stats = ohk(["stats", "--store", store]).output
        #expect(stats.contains("BodyMass") && stats.contains("2016-02-10T07:59:59Z to 2020-10-05T20:02:41Z"), "\(stats)")
        #expect(ohk(["query", "BodyMass", "--latest", "2", "--limit", "5", "--store", store]).status == 64)
        let completion = ohk(["--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.output.contains("ohk"))
    }

    /// Issue 32's output options, each as docs/ohk.md says: --desc alone
    /// sorts by start, --sort end, --limit 0 is no limit, stats in CSV and
    /// JSON without a type, category names and display values in JSON
    /// (query and changes), a duplicate UUID deleted and counted once.
    @Test func outputOptionsSortLimitFormatsAndNames() throws {
        let store = try importedStore()
        func starts(_ args: [String]) -> [Substring] {
            ohk(["query", "BodyMass"] + args + ["--format", "csv", "--store", store]).output
                .split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] }
        }
        let byStart = starts(["--sort", "start"])
        #expect(byStart.count > 2 && byStart == byStart.sorted(), "\(byStart)")
        #expect(starts(["--desc"]) == Array(byStart.reversed()))
        let ends = ohk(["query", "BodyMass", "--sort", "end", "--desc", "--format", "csv", "--store", store]).output
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] }
        #expect(ends == ends.sorted(by: >) && ends.count == byStart.count)
        #expect(starts(["--limit", "0"]).count == byStart.count && starts(["--limit", "1"]).count == 1)
        #expect(ohk(["query", "BodyMass", "--latest", "1", "--desc", "--store", store]).status == 64)
        // stats without a type: --format json is --json; CSV has a row per type.
        let json = try decode(StatsJSON.self, ohk(["stats", "--format", "json", "--store", store]).output)
        #expect(json.types["HKQuantityTypeIdentifierBodyMass"]?.samples == byStart.count)
        let rows = ohk(["stats", "--format", "csv", "--store", store]).output.split(separator: "\n")
        #expect(rows.first == "type,samples,deleted,first,last,sources")
        #expect(rows.contains { $0.hasPrefix("BodyMass,\(byStart.count),0,2016-02-10T07:59:59Z,2020-10-05T20:02:41Z,") }, "\(rows)")
        // A category value's name beside its number; a quantity's display value.
        #expect(ohk(["add", "SleepAnalysis", "AsleepCore", "--store", store]).status == 0)
        struct Named: Decodable { let value: Double; let valueName: String? }
        struct Sleep: Decodable { let samples: [Named] }
        let sleep = try decode(Sleep.self, ohk(["query", "SleepAnalysis", "--format", "json", "--store", store]).output)
        #expect(sleep.samples.map(\.valueName) == ["AsleepCore"] && sleep.samples.map(\.value) == [3])
        let added = ohk(["add", "HeartRate", "62", "--unit", "count/min", "--store", store]).output
        let uuid = String(added.split(separator: "\n").first ?? "")
        let feed = ohk(["changes", "HeartRate", "--since", "none", "--store", store]).output
        #expect(feed.contains("\"uuid\":\"\(uuid)\"") && feed.contains("\"displayValue\":62,\"displayUnit\":\"count/min\""), "\(feed)")
        // `types` names the display unit where it is not the canonical one.
        let types = ohk(["types", "--store", store]).output.split(separator: "\n")
        #expect(types.contains { $0.hasPrefix("HKQuantityTypeIdentifierHeartRate  quantity  count/s  ") && $0.hasSuffix("shown in count/min") })
        #expect(types.contains { $0.hasPrefix("HKQuantityTypeIdentifierStepCount  quantity  count  ") && !$0.contains("shown") })
        // Rule 15: a UUID listed twice is deleted once, and counted once.
        let twice = ohk(["delete", uuid, uuid, "--store", store])
        #expect(twice.status == 0 && twice.output == "deleted 1\n", "\(twice.output)")
    }

    /// Metadata text that a number would change stays text; `~` in --store
    /// is the home directory, quoted or not.
    @Test func metadataKeepsTextANumberWouldChangeAndStorePathsExpandTilde() throws {
        let home = temporaryDirectory()
        let r = run("/usr/bin/env", ["HOME=\(home)", siblingExecutable("ohk"), "add", "StepCount", "1",
                                     "--metadata", "zip=007", "--metadata", "hex=0x10", "--metadata", "big=1152921504606846976",
                                     "--metadata", "n=-2.5e3", "--metadata", "zero=0", "--store", "~/s"])
        #expect(r.status == 0, "\(r.output)")
        let store = try Store(directory: home + "/s")
        defer { store.close() }
        let sample = try #require(try store.anchoredQuery(type: try SampleType.named("StepCount"), anchor: nil).samples.first)
        #expect(sample.metadata["zip"] == .string("007") && sample.metadata["hex"] == .string("0x10"))
        #expect(sample.metadata["big"] == .string("1152921504606846976"))
        #expect(sample.metadata["n"] == .number(-2500) && sample.metadata["zero"] == .number(0))
    }

    /// Descriptors: each type with its own predicate; the union comes back.
    @Test func queryTakesDescriptorsWithTheirOwnPredicates() throws {
        let store = try importedStore()
        let r = ohk(["query", "--descriptor", "BodyMass:source == \"Renpho\"", "--descriptor", "Height",
                     "--descriptor", "StepCount:quantity > 100 count", "--format", "json", "--store", store])
        #expect(r.status == 0, "\(r.output)")
        let q = try decode(QueryJSON.self, r.output)
        // Renpho's 2 body masses, the height, the step counts of 143 and 223.
        #expect(q.samples.count == 5)
        #expect(Set(q.samples.map(\.type)) == ["HKQuantityTypeIdentifierBodyMass", "HKQuantityTypeIdentifierHeight",
                                                "HKQuantityTypeIdentifierStepCount"])
        #expect(ohk(["query", "--descriptor", "BodyMass:quantity >", "--store", store]).status == 1)
        #expect(ohk(["query", "--store", store]).status == 64)
    }

    /// --follow prints changes committed by another process as they land.
    @Test func changesFollowSeesAnotherProcessesCommit() throws {
        let store = try importedStore()
        guard let (pid, fd) = spawnWithOutput(siblingExecutable("ohk"), ["changes", "--since", "none", "--follow", "--store", store]) else {
            Issue.record("cannot start ohk")
            return
        }
        defer { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0); close(fd) }
        // The first anchor line ends the snapshot: the follower is live.
        let snapshot = readLines(fd) { $0.hasPrefix("{\"anchor\"") }
        #expect(snapshot.count == 43)  // 36 records, 5 workouts, an audiogram, the anchor
        let uuid = ohk(["add", "HeartRate", "61", "--unit", "count/min", "--store", store]).output
            .split(separator: "\n").first.map(String.init) ?? ""
        let update = try readLines(fd) { $0.hasPrefix("{\"anchor\"") }.map { try decode(Line.self, $0) }
        #expect(update.compactMap(\.added).map(\.uuid) == [uuid])
    }

    @Test func observeReportsTheChangedTypeAndCanStopAfterACount() throws {
        let store = try importedStore()
        guard let (pid, fd) = spawnWithOutput(siblingExecutable("ohk"), ["observe", "StepCount", "--count", "1", "--store", store],
                                              mergeStderr: true) else {
            Issue.record("cannot start ohk")
            return
        }
        _ = readLines(fd) { $0.hasPrefix("ohk: observing") }
        _ = ohk(["add", "StepCount", "40", "--store", store])
        let changed = readLines(fd) { $0.contains("changed") }
        #expect(changed.last?.contains("\"changed\":[\"HKQuantityTypeIdentifierStepCount\"]") == true)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(fd)
        #expect((status >> 8) & 0xff == 0)
    }

    @Test func exitCodesAreTheDocumentedOnes() throws {
        let dir = temporaryDirectory()
        let store = dir + "/store"
        #expect(ohk(["import", dir + "/missing.zip", "--store", store]).status == 66)
        let bytes = readBytes(fixtureB)
        writeBytes(dir + "/cut.xml", Array(bytes[..<(bytes.count / 2)]))
        let cut = ohk(["import", dir + "/cut.xml", "--store", store], mergeStderr: true)
        #expect(cut.status == 65)
        #expect(cut.output.contains("import stopped early"))
        #expect(ohk(["query", "NoSuchType", "--store", store]).status == 1)
        #expect(ohk(["query", "BodyMass", "--where", "quantity >", "--store", store]).status == 1)
        // A unit the type does not measure: refused where it stands in the text.
        let wrongUnit = ohk(["query", "BodyMass", "--where", "quantity > 70 \"count/min\"", "--store", store], mergeStderr: true)
        #expect(wrongUnit.status == 1)
        #expect(wrongUnit.output.contains("at offset 11: predicate unit 'count/min' is not compatible"), "\(wrongUnit.output)")
        #expect(ohk(["query", "BodyMass", "--limit", "-1", "--store", store]).status == 64)
        #expect(ohk(["changes", "--store", store]).status == 64)
        #expect(ohk(["prune", "--store", store]).status == 64)
        let help = ohk(["--help"]).output
        #expect(help.contains("Exit codes:") && help.contains("Examples:"))
        for command in ["import", "types", "stats", "query", "changes", "observe", "add", "delete", "prune", "check",
                        "rebuild-statistics"] {
            let r = ohk([command, "--help"])
            #expect(r.status == 0 && r.output.contains("Example"), "\(command) --help")
        }
    }

    /// A progress bar on a terminal (util-linux `script` provides one),
    /// none when stderr is a pipe.
    @Test func importShowsProgressOnATerminalOnly() {
        let store = temporaryDirectory() + "/store"
        let command = "\(siblingExecutable("ohk")) import \(fixtureB) --store \(store)"
        let tty = run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(tty.status == 0, "\(tty.output)")
        #expect(tty.output.contains("] 100%"))
        let piped = ohk(["import", fixtureB, "--store", store], mergeStderr: true)
        #expect(piped.status == 0)
        #expect(!piped.output.contains("%  "))
    }

    /// README's main job (`make quickstart`), with this build of ohk.
    @Test func theQuickstartSeesExactlyItsChange() {
        let r = run("/bin/bash", [repositoryRoot + "/examples/quickstart.sh", siblingExecutable("ohk"), fixtureB],
                    mergeStderr: true)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("added             36"))
        #expect(r.output.contains("quickstart: the query from the anchor saw exactly the new sample"))
    }

    @Test func pruneDropsDeletedObjects() throws {
        let store = try importedStore()
        let q = try decode(QueryJSON.self, ohk(["query", "Height", "--format", "json", "--store", store]).output)
        _ = ohk(["delete", q.samples[0].uuid, "--store", store])
        #expect(ohk(["prune", "--older-than", "1", "--store", store]).output == "pruned 0 deleted objects\n")
        #expect(ohk(["prune", "--all", "--store", store]).output == "pruned 1 deleted objects\n")
        let stats = try decode(StatsJSON.self, ohk(["stats", "--store", store, "--json"]).output)
        #expect(stats.deletedObjects == 0)
    }
}
