import FoundationEssentials

/// The samples of one query result, in store order: their records copied
/// out of the store into one buffer, decoded on access. Index it to get a
/// `Sample`, or read fields without building one through `forEach` /
/// the `…(at:)` accessors (no allocation per sample).
public struct SampleBatch: RandomAccessCollection, Sendable {
    let records: RecordBuffer
    /// Index into `types` per record; empty when the batch has one type.
    let typeIndex: [UInt8]
    /// Types, sources and devices of the records in this batch.
    let names: BatchNames
    /// The largest source id of the records (0 when there are none): ids
    /// are dense from 1, so a table of this many + 1 entries maps them all.
    package let maxSourceID: UInt32
    /// The batch's types; `SampleFields.typeIndex` indexes this.
    public var types: [SampleType] { names.types }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> Sample {
        withRecord(i) { r, type in names.sample(r, type) }
    }

    /// The source behind a `SampleFields.sourceID`.
    public func source(id: UInt32) -> Source? { names.source(id) }
    /// The device behind a `SampleFields.deviceID` (nil for 0).
    public func device(id: UInt32) -> Device? { names.device(id) }

    public func uuid(at i: Int) -> UUID { withRecord(i) { r, _ in r.uuid } }
    public func hasDevice(at i: Int) -> Bool { withRecord(i) { r, _ in r.deviceID != 0 } }
    public func type(at i: Int) -> SampleType { typeIndex.isEmpty ? types[0] : types[Int(typeIndex[i])] }

    /// Calls `body` with each sample's source id, in order (cheaper than
    /// `forEach` for code that tabulates sources).
    package func forEachSourceID(_ body: (UInt32) throws -> Void) rethrows {
        try records.forEachRecord { _, raw in try body(RecordView(bytes: raw).sourceID) }
    }

    /// Reads every sample's fields without materialising `Sample`s.
    public func forEach(_ body: (SampleFields) throws -> Void) rethrows {
        try forEach(in: indices, body)
    }

    /// `forEach` over the samples of `range` (within `indices`).
    public func forEach(in range: Range<Int>, _ body: (SampleFields) throws -> Void) rethrows {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        // The batch outlives the loop, so the fields borrow its names
        // without a reference count per sample.
        try withExtendedLifetime(names) {
            let names = Unmanaged.passUnretained(names)
            try records.forEachRecord(in: range) { i, raw in
                let t = typeIndex.isEmpty ? 0 : Int(typeIndex[i])
                try body(SampleFields(record: RecordView(bytes: raw), names: names, typeIndex: t))
            }
        }
    }

    /// Writes every sample's fields into column arrays (one element per
    /// sample; nil columns are skipped), in one pass over the records: the
    /// way out for analysis code (NumPy through the C API).
    package func fill(_ c: SampleColumnPointers) {
        records.forEachRecord { i, raw in
            let r = RecordView(bytes: raw)
            c.write(r, at: i, typeIndex: typeIndex.isEmpty ? 0 : UInt32(typeIndex[i]), source: r.sourceID)
        }
    }

    @inline(__always)
    private func withRecord<T>(_ i: Int, _ body: (RecordView, SampleType) -> T) -> T {
        precondition(i >= 0 && i < count, "sample index \(i) out of range 0..<\(count)")
        return withExtendedLifetime(records) { body(RecordView(bytes: records.record(i)), type(at: i)) }
    }
}

