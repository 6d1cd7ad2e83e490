import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import Synchronization

/// A query result laid out for C: contiguous sample and deleted-object
/// records, a type table and a source table, and per-sample metadata and
/// devices decoded on first access. Everything it hands out lives as long
/// as the batch. The sample records are laid out on first request: a
/// reader of columns (`fillColumns`) never pays for them.
final class BatchHandle: Handle, @unchecked Sendable {
    override class var kindName: String { "ohk_batch" }

    let result: AnchoredQueryResult
    /// The deleted objects' records (no allocation when there are none).
    let deleted: UnsafeMutableBufferPointer<ohk_deleted_record>
    /// Where `deleted` goes back to when the scan wrote it (a fetch's).
    private let deletedSpare: SpareBlock?
    /// The batch's types (of samples and deleted objects alike); their C
    /// strings come from `names` when asked for.
    var types: [SampleType] { result.samples.types }
    let sources: BatchSources
    /// Holds the C strings of the samples' sources and of the types.
    let names: CNames
    /// Lent to a callback: the caller must not free it.
    var borrowed = false
    /// A long-running anchored query's initial results (its snapshot).
    var isInitial = false

    private var strings = CStringArena()
    /// Lazily made parts, guarded by `lock` (a batch may be read from many
    /// threads). A `Mutex` lives inside the batch: a `Lock` was two more
    /// allocations per batch.
    private let lock = Mutex(())
    private var records: UnsafeMutableBufferPointer<ohk_sample_record>?
    /// A fetch's rows, laid out by its scan (`init(_:rows:names:)`): then
    /// `result.samples` holds only the records of the rows in
    /// `recordRows`, those whose rows leave fields out.
    private let rows: UnsafeMutablePointer<ohk_sample_record>?
    /// The store's spare block, which takes `rows` back when the batch is freed.
    private let spare: SpareBlock?
    private let recordRows: [UInt32]
    /// How many samples the batch has.
    let sampleCount: Int
    /// What is made on first request (metadata, devices, a workout's
    /// fields), guarded by `lock`; nil until then. One object: a delta's
    /// batch, which asks for none of it, made and freed five containers.
    private var made: LazilyMade?

    /// `names`: the C strings of the store's sources, shared by its batches.
    /// `sourceOrder`: a columns query's sources, in its columns' numbering.
    init(_ r: AnchoredQueryResult, names: CNames, sourceOrder: [UInt32]? = nil) {
        result = r
        rows = nil
        spare = nil
        sampleCount = r.samples.count
        recordRows = []
        self.names = names
        (sources, deleted, strings) = Self.sourcesAndDeleted(r, names, sourceOrder)
        deletedSpare = nil
    }

    /// A fetch's batch whose records the scan laid out as `rows`
    /// (`Store.anchoredQuery(_:anchor:limit:rows:rowsFrom:)`).
    init(_ r: RowsQueryResult, rows: UnsafeMutableRawPointer, names: CNames) {
        result = r.result
        self.rows = rows.bindMemory(to: ohk_sample_record.self, capacity: max(r.count, 1))
        spare = r.spare
        sampleCount = r.count
        recordRows = r.recordRows
        self.names = names
        if let d = r.deleted {
            (sources, deleted, strings) = Self.sourcesAndDeleted(d, r.result, names, r.sourceOrder)
            deletedSpare = d.rows == nil ? nil : d.spare
        } else {
            (sources, deleted, strings) = Self.sourcesAndDeleted(r.result, names, r.sourceOrder)
            deletedSpare = nil
        }
    }

