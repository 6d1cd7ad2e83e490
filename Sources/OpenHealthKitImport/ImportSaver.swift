import CImportLibs
import Dispatch
import Glibc
import FoundationEssentials
import OpenHealthKitCore
import Synchronization

/// The saving side: map records to samples, save them in batches, count.
struct Saver {
    let store: Store
    let batchSize: Int
    var mapper: RecordMapper
    var report = ImportReport()
    /// The batch being filled; the samples apart from what the report
    /// counts of them, since the save reads the samples as they are.
    private var next: Committer.Batch
    /// The batch saved last, emptied: the next one but one, reusing its buffers.
    private var spare: Committer.Batch
    /// Saves each batch while the next is filled.
    let committer: Committer
    private var tally = AddedTally()
    /// Correlations and their members, saved after the records.
    private var correlations: [(members: [(Sample, String)], correlation: Sample)] = []
    /// The routes of the workouts saved, by file: read after the XML.
    private var routes: [String: [(route: ExportWorkout.Route, workout: UUID)]] = [:]
    /// Clinical records by their file (relative to the export's folder).
    private var clinical: [String: [(attributes: [String: String], line: Int)]] = [:]
    /// By type: the UUIDs records read with their file would have had
    /// without it, which an earlier import may have saved.
    private var recordsWithoutResource: [SampleType: Set<UUID>] = [:]
    /// Activity summaries not saved yet, by day (a later one of a day wins).
    private var summaries: [ActivitySummary.Day: ActivitySummary] = [:]

    init(store: Store, batchSize: Int, batchBulkBytes: Int) {
        self.store = store
        self.batchSize = batchSize
        self.batchBulkBytes = batchBulkBytes
        mapper = RecordMapper(store: store)
        committer = Committer(store: store)
        next = Committer.Batch(capacity: batchSize)
        spare = Committer.Batch(capacity: batchSize)
    }

    /// Samples mapped but not saved yet.
    var pending: Int { next.samples.count + committer.inFlight }
    /// The bytes of the batch's series and documents (`ImportOptions.batchBulkBytes`).
    private var bulkBytes = 0
    let batchBulkBytes: Int

    /// Whether the batch is to be saved before another sample joins it.
    private var isFull: Bool { next.samples.count >= batchSize || bulkBytes >= batchBulkBytes }

    mutating func take(_ records: consuming [ExportRecord]) throws {
        // Each record moved out, an empty one left in its place: borrowed
        // from the array, each was copied (its dozen references retained)
        // and the copy dropped.
        var records = records
        try records.withUnsafeMutableBufferPointer { all in
            for i in all.indices {
                var r = ExportRecord()
                swap(&r, &all[i])
                try take(one: r)
            }
        }
    }

    private mutating func take(one r: borrowing ExportRecord) throws {
        if let members = r.members {
            try takeCorrelation(copy r, members)
            return
        }
        if r.sensitivityPoints != nil {
            report.audiograms += 1
            switch mapper.audiogram(r) {
            case .success(let s):
                enqueue(s)
                if isFull { try flush() }
            case .failure(let reason): skip(reason, line: r.line)
            }
            return
        }
        if let a = r.activitySummary {
            report.activitySummaries += 1
            switch RecordMapper.activitySummary(a) {
            case .success(let s):
                if summaries.updateValue(s, forKey: s.day) != nil { report.activitySummariesRepeated += 1 }
                if summaries.count >= 1_000 { try saveActivitySummaries() }
            case .failure(let reason): skip(reason, line: r.line)
            }
            return
        }
        if let c = r.clinicalRecord {
            report.clinicalRecords += 1
            // "/clinical-records/Immunization-….json": from the export's folder.
            let path = String((c["resourceFilePath"] ?? "").drop { $0 == "/" })
            if path.isEmpty {
                try takeWithoutResource([(c, r.line)])
            } else {
                clinical[path, default: []].append((c, r.line))
            }
            return
        }
        if let w = r.workout {
            report.workouts += 1
            report.routes += w.routes.count
        } else {
            report.records += 1
        }
        switch mapper.sample(r) {
        case .success(let s):
            // What follows needs of the sample, taken before it is moved
            // into the batch (a copy retains its dozen references).
            let uuid = s.uuid
            let unit = s.type.isQuantity ? r.unit ?? "" : ""
            let series = r.beats.map { mapper.heartbeats(of: s, times: $0) }
            enqueue(consume s, unit: unit)
            if let series {
                report.heartbeatSeries += 1
                switch series {
                case .success(let h)?: enqueue(h)
                case .failure(let reason)?: skip(reason, line: r.line)
                case nil: report.heartbeatSeriesEmpty += 1
                }
            }
            for var route in r.workout?.routes ?? [] {
                if route.record.sourceName.isEmpty {
                    route.record.sourceName = r.sourceName
                    route.record.sourceVersion = r.sourceVersion
                }
                if !route.locations.isEmpty {
                    takeInlineRoute(route, workout: uuid)
                } else if let p = route.path {
                    routes[p, default: []].append((route, uuid))
                } else {
                    report.routesWithoutFile += 1
                }
            }
            if isFull { try flush() }
        case .failure(let reason):
            if r.workout == nil { report.recordsSkipped += 1 }
            skip(reason, line: r.line)
        }
    }

