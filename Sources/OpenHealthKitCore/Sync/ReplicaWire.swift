import FoundationEssentials

/// A replica batch as bytes, for a sync over HTTP (docs/sync.md, "Over
/// HTTP"). Each change travels as the store's own record (RecordCodec),
/// with its source and device numbered within the batch: a sample reads
/// back exactly as it was saved, times and metadata dates included, which
/// JSON text would round to the microsecond. Each record keeps its check.
///
///     "OHKR" · version (2: records with the flags at offset 24 and the
///              compact head; version 1 carried the layout of formats 2–18)
///     source store id (16) · new position · horizon · head (u64 each)
///     types:   u32 count, each a string (identifier)
///     sources: u32 count, each TableCodec bytes (u32 length first); ids from 1
///     devices: u32 count, the same
///     digests: u32 count, each type string · 24 bytes (LiveDigest)
///     changes: u32 count, each position (u64) · type index (u16) ·
///              saved position (u64, deletions; UInt64.max: unknown) ·
///              record (u32 length first)
extension ReplicaBatch {
    static let magic: [UInt8] = Array("OHKR".utf8)
    static let wireVersion: UInt8 = 2

    public func wireBytes() throws -> [UInt8] {
        var w = ByteWriter(capacity: 64 + changes.count * 96)
        w.bytes += Self.magic
        w.u8(Self.wireVersion)
        w.uuid(sourceStoreID)
        w.u64(newPosition)
        w.u64(horizon)
        w.u64(head)
        var typeIndex: [String: UInt16] = [:], types: [String] = []
        var sourceIDs: [Source: UInt32] = [:], sources: [Source] = []
        var deviceIDs: [Device: UInt32] = [:], devices: [Device] = []
        func type(_ t: SampleType) throws -> UInt16 {
            if let i = typeIndex[t.identifier] { return i }
            guard types.count < Int(UInt16.max) else { throw OHKError(.invalidArgument, "too many types in one batch") }
            types.append(t.identifier)
            typeIndex[t.identifier] = UInt16(types.count - 1)
            return UInt16(types.count - 1)
        }
        func source(_ s: Source) -> UInt32 {
            if let id = sourceIDs[s] { return id }
            sources.append(s)
            sourceIDs[s] = UInt32(sources.count)
            return UInt32(sources.count)
        }
        func device(_ d: Device?) -> UInt32 {
            guard let d else { return 0 }
            if let id = deviceIDs[d] { return id }
            devices.append(d)
            deviceIDs[d] = UInt32(devices.count)
            return UInt32(devices.count)
        }
        // The records first, so that the tables are complete before they are written.
        var body = ByteWriter(capacity: changes.count * 96)
        var record = ByteWriter(capacity: 256)
        for (change, position) in zip(changes, positions) {
            record.bytes.removeAll(keepingCapacity: true)
            let t: UInt16, saved: UInt64
            switch change {
            case .save(let s):
                t = try type(s.type)
                saved = UInt64.max
                RecordCodec.encodeSample(s, sourceID: source(s.source), deviceID: device(s.device), into: &record)
            case .deletion(let d):
                t = try type(d.type)
                saved = d.savedPosition ?? UInt64.max
                record.bytes = RecordCodec.encodeTombstone(uuid: d.uuid, start: d.start, end: d.end, deleted: d.deleted,
                                                           sourceID: source(d.source), sync: d.syncMetadata)
            }
            body.u64(position)
            body.u16(t)
            body.u64(saved)
            body.u32(UInt32(record.bytes.count))
            body.bytes += record.bytes
        }
        w.u32(UInt32(types.count))
        for t in types { w.string(t) }
        for table in [sources.map(TableCodec.encode), devices.map(TableCodec.encode)] {
            w.u32(UInt32(table.count))
            for entry in table { w.u32(UInt32(entry.count)); w.bytes += entry }
        }
        w.u32(UInt32(digests.count))
        for (t, d) in digests.sorted(by: { $0.key < $1.key }) {
            w.string(t)
            w.bytes += d.encoded
        }
        w.u32(UInt32(changes.count))
        w.bytes += body.bytes
        return w.bytes
    }