    /// The layout the scan writes deleted objects in.
    static let deletedLayout: DeletedRowLayout = {
        typealias D = ohk_deleted_record
        var l = DeletedRowLayout()
        l.stride = MemoryLayout<D>.stride
        l.uuid = MemoryLayout<D>.offset(of: \.uuid)!
        l.start = MemoryLayout<D>.offset(of: \.start)!
        l.end = MemoryLayout<D>.offset(of: \.end)!
        l.deletion = MemoryLayout<D>.offset(of: \.deletion_date)!
        l.typeIndex = MemoryLayout<D>.offset(of: \.type_index)!
        l.sourceIndex = MemoryLayout<D>.offset(of: \.source_index)!
        l.syncIdentifier = MemoryLayout<D>.offset(of: \.sync_identifier)!
        l.syncVersion = MemoryLayout<D>.offset(of: \.sync_version)!
        return l
    }()

    /// The source table, and the deleted objects the scan wrote as rows,
    /// their store source ids made the table's numbers and the sync
    /// fields of those that kept them (in `r.deletedObjects`) filled.
    private static func sourcesAndDeleted(_ d: DeletedRows, _ r: AnchoredQueryResult, _ names: CNames, _ order: [UInt32])
        -> (BatchSources, UnsafeMutableBufferPointer<ohk_deleted_record>, CStringArena) {
        let sources = BatchSources(r.samples, r.deletedObjects, names: names, order: order, more: d.sourceIDs)
        var strings = CStringArena()
        guard let rows = d.rows else { return (sources, UnsafeMutableBufferPointer(start: nil, count: 0), strings) }
        let deleted = UnsafeMutableBufferPointer(start: rows.bindMemory(to: ohk_deleted_record.self, capacity: d.count),
                                                 count: d.count)
        for i in deleted.indices { deleted[i].source_index = sources.number(ofStoreID: deleted[i].source_index) }
        var k = 0
        r.deletedObjects.forEach { f in
            let i = Int(d.recordRows[k])
            deleted[i].sync_identifier = strings.add(f.syncIdentifier)
            deleted[i].sync_version = f.syncVersion ?? .nan
            k += 1
        }
        return (sources, deleted, strings)
    }

    /// The source table, and the deleted objects laid out with the C
    /// strings they own.
    private static func sourcesAndDeleted(_ r: AnchoredQueryResult, _ names: CNames, _ order: [UInt32]?)
        -> (BatchSources, UnsafeMutableBufferPointer<ohk_deleted_record>, CStringArena) {
        let sources = BatchSources(r.samples, r.deletedObjects, names: names, order: order)
        var strings = CStringArena()
        var deleted = UnsafeMutableBufferPointer<ohk_deleted_record>(start: nil, count: 0)
        if !r.deletedObjects.isEmpty {
            deleted = .allocate(capacity: r.deletedObjects.count)
            var k = 0
            r.deletedObjects.forEach { f in
                let synced = f.hasMetadata
                deleted[k] = ohk_deleted_record(uuid: f.uuidBytes, start: UnixTime.fromReference(f.startTime),
                                                end: UnixTime.fromReference(f.endTime),
                                                deletion_date: UnixTime.fromReference(f.deletionTime),
                                                type_index: UInt32(f.typeIndex),
                                                source_index: sources.number(ofStoreID: f.sourceID),
                                                sync_identifier: synced ? strings.add(f.syncIdentifier) : nil,
                                                sync_version: synced ? f.syncVersion ?? .nan : .nan)
                k += 1
            }
        }
        return (sources, deleted, strings)
    }

    /// The sample records, laid out on first use.
    var samples: UnsafeMutableBufferPointer<ohk_sample_record> {
        if let rows { return UnsafeMutableBufferPointer(start: rows, count: sampleCount) }
        return locked {
            if let records { return records }
            let made = UnsafeMutableBufferPointer<ohk_sample_record>.allocate(capacity: result.samples.count)
            _ = copyRecords(from: 0, into: made)
            records = made
            return made
        }
    }

    /// Writes the records of the samples from `first` on into `out`, as
    /// many as fit (none at or past the end); returns how many.
    func copyRecords(from first: Int, into out: UnsafeMutableBufferPointer<ohk_sample_record>) -> Int {
        let end = min(sampleCount, first + out.count)
        guard first < end, let base = out.baseAddress else { return 0 }
        if let rows {
            base.update(from: rows + first, count: end - first)
            return end - first
        }
        result.samples.writeRows(first..<end, into: base, Self.recordLayout, sourceNumbers: sources.numbers)
        return end - first
    }

