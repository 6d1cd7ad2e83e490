/// What an import did, record by record.
public struct ImportReport: Sendable {
    /// Top-level `<Record>` elements read.
    public var records = 0
    /// Samples saved by this run.
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
    /// Records that could not be mapped to a sample, by reason.
    public var skipped: [SkipReason: Int] = [:]
    /// The first line of export.xml where each reason was met.
    public var firstLine: [SkipReason: Int] = [:]
    /// Elements other than `<Record>` that are not imported (yet), by name:
    /// `Workout`, `Correlation` (whose records also appear at top level),
    /// `ActivitySummary`, `ClinicalRecord`, `Audiogram`, unknown ones.
    public var notImported: [String: Int] = [:]
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

    public init() {}

    /// Records skipped for any reason.
    public var skippedCount: Int { skipped.values.reduce(0, +) }
}