/// Column arrays for `SampleBatch.fill`, one element per sample; nil ones
/// are skipped. (The C library's columns; Swift reads `forEach`.)
package struct SampleColumnPointers {
    /// 16 bytes per sample.
    package var uuid: UnsafeMutableRawPointer?
    /// Unix time in microseconds, rounded to the nearest.
    package var startUnixMicroseconds: UnsafeMutablePointer<Int64>?
    package var endUnixMicroseconds: UnsafeMutablePointer<Int64>?
    /// The quantity in the type's canonical unit, or the category value.
    package var value: UnsafeMutablePointer<Double>?
    /// Index into the batch's `types`.
    package var typeIndex: UnsafeMutablePointer<UInt32>?
    /// The store's id of the sample's source (`SampleBatch.source(id:)`).
    package var sourceID: UnsafeMutablePointer<UInt32>?
    /// `category`, `hasDevice`, `hasMetadata`, `hasCreationDate` and
    /// `hasUTCOffset` bits.
    package var flags: UnsafeMutablePointer<UInt32>?
    /// Unix microseconds, `noCreationDate` when the sample has none.
    package var creationUnixMicroseconds: UnsafeMutablePointer<Int64>?
    /// Seconds east of UTC, `noUTCOffset` when the sample has none.
    package var utcOffset: UnsafeMutablePointer<Int32>?
    /// The store's id of the sample's device, 0 when it has none
    /// (`SampleBatch.device(id:)`).
    package var deviceID: UnsafeMutablePointer<UInt32>?
    /// Told each row that has metadata, in row order (rows without are
    /// never named): for a column of metadata text.
    package var metadata: (any MetadataColumnWriter)?
    /// Rows of `rowLayout` (a caller's record struct) rather than columns:
    /// when set, every sample is written as one row there, and the
    /// columns above are not read.
    package var rows: UnsafeMutableRawPointer?
    package var rowLayout = SampleRowLayout()

    package static let category: UInt32 = 1, hasDevice: UInt32 = 2, hasMetadata: UInt32 = 4,
                       hasCreationDate: UInt32 = 8, hasUTCOffset: UInt32 = 16
    package static let noCreationDate = Int64.min, noUTCOffset = Int32.min

    package init() {}
}

/// Where a columns read hands the metadata of the rows that have some.
/// Rows arrive in increasing order, one thread at a time (the scan's or
/// its pipeline's), so a writer needs no lock.
package protocol MetadataColumnWriter: AnyObject {
    /// Row `row` has metadata; `entries` calls its argument with each entry.
    func write(row: Int, entries: ((_ key: String, _ value: MetadataValue) -> Void) -> Void)
}

/// One sample's fields, read in place; valid only inside `forEach`.
public struct SampleFields {
    @usableFromInline let record: RecordView
    let names: Unmanaged<BatchNames>
    /// Index of the sample's type in the batch's `types`.
    public let typeIndex: Int

    @inlinable public var uuid: UUID { record.uuid }
    /// Seconds since 2001-01-01 (Date's reference date), without a Date.
    @inlinable public var startTime: Double { record.start }
    @inlinable public var endTime: Double { record.end }
    @inlinable public var startDate: Date { Date(timeIntervalSinceReferenceDate: record.start) }
    @inlinable public var endDate: Date { Date(timeIntervalSinceReferenceDate: record.end) }
    /// The quantity in the type's canonical unit (nil for category samples).
    @inlinable public var quantity: Double? { record.isCategory ? nil : record.quantity }
    @inlinable public var categoryValue: Int? { record.isCategory ? record.category : nil }
    @inlinable public var sourceID: UInt32 { record.sourceID }
    /// The store's id of the sample's device, 0 when it has none.
    @inlinable public var deviceID: UInt32 { record.deviceID }
    @inlinable public var hasMetadata: Bool { record.hasMetadata }
    /// When the sample was made, as its source said; nil when not given.
    @inlinable public var creationDate: Date? { record.creation.map(Date.init(timeIntervalSinceReferenceDate:)) }
    /// The creation date in seconds since 2001-01-01, without a Date.
    @inlinable public var creationTime: Double? { record.creation }
    /// The UTC offset of the sample's local time, seconds east of UTC.
    @inlinable public var utcOffset: Int? { record.utcOffset }
    /// A workout's fields, a route's locations or a correlation's members;
    /// nil for quantities and categories.
    public var payload: SampleValue? { record.hasPayload ? try? record.payloadValue(type) : nil }
    /// Each metadata entry in turn, without building a dictionary.
    public func forEachMetadata(_ body: (_ key: String, _ value: MetadataValue) -> Void) {
        guard hasMetadata else { return }
        try? record.forEachMetadata { k, v in body(k, v); return false }
    }
    /// The metadata kept encoded, to decode later (nil when there is none):
    /// one copy of the record, valid after `forEach` returns.
    public var storedMetadata: StoredMetadata? { hasMetadata ? StoredMetadata(record: record.bytes) : nil }
    /// The sample's device, nil when it has none.
    public var device: Device? { names._withUnsafeGuaranteedRef { $0.device(record.deviceID) } }
    public var source: Source? { names._withUnsafeGuaranteedRef { $0.source(record.sourceID) } }
    /// The source's bundle identifier, without copying the whole source.
    public var bundleIdentifier: String? { names._withUnsafeGuaranteedRef { $0.bundleIdentifier(record.sourceID) } }
    public var type: SampleType { names._withUnsafeGuaranteedRef { $0.types[typeIndex] } }
}