    /// Where `writeRows` puts each field of an `ohk_sample_record` (its
    /// flags are the OHK_SAMPLE_* bits).
    /// A fetch that can return this many samples or more has its records
    /// laid out by the scan (a delta of ten paid a microsecond more for the
    /// block and the sink than the copy saves).
    static let rowsFrom = 256
    /// The objects of a part of ohk_store_fetch_parts: its rows (256 KB)
    /// stay in the second-level cache for the callback, and a new part
    /// costs a seek, a few microseconds.
    static let partSize = 4_096

    static let recordLayout: SampleRowLayout = {
        typealias R = ohk_sample_record
        typealias C = SampleColumnPointers
        precondition([C.category, C.hasDevice, C.hasMetadata, C.hasCreationDate, C.hasUTCOffset]
                     == [OHK_SAMPLE_CATEGORY, OHK_SAMPLE_HAS_DEVICE, OHK_SAMPLE_HAS_METADATA,
                         OHK_SAMPLE_HAS_CREATION_DATE, OHK_SAMPLE_HAS_UTC_OFFSET].map(UInt32.init),
                     "the record flags are the columns' bits")
        var l = SampleRowLayout()
        l.stride = MemoryLayout<R>.stride
        l.uuid = MemoryLayout<R>.offset(of: \.uuid)!
        l.start = MemoryLayout<R>.offset(of: \.start)!
        l.end = MemoryLayout<R>.offset(of: \.end)!
        l.value = MemoryLayout<R>.offset(of: \.value)!
        l.typeIndex = MemoryLayout<R>.offset(of: \.type_index)!
        l.sourceIndex = MemoryLayout<R>.offset(of: \.source_index)!
        l.flags = MemoryLayout<R>.offset(of: \.flags)!
        l.utcOffset = MemoryLayout<R>.offset(of: \.utc_offset)!
        l.creation = MemoryLayout<R>.offset(of: \.creation_date)!
        precondition(l == .standard, "ohk_sample_record is the core's standard row")
        return l
    }()

    /// Writes the samples' fields into the caller's columns (each NULL
    /// column skipped), straight from the query's records: the core fills
    /// them in one pass, then source ids become this batch's indexes.
    func fillColumns(_ c: ohk_sample_columns) { fill(columnPointers(c)) }

    /// The same into the core's columns (an Arrow table's).
    func fill(_ c: SampleColumnPointers) {
        if let rows {
            c.fill(rows: rows, Self.recordLayout, count: sampleCount, records: result.samples, recordRows: recordRows)
            return
        }
        result.samples.fill(c)
        if let p = c.sourceID {
            for i in 0..<result.samples.count { p[i] = sources.number(ofStoreID: p[i]) }
        }
    }

