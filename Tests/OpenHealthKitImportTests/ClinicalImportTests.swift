import FoundationEssentials
import Glibc
import OpenHealthKitCore
@testable import OpenHealthKitImport
import Testing

/// An export's ECG files (rule 41), clinical records with their JSON
/// files (rule 42) and activity summaries (rule 43) are imported, each
/// with its report row.
@Suite struct ClinicalImportTests {
    /// ECG files as the Health app writes them: English (two blank lines
    /// before the lead) and German (keys, verdict and decimal commas).
    static let englishECG = (["Name,Jane Appleseed", "Date of Birth,\"Feb 5, 1952\"", "Recorded Date,2020-02-05 09:14:40 -0400",
                              "Classification,Atrial Fibrillation", "Symptoms,Rapid, pounding, or fluttering heartbeat",
                              "Software Version,1.51", "Device,\"Watch5,4\"", "Sample Rate,512.844 hertz", "", "",
                              "Lead,Lead I", "Unit,µV", ""]
                             + (0..<1_024).map { "\(Double($0 % 97) * 1.5 - 60.125)" }).joined(separator: "\r\n") + "\r\n"
    static let germanECG = ["Name", "Geburtstag,\"27.03.1987\"", "Aufzeichnungsdatum,2020-07-31 22:48:19 +0200",
                            "Klassifizierung,Sinusrhythmus", "Symptome,", "Softwareversion,1.13", "Gerät,\"Watch4,2\"",
                            "Messrate,511,562\u{a0}Hertz", "", "", "Ableitung,Ableitung I", "Einheit,µV", "",
                            "-180,596", "-199,83", "12"].joined(separator: "\n") + "\n"