    /// A route whose locations the XML holds (exports from before iOS 13).
    private mutating func takeInlineRoute(_ route: ExportWorkout.Route, workout: UUID) {
        let mapped = RecordMapper.locations(route.locations).flatMap { mapper.route(route, workout: workout, locations: $0) }
        switch mapped {
        case .success(let s):
            enqueue(s)
        case .failure(let reason):
            skip(reason, line: 0)
        }
    }

    private mutating func skip(_ reason: SkipReason, line: Int) {
        var reason = reason
        // A damaged file with endless distinct types must not grow the report without end.
        if report.skipped.count >= 1000 && report.skipped[reason] == nil {
            reason = SkipReason(kind: reason.kind, subject: "(others)")
        }
        report.skipped[reason, default: 0] += 1
        if line > 0 && report.firstLine[reason] == nil { report.firstLine[reason] = line }
    }

    /// A correlation, kept with its members until the records are saved:
    /// its members are the export's top-level records, which may come
    /// after it, and a save takes members before their correlation (rule
    /// 33). A member that cannot be mapped skips the correlation.
    private mutating func takeCorrelation(_ r: ExportRecord, _ members: [ExportRecord]) throws {
        report.correlations += 1
        var samples: [(Sample, String)] = []
        for m in members {
            switch mapper.sample(m) {
            case .success(let s): samples.append((s, s.type.isQuantity ? m.unit ?? "" : ""))
            case .failure(let reason): return skip(reason, line: m.line)
            }
        }
        switch mapper.correlation(r, members: samples.map(\.0)) {
        case .success(let c): correlations.append((samples, c))
        case .failure(let reason): skip(reason, line: r.line)
        }
    }

    /// Saves the correlations read so far, each after its members (stored
    /// already when the export lists them at top level, as Apple's do),
    /// many to a transaction; when the store refuses one (a member it
    /// holds deleted, or a newer version of), those of that transaction
    /// are saved one at a time, and the refused ones are skipped.
    mutating func saveCorrelations() throws {
        let all = correlations
        correlations.removeAll()
        var start = 0
        while start < all.count {
            var end = start
            while end < all.count && !isFull { queue(all[end]); end += 1 }
            do {
                try flushAndSettle()
            } catch let e as OHKError where e.code == .notFound || e.code == .invalidArgument {
                clearBatch()
                for one in all[start..<end] {
                    queue(one)
                    do { try flushAndSettle() } catch let e as OHKError where e.code == .notFound || e.code == .invalidArgument {
                        clearBatch()
                        skip(SkipReason(kind: .invalidSample, subject: "members of \(one.correlation.type.identifier)"), line: 0)
                    }
                }
            }
            start = end
        }
    }

    private mutating func queue(_ one: (members: [(Sample, String)], correlation: Sample)) {
        for (s, unit) in one.members { enqueue(s, unit: unit, member: true) }
        enqueue(one.correlation)
    }

    /// Adds a sample to the batch: `unit` is the export's text of it (for
    /// the report's tally), `member` whether a correlation holds it.
    private mutating func enqueue(_ s: consuming Sample, unit: String = "", member: Bool = false) {
        bulkBytes += Self.bulk(of: s)
        next.samples.append(consume s)
        next.units.append(unit)
        next.isMember.append(member)
    }

    /// About how many bytes `s` stores beyond a sample's fields.
    private static func bulk(of s: Sample) -> Int {
        switch s.value {
        case .quantity, .category, .workout, .correlation, .audiogram: 0
        case .route(let r): r.locations.count * 64
        case .heartbeats(let h): h.beats.count * 9
        case .electrocardiogram(let e): e.voltages.count * 8
        case .clinicalRecord(let c): c.fhirResource?.data.count ?? 0
        }
    }

    private mutating func clearBatch() {
        bulkBytes = 0
        next.removeAll()
    }

