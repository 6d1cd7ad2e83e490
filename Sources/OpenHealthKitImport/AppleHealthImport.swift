import CImportLibs
import Dispatch
import Glibc
import FoundationEssentials
import OpenHealthKitCore
import Synchronization

/// How an import runs.
public struct ImportOptions: Sendable {
    /// Samples per transaction at most (fewer once a batch holds
    /// `batchBulkBytes`): each batch is saved all or nothing, so an
    /// interrupted import leaves whole batches, and the next run resumes
    /// (records already stored are skipped by their content UUIDs).
    public var batchSize = 20_000
    /// Called after every chunk of XML, on the importing thread.
    public var progress: (@Sendable (ImportProgress) -> Void)?
    /// Asked after every chunk of XML, on the importing thread: true stops
    /// the import once what was read is saved (`failure` is `.cancelled`).
    public var shouldStop: (@Sendable () -> Bool)?
    /// The bounds against hostile files (tests make them small).
    var limits = ImportLimits()
    /// The bytes of series and documents (routes, voltages, FHIR JSON) a
    /// batch holds at most before it is saved: a batch of a few hundred
    /// routes would otherwise hold a hundred megabytes. Three batches are
    /// in memory at once (filled, saved, and a spare).
    var batchBulkBytes = 1 << 20

    public init(batchSize: Int = 20_000, shouldStop: (@Sendable () -> Bool)? = nil,
                progress: (@Sendable (ImportProgress) -> Void)? = nil) {
        self.batchSize = batchSize
        self.shouldStop = shouldStop
        self.progress = progress
    }
}

/// Where an import is.
public struct ImportProgress: Sendable {
    /// Bytes of the input file consumed, and its size.
    public let bytesRead: Int64
    public let totalBytes: Int64
    public let records: Int
    public let added: Int
}

/// Imports the Health app's export (`export.zip` or its `export.xml`)
/// into a store: one streaming pass in constant memory. A reader thread
/// decompresses and parses while the calling thread maps and saves.
public enum AppleHealthImport {
    /// Reads `path` and saves its records as samples, `batchSize` per
    /// transaction. Throws `ImportError.cannotOpen` / `.notAnExport` when
    /// nothing could be read, and the store's errors; a truncated or
    /// malformed export is not thrown but reported in `failure`, after
    /// what preceded the damage has been saved.
    public static func run(_ path: String, into store: Store,
                           options: ImportOptions = ImportOptions()) throws -> ImportReport {
        precondition(options.batchSize > 0, "batchSize must be positive")
        var missing: UnsafePointer<CChar>?
        guard ohk_import_libs_load(&missing) == 0 else {
            throw ImportError.missingLibrary(missing.map { String(cString: $0) } ?? "an import library is missing")
        }
        let input = try ExportInput(path: path, limits: options.limits)
        let handoff = Handoff<Chunk>(capacity: 4)
        let cancelled = Atomic<Bool>(false)
        let attachments = AttachmentReader()
        // Whatever way the import ends, the reader is let finish.
        defer { attachments.stop() }
        // The reader owns the input and the parser; they cross once, here.
        let reader = Reader(input: input, parser: ExportParser(limits: options.limits), exportPath: path,
                            attachments: attachments)
        DispatchQueue.global().async { reader.run(into: handoff, unless: cancelled) }

        var saver = Saver(store: store, batchSize: options.batchSize, batchBulkBytes: options.batchBulkBytes)
        // Whatever way the import ends, the batch being saved is waited for.
        defer { saver.committer.stop() }
        saver.report.exportXML = input.entryName
        saver.report.warnings = input.warnings
        while true {
            switch handoff.take() {
            case .records(let records, let xmlBytes, let bytesRead):
                do {
                    try saver.take(records)
                } catch {
                    // Let the reader finish (it stops at its next chunk), then fail.
                    cancelled.store(true, ordering: .relaxed)
                    while case .records = handoff.take() {}
                    throw error
                }
                saver.report.xmlBytes += Int64(xmlBytes)
                saver.report.bytesRead = bytesRead
                options.progress?(ImportProgress(bytesRead: bytesRead, totalBytes: input.totalBytes,
                                                 records: saver.report.records, added: saver.report.added + saver.pending))
                if options.shouldStop?() == true {
                    cancelled.store(true, ordering: .relaxed)
                    // The reader's last chunks, then its end, for the report.
                    var last = handoff.take()
                    while case .records = last { last = handoff.take() }
                    guard case .end(let end) = last else { preconditionFailure("the reader ends with .end") }
                    return try saver.finish(end, failure: .cancelled, attachments: nil, exportXML: input.entryName)
                }
            case .end(let end):
                if case .notAnExport? = end.failure, saver.report.records == 0 { throw end.failure! }
                // The files the XML names (routes, clinical records) and the
                // ECGs, which the reader reads and parses once the XML is
                // read (after damage the zip cannot be read on: they wait
                // for a rerun).
                return try saver.finish(end, failure: end.failure, attachments: end.failure == nil ? attachments : nil,
                                        exportXML: input.entryName)
            }
        }
    }
}

