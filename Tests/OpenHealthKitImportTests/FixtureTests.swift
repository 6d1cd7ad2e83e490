import FoundationEssentials
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

/// The counts below were written down from the fixture files themselves
/// (read with Python's ElementTree), not from this importer's output.
@Suite struct Fixtures {
    @Test func exportBImportsEveryRecordButTheOneWithABogusType() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureB, into: store)
        #expect(r.failure == nil)
        #expect(r.records == 37)
        #expect(r.added == 36)
        #expect(r.alreadyStored == 0)
        #expect(r.skipped == [SkipReason(kind: .unknownType, subject: "c"): 1])
        #expect(r.notImported.isEmpty)
        #expect(r.audiograms == 1 && r.audiogramsAdded == 1)
        #expect(r.workouts == 5 && r.workoutsAdded == 5)
        #expect(r.addedByType == [
            "HKCategoryTypeIdentifierAppleStandHour": 1,
            "HKQuantityTypeIdentifierBodyFatPercentage": 2,
            "HKQuantityTypeIdentifierBodyMass": 7,
            "HKQuantityTypeIdentifierBodyMassIndex": 2,
            "HKQuantityTypeIdentifierDistanceWalkingRunning": 2,
            "HKQuantityTypeIdentifierEnvironmentalAudioExposure": 1,
            "HKQuantityTypeIdentifierHeight": 1,
            "HKQuantityTypeIdentifierLeanBodyMass": 2,
            "HKQuantityTypeIdentifierStepCount": 3,
            "HKQuantityTypeIdentifierVO2Max": 1,
            "HKQuantityTypeIdentifierWalkingAsymmetryPercentage": 2,
            "HKQuantityTypeIdentifierWalkingDoubleSupportPercentage": 3,
            "HKQuantityTypeIdentifierWalkingHeartRateAverage": 3,
            "HKQuantityTypeIdentifierWalkingSpeed": 2,
            "HKQuantityTypeIdentifierWalkingStepLength": 4,
            "HKWorkoutTypeIdentifier": 5,
            "HKDataTypeIdentifierAudiogram": 1,
        ])
        #expect(r.addedByUnit == ["%": 7, "count": 5, "count/min": 3, "dBASPL": 1, "ft": 1, "in": 4, "lb": 9,
                                  "mL/min·kg": 1, "mi": 2, "mi/hr": 2, "": 7])
        #expect(r.addedBySource == [
            "Dharti's Apple\u{a0}Watch": 1, "DonorOne's Apple Watch": 1, "DonorTwo's iPhone": 16,
            "DonorTwo’s Apple\u{a0}Watch": 4, "Lose It!": 4, "MyFitnessPal": 2, "Renpho": 8, "🔜": 2, "🕛🕐🕑🕒": 1,
            "DonorOne's Apple\u{a0}Watch": 2, "Hearing Test": 1,
        ])
        let stats = try store.counts()
        #expect(stats.samples == 42)  // and the five workouts and the audiogram
        #expect(stats.types.count == 17)
    }

    @Test func exportAImportsItsRecordsAndCountsTheRest() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureA, into: store)
        #expect(r.failure == nil)
        #expect(r.records == 5)
        #expect(r.added == 5)
        #expect(r.skippedCount == 1)  // the Patient record: no clinical type of HealthKit's
        #expect(r.notImported == [:])
        // One row for every kind the export holds, nothing left out.
        #expect(r.contents.map(\.kind) == ["Record", "Workout", "WorkoutRoute", "ClinicalRecord", "ActivitySummary",
                                            "HeartRateVariabilityMetadataList", "Me", "ExportDate"])
        #expect(r.exportDate == "2020-12-06 20:24:55 -0800")
        func row(_ kind: String) -> ImportReport.Row? { r.contents.first { $0.kind == kind } }
        #expect(row("HeartRateVariabilityMetadataList") == ImportReport.Row(kind: "HeartRateVariabilityMetadataList", count: 1,
                                                                            imported: 1, note: "as heartbeat series"))
        #expect(row("Me") == ImportReport.Row(kind: "Me", count: 1, imported: 1,
                                              note: "characteristics: date of birth, biological sex; "
                                                    + "not kept: CardioFitnessMedicationsUse (none of the five characteristics kept)"))
        #expect(r.contents.first == ImportReport.Row(kind: "Record", count: 5, imported: 5, note: ""))
        #expect(row("Workout") == ImportReport.Row(kind: "Workout", count: 1, imported: 1,
                                                   note: "with their events, statistics and activities"))
        // A loose XML file: its route's GPX file and its records' JSON files are not beside it.
        #expect(row("WorkoutRoute")?.imported == 0 && row("WorkoutRoute")?.note.contains("1 without their file") == true)
        // Without their files, the five records of HealthKit's clinical types are kept without their resource.
        #expect(row("ClinicalRecord") == ImportReport.Row(kind: "ClinicalRecord", count: 6, imported: 5,
                                                          note: "with the FHIR JSON of their files; "
                                                              + "6 kept without their FHIR resource: the export lacks their file"))
        #expect(row("ActivitySummary") == ImportReport.Row(kind: "ActivitySummary", count: 17, imported: 17, note: "one per day"))
        #expect(r.addedByType == ["HKQuantityTypeIdentifierBodyMassIndex": 4, "HKDataTypeIdentifierHeartbeatSeries": 1,
                                  "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": 1, "HKWorkoutTypeIdentifier": 1,
                                  "HKClinicalTypeIdentifierProcedureRecord": 3, "HKClinicalTypeIdentifierImmunizationRecord": 1,
                                  "HKClinicalTypeIdentifierLabResultRecord": 1])
        #expect(r.addedByUnit == ["count": 4, "ms": 1, "": 7])
        #expect(r.addedBySource == ["Renpho": 4, "🕛🕐🕑🕒": 3, "Sutter Health": 5])
    }

    @Test func importingTheSameExportAgainAddsNothing() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureB, into: store)
        let anchor = try store.currentAnchor()
        let again = try importFile(fixtureB, into: store, batchSize: 7)
        #expect(again.added == 0)
        #expect(again.alreadyStored == 36 && again.workoutsAlreadyStored == 5 && again.audiogramsAlreadyStored == 1)
        #expect(try store.currentAnchor() == anchor)
        #expect(try store.counts().samples == 42)
    }

    /// Export A repeats two of export B's BodyMassIndex records (same
    /// source, dates and values): a later export adds only what is new.
    @Test func aNewerExportAddsOnlyWhatIsNew() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureB, into: store)
        let before = try store.currentAnchor()
        let r = try importFile(fixtureA, into: store)
        #expect(r.added == 3 && r.workoutsAdded == 1)
        #expect(r.alreadyStored == 2)
        let delta = try store.anchoredQuery(type: try SampleType.named("HKQuantityTypeIdentifierBodyMassIndex"), anchor: before)
        #expect(delta.samples.count == 2)
        // 36 + 5 workouts + an audiogram of B; 3 + 1 + a heartbeat series + 5 clinical records of A
        #expect(try store.counts().samples == 52)
    }

    @Test func aDeletedSampleStaysDeletedWhenTheExportIsImportedAgain() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureB, into: store)
        let height = try samples(store, "HKQuantityTypeIdentifierHeight")
        try store.delete(height)
        let again = try importFile(fixtureB, into: store)
        #expect(again.added == 0)
        #expect(try samples(store, "HKQuantityTypeIdentifierHeight").isEmpty)
    }

    /// Rule 14 of docs/semantics.md through imports: a later export's record with the
    /// same source and sync identifier and a higher sync version replaces
    /// the earlier one; the earlier export imported again changes nothing.
    @Test func rule14_aNewerSyncVersionInALaterExportReplacesTheOlder() throws {
        func synced(_ version: String, _ kg: String) -> String {
            export(record(value: kg, inner: "<MetadataEntry key=\"HKMetadataKeySyncIdentifier\" value=\"w-1\"/>"
                                 + "<MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"\(version)\"/>"))
        }
        let dir = temporaryDirectory()
        writeText(dir + "/v1.xml", synced("1", "70"))
        writeText(dir + "/v2.xml", synced("2", "71"))
        let store = try newStore()
        defer { store.close() }
        #expect(try importFile(dir + "/v1.xml", into: store).added == 1)
        let anchor = try store.currentAnchor()
        let newer = try importFile(dir + "/v2.xml", into: store)
        #expect(newer.added == 1 && newer.replaced == 1)
        let mass = try samples(store, "HKQuantityTypeIdentifierBodyMass")
        #expect(try mass.map { try $0.quantity(in: HealthUnit("kg")) } == [71])
        let delta = try store.anchoredQuery(type: try SampleType.named("HKQuantityTypeIdentifierBodyMass"), anchor: anchor)
        #expect(delta.samples.count == 1 && delta.deletedObjects.count == 1)
        let older = try importFile(dir + "/v1.xml", into: store)
        #expect(older.added == 0 && older.alreadyStored == 1)
        #expect(try samples(store, "HKQuantityTypeIdentifierBodyMass").map(\.uuid) == mass.map(\.uuid))
    }

    @Test func valuesArriveInCanonicalUnitsAtTheRightInstants() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureB, into: store)
        // <Record … Height unit="ft" startDate="2018-01-24 15:54:24 -0800" value="5.75">
        let height = try #require(try samples(store, "HKQuantityTypeIdentifierHeight").first)
        #expect(abs(try height.quantity(in: HealthUnit("m")) - 5.75 * 0.3048) < 1e-12)
        #expect(ISODate.format(height.startDate) == "2018-01-24T23:54:24Z")
        // creationDate="2018-01-24 15:54:24 -0800": kept, with the offset (rule 24).
        #expect(height.creationDate.map(ISODate.format) == "2018-01-24T23:54:24Z")
        #expect(height.utcOffset == -8 * 3600)
        #expect(height.source == Source(bundleIdentifier: "DonorOne's Apple Watch", name: "DonorOne's Apple Watch", version: "4.1"))
        // `%` is a fraction: 0.161 means 16.1 %.
        let fat = try samples(store, "HKQuantityTypeIdentifierBodyFatPercentage").map { try $0.quantity(in: HealthUnit("%")) }
        #expect(Set(fat) == [0.161, 0.163])
        // Category case names become the enum's integers (Stood = 0).
        let stand = try #require(try samples(store, "HKCategoryTypeIdentifierAppleStandHour").first)
        #expect(stand.value == .category(0))
        #expect(stand.source.name == "Dharti's Apple\u{a0}Watch")
    }

    /// <Record … BodyMassIndex creationDate="2020-04-19 06:53:41 -0800"
    /// startDate="2020-04-18 05:52:26 -0800" …>, the first of export A.
    @Test func rule24_eachRecordsCreationDateAndUTCOffsetAreKept() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureA, into: store)
        let bmi = try samples(store, "HKQuantityTypeIdentifierBodyMassIndex")
        let first = try #require(bmi.first { ISODate.format($0.startDate) == "2020-04-18T13:52:26Z" })
        #expect(first.creationDate.map(ISODate.format) == "2020-04-19T14:53:41Z")
        #expect(first.utcOffset == -28_800)
        #expect(bmi.allSatisfy { $0.creationDate != nil && $0.utcOffset == -28_800 })
    }

    @Test func deviceDescriptionsAndMetadataBecomeFields() throws {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(fixtureB, into: store)
        let step = try #require(try samples(store, "HKQuantityTypeIdentifierWalkingStepLength").first)
        #expect(step.device == Device(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone",
                                      hardwareVersion: "iPhone12,3", softwareVersion: "14.0"))
        let vo2 = try #require(try samples(store, "HKQuantityTypeIdentifierVO2Max").first)
        #expect(vo2.metadata == [
            "HKVO2MaxTestType": .number(2),
            MetadataKey.syncVersion: .number(1),
            MetadataKey.syncIdentifier: .string("68D6DC96-9417-41EB-A21F-BAF09376E047"),
        ])
    }

    @Test func aZippedExportImportsLikeItsXML() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/cda.xml", "<ClinicalDocument/>")
        // Another entry first, as in the Health app's archive.
        makeZip(dir + "/export.zip", [("apple_health_export/export_cda.xml", dir + "/cda.xml"),
                                      ("apple_health_export/export.xml", fixtureB)])
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.zip", into: store)
        #expect(r.failure == nil)
        #expect(r.added == 36)
        #expect(r.xmlBytes == Int64(readBytes(fixtureB).count))
        #expect(r.addedByUnit["lb"] == 9)
    }
}
