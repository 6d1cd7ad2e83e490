import OpenHealthKitCore

/// What an import did, record by record.
public struct ImportReport: Sendable {
    /// Top-level `<Record>` elements read.
    public var records = 0
    /// Samples saved by this run from `<Record>`s.
    public var added = 0
    /// Records already in the store (imported before, or twice in this
    /// export): nothing to do. A deleted sample stays deleted.
    public var alreadyStored = 0
    /// Samples that replaced an older version with the same sync
    /// identifier (rule 14 of docs/semantics.md); counted in `added` too.
    public var replaced = 0
    /// Records not saved because the store holds a newer version of the
    /// same sync identifier (rule 14).
    public var olderVersions = 0
    /// `<Record>`s that could not be mapped to a sample (their reasons
    /// are in `skipped`, with those of every other kind).
    public var recordsSkipped = 0
    /// `<Workout>` elements read; saved by this run, stored before, and
    /// not saved because the store holds a newer version (rule 14).
    /// Workouts skipped are counted in `skipped` with the records.
    public var workouts = 0
    public var workoutsAdded = 0
    public var workoutsAlreadyStored = 0
    public var workoutsOlderVersions = 0
    /// Workouts in the store, after this run, that likely copy another
    /// (rule 57: same activity, start, end, duration and totals), which
    /// `ohk stats Workout` and Python's `workouts()` count once.
    public var likelyDuplicateWorkouts = 0
    /// `<WorkoutRoute>` elements read (inside workouts); routes saved by
    /// this run, stored before, and whose GPX file the export does not
    /// hold. A route whose file is not a GPX track is counted in `skipped`.
    public var routes = 0
    public var routesAdded = 0
    public var routesAlreadyStored = 0
    public var routesWithoutFile = 0
    /// Routes and clinical records whose files were not read because the
    /// import stopped first (damage, or its caller): a rerun adds them.
    public var routesNotRead = 0
    public var clinicalRecordsNotRead = 0
    /// `<Correlation>` elements read; saved by this run; stored before. Its
    /// member records are saved with it (as samples of their own types,
    /// counted with the records when the export lists them at top level,
    /// as Apple's exports do).
    public var correlations = 0
    public var correlationsAdded = 0
    public var correlationsAlreadyStored = 0
    /// Heart-rate-variability beat lists (`<HeartRateVariabilityMetadataList>`)
    /// read; heartbeat series saved from them by this run, stored before,
    /// and lists without a beat (rule 39). A list whose times do not read
    /// is counted in `skipped`.
    public var heartbeatSeries = 0
    public var heartbeatSeriesAdded = 0
    public var heartbeatSeriesAlreadyStored = 0
    public var heartbeatSeriesEmpty = 0
    /// `<Audiogram>` elements read; saved by this run; stored before or
    /// older than the stored version (rule 40). One that does not read is
    /// counted in `skipped`.
    public var audiograms = 0
    public var audiogramsAdded = 0
    public var audiogramsAlreadyStored = 0
    /// ECG files (`electrocardiograms/*.csv`) read; saved by this run;
    /// stored before (rule 41). One that does not read is in `skipped`.
    public var electrocardiograms = 0
    public var electrocardiogramsAdded = 0
    public var electrocardiogramsAlreadyStored = 0
    /// `<ClinicalRecord>` elements read; saved by this run; stored before;
    /// without their JSON file in the export (rule 42).
    public var clinicalRecords = 0
    public var clinicalRecordsAdded = 0
    public var clinicalRecordsAlreadyStored = 0
    public var clinicalRecordsWithoutFile = 0
    /// `<ActivitySummary>` elements read; days written by this run; days
    /// the store held as they are (rule 43).
    public var activitySummaries = 0
    public var activitySummariesAdded = 0
    public var activitySummariesAlreadyStored = 0
    /// `<ActivitySummary>`s of a day met before in the export: the later
    /// one is kept (rule 43).
    public var activitySummariesRepeated = 0
    /// Records that could not be mapped to a sample, by reason.
    public var skipped: [SkipReason: Int] = [:]
    /// The first line of export.xml where each reason was met.
    public var firstLine: [SkipReason: Int] = [:]
    /// Elements not imported, by name: top-level ones the importer does
    /// not read (`VisionPrescription`, unknown ones), and nested ones where
    /// exports have none, as "Parent > Child".
    public var notImported: [String: Int] = [:]
    /// Elements past a per-list bound (`ImportLimits`: beats of one
    /// heart-rate-variability list, points of one audiogram), as
    /// "Parent > Child": each list keeps its first ones.
    public var cutShort: [String: Int] = [:]
    /// The `value` of the export's `<ExportDate>`, as written.
    public var exportDate: String?
    /// The export's other files, not imported, by kind: a folder and an
    /// extension (`workout-routes/*.gpx` no route names) or a name
    /// (`export_cda.xml`); after damage, every file beside the XML.
    public var filesNotImported: [String: Int] = [:]
    /// Added samples by type identifier, by the export's unit text
    /// (category samples under ""), and by source name.
    public var addedByType: [String: Int] = [:]
    public var addedByUnit: [String: Int] = [:]
    public var addedBySource: [String: Int] = [:]
    /// Bytes of the input file read (compressed bytes for a zip).
    public var bytesRead: Int64 = 0
    /// Bytes of XML parsed.
    public var xmlBytes: Int64 = 0
    /// Why the import stopped before the end of the export (a truncated
    /// zip, malformed XML); what came before it is imported.
    public var failure: ImportError?
    /// The export's XML inside the zip or folder given
    /// ("apple_health_export/export.xml"); nil for an XML file given itself.
    public var exportXML: String?
    /// What the import worked around, said once each (a broken internal
    /// DTD that was skipped).
    public var warnings: [String] = []
    /// The export's `<Me>` (rule 38): the characteristics it set in the
    /// store, nil when the export has no `<Me>`; `meRefused` says why a
    /// `<Me>` the import could not read was skipped.
    public var characteristics: Characteristics?
    public var meRefused: String?
    /// The `<Me>` attributes that are none of the five characteristics
    /// kept (rule 38), by name: said in its row, not stored.
    public var meNotKept: [String] = []

