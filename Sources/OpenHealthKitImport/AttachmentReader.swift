import OpenHealthKitCore
import Synchronization

/// A file beside the XML, read and parsed, and what it is.
enum Attachment: Sendable {
    case route(String, Result<[RouteLocation], SkipReason>)
    case clinicalRecord(String, [UInt8])
    case electrocardiogram(String, Result<ElectrocardiogramCSV, ElectrocardiogramCSV.Failure>)
    /// Handed over with the file's name as the export has it.
    indirect case file(String, Attachment)
    case end
}

/// The thread that reads and parses the files beside the XML, and the
/// files it handed over; `stop` makes it finish early and waits for it.
final class AttachmentReader: Sendable {
    /// One file queued: with the one being parsed and the one being saved,
    /// three at most are in memory (each up to its limit below).
    let handoff = Handoff<Attachment>(capacity: 1)
    let stopped = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)

    /// Reads the files beside the XML in one pass (over a zip, one walk
    /// of its entries) and hands each over parsed (GPX and CSV parsing is
    /// most of the work): the route files and clinical records' files the
    /// XML named (relative to the export's folder), and the ECG files.
    func read(_ exportPath: String, exportXML: String?, routeFiles: Set<String>, clinicalFiles: Set<String>,
              otherFiles: [String]) {
        // The most bytes each may have: a 30 s ECG is about 130 KB.
        var limits: [String: Int] = [:]
        for p in Self.electrocardiogramPaths(exportPath, exportXML: exportXML, files: otherFiles) { limits[p] = 8 << 20 }
        for p in clinicalFiles { limits[p] = 64 << 20 }
        for p in routeFiles { limits[p] = 256 << 20 }
        // Only the body's own errors can be thrown: it stops once told to.
        try? ExportAttachments.read(exportPath, exportXML: exportXML, limits: limits,
                                    unless: { self.stopped.load(ordering: .relaxed) }) { path, name, bytes in
            if stopped.load(ordering: .relaxed) { throw ImportError.cancelled }
            let file: Attachment = routeFiles.contains(path) ? .route(path, GPXParser.locations(bytes))
                : clinicalFiles.contains(path) ? .clinicalRecord(path, bytes)
                : .electrocardiogram(path, ElectrocardiogramCSV.parse(bytes))
            handoff.put(.file(name, file))
        }
    }

    /// The next file, or `.end` once the reader is done.
    func take() -> Attachment {
        let next = handoff.take()
        if case .end = next { done.store(true, ordering: .relaxed) }
        return next
    }

    /// Tells the reader to stop, and takes what it hands over until its end.
    func stop() {
        guard !done.load(ordering: .relaxed) else { return }
        stopped.store(true, ordering: .relaxed)
        while case .file = take() {}
    }

    /// The `*.csv` files one level down in the export's folders (the
    /// folders beside a loose XML file, which lists nothing), hidden ones
    /// left out: the ECG files, `electrocardiograms/` in English.
    private static func electrocardiogramPaths(_ exportPath: String, exportXML: String?, files: [String]) -> [String] {
        let base = exportXML.map { x in x.split(separator: "/").dropLast().joined(separator: "/") } ?? ""
        let files = exportXML == nil ? ExportAttachments.files(besideLooseXML: exportPath) : files
        return files.compactMap { f in
            guard f.lowercased().hasSuffix(".csv") else { return nil }
            let rel = base.isEmpty ? f : f.hasPrefix(base + "/") ? String(f.dropFirst(base.count + 1)) : ""
            let parts = rel.split(separator: "/")
            return parts.count == 2 && !parts[1].hasPrefix(".") ? rel : nil
        }
    }
}