/// What the reader hands to the saver.
enum Chunk: Sendable {
    case records([ExportRecord], xmlBytes: Int, bytesRead: Int64)
    /// The end of the input, or where damage stopped it.
    case end(XMLEnd)
}

/// How the XML ended, and what the parser read besides records.
struct XMLEnd: Sendable {
    var failure: ImportError?
    /// Elements not imported and lists cut at their bound (`ExportParser`).
    var otherElements: [String: Int]
    var cutElements: [String: Int]
    var exportDate: String?
    /// The export's other files, as far as they were listed.
    var otherFiles: [String]
    /// `<Me>`'s attributes.
    var me: [(String, String)]?
    var bytesRead: Int64
}

/// The reading side: decompress, parse, hand over records chunk by
/// chunk; then read and parse the files beside the XML.
final class Reader: @unchecked Sendable {
    let input: ExportInput
    let parser: ExportParser
    let exportPath: String
    let attachments: AttachmentReader

    init(input: ExportInput, parser: ExportParser, exportPath: String, attachments: AttachmentReader) {
        self.input = input
        self.parser = parser
        self.exportPath = exportPath
        self.attachments = attachments
    }

    func run(into handoff: Handoff<Chunk>, unless cancelled: borrowing Atomic<Bool>) {
        var failure: ImportError?
        do {
            while !cancelled.load(ordering: .relaxed) {
                let n = try parser.parse(upTo: 1 << 18) { buffer, capacity in
                    try input.read(into: buffer, count: capacity)
                }
                let chunk = Chunk.records(parser.takeRecords(), xmlBytes: n, bytesRead: input.bytesConsumed)
                // The last chunk without waiting: parsed already, it takes
                // no more memory queued, and the files beside the XML are next.
                if n == 0 { handoff.putLast(chunk); break }
                handoff.put(chunk)
            }
        } catch let e as ImportError {
            failure = e
            // Records completed before the damage are still imported.
            handoff.put(.records(parser.takeRecords(), xmlBytes: 0, bytesRead: input.bytesConsumed))
        } catch {
            failure = .damaged("\(error)")
        }
        // The zip's entries after the XML, for the report (not after damage).
        if failure == nil && !cancelled.load(ordering: .relaxed) { input.listRemainingEntries() }
        handoff.putLast(.end(XMLEnd(failure: failure, otherElements: parser.otherElements, cutElements: parser.cutElements,
                                    exportDate: parser.exportDate, otherFiles: input.otherFiles, me: parser.me,
                                    bytesRead: input.bytesConsumed)))
        // While the saver saves the last records, the files beside the XML.
        if failure == nil && !cancelled.load(ordering: .relaxed) {
            attachments.read(exportPath, exportXML: input.entryName, routeFiles: parser.routeFiles,
                             clinicalFiles: parser.clinicalFiles, otherFiles: input.otherFiles)
        }
        attachments.handoff.put(.end)
    }
}
