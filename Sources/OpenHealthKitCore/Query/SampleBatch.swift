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
    let types: [SampleType]
    /// Sources and devices by id, for the ids in this batch.
    let sources: [UInt32: Source]
    let devices: [UInt32: Device]

    public var startIndex: Int { 0 }
    public var endIndex: Int { offsets.count - 1 }

    public subscript(i: Int) -> Sample {
        withRecord(i) { r, type in
            Sample(uuid: r.uuid, type: type,
                   startDate: Date(timeIntervalSinceReferenceDate: r.start),
                   endDate: Date(timeIntervalSinceReferenceDate: r.end),
                   value: r.isCategory ? .category(r.category) : .quantity(r.quantity),
                   source: sources[r.sourceID] ?? Source(bundleIdentifier: "?", name: "?"),
                   device: r.deviceID == 0 ? nil : devices[r.deviceID],
                   metadata: (try? r.metadata()) ?? [:])
        }
    }

    public func uuid(at i: Int) -> UUID { withRecord(i) { r, _ in r.uuid } }
    public func type(at i: Int) -> SampleType { typeIndex.isEmpty ? types[0] : types[Int(typeIndex[i])] }

    /// Reads every sample's fields without materialising `Sample`s.
    public func forEach(_ body: (SampleFields) throws -> Void) rethrows {
        try storage.withUnsafeBytes { raw in
            for i in 0..<count {
                let r = RecordView(bytes: UnsafeRawBufferPointer(rebasing: raw[Int(offsets[i])..<Int(offsets[i + 1])]))
                try body(SampleFields(record: r, batch: self, index: i))
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
    let batch: SampleBatch
    let index: Int

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
    public var source: Source? { batch.sources[record.sourceID] }
    public var type: SampleType { batch.type(at: index) }
}

/// Builds a batch during a scan.
struct SampleBatchBuilder {
    var storage: [UInt8] = []
    var offsets: [UInt32] = [0]
    var typeIndex: [UInt8] = []
    var sourceIDs: Set<UInt32> = []
    var deviceIDs: Set<UInt32> = []
    private var lastSource: UInt32 = .max
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
        if s != lastSource { sourceIDs.insert(s); lastSource = s }
        if r.deviceID != 0 { deviceIDs.insert(r.deviceID) }
    }

    var count: Int { offsets.count - 1 }

    func build(types: [SampleType], names: NameLookup) -> SampleBatch {
        var sources: [UInt32: Source] = [:]
        for id in sourceIDs { sources[id] = names.source(id) }
        var devices: [UInt32: Device] = [:]
        for id in deviceIDs { devices[id] = names.device(id) }
        return SampleBatch(storage: storage, offsets: offsets, typeIndex: typeIndex, types: types,
                           sources: sources, devices: devices)
    }
}