    /// An export folder: fixture A (six <ClinicalRecord>s, seventeen
    /// <ActivitySummary>s) with the JSON files of five of its records,
    /// and the two ECG files plus one that is not an ECG.
    private func exportFolder() -> String {
        let dir = temporaryDirectory() + "/apple_health_export"
        mkdir(dir, 0o755)
        mkdir(dir + "/clinical-records", 0o755)
        mkdir(dir + "/electrocardiograms", 0o755)
        writeBytes(dir + "/export.xml", readBytes(fixtureA))
        let records = [
            ("Procedure-488D59AE-81D4-4597-8FBB-713DE1CEF228", #"{"resourceType":"Procedure","code":{"text":"Appendectomy"}}"#),
            ("Procedure-B4F159B1-E990-49D5-AEAD-CB6C01F99D08", #"{"resourceType":"Procedure","code":{"coding":[{"display":"X-ray"}]}}"#),
            ("Immunization-FD9A852A-4601-494A-B97F-F5CF7A4082E4", #"{"resourceType":"Immunization","vaccineCode":{"text":"Influenza"}}"#),
            ("DiagnosticReport-F011639A-7CDB-4E7F-B195-E4DFF6D2FB76", #"{"resourceType":"DiagnosticReport"}"#),
            ("Patient-6221D445-19F5-4DBB-A995-84FCAFF6F3B5", #"{"resourceType":"Patient"}"#),
        ]
        for (name, json) in records { writeText(dir + "/clinical-records/\(name).json", json) }
        writeText(dir + "/electrocardiograms/ecg_2020-02-05.csv", Self.englishECG)
        writeText(dir + "/electrocardiograms/ecg_2020-07-31.csv", Self.germanECG)
        writeText(dir + "/electrocardiograms/ecg_2020-08-01.csv", "Name\nRecorded Date,yesterday\n")
        return dir
    }

    @Test func rule41_ECGFilesInEnglishAndGermanBecomeElectrocardiograms() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(exportFolder(), into: store)
        #expect(r.electrocardiograms == 3 && r.electrocardiogramsAdded == 2)
        #expect(r.skipped[SkipReason(kind: .badDate,
                                     subject: "HKDataTypeIdentifierElectrocardiogram file electrocardiograms/ecg_2020-08-01.csv")] == 1)
        #expect(r.filesNotImported["electrocardiograms/*.csv"] == nil)
        let ecgs = try samples(store, TypeCatalogue.electrocardiogramIdentifier).sorted { $0.startDate < $1.startDate }
        guard ecgs.count == 2, case .electrocardiogram(let en) = ecgs[0].value, case .electrocardiogram(let de) = ecgs[1].value else {
            Issue.record("two recordings expected"); return
        }
        #expect(en.classification == .atrialFibrillation && en.symptomsStatus == .present)
        #expect(ecgs[0].metadata["Symptoms"] == .string("Rapid, pounding, or fluttering heartbeat"))
        #expect(en.samplingFrequency == 512.844 && en.voltages.count == 1_024 && en.voltages[1] == -58.625)
        #expect(ecgs[0].utcOffset == -14_400 && ecgs[0].source.name == "ECG" && ecgs[0].source.version == "1.51")
        #expect(ecgs[0].device?.hardwareVersion == "Watch5,4")
        #expect(abs(ecgs[0].endDate.timeIntervalSince(ecgs[0].startDate) - 1_024 / 512.844) < 1e-6)
        #expect(de.classification == .sinusRhythm && de.symptomsStatus == .notSet)
        #expect(de.samplingFrequency == 511.562 && de.voltages == [-180.596, -199.83, 12])
        // Again: nothing new, same UUIDs.
        let again = try importFile(exportFolder(), into: store)
        #expect(again.electrocardiogramsAdded == 0 && again.electrocardiogramsAlreadyStored == 2)
    }

    @Test func rule41_verdictsMapToHealthKitsCases() {
        let cases: [(String, Electrocardiogram.Classification)] = [
            ("Sinus Rhythm", .sinusRhythm), ("Atrial Fibrillation", .atrialFibrillation),
            ("Heart Rate Over 120", .inconclusiveHighHeartRate), ("High Heart Rate", .inconclusiveHighHeartRate),
            ("Heart Rate Under 50", .inconclusiveLowHeartRate), ("Poor Recording", .inconclusivePoorReading),
            ("Inconclusive", .inconclusiveOther), ("Sinusrhythmus", .sinusRhythm), ("Uneindeutig", .inconclusiveOther),
            ("", .notSet),
        ]
        for (text, expected) in cases {
            let csv = Self.englishECG.replacing("Classification,Atrial Fibrillation", with: "Classification,\(text)")
            #expect((try? ElectrocardiogramCSV.parse(Array(csv.utf8)).get())?.classification == expected, "\(text)")
        }
    }

    /// A byte-order mark, quoted voltages with decimal commas, and a loose
    /// export.xml whose ECG folder has its German name.
    @Test func rule41_aBOMQuotedVoltagesAndTheFoldersBesideALooseXML() throws {
        let dir = temporaryDirectory()
        mkdir(dir + "/Elektrokardiogramme", 0o755)
        writeText(dir + "/export.xml", export(""))
        let quoted = "\u{FEFF}" + Self.germanECG.replacing("-180,596\n-199,83\n12", with: "\"-180,596\"\n\"-199,83\"\n12")
        writeText(dir + "/Elektrokardiogramme/ekg_2020-07-31.csv", quoted)
        writeText(dir + "/Elektrokardiogramme/._ekg_2020-07-31.csv", "\0\u{5}\u{16}\u{7}")  // macOS's shadow file
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.electrocardiograms == 1 && r.electrocardiogramsAdded == 1 && r.skippedCount == 0)
        guard case .electrocardiogram(let e)? = try samples(store, TypeCatalogue.electrocardiogramIdentifier).first?.value else {
            Issue.record("no recording"); return
        }
        #expect(e.voltages == [-180.596, -199.83, 12] && e.classification == .sinusRhythm)
    }

    @Test func rule41_anUnknownVerdictIsUnrecognizedAndKept() throws {
        var csv = try #require(try? ElectrocardiogramCSV.parse(Array(Self.englishECG.replacing("Atrial Fibrillation", with: "Something New").utf8)).get())
        #expect(csv.classification == .unrecognized)
        csv.classificationText = "Heart Rate Over 150"
        #expect(csv.classification == .inconclusiveHighHeartRate)
        var mapper = RecordMapper(store: try newStore())
        csv.classificationText = "Something New"
        let s = try mapper.electrocardiogram(csv).get()
        #expect(s.metadata["Classification"] == .string("Something New"))
    }