    deinit {
        records?.deallocate()
        if let rows { spare!.give(rows) }
        if let deletedSpare, let d = deleted.baseAddress { deletedSpare.give(d) } else { deleted.deallocate() }
        sources.free()
        strings.freeAll()
        made?.free()
        // The record buffer, freed next with `result`, gives back the
        // memory of both (its deinit trims after a large block).
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T { try lock.withLock { _ in try body() } }

    /// The lazily made parts, made now if need be (inside `locked`).
    private var lazilyMade: LazilyMade {
        if let made { return made }
        let m = LazilyMade()
        made = m
        return m
    }

    private func checkIndex(_ i: UInt64) throws -> Int {
        guard i < UInt64(sampleCount) else {
            throw CError(.invalidArgument, "sample index \(i) is out of range 0..<\(sampleCount)")
        }
        return Int(i)
    }

    /// Where sample `i`'s record is in `result.samples`: `i`, or for a
    /// fetch's rows the place of `i` in `recordRows` (nil: its row holds
    /// all its fields).
    private func recordIndex(_ i: Int) -> Int? {
        guard rows != nil else { return i }
        var low = 0, high = recordRows.count
        while low < high {
            let mid = (low + high) / 2
            if Int(recordRows[mid]) < i { low = mid + 1 } else { high = mid }
        }
        return low < recordRows.count && Int(recordRows[low]) == i ? low : nil
    }

    /// Sample `i`'s metadata, sorted by key.
    func metadata(_ i: UInt64) throws -> UnsafeMutableBufferPointer<ohk_metadata_entry> {
        let i = try checkIndex(i)
        return locked {
            let made = lazilyMade
            if let m = made.metadata[i] { return m }
            let entries = recordIndex(i).map { result.samples[$0].metadata.sorted { $0.key < $1.key } } ?? []
            let m = UnsafeMutableBufferPointer<ohk_metadata_entry>.allocate(capacity: entries.count)
            for (k, e) in entries.enumerated() {
                m[k] = ohk_metadata_entry(key: made.strings.add(e.key), value: CValue.make(e.value, strings: &made.strings))
            }
            made.metadata[i] = m
            return m
        }
    }

    /// Sample `i`'s device, nil when it has none.
    func device(_ i: UInt64) throws -> ohk_device? {
        let i = try checkIndex(i)
        guard let k = recordIndex(i), result.samples.hasDevice(at: k) else { return nil }
        return locked {
            let made = lazilyMade
            if let d = made.devices[i] { return d }
            guard let d = result.samples[k].device else { return nil }
            let c = ohk_device(name: made.strings.add(d.name), manufacturer: made.strings.add(d.manufacturer),
                               model: made.strings.add(d.model), hardware_version: made.strings.add(d.hardwareVersion),
                               firmware_version: made.strings.add(d.firmwareVersion),
                               software_version: made.strings.add(d.softwareVersion),
                               local_identifier: made.strings.add(d.localIdentifier),
                               udi_device_identifier: made.strings.add(d.udiDeviceIdentifier))
            made.devices[i] = c
            return c
        }
    }

    /// Sample `i`'s workout, route or correlation fields in C form.
    func part(_ i: UInt64) throws -> CPart {
        let i = try checkIndex(i)
        return try locked {
            let made = lazilyMade
            if let p = made.parts[i] { return p }
            guard let k = recordIndex(i) else {
                throw CPartMemory.noPart(index: i, type: types[Int(samples[i].type_index)])
            }
            let p = try made.partMemory.make(result.samples[k], index: i)
            made.parts[i] = p
            return p
        }
    }

    static func get(_ p: UnsafePointer<ohk_batch>?) throws -> BatchHandle {
        try Registry.get(p, BatchHandle.self, "batch")
    }
}

/// A batch's parts made on first request, by sample index: each lives
/// as long as the batch.
private final class LazilyMade {
    var metadata: [Int: UnsafeMutableBufferPointer<ohk_metadata_entry>] = [:]
    var devices: [Int: ohk_device] = [:]
    /// The C strings of the metadata and the devices.
    var strings = CStringArena()
    /// Workouts', routes' and correlations' own fields.
    var parts: [Int: CPart] = [:]
    var partMemory = CPartMemory()

    func free() {
        for m in metadata.values { m.deallocate() }
        strings.freeAll()
        partMemory.freeAll()
    }
}

/// C descriptors → core descriptors, types resolved through the store.
func descriptors(_ p: UnsafePointer<ohk_descriptor>?, _ count: UInt64, _ store: Store) throws -> [QueryDescriptor] {
    let b = try buffer(p, count, "descriptors")
    guard !b.isEmpty else { throw CError(.invalidArgument, "a query needs at least one descriptor") }
    var ds: [QueryDescriptor] = []
    ds.reserveCapacity(b.count)
    for (i, d) in b.enumerated() {
        ds.append(QueryDescriptor(type: try sampleType(d.type, store, "descriptors[\(i)].type"),
                                  predicate: try d.predicate.map { try PredicateHandle.get($0, "descriptors[\(i)].predicate") }))
    }
    return ds
}