/// The names behind a batch's ids: its types and the store's name table
/// as it was when the batch was read (holding every id the batch uses).
final class BatchNames: Sendable {
    let types: [SampleType]
    private let table: NameTable

    init(types: [SampleType], table: NameTable) {
        self.types = types
        self.table = table
    }

    @inline(__always) func source(_ id: UInt32) -> Source? { table.source(id) }
    @inline(__always) func bundleIdentifier(_ id: UInt32) -> String? { table.bundleIdentifier(id) }
    @inline(__always) func device(_ id: UInt32) -> Device? { id == 0 ? nil : table.device(id) }

    /// A live sample's record as a `Sample` of `type`, its names read here.
    func sample(_ r: RecordView, _ type: SampleType) -> Sample {
        Sample(uuid: r.uuid, type: type,
               startDate: Date(timeIntervalSinceReferenceDate: r.start),
               endDate: Date(timeIntervalSinceReferenceDate: r.end),
               value: r.isCategory ? .category(r.category)
                   : r.hasPayload ? ((try? r.payloadValue(type)) ?? .quantity(r.quantity))
                   : .quantity(r.quantity),
               source: source(r.sourceID) ?? Source(bundleIdentifier: "?", name: "?"),
               device: device(r.deviceID),
               metadata: (try? r.metadata()) ?? [:],
               creationDate: r.creation.map(Date.init(timeIntervalSinceReferenceDate:)),
               utcOffset: r.utcOffset)
    }
}

/// Builds a batch during a scan.
struct SampleBatchBuilder {
    var records: RecordBufferWriter
    var typeIndex: [UInt8] = []
    /// The largest ids seen: the name table must reach them.
    private var maxSourceID: UInt32 = 0
    private var maxDeviceID: UInt32 = 0
    let multiType: Bool

    init(multiType: Bool, expected: Int) {
        self.multiType = multiType
        records = RecordBufferWriter(expectedRecords: min(expected, 1 << 24))
    }

    @inline(__always)
    mutating func append(_ r: RecordView, typeIndex t: Int) throws {
        guard r.isWellFormed else { throw OHKError(.storeCorrupt, "corrupt record in the store") }
        records.append(r.bytes)
        if multiType { typeIndex.append(UInt8(t)) }
        maxSourceID = max(maxSourceID, r.sourceID)
        maxDeviceID = max(maxDeviceID, r.deviceID)
    }

    /// Makes the batch's names reach source `id` (a columns query's
    /// samples are not appended, but their sources are named).
    mutating func noteSource(through id: UInt32) { maxSourceID = max(maxSourceID, id) }
    /// The same for devices (a columns query with a device column).
    mutating func noteDevice(through id: UInt32) { maxDeviceID = max(maxDeviceID, id) }

    func build(types: [SampleType], names: NameLookup) throws -> SampleBatch {
        try names.ensure(sourcesThrough: maxSourceID, devicesThrough: maxDeviceID)
        return SampleBatch(records: records.finish(), typeIndex: typeIndex,
                           names: BatchNames(types: types, table: names.table), maxSourceID: maxSourceID)
    }
}
