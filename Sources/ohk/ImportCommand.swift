#if CommandLineTool
import ArgumentParser
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitImport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the Health app's export (its zip, its folder or its XML) into the store.",
        discussion: """
        Records become quantity and category samples; workouts (with their
        events, activities, statistics and GPX routes), correlations,
        heartbeat series, audiograms, ECGs, clinical records, activity
        summaries and <Me>'s characteristics are imported too, and the
        report has a row for every element kind and file of the export.
        UUIDs are derived from the content, so importing the same export
        again adds nothing and a newer export adds only what is new. An
        interrupted import resumes with the next run.
        The export's XML is found by its root element, <HealthData>, under
        any name (Export.xml, 导出.xml); an internal DTD that does not parse
        is skipped, with a warning in the report.

        Examples:
          ohk import export.zip
          ohk import apple_health_export
          ohk import apple_health_export/export.xml --json
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: ArgumentHelp("export.zip, the unzipped apple_health_export folder, or its XML", valueName: "export"))
    var path: String

    @Option(help: "Samples per transaction.")
    var batchSize = 20_000

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "No progress bar.")
    var quiet = false

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
    }

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            let bar = ProgressBar(enabled: !quiet)
            let report: ImportReport
            do {
                report = try AppleHealthImport.run(path, into: store, options: ImportOptions(batchSize: batchSize, progress: { p in
                    bar.update(done: p.bytesRead, total: p.totalBytes, detail: "\(p.records) records, \(p.added) added")
                }))
            } catch let e as ImportError {
                bar.finish()
                printError("ohk: \(e)")
                if case .missingLibrary = e { throw Exit.unavailable }
                throw Exit.noInput
            }
            bar.finish()
            let seconds = bar.elapsedSeconds
            print(json ? ImportSummary.json(report, seconds: seconds) : ImportSummary.text(report, path: path, seconds: seconds))
            if let failure = report.failure {
                printError("ohk: import stopped early: \(failure)")
                printError("ohk: \(failure.advice)")
                throw Exit.damagedInput
            }
        }
    }
}

/// The import report for people and for programs.
enum ImportSummary {
    static func text(_ r: ImportReport, path: String, seconds: Double) -> String {
        let mb = Double(r.xmlBytes) / 1e6
        var lines = ["imported \(path): \(format(mb)) MB of XML in \(format(seconds)) s (\(format(mb / max(seconds, 0.001))) MB/s)"]
        if let xml = r.exportXML { lines.append("  export XML        \(xml)") }
        for w in r.warnings { lines.append("  warning           \(w)") }
        lines.append("  records read      \(r.records)")
        lines.append("  added             \(r.added)" + (r.replaced > 0 ? " (\(r.replaced) replacing older versions)" : ""))
        lines.append("  already stored    \(r.alreadyStored)")
        if r.olderVersions > 0 { lines.append("  older versions    \(r.olderVersions) (the store holds newer ones)") }
        if r.likelyDuplicateWorkouts > 0 {
            lines.append("  likely duplicates \(r.likelyDuplicateWorkouts) workouts copy another (same activity, start, end "
                         + "and totals); ohk stats Workout counts each once")
        }
        lines.append("  skipped           \(r.recordsSkipped)")
        if !r.skipped.isEmpty { lines.append("  skips of every kind, by reason:") }
        for (reason, n) in r.skipped.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(reason): \(n) (first at line \(r.firstLine[reason] ?? 0))")
        }
        lines.append("  the export holds:")
        let width = max(24, r.contents.map(\.kind.count).max() ?? 0)
        for row in r.contents {
            let what = row.imported == row.count ? "imported" : row.imported > 0 ? "\(row.imported) imported" : ""
            let text = [what, row.note].filter { !$0.isEmpty }.joined(separator: "; ")
            lines.append("    " + row.kind + String(repeating: " ", count: max(1, width + 1 - row.kind.count)) + "\(row.count)  " + text)
        }
        if !r.addedByType.isEmpty {
            lines.append("  added by type:")
            for (t, n) in r.addedByType.sorted(by: { $0.key < $1.key }) { lines.append("    \(t)  \(n)") }
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ r: ImportReport, seconds: Double) -> String {
        func counts(_ d: [String: Int]) -> JSONObject {
            var o = JSONObject()
            for (k, v) in d.sorted(by: { $0.key < $1.key }) { o.add(k, int: v) }
            return o
        }
        var o = JSONObject()
        o.add("records", int: r.records)
        o.add("added", int: r.added)
        o.add("alreadyStored", int: r.alreadyStored)
        o.add("replaced", int: r.replaced)
        o.add("olderVersions", int: r.olderVersions)
        o.add("workouts", int: r.workouts)
        o.add("workoutsAdded", int: r.workoutsAdded)
        o.add("workoutsAlreadyStored", int: r.workoutsAlreadyStored)
        o.add("likelyDuplicateWorkouts", int: r.likelyDuplicateWorkouts)
        o.add("routes", int: r.routes)
        o.add("routesAdded", int: r.routesAdded)
        o.add("routesAlreadyStored", int: r.routesAlreadyStored)
        o.add("routesWithoutFile", int: r.routesWithoutFile)
        o.add("correlations", int: r.correlations)
        o.add("correlationsAdded", int: r.correlationsAdded)
        o.add("correlationsAlreadyStored", int: r.correlationsAlreadyStored)
        o.add("skipped", object: counts(Dictionary(r.skipped.map { ($0.key.description, $0.value) }) { a, _ in a }))
        o.add("notImported", object: counts(r.notImported))
        o.add("addedByType", object: counts(r.addedByType))
        o.add("addedByUnit", object: counts(r.addedByUnit))
        o.add("addedBySource", object: counts(r.addedBySource))
        o.add("xmlBytes", int: Int(r.xmlBytes))
        o.add("seconds", number: seconds)
        o.add("failure", r.failure.map { "\($0)" })
        o.add("exportXML", r.exportXML)
        o.add("contents", raw: JSONObject.array(r.contents.map { row in
            var c = JSONObject()
            c.add("kind", row.kind)
            c.add("count", int: row.count)
            c.add("imported", int: row.imported)
            if !row.note.isEmpty { c.add("note", row.note) }
            return c.closed
        }))
        o.add("filesNotImported", object: counts(r.filesNotImported))
        o.add("warnings", raw: JSONObject.array(r.warnings.map(JSONObject.quoted)))
        return o.closed
    }
}
#endif
