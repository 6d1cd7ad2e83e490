/// One `<Record>` (or `<Workout>`) of export.xml as written: its attributes
/// and its `<MetadataEntry>` children, still text.
package struct ExportRecord: Sendable {
    var type = ""
    var unit: String?
    var value: String?
    var sourceName = ""
    var sourceVersion: String?
    var device: String?
    /// The dates, parsed as the reader meets them (`ExportTimestamp`):
    /// nil when missing or not a date. The start keeps the UTC offset it
    /// was written in.
    var start: (instant: Double, offset: Int)?
    var end: Double?
    var created: Double?
    var metadata: [(key: String, value: String)] = []
    /// Where the record starts in export.xml, for reports.
    var line = 0
    /// A `<Workout>`'s own fields (its type is then
    /// HKWorkoutTypeIdentifier); nil for a `<Record>`.
    var workout: ExportWorkout?
    /// A `<Correlation>`'s member `<Record>`s; nil for anything else.
    var members: [ExportRecord]?
    /// A heart-rate-variability record's beats, from its
    /// `<InstantaneousBeatsPerMinute time="7:00:01.10 AM">`s: the times as
    /// written (local time of day); nil without a beat list.
    var beats: [String]?
    /// An `<Audiogram>`'s `<SensitivityPoint>`s, their attributes as
    /// written; nil for anything else.
    var sensitivityPoints: [[String: String]]?
    /// An `<ActivitySummary>`'s or a `<ClinicalRecord>`'s attributes as
    /// written; nil for anything else.
    var activitySummary: [String: String]?
    var clinicalRecord: [String: String]?

    /// The element it was read from, for the report.
    var elementName: String {
        if members != nil { return "Correlation" }
        if workout != nil { return "Workout" }
        if sensitivityPoints != nil { return "Audiogram" }
        if activitySummary != nil { return "ActivitySummary" }
        if clinicalRecord != nil { return "ClinicalRecord" }
        return "Record"
    }
}