    public init() {}

    /// Records skipped for any reason.
    public var skippedCount: Int { skipped.values.reduce(0, +) }

    /// One row for each kind of element and file the export holds: how
    /// many, how many imported, and why the rest were not.
    public struct Row: Sendable, Equatable {
        public let kind: String
        public let count: Int
        public let imported: Int
        public let note: String
    }

    /// Every element kind and file of the export, each a row: nothing is
    /// dropped without a word.
    public var contents: [Row] {
        var notes: [String] = []
        if alreadyStored > 0 { notes.append("\(alreadyStored) already stored") }
        if olderVersions > 0 { notes.append("\(olderVersions) older than the stored version") }
        if recordsSkipped > 0 { notes.append("\(recordsSkipped) skipped") }
        var rows = [Row(kind: "Record", count: records, imported: added + alreadyStored, note: notes.joined(separator: ", "))]
        rows += [
            Self.row("Workout", count: workouts, added: workoutsAdded, stored: workoutsAlreadyStored,
                     holds: "with their events, statistics and activities",
                     also: [(workoutsOlderVersions, "older than the stored version")]),
            Self.row("WorkoutRoute", count: routes, added: routesAdded, stored: routesAlreadyStored,
                     holds: "with the locations of their GPX files",
                     also: [(routesWithoutFile, "without their file in the export"),
                            (routesNotRead, "not read: the import stopped before the files")]),
            Self.row("Correlation", count: correlations, added: correlationsAdded, stored: correlationsAlreadyStored,
                     holds: "with their member records", also: []),
            Self.row("Audiogram", count: audiograms, added: audiogramsAdded, stored: audiogramsAlreadyStored,
                     holds: "with their sensitivity points", also: []),
            Self.row("ClinicalRecord", count: clinicalRecords, added: clinicalRecordsAdded, stored: clinicalRecordsAlreadyStored,
                     holds: "with the FHIR JSON of their files",
                     also: [(clinicalRecordsWithoutFile, "kept without their FHIR resource: the export lacks their file"),
                            (clinicalRecordsNotRead, "not read: the import stopped before the files")]),
            Self.row("ActivitySummary", count: activitySummaries, added: activitySummariesAdded,
                     stored: activitySummariesAlreadyStored, holds: "one per day",
                     also: [(activitySummariesRepeated, "repeating a day met before (the later one is kept)")]),
            Self.row("electrocardiograms/*.csv", count: electrocardiograms, added: electrocardiogramsAdded,
                     stored: electrocardiogramsAlreadyStored, holds: "as electrocardiograms with their voltages", also: []),
            Self.row("HeartRateVariabilityMetadataList", count: heartbeatSeries, added: heartbeatSeriesAdded,
                     stored: heartbeatSeriesAlreadyStored, holds: "as heartbeat series",
                     also: [(heartbeatSeriesEmpty, "without a beat")]),
        ].compactMap { $0 }
        if let c = characteristics {
            let set = [c.dateOfBirth != nil ? "date of birth" : nil, c.biologicalSex != .notSet ? "biological sex" : nil,
                       c.bloodType != .notSet ? "blood type" : nil, c.fitzpatrickSkinType != .notSet ? "skin type" : nil,
                       c.wheelchairUse != .notSet ? "wheelchair use" : nil].compactMap { $0 }
            var note = set.isEmpty ? "no characteristic set" : "characteristics: " + set.joined(separator: ", ")
            if !meNotKept.isEmpty {
                let prefix = "HKCharacteristicTypeIdentifier"
                let names = meNotKept.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
                note += "; not kept: " + names.joined(separator: ", ") + " (none of the five characteristics kept)"
            }
            rows.append(Row(kind: "Me", count: 1, imported: 1, note: note))
        } else if let why = meRefused {
            rows.append(Row(kind: "Me", count: 1, imported: 0, note: "skipped: \(why)"))
        }
        if let exportDate {
            rows.append(Row(kind: "ExportDate", count: 1, imported: 0, note: "the export's date, \(exportDate): nothing to store"))
        }
        for (kind, n) in cutShort.sorted(by: { $0.key < $1.key }) {
            rows.append(Row(kind: kind, count: n, imported: 0, note: "past the most one list keeps: dropped"))
        }
        for (kind, n) in notImported.sorted(by: { $0.key < $1.key }) {
            rows.append(Row(kind: kind, count: n, imported: 0, note: Self.reason(element: kind)))
        }
        for (kind, n) in filesNotImported.sorted(by: { $0.key < $1.key }) {
            rows.append(Row(kind: kind, count: n, imported: 0, note: Self.reason(file: kind, stopped: failure != nil)))
        }
        return rows
    }