    /// Reads `wireBytes()`; `type` resolves an identifier in the store
    /// that receives the batch. Anything malformed is `.invalidArgument`
    /// naming what.
    public init(wire bytes: [UInt8], type resolve: (String) throws -> SampleType) throws {
        func bad(_ what: String) -> OHKError { OHKError(.invalidArgument, "the replica batch is malformed: \(what)") }
        self = try bytes.withUnsafeBytes { raw -> ReplicaBatch in
            var r = ByteReader(raw)
            do {
                guard try r.bytes(4) == Self.magic else { throw bad("it does not start with OHKR") }
                let version = try r.u8()
                guard version == Self.wireVersion else {
                    throw OHKError(.invalidArgument, "a replica batch of version \(version); this library reads version \(Self.wireVersion)")
                }
                let store = try r.uuid()
                let newPosition = try r.u64(), horizon = try r.u64(), head = try r.u64()
                func count(_ minimum: Int, _ what: String) throws -> Int {
                    let n = Int(try r.u32())
                    guard n <= r.remaining / max(1, minimum) else { throw bad("\(n) \(what) in \(r.remaining) bytes") }
                    return n
                }
                let types = try (0..<count(4, "types")).map { _ in try resolve(try r.string()) }
                func table<T>(_ what: String, _ decode: (UnsafeRawBufferPointer) throws -> T) throws -> [T?] {
                    var out: [T?] = [nil]
                    for _ in 0..<(try count(4, what)) {
                        let length = Int(try r.u32())
                        guard length <= r.remaining else { throw bad("a \(what) entry past the end") }
                        let at = r.offset
                        _ = try r.bytes(length)
                        out.append(try decode(UnsafeRawBufferPointer(rebasing: raw[at..<at + length])))
                    }
                    return out
                }
                let sources = try table("sources", TableCodec.decodeSource)
                let devices = try table("devices", TableCodec.decodeDevice)
                var sourceMap: [UInt32: Source] = [:], deviceMap: [UInt32: Device] = [:]
                for (i, s) in sources.enumerated() where s != nil { sourceMap[UInt32(i)] = s }
                for (i, d) in devices.enumerated() where d != nil { deviceMap[UInt32(i)] = d }
                let names = BatchNames(types: types, table: NameTable.empty.adding(sources: sourceMap, devices: deviceMap))
                var digests: [String: LiveDigest] = [:]
                for _ in 0..<(try count(28, "digests")) {
                    let t = try r.string()
                    let d = try r.bytes(24)
                    digests[t] = try d.withUnsafeBytes { try LiveDigest(encoded: $0) }
                }
                let n = try count(22 + RecordCodec.minHeadSize, "changes")
                var changes: [ReplicaChange] = [], positions: [UInt64] = []
                changes.reserveCapacity(n)
                positions.reserveCapacity(n)
                for i in 0..<n {
                    let position = try r.u64()
                    let t = Int(try r.u16())
                    let saved = try r.u64()
                    let length = Int(try r.u32())
                    guard t < types.count else { throw bad("change \(i) names type \(t) of \(types.count)") }
                    guard length <= r.remaining else { throw bad("change \(i)'s record runs past the end") }
                    let at = r.offset
                    _ = try r.bytes(length)
                    let record = try RecordView(stored: UnsafeRawBufferPointer(rebasing: raw[at..<at + length]))
                    guard record.isWellFormed, record.checkMatches else { throw bad("change \(i)'s record does not match its check") }
                    guard let source = names.source(record.sourceID) else { throw bad("change \(i) names source \(record.sourceID)") }
                    if record.isTombstone {
                        changes.append(.deletion(ReplicaDeletion(tombstone: record, type: types[t], source: source,
                                                                 savedPosition: saved == UInt64.max ? nil : saved)))
                    } else {
                        guard record.deviceID == 0 || names.device(record.deviceID) != nil else {
                            throw bad("change \(i) names device \(record.deviceID)")
                        }
                        if record.hasPayload { _ = try record.payloadValue(types[t]) }  // a payload that does not decode is an error
                        changes.append(.save(names.sample(record, types[t])))
                    }
                    positions.append(position)
                }
                guard r.remaining == 0 else { throw bad("\(r.remaining) bytes after the changes") }
                return ReplicaBatch(sourceStoreID: store, changes: changes, positions: positions, newPosition: newPosition,
                                    horizon: horizon, head: head, digests: digests)
            } catch let e as OHKError where e.code == .storage || e.code == .storeCorrupt {
                throw bad(e.message)
            }
        }
    }
}
