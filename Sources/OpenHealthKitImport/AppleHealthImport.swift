import OpenHealthKitCore

/// How an import runs.
public struct ImportOptions: Sendable {
    /// Samples per transaction: each batch is saved all or nothing, so an
    /// interrupted import leaves whole batches, and the next run resumes
    /// (records already stored are skipped by their content UUIDs).
    public var batchSize = 20_000
    /// Called after every chunk of XML, on the importing thread.
    public var progress: (@Sendable (ImportProgress) -> Void)?

    public init(batchSize: Int = 20_000, progress: (@Sendable (ImportProgress) -> Void)? = nil) {
        self.batchSize = batchSize
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
/// into a store: one streaming pass in constant memory.
public enum AppleHealthImport {
    /// Reads `path` and saves its records as samples, `batchSize` per
    /// transaction. Throws `ImportError.cannotOpen` / `.notAnExport` when
    /// nothing could be read, and the store's errors; a truncated or
    /// malformed export is not thrown but reported in `failure`, after
    /// what preceded the damage has been saved.
    public static func run(_ path: String, into store: Store,
                           options: ImportOptions = ImportOptions()) throws -> ImportReport {
        precondition(options.batchSize > 0, "batchSize must be positive")
        let input = try ExportInput(path: path)
        let parser = ExportParser()
        var mapper = RecordMapper(store: store)
        var report = ImportReport()
        var batch: [(sample: Sample, unit: String)] = []
        batch.reserveCapacity(options.batchSize)

        func flush() throws {
            guard !batch.isEmpty else { return }
            let outcomes = try store.saveNew(batch.lazy.map(\.sample))
            for (item, outcome) in zip(batch, outcomes) {
                switch outcome {
                case nil: report.alreadyStored += 1
                case .notSavedOlderVersion?: report.olderVersions += 1
                case .saved?, .replaced?:
                    if case .replaced? = outcome { report.replaced += 1 }
                    report.added += 1
                    report.addedByType[item.sample.type.identifier, default: 0] += 1
                    report.addedByUnit[item.unit, default: 0] += 1
                    report.addedBySource[item.sample.source.name, default: 0] += 1
                }
            }
            batch.removeAll(keepingCapacity: true)
        }

        func take() throws {
            for r in parser.takeRecords() {
                report.records += 1
                switch mapper.sample(r) {
                case .success(let s):
                    batch.append((s, s.type.isQuantity ? r.unit ?? "" : ""))
                    if batch.count >= options.batchSize { try flush() }
                case .failure(let reason):
                    report.skipped[reason, default: 0] += 1
                    if report.firstLine[reason] == nil { report.firstLine[reason] = r.line }
                }
            }
        }

        do {
            while true {
                let n = try parser.parse(upTo: 1 << 18) { buffer, capacity in
                    try input.read(into: buffer, count: capacity)
                }
                report.xmlBytes += Int64(n)
                try take()
                report.bytesRead = input.bytesConsumed
                options.progress?(ImportProgress(bytesRead: report.bytesRead, totalBytes: input.totalBytes,
                                                 records: report.records, added: report.added + batch.count))
                if n == 0 { break }
            }
        } catch let e as ImportError {
            // Save what was read before the damage; report why it stopped.
            if case .notAnExport = e, report.records == 0 { throw e }
            try take()
            report.failure = e
        }
        try flush()
        report.notImported = parser.otherElements
        report.bytesRead = input.bytesConsumed
        return report
    }
}