    /// Counts a saved sample's outcome under its element's figures.
    mutating func count(_ kind: SampleType.Kind, _ outcome: SaveOutcome?) {
        switch (kind, outcome) {
        case (.workout, nil): workoutsAlreadyStored += 1
        case (.workout, .notSavedOlderVersion?): workoutsOlderVersions += 1
        case (.workout, _): workoutsAdded += 1
        case (.route, nil), (.route, .notSavedOlderVersion?): routesAlreadyStored += 1
        case (.route, _): routesAdded += 1
        case (.correlation, nil), (.correlation, .notSavedOlderVersion?): correlationsAlreadyStored += 1
        case (.correlation, _): correlationsAdded += 1
        case (.heartbeatSeries, nil), (.heartbeatSeries, .notSavedOlderVersion?): heartbeatSeriesAlreadyStored += 1
        case (.heartbeatSeries, _): heartbeatSeriesAdded += 1
        case (.audiogram, nil), (.audiogram, .notSavedOlderVersion?): audiogramsAlreadyStored += 1
        case (.audiogram, _): audiogramsAdded += 1
        case (.electrocardiogram, nil), (.electrocardiogram, .notSavedOlderVersion?): electrocardiogramsAlreadyStored += 1
        case (.electrocardiogram, _): electrocardiogramsAdded += 1
        case (.clinicalRecord, nil), (.clinicalRecord, .notSavedOlderVersion?): clinicalRecordsAlreadyStored += 1
        case (.clinicalRecord, _): clinicalRecordsAdded += 1
        case (_, nil): alreadyStored += 1
        case (_, .notSavedOlderVersion?): olderVersions += 1
        case (_, .replaced?): replaced += 1; added += 1
        case (_, .saved?): added += 1
        }
    }

    /// The row of a kind imported whole (nil when the export has none):
    /// what it holds, then what was not added and why; the rest were
    /// skipped, and `skipped` says why.
    private static func row(_ kind: String, count: Int, added: Int, stored: Int, holds: String,
                            also: [(Int, String)]) -> Row? {
        guard count > 0 else { return nil }
        var notes = [holds]
        if stored > 0 { notes.append("\(stored) already stored") }
        var accounted = added + stored
        for (n, why) in also where n > 0 {
            notes.append("\(n) \(why)")
            accounted += n
        }
        if count > accounted { notes.append("\(count - accounted) skipped") }
        return Row(kind: kind, count: count, imported: added + stored, note: notes.joined(separator: "; "))
    }

    private static func reason(element: String) -> String {
        switch element {
        case "VisionPrescription": "not imported yet"
        case _ where element.contains(" > ") || element.hasSuffix(" (nested)"):
            "not an element Apple's exports have there: not read"
        default: "not an element of Apple's exports"
        }
    }

    /// Why files of a kind were not imported: after the import stopped,
    /// none was read; otherwise no element named them, or the kind is not
    /// imported.
    private static func reason(file kind: String, stopped: Bool) -> String {
        if stopped { return "not read: the import stopped before the files" }
        return switch kind {
        case "workout-routes/*.gpx": "no imported WorkoutRoute names them"
        case "clinical-records/*.json": "no ClinicalRecord of the export names them"
        case "export_cda.xml": "the clinical document (CDA): not imported yet"
        default: "not imported yet"
        }
    }

    /// Files by kind, relative to the export's folder (the folder of its
    /// XML): a folder and an extension, or a top-level file's name.
    static func fileKinds(_ files: [String], exportXML: String?) -> [String: Int] {
        let base = exportXML.map { x in x.split(separator: "/").dropLast().joined(separator: "/") } ?? ""
        var out: [String: Int] = [:]
        for f in files where !f.hasSuffix("/") {
            var rel = Substring(f)
            if !base.isEmpty, rel.hasPrefix(base + "/") { rel = rel.dropFirst(base.count + 1) }
            let parts = rel.split(separator: "/")
            guard let last = parts.last else { continue }
            let ext = last.contains(".") ? "*." + last.split(separator: ".").last! : "*"
            let kind = parts.count > 1 ? parts.dropLast().joined(separator: "/") + "/" + ext : String(last)
            out[kind, default: 0] += 1
        }
        return out
    }
}
