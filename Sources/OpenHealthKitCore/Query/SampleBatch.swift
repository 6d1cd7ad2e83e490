import FoundationEssentials

/// The samples of one query result, in store order: their records copied
/// out of the store into one buffer, decoded on access. Index it to get a
/// `Sample`, or read fields without building one through `forEach` /
/// the `…(at:)` accessors (no allocation per sample).
public struct SampleBatch: RandomAccessCollection, Sendable {
    let storage: [UInt8]
    /// Start of each record in `storage`, plus the end of the last.
    let offsets: [UInt32]
    /// Index into `types` per record; empty when the batch has one type.
    let typeIndex: [UInt8]
    /// Types, sources and devices of the records in this batch.
    let names: BatchNames
    var types: [SampleType] { names.types }

    public var startIndex: Int { 0 }
    public var endIndex: Int { offsets.count - 1 }

    public subscript(i: Int) -> Sample {
        withRecord(i) { r, type in
            Sample(uuid: r.uuid, type: type,
                   startDate: Date(timeIntervalSinceReferenceDate: r.start),
                   endDate: Date(timeIntervalSinceReferenceDate: r.end),
                   value: r.isCategory ? .category(r.category) : .quantity(r.quantity),
                   source: names.source(r.sourceID) ?? Source(bundleIdentifier: "?", name: "?"),
                   device: r.deviceID == 0 ? nil : names.devices[r.deviceID],
                   metadata: (try? r.metadata()) ?? [:])
        }
    }

    public func uuid(at i: Int) -> UUID { withRecord(i) { r, _ in r.uuid } }
    public func type(at i: Int) -> SampleType { typeIndex.isEmpty ? types[0] : types[Int(typeIndex[i])] }

    /// Reads every sample's fields without materialising `Sample`s.
    public func forEach(_ body: (SampleFields) throws -> Void) rethrows {
        // The batch outlives the loop, so the fields borrow its names
        // without a reference count per sample.
        try withExtendedLifetime(names) {
            let names = Unmanaged.passUnretained(names)
            try storage.withUnsafeBytes { raw in
                try offsets.withUnsafeBufferPointer { off in
                    for i in 0..<count {
                        let r = RecordView(bytes: UnsafeRawBufferPointer(rebasing: raw[Int(off[i])..<Int(off[i + 1])]))
                        let t = typeIndex.isEmpty ? 0 : Int(typeIndex[i])
                        try body(SampleFields(record: r, names: names, typeIndex: t))
                    }
                }
            }
        }
    }

    @inline(__always)
    private func withRecord<T>(_ i: Int, _ body: (RecordView, SampleType) -> T) -> T {
        precondition(i >= 0 && i < count, "sample index \(i) out of range 0..<\(count)")
        return storage.withUnsafeBytes { raw in
            body(RecordView(bytes: UnsafeRawBufferPointer(rebasing: raw[Int(offsets[i])..<Int(offsets[i + 1])])), type(at: i))
        }
    }
}

/// One sample's fields, read in place; valid only inside `forEach`.
public struct SampleFields {
    let record: RecordView
    let names: Unmanaged<BatchNames>
    let typeIndex: Int

    public var uuid: UUID { record.uuid }
    /// Seconds since 2001-01-01 (Date's reference date), without a Date.
    public var startTime: Double { record.start }
    public var endTime: Double { record.end }
    public var startDate: Date { Date(timeIntervalSinceReferenceDate: record.start) }
    public var endDate: Date { Date(timeIntervalSinceReferenceDate: record.end) }
    /// The quantity in the type's canonical unit (nil for category samples).
    public var quantity: Double? { record.isCategory ? nil : record.quantity }
    public var categoryValue: Int? { record.isCategory ? record.category : nil }
    public var sourceID: UInt32 { record.sourceID }
    public var source: Source? { names._withUnsafeGuaranteedRef { $0.source(record.sourceID) } }
    public var type: SampleType { names._withUnsafeGuaranteedRef { $0.types[typeIndex] } }
}

/// The names behind a batch's ids; sources are also kept in a dense table
/// because ids are small integers handed out in order.
final class BatchNames: Sendable {
    let types: [SampleType]
    let devices: [UInt32: Device]
    private let sourceTable: [Source?]
    private let sources: [UInt32: Source]

    init(types: [SampleType], sources: [UInt32: Source], devices: [UInt32: Device]) {
        self.types = types
        self.devices = devices
        self.sources = sources
        let maxID = Int(sources.keys.max() ?? 0)
        var table = [Source?](repeating: nil, count: maxID < 65_536 ? maxID + 1 : 0)
        if !table.isEmpty { for (id, s) in sources { table[Int(id)] = s } }
        sourceTable = table
    }

    @inline(__always) func source(_ id: UInt32) -> Source? {
        Int(id) < sourceTable.count ? sourceTable[Int(id)] : sources[id]
    }
}

/// Builds a batch during a scan.
struct SampleBatchBuilder {
    var storage: [UInt8] = []
    var offsets: [UInt32] = [0]
    var typeIndex: [UInt8] = []
    var sourceIDs: Set<UInt32> = []
    var deviceIDs: Set<UInt32> = []
    /// Source ids below 256 seen so far, as bits (the common case, no hashing).
    private var smallSources = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    let multiType: Bool

    init(multiType: Bool, expected: Int) {
        self.multiType = multiType
        let n = min(expected, 1 << 24)
        storage.reserveCapacity(n * RecordCodec.headSize)
        offsets.reserveCapacity(n + 1)
    }

    @inline(__always)
    mutating func append(_ r: RecordView, typeIndex t: Int) throws {
        guard r.isWellFormed else { throw OHKError(.storage, "corrupt record in the store") }
        storage.append(contentsOf: r.bytes)
        offsets.append(UInt32(storage.count))
        if multiType { typeIndex.append(UInt8(t)) }
        let s = r.sourceID
        if s < 256 {
            let bit = UInt64(1) << (s & 63)
            switch s >> 6 {
            case 0: smallSources.0 |= bit
            case 1: smallSources.1 |= bit
            case 2: smallSources.2 |= bit
            default: smallSources.3 |= bit
            }
        } else {
            sourceIDs.insert(s)
        }
        if r.deviceID != 0 { deviceIDs.insert(r.deviceID) }
    }

    func build(types: [SampleType], names: NameLookup) -> SampleBatch {
        var sources: [UInt32: Source] = [:]
        let words = [smallSources.0, smallSources.1, smallSources.2, smallSources.3]
        for (w, word) in words.enumerated() where word != 0 {
            for b in 0..<64 where word & (1 << UInt64(b)) != 0 {
                let id = UInt32(w * 64 + b)
                sources[id] = names.source(id)
            }
        }
        for id in sourceIDs { sources[id] = names.source(id) }
        var devices: [UInt32: Device] = [:]
        for id in deviceIDs { devices[id] = names.device(id) }
        return SampleBatch(storage: storage, offsets: offsets, typeIndex: typeIndex,
                           names: BatchNames(types: types, sources: sources, devices: devices))
    }
}
