import FoundationEssentials
import Glibc
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

/// The export is found wherever it is (docs/ohk.md, "What is imported"):
/// any name in a zip or folder, an unzipped folder, a loose file; and an
/// export whose internal DTD is broken imports all the same.
@Suite struct ExportDiscovery {
    /// fixtureB's 37 records: 36 are added (one has a bogus type).
    private func expectFixtureB(_ r: ImportReport) {
        #expect(r.failure == nil && r.records == 37 && r.added == 36, "\(r.records) \(r.added) \(String(describing: r.failure))")
    }

    private let cda = "<?xml version=\"1.0\"?>\n<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>CDA</title></ClinicalDocument>\n"

    @Test func aZipEntryOfAnyNameWhoseRootIsHealthDataIsTheExport() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/cda.xml", cda)
        for name in ["apple_health_export/Export.xml", "apple_health_export/导出.xml"] {
            // The clinical document first, as the Health app writes it.
            makeZip(dir + "/e.zip", [("apple_health_export/export_cda.xml", dir + "/cda.xml"),
                                     ("apple_health_export/workout-routes/route_1.gpx", dir + "/cda.xml"),
                                     (name, fixtureB)])
            let store = try newStore()
            defer { store.close() }
            let r = try importFile(dir + "/e.zip", into: store)
            expectFixtureB(r)
            #expect(r.exportXML == name)
        }
    }

    @Test func anXMLEntryOfAnotherRootIsPassedOver() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/other.xml", "<?xml version=\"1.0\"?>\n<feed/>\n")
        makeZip(dir + "/e.zip", [("apple_health_export/notes.xml", dir + "/other.xml"),
                                 ("apple_health_export/data.xml", fixtureB)])
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.zip", into: store)
        expectFixtureB(r)
        #expect(r.exportXML == "apple_health_export/data.xml")
    }

    /// Even an entry named export.xml is sniffed: one whose root is
    /// another element (here a clinical document) is not the export.
    @Test func anEntryNamedExportXMLOfAnotherRootIsPassedOver() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/other.xml", cda)
        makeZip(dir + "/e.zip", [("apple_health_export/export.xml", dir + "/other.xml"),
                                 ("apple_health_export/data.xml", fixtureB)])
        mkdir(dir + "/apple_health_export", 0o755)
        writeText(dir + "/apple_health_export/export.xml", cda)
        writeBytes(dir + "/apple_health_export/data.xml", readBytes(fixtureB))
        for given in [dir + "/e.zip", dir + "/apple_health_export"] {
            let store = try newStore()
            defer { store.close() }
            let r = try importFile(given, into: store)
            expectFixtureB(r)
            #expect(r.exportXML?.hasSuffix("data.xml") == true, "\(given)")
        }
    }

    @Test func anUnzippedExportFolderIsImported() throws {
        let dir = temporaryDirectory()
        mkdir(dir + "/apple_health_export", 0o755)
        writeText(dir + "/apple_health_export/export_cda.xml", cda)
        writeBytes(dir + "/apple_health_export/Export.xml", readBytes(fixtureB))
        for given in [dir + "/apple_health_export", dir] {
            let store = try newStore()
            defer { store.close() }
            let r = try importFile(given, into: store)
            expectFixtureB(r)
            #expect(r.exportXML?.hasSuffix("Export.xml") == true)
        }
    }

    @Test func aFolderWithoutAnExportListsWhatItHolds() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/export_cda.xml", cda)
        writeText(dir + "/readme.txt", "hi")
        let store = try newStore()
        defer { store.close() }
        #expect(throws: ImportError.notAnExport("\(dir) holds no export XML (a file whose root is <HealthData>); it holds export_cda.xml, readme.txt")) {
            _ = try importFile(dir, into: store)
        }
    }

    /// An export whose internal subset has a malformed ATTLIST, as some
    /// iOS versions write: every record is imported, the report says the
    /// DTD was skipped, and a later error keeps its true line.
    @Test func aBrokenInternalDTDIsSkippedAndTheRecordsImport() throws {
        let dir = temporaryDirectory()
        let broken = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 11 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ATTLIST Record
          type CDATA #REQUIRED
          unit CDATA #IMPLIED
          value CDATA #IMPLIED
          device CDATA #IMPLIED
          startDate CDATA #REQUIRED
          endDate CDATA #REQUIRED
          sourceName CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          creationDate CDATA
          startDate CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2024-06-01 09:00:00 -0700"/>
        \(record(value: "70"))
        \(record(value: "71"))
        \(record(value: "72"))
        </HealthData>

        """
        writeText(dir + "/broken.xml", broken)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/broken.xml", into: store)
        #expect(r.failure == nil && r.added == 3, "\(String(describing: r.failure))")
        #expect(r.warnings.count == 1 && r.warnings[0].contains("internal DTD does not parse"), "\(r.warnings)")
        // The same export, cut inside its last record: the error's line is the file's own.
        let lines = broken.split(separator: "\n", omittingEmptySubsequences: false)
        let lastRecordLine = lines.firstIndex { $0.contains("value=\"72\"") }! + 1
        writeText(dir + "/cut.xml", lines[0..<(lastRecordLine - 1)].joined(separator: "\n") + "\n <Record type=\"x\" oops")
        let cut = try importFile(dir + "/cut.xml", into: try newStore())
        guard case .truncated(let message)? = cut.failure else {
            Issue.record("expected a cut, got \(String(describing: cut.failure))")
            return
        }
        #expect(message.contains("line \(lastRecordLine)"), "\(message)")
    }

    /// A sound DTD is read as before, with no warning.
    @Test func aSoundInternalDTDGivesNoWarning() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureA, into: store)
        #expect(r.failure == nil && r.warnings.isEmpty, "\(r.warnings)")
    }

    @Test func theRootIsFoundPastADoctypeWithQuotedBracketsAndComments() {
        let text = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- x ]> -->\n<!DOCTYPE HealthData [ <!ATTLIST a b CDATA \"]>\"> <!-- ] --> ]>\n<HealthData>"
        let l = ExportProlog.layout(Array(text.utf8)[...])
        #expect(l.doctypeName == "HealthData" && l.root == "HealthData" && l.subset != nil && !l.truncated)
        #expect(ExportProlog.rootElement(Array("<!DOCTYPE HealthData [ <!ELEMENT".utf8)[...]) == "HealthData")
        #expect(ExportProlog.needsMore(Array("<!DOCTYPE HealthData [ <!ELEMENT".utf8)[...]))
    }
}

/// Every file of the export has a row in the report (issue: nothing
/// dropped without a word), from a zip and from a folder alike.
@Suite struct ExportFiles {
    private func layout(_ dir: String) {
        mkdir(dir + "/apple_health_export", 0o755)
        mkdir(dir + "/apple_health_export/workout-routes", 0o755)
        mkdir(dir + "/apple_health_export/electrocardiograms", 0o755)
        writeBytes(dir + "/apple_health_export/export.xml", readBytes(fixtureB))
        writeText(dir + "/apple_health_export/export_cda.xml", "<ClinicalDocument/>")
        for i in 1...3 { writeText(dir + "/apple_health_export/workout-routes/route_\(i).gpx", "<gpx/>") }
        writeText(dir + "/apple_health_export/electrocardiograms/ecg_1.csv", "Name,x")
    }

    /// The ECG file is read (rule 41) and, not being one, skipped with its reason.
    private let expected = ["export_cda.xml": 1, "workout-routes/*.gpx": 3]
    private let ecgRow = ImportReport.Row(kind: "electrocardiograms/*.csv", count: 1, imported: 0,
                                          note: "as electrocardiograms with their voltages; 1 skipped")

    @Test func theFilesOfAFolderAreListed() throws {
        let dir = temporaryDirectory()
        layout(dir)
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/apple_health_export", into: store)
        #expect(r.filesNotImported == expected)
        #expect(r.contents.contains(ecgRow))
        #expect(r.contents.contains(ImportReport.Row(kind: "workout-routes/*.gpx", count: 3, imported: 0,
                                                     note: "no imported WorkoutRoute names them")))
        #expect(r.contents.contains(ImportReport.Row(kind: "export_cda.xml", count: 1, imported: 0,
                                                     note: "the clinical document (CDA): not imported yet")))
        // The Record row counts the records skipped, not the ECG file skipped beside them.
        #expect(r.skippedCount == 2 && r.recordsSkipped == 1)
        #expect(r.contents.first == ImportReport.Row(kind: "Record", count: 37, imported: 36, note: "1 skipped"))
    }

    @Test func theEntriesOfAZipBeforeAndAfterTheXMLAreListed() throws {
        let dir = temporaryDirectory()
        layout(dir)
        let e = dir + "/apple_health_export/"
        makeZip(dir + "/e.zip", [("apple_health_export/export_cda.xml", e + "export_cda.xml"),
                                 ("apple_health_export/export.xml", e + "export.xml"),
                                 ("apple_health_export/workout-routes/route_1.gpx", e + "workout-routes/route_1.gpx"),
                                 ("apple_health_export/workout-routes/route_2.gpx", e + "workout-routes/route_2.gpx"),
                                 ("apple_health_export/workout-routes/route_3.gpx", e + "workout-routes/route_3.gpx"),
                                 ("apple_health_export/electrocardiograms/ecg_1.csv", e + "electrocardiograms/ecg_1.csv")])
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/e.zip", into: store)
        #expect(r.failure == nil)
        #expect(r.filesNotImported == expected)
        #expect(r.contents.contains(ecgRow))
    }
}
