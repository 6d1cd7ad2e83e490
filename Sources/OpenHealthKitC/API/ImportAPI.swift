// openhealthkit.h section 230: Importing Apple Health exports
import COpenHealthKit
import Glibc
import OpenHealthKitCore
import OpenHealthKitImport

/// Imports an Apple Health export into `store`: `path` is the export's zip,
/// its unzipped folder, or its XML file, found under any name. The same
/// importer as `ohk import`: one streaming pass in constant memory, each
/// batch of samples saved all or nothing, idempotent (records already in
/// the store are skipped), so a run that was stopped resumes by running it
/// again. `progress` (may be NULL) is called on the calling thread after
/// each chunk of XML, and can stop the import by returning non-zero.
/// *out_report receives the report, to free with ohk_import_report_free.
/// Returns OHK_OK when the whole export was read; OHK_ERR_IMPORT_DAMAGED
/// (cut short or damaged past some point) or OHK_ERR_CANCELLED (progress
/// asked to stop), with *out_report set: what came before was imported;
/// OHK_ERR_IMPORT_INPUT (cannot open, not an export), OHK_ERR_UNAVAILABLE
/// (libexpat, libarchive or libcrypto is not installed: they are opened
/// when an import starts), and the store's errors, with *out_report NULL.
/// Any thread; it blocks until the import ends.
@c public func ohk_store_import(_ out_report: UnsafeMutablePointer<UnsafeMutablePointer<ohk_import_report>?>?,
                                _ store: UnsafeMutablePointer<ohk_store>?,
                                _ path: UnsafePointer<CChar>?,
                                _ progress: ohk_import_progress_fn?,
                                _ user_data: UnsafeMutableRawPointer?) -> ohk_status {
    cCall {
        let out = try out(out_report, "out_report")
        out.pointee = nil
        let s = try StoreHandle.get(store)
        let file = try string(path, "path")
        let caller = ProgressCaller(progress: progress, userData: user_data)
        let report: ImportReport
        do {
            report = try AppleHealthImport.run(file, into: s, options: ImportOptions(
                shouldStop: { caller.stopRequested }, progress: { caller.call($0) }))
        } catch let e as ImportError {
            throw CError(status: ImportReportC.status(e), "\(e)")
        }
        out.pointee = ImportReportC.make(report)
        if let failure = report.failure {
            throw CError(status: ImportReportC.status(failure), "\(failure); \(failure.advice)")
        }
    }
}

/// Frees a report of ohk_store_import, its strings and arrays. NULL is
/// ignored. Any thread.
@c public func ohk_import_report_free(_ report: UnsafeMutablePointer<ohk_import_report>?) {
    guard let r = report?.pointee else { return }
    free(UnsafeMutablePointer(mutating: r.export_xml))
    free(UnsafeMutablePointer(mutating: r.failure_message))
    for i in 0..<Int(r.content_count) {
        free(UnsafeMutablePointer(mutating: r.contents[i].kind))
        free(UnsafeMutablePointer(mutating: r.contents[i].note))
    }
    for i in 0..<Int(r.skip_count) { free(UnsafeMutablePointer(mutating: r.skips[i].reason)) }
    for i in 0..<Int(r.warning_count) { free(UnsafeMutablePointer(mutating: r.warnings[i])) }
    free(UnsafeMutableRawPointer(mutating: r.contents))
    free(UnsafeMutableRawPointer(mutating: r.skips))
    free(UnsafeMutableRawPointer(mutating: r.warnings))
    report?.deallocate()
}

/// The C callback and its answer: the importer asks `stopRequested` right
/// after each progress call, on the same thread.
private final class ProgressCaller: @unchecked Sendable {
    let progress: ohk_import_progress_fn?
    let userData: UnsafeMutableRawPointer?
    var stopRequested = false

    init(progress: ohk_import_progress_fn?, userData: UnsafeMutableRawPointer?) {
        self.progress = progress
        self.userData = userData
    }

    func call(_ p: ImportProgress) {
        guard let progress else { return }
        if progress(UInt64(max(0, p.bytesRead)), UInt64(max(0, p.totalBytes)), UInt64(p.records), UInt64(p.added),
                    userData) != 0 {
            stopRequested = true
        }
    }
}

/// An `ImportReport` as the C struct: every string and array malloc'ed,
/// for ohk_import_report_free.
private enum ImportReportC {
    static func status(_ e: ImportError) -> Int32 {
        switch e {
        case .cannotOpen, .notAnExport: Int32(OHK_ERR_IMPORT_INPUT)
        case .damaged, .truncated: Int32(OHK_ERR_IMPORT_DAMAGED)
        case .missingLibrary: Int32(OHK_ERR_UNAVAILABLE)
        case .cancelled: Int32(OHK_ERR_CANCELLED)
        }
    }

    static func make(_ r: ImportReport) -> UnsafeMutablePointer<ohk_import_report> {
        let rows = r.contents
        let contents = mallocArray(of: ohk_import_row.self, rows.count)
        for (i, row) in rows.enumerated() {
            contents[i] = ohk_import_row(kind: strdup(row.kind), count: UInt64(row.count),
                                         imported: UInt64(row.imported), note: strdup(row.note))
        }
        let reasons = r.skipped.sorted { $0.key < $1.key }
        let skips = mallocArray(of: ohk_import_skip.self, reasons.count)
        for (i, (reason, n)) in reasons.enumerated() {
            skips[i] = ohk_import_skip(reason: strdup(reason.description), count: UInt64(n),
                                       first_line: UInt64(r.firstLine[reason] ?? 0))
        }
        let warnings = mallocArray(of: UnsafePointer<CChar>?.self, r.warnings.count)
        for (i, w) in r.warnings.enumerated() { warnings[i] = UnsafePointer(strdup(w)) }
        let out = UnsafeMutablePointer<ohk_import_report>.allocate(capacity: 1)
        out.initialize(to: ohk_import_report(
            records: UInt64(r.records), added: UInt64(r.added), already_stored: UInt64(r.alreadyStored),
            replaced: UInt64(r.replaced), older_versions: UInt64(r.olderVersions), skipped: UInt64(r.recordsSkipped),
            bytes_read: UInt64(max(0, r.bytesRead)), xml_bytes: UInt64(max(0, r.xmlBytes)),
            export_xml: r.exportXML.map { UnsafePointer(strdup($0)) } ?? nil,
            failure: r.failure.map(status) ?? Int32(OHK_OK),
            failure_message: r.failure.map { UnsafePointer(strdup("\($0); \($0.advice)")) } ?? nil,
            contents: UnsafePointer(contents), content_count: UInt64(rows.count),
            skips: UnsafePointer(skips), skip_count: UInt64(reasons.count),
            warnings: UnsafePointer(warnings), warning_count: UInt64(r.warnings.count)))
        return out
    }
}
