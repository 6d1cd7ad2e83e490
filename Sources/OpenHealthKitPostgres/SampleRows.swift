import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// Writes a batch of changes as rows: the journal's (one per change) and
/// the saved samples' (`SinkSchema.sampleColumns`). Sources' and devices'
/// text is made once per id and reused, so a row costs its own fields.
struct SampleRows {
    let person: String
    let sink: String
    private var sources: [UInt32: (bundle: String, name: String, version: String?)] = [:]
    private var devices: [UInt32: String] = [:]

    init(person: String, sink: String) {
        self.person = person
        self.sink = sink
    }

    /// One journal row per change, in store order; returns how many of
    /// them are deletions.
    func journal(_ batch: ChangeBatch, into w: inout CopyWriter) throws -> Int {
        let types = batch.types.map(\.identifier)
        var deletions = 0
        try batch.forEach { c in
            if c.isDeletion { deletions += 1 }
            w.beginRow(fields: 6)
            w.text(person)
            w.text(sink)
            w.int8(Int64(c.position))
            w.text(c.isDeletion ? "delete" : "save")
            w.uuid(c.fields.uuid)
            w.text(types[c.fields.typeIndex])
            try w.endRow()
        }
        return deletions
    }

    /// One row per saved sample; returns the batch index of each row, so
    /// that a row PostgreSQL refuses can be named.
    mutating func samples(_ batch: ChangeBatch, into w: inout CopyWriter) throws -> [Int] {
        let types = batch.types
        let identifiers = types.map(\.identifier)
        let units = types.map { $0.canonicalUnit?.description }
        var rows: [Int] = []
        var i = -1
        try batch.forEach { c in
            i += 1
            guard !c.isDeletion else { return }
            rows.append(i)
            let f = c.fields
            let type = types[f.typeIndex]
            w.beginRow(fields: Int16(SinkSchema.sampleColumns.count))
            w.text(person)
            w.uuid(f.uuid)
            w.text(identifiers[f.typeIndex])
            w.timestamp(f.startTime)
            w.timestamp(f.endTime)
            // The value column: a quantity in its canonical unit, a
            // workout's duration in seconds; the rest is in `payload`.
            var payload: String?
            switch type.kind {
            case .quantity:
                w.float8(f.quantity)
                w.text(units[f.typeIndex])
                w.null()
            case .category:
                w.null()
                w.null()
                w.int8(f.categoryValue.map(Int64.init))
            default:
                let sample = batch.sample(at: i)
                if case .workout(let workout)? = sample?.value {
                    w.float8(workout.duration)
                    w.text("s")
                } else {
                    w.null()
                    w.null()
                }
                w.null()
                payload = sample.map { JSONObject.sample($0).closed }
            }
            let source = self.source(f)
            w.text(source.bundle)
            w.text(source.name)
            w.text(source.version)
            w.jsonb(device(f))
            let (metadata, syncID, syncVersion) = Self.metadata(f)
            w.jsonb(metadata)
            w.text(syncID)
            w.float8(syncVersion)
            w.int4(f.utcOffset.map { Int32($0) })
            w.timestamp(f.creationTime)
            w.jsonb(payload)
            w.int8(Int64(c.position))
            try w.endRow()
        }
        return rows
    }

    private mutating func source(_ f: SampleFields) -> (bundle: String, name: String, version: String?) {
        if let s = sources[f.sourceID] { return s }
        let s = f.source.map { ($0.bundleIdentifier, $0.name, $0.version) } ?? ("?", "?", nil)
        sources[f.sourceID] = s
        return s
    }

    private mutating func device(_ f: SampleFields) -> String? {
        guard f.deviceID != 0 else { return nil }
        if let d = devices[f.deviceID] { return d }
        let d = f.device.map { JSONObject.device($0).closed }
        devices[f.deviceID] = d
        return d
    }

    /// The metadata as JSON (nil when there is none), and the sync
    /// identifier and version it holds.
    private static func metadata(_ f: SampleFields) -> (String?, String?, Double?) {
        guard f.hasMetadata else { return (nil, nil, nil) }
        var o = JSONObject()
        var syncID: String?, syncVersion: Double?
        f.forEachMetadata { k, v in
            switch v {
            case .string(let s):
                o.add(k, s)
                if k == MetadataKey.syncIdentifier { syncID = s }
            case .number(let n):
                o.add(k, number: n)
                if k == MetadataKey.syncVersion { syncVersion = n }
            case .bool(let b): o.add(k, bool: b)
            case .date(let d): o.add(k, TextForms.time(d))
            }
        }
        return (o.closed, syncID, syncVersion)
    }
}