    /// Saves what is left once the XML ended (the last batch, the
    /// correlations, the activity summaries, `<Me>`, and the files beside
    /// the XML when `attachments` reads them) and completes the report.
    mutating func finish(_ end: XMLEnd, failure: ImportError?, attachments: AttachmentReader?,
                         exportXML: String?) throws -> ImportReport {
        try flushAndSettle()
        try saveCorrelations()
        try saveActivitySummaries()
        if let me = end.me { try importCharacteristics(me) }
        var filesRead: Set<String> = []
        if let attachments {
            filesRead = try importAttachments(attachments)
        } else {
            leaveAttachmentsUnread()
        }
        report.failure = failure
        report.notImported = end.otherElements
        report.cutShort = end.cutElements
        report.exportDate = end.exportDate
        report.filesNotImported = ImportReport.fileKinds(end.otherFiles.filter { !filesRead.contains($0) }, exportXML: exportXML)
        report.bytesRead = end.bytesRead
        if report.workouts > 0 {
            let workouts = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType)], anchor: nil).samples
            report.likelyDuplicateWorkouts = WorkoutDuplicates.originals(workouts).compactMap { $0 }.count
        }
        return report
    }

    /// Rule 38: the characteristics `<Me>` sets replace the store's; those
    /// it leaves not set stay. A value it cannot read skips `<Me>`, with
    /// its reason in the report, and the import goes on.
    mutating func importCharacteristics(_ attributes: [(String, String)]) throws {
        report.meNotKept = attributes.map(\.0).filter { !Characteristics.exportAttributeNames.contains($0) }.sorted()
        let given: Characteristics
        do {
            given = try Characteristics(exportAttributes: attributes)
        } catch let e as OHKError {
            report.meRefused = e.message
            return
        }
        let now = try store.characteristics()
        let merged = now.merging(given)
        if merged != now { try store.setCharacteristics(merged) }
        report.characteristics = given
    }

    /// Saves what `files` read: each route with its workout's UUID, each
    /// clinical record, each ECG. Returns the names of the files read, as
    /// the export has them.
    mutating func importAttachments(_ files: AttachmentReader) throws -> Set<String> {
        var read: Set<String> = []
        while case .file(let name, let file) = files.take() {
            if try take(file) { read.insert(name) }
        }
        // What the XML names that the export does not hold.
        report.routesWithoutFile += routes.values.reduce(0) { $0 + $1.count }
        routes.removeAll()
        // A record whose file the export lacks is kept without its
        // resource, as HealthKit allows (its fhirResource is optional).
        for records in clinical.values { try takeWithoutResource(records) }
        clinical.removeAll()
        try flushAndSettle()
        // A record read with its file replaces the one an earlier import
        // kept without it (the XML alone, or an export that lacked it).
        for (type, uuids) in recordsWithoutResource where !uuids.isEmpty {
            _ = try store.delete(type: type, predicate: .uuids(uuids))
        }
        recordsWithoutResource.removeAll()
        return read
    }

    /// Saves a file's samples; false when no saved element named it (a
    /// route of a workout that was skipped).
    private mutating func take(_ file: Attachment) throws -> Bool {
        switch file {
        case .route(let path, let parsed):
            guard let refs = routes.removeValue(forKey: path) else { return false }
            try takeRouteFile(refs, parsed)
        case .clinicalRecord(let path, let bytes):
            guard let records = clinical.removeValue(forKey: path) else { return false }
            try takeClinicalFile(records, bytes)
        case .electrocardiogram(let path, let parsed):
            try takeElectrocardiogramFile(path, parsed)
        case .file, .end:
            return false
        }
        return true
    }

    /// After damage (the zip cannot be read on to the files the XML
    /// named) or a stop, those files are not read: their routes and
    /// clinical records wait for the next run.
    mutating func leaveAttachmentsUnread() {
        report.routesNotRead += routes.values.reduce(0) { $0 + $1.count }
        routes.removeAll()
        report.clinicalRecordsNotRead += clinical.values.reduce(0) { $0 + $1.count }
        clinical.removeAll()
    }

    /// A route file's locations, saved as each route that names it.
    private mutating func takeRouteFile(_ refs: [(route: ExportWorkout.Route, workout: UUID)],
                                        _ parsed: Result<[RouteLocation], SkipReason>) throws {
        switch parsed {
        case .failure(let reason):
            for _ in refs { skip(reason, line: 0) }
        case .success(let locations):
            for (route, workout) in refs {
                switch mapper.route(route, workout: workout, locations: locations) {
                case .success(let s):
                    enqueue(s)
                    if isFull { try flush() }
                case .failure(let reason):
                    skip(reason, line: 0)
                }
            }
        }
    }

    /// A clinical record's JSON file, saved as each record that names it.
    private mutating func takeClinicalFile(_ records: [(attributes: [String: String], line: Int)], _ bytes: [UInt8]) throws {
        for (attributes, line) in records {
            switch mapper.clinicalRecord(attributes, data: bytes) {
            case .success(let s):
                enqueue(s)
                recordsWithoutResource[s.type, default: []].insert(
                    mapper.withoutResourceUUID(attributes, type: s.type, source: s.source, at: s.startDate.timeIntervalSinceReferenceDate))
                if isFull { try flush() }
            case .failure(let reason): skip(reason, line: line)
            }
        }
    }

    /// Records whose file the export lacks: saved without a resource.
    private mutating func takeWithoutResource(_ records: [(attributes: [String: String], line: Int)]) throws {
        for (attributes, line) in records {
            report.clinicalRecordsWithoutFile += 1
            switch mapper.clinicalRecord(attributes, data: nil) {
            case .success(let s):
                enqueue(s)
                if isFull { try flush() }
            case .failure(let reason): skip(reason, line: line)
            }
        }
    }

    /// An ECG file, saved as an electrocardiogram.
    private mutating func takeElectrocardiogramFile(_ path: String,
                                                    _ parsed: Result<ElectrocardiogramCSV, ElectrocardiogramCSV.Failure>) throws {
        report.electrocardiograms += 1
        switch parsed {
        case .success(let csv):
            switch mapper.electrocardiogram(csv) {
            case .success(let s):
                enqueue(s)
                if isFull { try flush() }
            case .failure(let reason): skip(reason, line: 0)
            }
        case .failure(let f):
            let kind: SkipReason.Kind = if case .badDate = f { .badDate } else { .badValue }
            skip(SkipReason(kind: kind, subject: "\(TypeCatalogue.electrocardiogramIdentifier) file \(path)"), line: 0)
        }
    }

    /// Saves the activity summaries read so far (rule 43), in one
    /// transaction: a day the store holds as it is counts as stored.
    mutating func saveActivitySummaries() throws {
        guard !summaries.isEmpty else { return }
        let written = try store.saveActivitySummaries(Array(summaries.values))
        report.activitySummariesAdded += written
        report.activitySummariesAlreadyStored += summaries.count - written
        summaries.removeAll(keepingCapacity: true)
    }

    /// Hands the batch to the committer, once the one before it is saved
    /// and counted; the save's error, if any, is thrown here or by the
    /// next `flush` or `settle`.
    mutating func flush() throws {
        guard !next.samples.isEmpty else { return }
        try settle()
        committer.submit(next)
        swap(&next, &spare)
        clearBatch()
    }

    /// Saves the batch and waits: the caller learns its outcome now.
    mutating func flushAndSettle() throws {
        try flush()
        try settle()
    }

    /// Waits for the batch being saved, and counts its outcomes.
    mutating func settle() throws {
        guard let (batch, result) = committer.outcome() else { return }
        defer { spare = batch }
        let outcomes = try result.get()
        // By index, reading fields in place: `for s in batch.samples`
        // copied each sample.
        for i in batch.samples.indices {
            // A correlation's member counts with its correlation, not as a
            // record; its type's tally only when this run added it.
            let member = batch.isMember[i]
            let type = batch.samples[i].type
            if !member { report.count(type.kind, outcomes[i]) }
            switch outcomes[i] {
            case .saved?: tally.add(type: type.identifier, unit: batch.units[i], source: batch.samples[i].source.name)
            case .replaced? where !member: tally.add(type: type.identifier, unit: batch.units[i], source: batch.samples[i].source.name)
            default: break
            }
        }
        (report.addedByType, report.addedByUnit, report.addedBySource) = tally.totals
    }
}

/// Added samples per (type, unit, source): a few combinations, met
/// millions of times, counted without hashing the usual ones.
private struct AddedTally {
    private struct Key: Hashable {
        let type: String, unit: String, source: String
    }
    private var recent = RecentValues<Key, Int>(capacity: 32)
    private var slots: [Key: Int] = [:]
    private var keys: [Key] = []
    private var counts: [Int] = []

    mutating func add(type: String, unit: String, source: String) {
        let slot = recent.value(for: Key(type: type, unit: unit, source: source)) { key in
            if let known = slots[key] { return known }
            keys.append(key)
            counts.append(0)
            slots[key] = keys.count - 1
            return keys.count - 1
        }
        counts[slot] += 1
    }

    var totals: (byType: [String: Int], byUnit: [String: Int], bySource: [String: Int]) {
        var t: [String: Int] = [:], u: [String: Int] = [:], s: [String: Int] = [:]
        for (key, n) in zip(keys, counts) {
            t[key.type, default: 0] += n
            u[key.unit, default: 0] += n
            s[key.source, default: 0] += n
        }
        return (t, u, s)
    }
}
