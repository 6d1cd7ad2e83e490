import FoundationEssentials

/// The deleted objects of one query result, in store order: their
/// tombstones copied out of the store into one buffer (as a `SampleBatch`
/// keeps its samples), each decoded into a `DeletedObject` when read.
/// Held as an array of `DeletedObject`s (some 130 bytes each, with
/// references), a query from before 80,000 deletions spent most of its
/// time growing the array into fresh pages.
public struct DeletedObjects: RandomAccessCollection, Sendable {
    /// The tombstones; nil when there are none (no buffer for a delta).
    let tombstones: SampleBatch?

    public var startIndex: Int { 0 }
    public var endIndex: Int { tombstones?.count ?? 0 }

    public subscript(i: Int) -> DeletedObject {
        guard let t = tombstones else { preconditionFailure("deleted object index \(i) out of range 0..<0") }
        return t.deletedObject(at: i)
    }

    /// The largest source id of the objects (0 when there are none).
    package var maxSourceID: UInt32 { tombstones?.maxSourceID ?? 0 }

    /// The source behind a `DeletedFields.sourceID`.
    public func source(id: UInt32) -> Source? { tombstones?.source(id: id) }

    /// Calls `body` with each object's source id, in order.
    package func forEachSourceID(_ body: (UInt32) throws -> Void) rethrows {
        try tombstones?.forEachSourceID(body)
    }

    /// Reads every object's fields without building `DeletedObject`s.
    public func forEach(_ body: (DeletedFields) throws -> Void) rethrows {
        guard let t = tombstones else { return }
        try t.records.forEachRecord { i, raw in
            try body(DeletedFields(record: RecordView(bytes: raw), typeIndex: t.typeIndex.isEmpty ? 0 : Int(t.typeIndex[i])))
        }
    }
}

/// One deleted object's fields, read in place; valid only inside `forEach`.
public struct DeletedFields {
    let record: RecordView
    /// Index of the object's type in the result's `samples.types`.
    public let typeIndex: Int

    public var uuid: UUID { record.uuid }
    /// The UUID's bytes, without a `UUID` (a tenth of laying out a large
    /// batch's deleted objects for C went to making them).
    package var uuidBytes: uuid_t { record.bytes.loadUnaligned(as: uuid_t.self) }
    /// Seconds since 2001-01-01 (Date's reference date), without a Date.
    public var startTime: Double { record.start }
    public var endTime: Double { record.end }
    public var deletionTime: Double { record.deletionDate }
    public var sourceID: UInt32 { record.sourceID }
    /// Whether it kept metadata: without it, no sync identifier or version
    /// to look for (most tombstones).
    package var hasMetadata: Bool { record.hasMetadata }
    /// The sync identifier and version it kept (HealthKit's public
    /// metadata of a deleted object), nil when it has none.
    public var syncIdentifier: String? {
        guard record.hasMetadata, case .string(let s)? = record.metadataValue(MetadataKey.syncIdentifier) else { return nil }
        return s
    }
    public var syncVersion: Double? {
        guard record.hasMetadata, case .number(let v)? = record.metadataValue(MetadataKey.syncVersion) else { return nil }
        return v
    }
}

extension SampleBatch {
    /// Tombstone `i` as a `DeletedObject`.
    func deletedObject(at i: Int) -> DeletedObject {
        precondition(i >= 0 && i < count, "deleted object index \(i) out of range 0..<\(count)")
        return withExtendedLifetime(records) {
            let f = DeletedFields(record: RecordView(bytes: records.record(i)), typeIndex: 0)
            return DeletedObject(uuid: f.uuid, type: type(at: i),
                                 startDate: Date(timeIntervalSinceReferenceDate: f.startTime),
                                 endDate: Date(timeIntervalSinceReferenceDate: f.endTime),
                                 source: names.source(f.sourceID) ?? Source(bundleIdentifier: "?", name: "?"),
                                 deletionDate: Date(timeIntervalSinceReferenceDate: f.deletionTime),
                                 syncIdentifier: f.syncIdentifier, syncVersion: f.syncVersion)
        }
    }
}