    @Test func rule42_clinicalRecordsWithTheirFilesAreImportedAndThePatientIsReported() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(exportFolder(), into: store)
        // Four with their file, the third procedure without (its file is missing).
        #expect(r.clinicalRecords == 6 && r.clinicalRecordsAdded == 5 && r.clinicalRecordsWithoutFile == 1)
        #expect(r.skipped[SkipReason(kind: .unknownType, subject: "ClinicalRecord of Patient")] == 1)
        #expect(r.contents.contains { $0.kind == "ClinicalRecord" && $0.imported == 5 })
        #expect(r.notImported["ClinicalRecord"] == nil && r.filesNotImported["clinical-records/*.json"] == nil)
        let procedures = try samples(store, "HKClinicalTypeIdentifierProcedureRecord")
        #expect(Set(procedures.compactMap { s -> String? in
            if case .clinicalRecord(let c) = s.value { return c.displayName } else { return nil }
        }) == ["Appendectomy", "X-ray", "Procedure"])
        let flu = try #require(try samples(store, "HKClinicalTypeIdentifierImmunizationRecord").first)
        guard case .clinicalRecord(let c) = flu.value else { Issue.record("not a clinical record"); return }
        #expect(c.fhirResource?.data == Array(#"{"resourceType":"Immunization","vaccineCode":{"text":"Influenza"}}"#.utf8))
        #expect(c.fhirResource?.identifier == "Tdot1l.AKI5tXy3lOznArzgB" && c.fhirResource?.fhirVersion == "1.0.2")
        #expect(c.fhirResource?.sourceURL?.hasSuffix("/Immunization/Tdot1l.AKI5tXy3lOznArzgB") == true)
        // receivedDate="2020-12-06 20:24:29 -0800": the record's dates, as HealthKit's.
        #expect(flu.startDate == flu.endDate && flu.utcOffset == -28_800 && flu.source.name == "Sutter Health")
        // A diagnostic report is a lab result (decision); without a text of
        // its own, its display name is its resource type.
        let report = try samples(store, "HKClinicalTypeIdentifierLabResultRecord")
        #expect(report.count == 1)
        if case .clinicalRecord(let c)? = report.first?.value { #expect(c.displayName == "DiagnosticReport") }
        let again = try importFile(exportFolder(), into: store)
        #expect(again.clinicalRecordsAdded == 0 && again.clinicalRecordsAlreadyStored == 5)
    }

    @Test func rule42_anObservationIsAVitalSignByItsCategoryElseALabResult() {
        func type(_ json: String) -> String? {
            RecordMapper.clinicalType(resourceType: "Observation", json: JSONValue.read(Array(json.utf8)))
        }
        #expect(type(#"{"category":{"coding":[{"code":"vital-signs"}]}}"#) == "HKClinicalTypeIdentifierVitalSignRecord")
        #expect(type(#"{"category":[{"coding":[{"system":"x","code":"vital-signs"}]}]}"#) == "HKClinicalTypeIdentifierVitalSignRecord")
        #expect(type(#"{"category":[{"coding":[{"code":"laboratory"}]}]}"#) == "HKClinicalTypeIdentifierLabResultRecord")
        #expect(RecordMapper.clinicalType(resourceType: "Patient", json: nil) == nil)
    }

    /// HealthKit's fhirResource is optional: a record whose file the export
    /// lacks is kept without it, titled by its resource type, and replaced
    /// by the record with its resource when an import reads the file.
    @Test func rule42_aRecordWhoseFileIsMissingIsKeptWithoutItsResourceUntilItComes() throws {
        let store = try newStore()
        defer { store.close() }
        func records() throws -> [(String, ClinicalRecord)] {
            try TypeCatalogue.clinicalTypeNames.flatMap { name in
                try samples(store, TypeCatalogue.clinicalPrefix + name).compactMap { s -> (String, ClinicalRecord)? in
                    if case .clinicalRecord(let c) = s.value { return (name, c) } else { return nil }
                }
            }
        }
        // The XML alone: every file is missing. The Patient is no clinical
        // type of HealthKit's and is still skipped; the five others are kept.
        let alone = temporaryDirectory() + "/export.xml"
        writeBytes(alone, readBytes(fixtureA))
        let first = try importFile(alone, into: store)
        #expect(first.clinicalRecords == 6 && first.clinicalRecordsWithoutFile == 6 && first.clinicalRecordsAdded == 5)
        let kept = try records()
        #expect(kept.count == 5 && kept.allSatisfy { $0.1.fhirResource == nil })
        #expect(Set(kept.map(\.1.displayName)) == ["Procedure", "Immunization", "DiagnosticReport"])
        // Again: the same five, not five more.
        #expect(try importFile(alone, into: store).clinicalRecordsAdded == 0)
        // The folder with the files of four of them: those four now have
        // their resource, and the record whose file is still missing stays.
        _ = try importFile(exportFolder() + "/export.xml", into: store)
        let now = try records()
        #expect(now.count == 5)
        #expect(now.filter { $0.1.fhirResource == nil }.map(\.1.displayName) == ["Procedure"])
        #expect(Set(now.compactMap { $0.1.fhirResource == nil ? nil : $0.1.displayName })
                == ["Appendectomy", "X-ray", "Influenza", "DiagnosticReport"])
    }

    @Test func rule42_aFileThatIsNotJSONAndARecordWithoutItsIdentifierAreSkipped() throws {
        let dir = temporaryDirectory()
        mkdir(dir + "/clinical-records", 0o755)
        func element(_ id: String, _ file: String) -> String {
            "<ClinicalRecord type=\"Condition\" identifier=\"\(id)\" sourceName=\"Clinic\" sourceURL=\"https://fhir.example\" "
                + "fhirVersion=\"4.0.1\" receivedDate=\"2024-05-01 10:00:00 +0200\" resourceFilePath=\"/clinical-records/\(file)\"/>"
        }
        writeText(dir + "/export.xml", export([element("C1", "a.json"), element("", "b.json"), element("C3", "c.json")]
            .joined(separator: "\n")))
        writeText(dir + "/clinical-records/a.json", #"{"resourceType":"Condition","code":{"text":"Asthma"}"#)  // cut short
        writeText(dir + "/clinical-records/b.json", #"{"resourceType":"Condition"}"#)
        writeText(dir + "/clinical-records/c.json", #"{"resourceType":"Condition","code":{"text":"Hay fever"}}"#)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.clinicalRecords == 3 && r.clinicalRecordsAdded == 1)
        #expect(r.skipped[SkipReason(kind: .badValue, subject: "FHIR JSON of HKClinicalTypeIdentifierConditionRecord")] == 1)
        #expect(r.skipped[SkipReason(kind: .missingField, subject: "identifier of HKClinicalTypeIdentifierConditionRecord")] == 1)
    }

    /// Move-time rings, energy in kJ, and a day given twice: the later wins.
    @Test func rule43_anImportKeepsTheMoveModeConvertsEnergyAndTakesTheLaterDay() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", export("""
         <ActivitySummary dateComponents="2024-05-01" activeEnergyBurned="418.4" activeEnergyBurnedGoal="0" activeEnergyBurnedUnit="kJ" appleMoveTime="35" appleMoveTimeGoal="30" appleStandHours="8"/>
         <ActivitySummary dateComponents="2024-05-02" appleStandHours="3"/>
         <ActivitySummary dateComponents="2024-05-02" appleStandHours="5"/>
         <ActivitySummary dateComponents="2024-05-32" appleStandHours="5"/>
        """))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.activitySummaries == 4 && r.activitySummariesAdded == 2)
        #expect(r.skipped[SkipReason(kind: .badDate, subject: "ActivitySummary")] == 1)
        #expect(r.contents.contains(ImportReport.Row(kind: "ActivitySummary", count: 4, imported: 2,
                                                     note: "one per day; 1 repeating a day met before (the later one is kept); 1 skipped")))
        let all = try store.activitySummaries()
        #expect(all.count == 2)
        #expect(all[0].moveMode == .appleMoveTime && abs(all[0].activeEnergyBurned! - 100) < 1e-9 && all[0].appleMoveTime == 35)
        #expect(all[1].appleStandHours == 5 && all[1].activeEnergyBurned == nil && all[1].moveMode == .activeEnergy)
    }

    @Test func rule43_activitySummariesAreImportedOncePerDay() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureA, into: store)
        #expect(r.activitySummaries == 17 && r.activitySummariesAdded == 17 && r.notImported["ActivitySummary"] == nil)
        let all = try store.activitySummaries()
        #expect(all.count == 17 && all.map(\.day) == all.map(\.day).sorted())
        // <ActivitySummary dateComponents="2020-11-20" activeEnergyBurned="487.231" activeEnergyBurnedGoal="300"
        //  activeEnergyBurnedUnit="Cal" … appleExerciseTime="74" appleExerciseTimeGoal="30" appleStandHours="16" appleStandHoursGoal="11"/>
        let first = try #require(all.first { $0.day == (try? ActivitySummary.Day("2020-11-20")) })
        #expect(abs(first.activeEnergyBurned! - 487.231) < 1e-9 && first.activeEnergyBurnedGoal == 300)
        #expect(first.appleExerciseTime == 74 && first.exerciseTimeGoal == 30)
        #expect(first.appleStandHours == 16 && first.standHoursGoal == 11 && first.moveMode == .activeEnergy)
        let again = try importFile(fixtureA, into: store)
        #expect(again.activitySummariesAdded == 0 && again.activitySummariesAlreadyStored == 17)
    }

    @Test func rule43_ohkActivityPrintsTheDays() throws {
        let dir = temporaryDirectory() + "/store"
        #expect(ohk(["import", fixtureA, "--store", dir]).status == 0)
        let csv = ohk(["activity", "--store", dir, "--format", "csv", "--from", "2020-11-20", "--to", "2020-11-21"])
        #expect(csv.status == 0)
        #expect(csv.output.split(separator: "\n").dropFirst() == ["2020-11-20,487.231,300,0,0,74,30,16,11,activeEnergy,false",
                                                                  "2020-11-21,551.951,300,0,0,79,30,16,11,activeEnergy,false"])
        let bad = ohk(["activity", "--store", dir, "--from", "2020-11-31"], mergeStderr: true)
        #expect(bad.status != 0 && bad.output.contains("'2020-11-31' is not a day"))
    }

    /// HealthKit's update handler sees summaries another process saves:
    /// the `ohk` tool imports while this process's query runs.
    @Test func rule43_aQueryWithUpdatesSeesAnotherProcessImportTheSummaries() throws {
        let dir = temporaryDirectory() + "/store"
        let store = try newStore(dir)
        defer { store.close() }
        let got = Deliveries<[ActivitySummary]>()
        let q = ActivitySummaryQuery(updates: true) { _, r, _ in got.append((try? r.get()) ?? []) }
        try store.execute(q)
        defer { q.stop() }
        #expect(got.wait(count: 1, seconds: 30))
        let result = ohk(["import", fixtureA, "--store", dir])
        #expect(result.status == 0)
        #expect(got.wait(count: 2, seconds: 30))
        let all = got.items
        #expect(all.first == [] && all.dropFirst().flatMap { $0 }.count == 17)
    }
}

/// Values handlers deliver, with a bounded wait for the n-th.
final class Deliveries<T>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var list: [T] = []

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func append(_ item: T) {
        pthread_mutex_lock(&mutex)
        list.append(item)
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    var items: [T] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return list
    }

    /// True when `count` were delivered within `seconds`.
    func wait(count: Int, seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while list.count < count {
            if pthread_cond_timedwait(&condition, &mutex, &deadline) != 0 { return list.count >= count }
        }
        return true
    }
}
