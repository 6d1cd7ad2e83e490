import FoundationEssentials

/// The stored form of a sample or a deleted object (a tombstone): a head
/// of 48 bytes, or 38 when compact (format 19), then the optional fields
/// its flags announce, in this order, then (format 6) a 4-byte check of
/// all before it (`RecordCheck`). Little-endian. (Formats 2–18 had the
/// word at 44, after the value and source: `LegacyRecords`.)
///
///     0  uuid        16 bytes
///     16 start       Float64, seconds since 2001-01-01 (Date's own representation)
///     24 word        device id in 24 bits, flags in the top 8 (flagCompact: which head);
///                    compact (layout 3): device id in 22 bits, the value's scale in 2
///     28 end         Float64 | compact: the duration, Float32
///     36 value       Float64 quantity | Int64 category | Float64 deletion date (tombstone)
///                    | compact, at 32: Float32 quantity times its scale | Int32 category
///     44 source id   UInt32 | compact, at 36: UInt16
///     head creation  Float64, when flagCreation (format 7)
///        UTC offset  Int32 seconds east of UTC, when flagUTCOffset (format 7)
///        payload     UInt32 length, then a workout's fields (`WorkoutCodec`;
///                    value is then the duration) or a route's locations
///                    (`RouteCodec`; value is their count) or a correlation's
///                    members (`CorrelationCodec`; value is their count),
///                    when flagPayload (format 8)
///        metadata    UInt16 count, then (UInt16 key length, key, tag, value) per entry;
///                    a length of 0 then a UInt8 code for HealthKit's own keys (`MetadataKeyCodes`)
///     end-4 check    UInt32, when the flag says so (format 5 records have none)
///
/// The optional fields cost nothing to samples without them, which are
/// most of what apps save; imported samples carry both.
@usableFromInline
enum RecordCodec {
    @usableFromInline static let headSize = 48
    /// A compact head's size (`flagCompact`).
    @usableFromInline static let compactHeadSize = 38
    /// The smallest head, what a stored record must have at least.
    @usableFromInline static let minHeadSize = compactHeadSize
    /// The largest record a save writes, metadata and all (rule 18): a
    /// read that meets a larger one meets damage, not a 4 GB copy.
    static let maxSize = 16 << 20
    @usableFromInline static let flagTombstone: UInt32 = 1 << 24
    @usableFromInline static let flagMetadata: UInt32 = 1 << 25
    @usableFromInline static let flagCategory: UInt32 = 1 << 26
    @usableFromInline static let flagChecked: UInt32 = 1 << 27
    @usableFromInline static let flagCreation: UInt32 = 1 << 28
    @usableFromInline static let flagUTCOffset: UInt32 = 1 << 29
    @usableFromInline static let flagPayload: UInt32 = 1 << 30
    /// The compact head: the end as a Float32 duration, the value as a
    /// Float32 (or Int32), the source as a UInt16, each exact.
    @usableFromInline static let flagCompact: UInt32 = 1 << 31
    @usableFromInline static let deviceMask: UInt32 = 0x00FF_FFFF
    /// A compact head's device id: 22 bits (record layout 3). Its word's
    /// bits 22 and 23 are the value's scale code (`scaled`): a heart rate
    /// in count/min is kept in count/s, 72 × (1/60) = 1.2 s⁻¹, which no
    /// Float32 holds exactly, and a percentage such as 0.97 neither; 72
    /// and 97 it does.
    @usableFromInline static let compactDeviceMask: UInt32 = 0x003F_FFFF
    @usableFromInline static let scaleShift: UInt32 = 22
    /// What a scale code's Float32 is multiplied by before it is tried.
    static let scaleFactors: [Double] = [1, 60, 100, 100]

    /// A compact value: its Float32 `v` as it is (code 0), times 1/60 (1:
    /// a rate per minute, as the unit conversion turns count/min into
    /// count/s), times 0.01 (2: a percentage, as the conversion turns %
    /// into a fraction), or divided by 100 (3: a number with two
    /// decimals, as text gives it). Each the very operation that made
    /// the value, so that it comes back bit for bit.
    @inlinable @inline(__always)
    static func scaled(_ v: Double, _ code: UInt32) -> Double {
        switch code {
        case 0: v
        case 1: v * (1.0 / 60)
        case 2: v * 0.01
        default: v / 100
        }
    }

    enum Tag: UInt8 { case string = 0, number = 1, date = 2, bool = 3 }

    static func encodeSample(_ s: Sample, sourceID: UInt32, deviceID: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: headSize)
        encodeSample(s, sourceID: sourceID, deviceID: deviceID, into: &w)
        return w.bytes
    }

    /// Appends the record of `s` to `w` (a save reuses one writer for all
    /// its samples instead of allocating an array each).
    static func encodeSample(_ s: Sample, sourceID: UInt32, deviceID: UInt32, into w: inout ByteWriter) {
        let start = w.bytes.count
        var flags: UInt32 = flagChecked | (s.metadata.isEmpty ? 0 : flagMetadata)
            | (s.creationDate == nil ? 0 : flagCreation) | (s.utcOffset == nil ? 0 : flagUTCOffset)
        let value: UInt64
        switch s.value {
        case .quantity(let v): value = v.bitPattern
        case .category(let v): value = UInt64(bitPattern: Int64(v)); flags |= flagCategory
        case .workout(let workout): value = workout.duration.bitPattern; flags |= flagPayload
        case .route(let route): value = Double(route.locations.count).bitPattern; flags |= flagPayload
        case .correlation(let c): value = Double(c.members.count).bitPattern; flags |= flagPayload
        case .heartbeats(let h): value = Double(h.beats.count).bitPattern; flags |= flagPayload
        case .audiogram(let a): value = Double(a.points.count).bitPattern; flags |= flagPayload
        case .electrocardiogram(let e): value = Double(e.voltages.count).bitPattern; flags |= flagPayload
        case .clinicalRecord(let c): value = Double(c.fhirResource?.data.count ?? 0).bitPattern; flags |= flagPayload
        }
        appendHead(&w, uuid: s.uuid.uuid, start: s.startDate.timeIntervalSinceReferenceDate,
                   end: s.endDate.timeIntervalSinceReferenceDate, value: value, sourceID: sourceID,
                   word: (deviceID & deviceMask) | flags)
        if let c = s.creationDate { w.f64(c.timeIntervalSinceReferenceDate) }
        if let o = s.utcOffset { w.u32(UInt32(bitPattern: Int32(o))) }
        switch s.value {
        case .workout(let workout): appendPayload(&w) { WorkoutCodec.encode(workout, into: &$0) }
        case .route(let route): appendPayload(&w) { RouteCodec.encode(route, into: &$0) }
        case .correlation(let c): appendPayload(&w) { CorrelationCodec.encode(c, into: &$0) }
        case .heartbeats(let h): appendPayload(&w) { HeartbeatCodec.encode(h, into: &$0) }
        case .audiogram(let a): appendPayload(&w) { AudiogramCodec.encode(a, into: &$0) }
        case .electrocardiogram(let e): appendPayload(&w) { ElectrocardiogramCodec.encode(e, into: &$0) }
        case .clinicalRecord(let c): appendPayload(&w) { ClinicalRecordCodec.encode(c, into: &$0) }
        case .quantity, .category: break
        }
        if !s.metadata.isEmpty { encodeMetadata(s.metadata, into: &w) }
        appendCheck(&w, from: start)
    }

    /// Appends a record's head: the compact one when the record is not a
    /// tombstone, its device id fits 22 bits, and its end, value and
    /// source fit it exactly (`compactFields`), else the full one. `word`: the device id and the
    /// flags but `flagCompact`, which this sets. (In one append, not six.)
    static func appendHead(_ w: inout ByteWriter, uuid: uuid_t, start: Double, end: Double, value: UInt64,
                           sourceID: UInt32, word: UInt32) {
        let compact = word & flagTombstone != 0 || word & deviceMask > compactDeviceMask ? nil
            : compactFields(start: start, end: end, value: value, category: word & flagCategory != 0, sourceID: sourceID)
        withUnsafeTemporaryAllocation(byteCount: headSize, alignment: 8) { head in
            head.storeBytes(of: uuid, toByteOffset: 0, as: uuid_t.self)
            head.storeBytes(of: start.bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
            let stored = compact.map { word | flagCompact | $0.scale << scaleShift } ?? word
            head.storeBytes(of: stored.littleEndian, toByteOffset: 24, as: UInt32.self)
            if let (duration, small, _) = compact {
                head.storeBytes(of: duration.bitPattern.littleEndian, toByteOffset: 28, as: UInt32.self)
                head.storeBytes(of: small.littleEndian, toByteOffset: 32, as: UInt32.self)
                head.storeBytes(of: UInt16(sourceID).littleEndian, toByteOffset: 36, as: UInt16.self)
                w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: head[0..<compactHeadSize]))
            } else {
                head.storeBytes(of: end.bitPattern.littleEndian, toByteOffset: 28, as: UInt64.self)
                head.storeBytes(of: value.littleEndian, toByteOffset: 36, as: UInt64.self)
                head.storeBytes(of: sourceID.littleEndian, toByteOffset: 44, as: UInt32.self)
                w.bytes.append(contentsOf: UnsafeRawBufferPointer(head))
            }
        }
    }

    /// The compact head's duration, value (Float32 bits, or an Int32
    /// category) and the value's scale code, when they and the source fit
    /// it exactly; nil otherwise. A quantity takes the first scale code
    /// whose Float32 reads back as the same Double (`scaled`).
    static func compactFields(start: Double, end: Double, value: UInt64, category: Bool,
                              sourceID: UInt32) -> (duration: Float, small: UInt32, scale: UInt32)? {
        guard sourceID <= UInt32(UInt16.max) else { return nil }
        let duration = Float(end - start)
        guard duration.isFinite, start + Double(duration) == end, end.isFinite else { return nil }
        if category {
            let v = Int64(bitPattern: value)
            guard let small = Int32(exactly: v) else { return nil }
            return (duration, UInt32(bitPattern: small), 0)
        }
        let v = Double(bitPattern: value)
        let small = Float(v)
        if Double(small).bitPattern == value { return (duration, small.bitPattern, 0) }
        for code in 1..<UInt32(scaleFactors.count) {
            let f = Float(v * scaleFactors[Int(code)])
            if f.isFinite, Self.scaled(Double(f), code).bitPattern == value { return (duration, f.bitPattern, code) }
        }
        return nil
    }

    /// A payload: its length, then what `body` writes.
    private static func appendPayload(_ w: inout ByteWriter, _ body: (inout ByteWriter) -> Void) {
        let at = w.bytes.count
        w.u32(0)
        body(&w)
        let length = UInt32(w.bytes.count - at - 4).littleEndian
        withUnsafeBytes(of: length) { w.bytes.replaceSubrange(at..<at + 4, with: $0) }
    }

    /// Ends the record that began at `from` with its check.
    static func appendCheck(_ w: inout ByteWriter, from start: Int) {
        let check = w.bytes.withUnsafeBytes { RecordCheck.of(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        w.u32(check)
    }

    /// A tombstone keeps uuid, dates, source, deletion date, and the sync
    /// identifier and version (rule 8); nothing else (no creation date or
    /// UTC offset).
    /// `sourceID`: the source's id in the store the tombstone goes to,
    /// when the record comes from another store (a replica's, rule 70).
    static func encodeTombstone(of record: RecordView, deletionDate: Date, sourceID: UInt32? = nil) -> [UInt8] {
        var sync: [String: MetadataValue] = [:]
        if let id = record.metadataValue(MetadataKey.syncIdentifier) { sync[MetadataKey.syncIdentifier] = id }
        if let v = record.metadataValue(MetadataKey.syncVersion) { sync[MetadataKey.syncVersion] = v }
        return encodeTombstone(uuid: record.uuid, start: record.start, end: record.end, deleted: deletionDate.timeIntervalSinceReferenceDate,
                               sourceID: sourceID ?? record.sourceID, sync: sync)
    }

    /// A tombstone from its fields: `sync` holds the sync identifier and
    /// version, when the sample had them.
    static func encodeTombstone(uuid: UUID, start: Double, end: Double, deleted: Double, sourceID: UInt32,
                                sync: [String: MetadataValue]) -> [UInt8] {
        var w = ByteWriter()
        appendHead(&w, uuid: uuid.uuid, start: start, end: end, value: deleted.bitPattern, sourceID: sourceID,
                   word: flagTombstone | flagChecked | (sync.isEmpty ? 0 : flagMetadata))
        if !sync.isEmpty { encodeMetadata(sync, into: &w) }
        appendCheck(&w, from: 0)
        return w.bytes
    }

    static func encodeMetadata(_ m: [String: MetadataValue], into w: inout ByteWriter) {
        w.u16(UInt16(m.count))
        for (k, v) in m.sorted(by: { $0.key < $1.key }) {
            if let code = MetadataKeyCodes.code(of: k) {
                w.u16(0)
                w.u8(code)
            } else {
                let key = Array(k.utf8)
                w.u16(UInt16(key.count))
                w.bytes.append(contentsOf: key)
            }
            switch v {
            case .string(let s): w.u8(Tag.string.rawValue); w.string(s)
            case .number(let n): w.u8(Tag.number.rawValue); w.f64(n)
            case .date(let d): w.u8(Tag.date.rawValue); w.f64(d.timeIntervalSinceReferenceDate)
            case .bool(let b): w.u8(Tag.bool.rawValue); w.u8(b ? 1 : 0)
            }
        }
    }
}

/// A read-only look at one encoded record, wherever its bytes live (the
/// LMDB map inside a transaction, or a result batch's own copy).
/// (Its field reads are inlinable: `SampleFields`, read once per sample by
/// every binding, reaches them across the module boundary.)
@usableFromInline
package struct RecordView {
    @usableFromInline let bytes: UnsafeRawBufferPointer

    @usableFromInline package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// A record as read from the store: one too short for its fixed fields
    /// or longer than any save writes is damage, an error rather than a
    /// read past its end or a huge copy (two compares; the rest is checked
    /// when the record is copied out, `isWellFormed`).
    @inline(__always) init(stored bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= RecordCodec.minHeadSize, bytes.count <= RecordCodec.maxSize else {
            throw OHKError(.storeCorrupt, "a record of \(bytes.count) bytes in the store (ohk check tells what is damaged)")
        }
        self.bytes = bytes
    }

    @inlinable @inline(__always) func f64(_ at: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    }
    @inlinable @inline(__always) func u32(_ at: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    @inlinable package var uuid: UUID { UUID(uuid: bytes.loadUnaligned(fromByteOffset: 0, as: uuid_t.self)) }
    @inlinable @inline(__always) func f32(_ at: Int) -> Double { Double(Float(bitPattern: u32(at))) }
    @inlinable var isCompact: Bool { word & RecordCodec.flagCompact != 0 }
    /// The head's size: compact or not.
    @inlinable @inline(__always) var headSize: Int { isCompact ? RecordCodec.compactHeadSize : RecordCodec.headSize }
    @inlinable package var start: Double { f64(16) }
    @inlinable @inline(__always) package var end: Double { isCompact ? start + f32(28) : f64(28) }
    /// A compact head's Float32 scaled as its code says (`RecordCodec.scaled`),
    /// which `compactFields` checked gives the value back.
    @inlinable package var quantity: Double {
        isCompact ? RecordCodec.scaled(f32(32), word >> RecordCodec.scaleShift & 3) : f64(36)
    }
    @inlinable package var category: Int {
        isCompact ? Int(Int32(bitPattern: u32(32)))
            : Int(Int64(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 36, as: UInt64.self))))
    }
    var deletionDate: Double { f64(36) }
    @inlinable package var sourceID: UInt32 {
        isCompact ? UInt32(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 36, as: UInt16.self))) : u32(44)
    }
    @inlinable var word: UInt32 { u32(24) }
    @inlinable package var deviceID: UInt32 { word & (isCompact ? RecordCodec.compactDeviceMask : RecordCodec.deviceMask) }
    @inlinable package var isTombstone: Bool { word & RecordCodec.flagTombstone != 0 }
    @inlinable var isCategory: Bool { word & RecordCodec.flagCategory != 0 }
    @inlinable var hasMetadata: Bool { word & RecordCodec.flagMetadata != 0 }
    @inlinable @inline(__always) var isChecked: Bool { word & RecordCodec.flagChecked != 0 }
    @inlinable var hasCreation: Bool { word & RecordCodec.flagCreation != 0 }
    @inlinable var hasUTCOffset: Bool { word & RecordCodec.flagUTCOffset != 0 }
    @inlinable var hasPayload: Bool { word & RecordCodec.flagPayload != 0 }
    /// Where the payload's length is, when the record has one.
    @inlinable @inline(__always) var payloadOffset: Int { headSize + (hasCreation ? 8 : 0) + (hasUTCOffset ? 4 : 0) }
    /// The payload's length (0 without one, or when it does not fit in the
    /// record: damage, which `isWellFormed` reports).
    @inlinable var payloadLength: Int {
        let at = payloadOffset
        guard hasPayload, bytes.count >= at + 4 else { return 0 }
        let n = Int(u32(at))
        return n <= bytes.count - at - 4 ? n : 0
    }
    /// Where the metadata begins: after the head and the optional fields.
    @inlinable var metadataOffset: Int {
        payloadOffset + (hasPayload ? 4 + payloadLength : 0)
    }
    /// The value a record's payload holds, for a record of `type`: a
    /// workout's fields, a route's locations or a correlation's members.
    func payloadValue(_ type: SampleType) throws -> SampleValue {
        let at = payloadOffset + 4
        guard hasPayload, bytes.count >= at else { throw OHKError(.storeCorrupt, "a \(type.kindName) record without its payload") }
        var r = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + payloadLength)]))
        switch type.kind {
        case .workout: return .workout(try WorkoutCodec.decode(&r))
        case .route: return .route(try RouteCodec.decode(&r))
        case .correlation: return .correlation(try CorrelationCodec.decode(&r))
        case .heartbeatSeries: return .heartbeats(try HeartbeatCodec.decode(&r))
        case .audiogram: return .audiogram(try AudiogramCodec.decode(&r))
        case .electrocardiogram: return .electrocardiogram(try ElectrocardiogramCodec.decode(&r))
        case .clinicalRecord: return .clinicalRecord(try ClinicalRecordCodec.decode(&r))
        case .quantity, .category: throw OHKError(.storeCorrupt, "a \(type.identifier) record with a payload")
        }
    }
    /// When the sample was created, as its source said (seconds since
    /// 2001-01-01); nil when not given.
    @inlinable @inline(__always) var creation: Double? {
        hasCreation && bytes.count >= headSize + 8 ? f64(headSize) : nil
    }
    /// The UTC offset of the sample's local time, in seconds east of UTC.
    @inlinable @inline(__always) var utcOffset: Int? {
        let at = headSize + (hasCreation ? 8 : 0)
        guard hasUTCOffset, bytes.count >= at + 4 else { return nil }
        return Int(Int32(bitPattern: u32(at)))
    }
    /// The head and metadata: the record without its check.
    var body: UnsafeRawBufferPointer {
        isChecked ? UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, bytes.count - RecordCheck.size)]) : bytes
    }

    /// Whether the record's check matches its bytes (true for a record
    /// written before format 6, which has none).
    var checkMatches: Bool {
        guard bytes.count >= RecordCodec.minHeadSize else { return false }
        guard isChecked else { return true }
        guard bytes.count >= headSize + RecordCheck.size else { return false }
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - RecordCheck.size, as: UInt32.self))
        return stored == RecordCheck.of(body)
    }

    /// Structural check of a record read from disk, so a corrupt store gives
    /// an error rather than a crash.
    package var isWellFormed: Bool {
        // The word, which says the head's size, is inside the smallest head.
        guard bytes.count >= RecordCodec.minHeadSize,
              bytes.count >= headSize + (isChecked ? RecordCheck.size : 0) else { return false }
        let body = self.body
        if hasPayload {
            let at = payloadOffset
            guard body.count >= at + 4, Int(u32(at)) <= body.count - at - 4 else { return false }
        }
        let fixed = metadataOffset
        guard hasMetadata else { return body.count == fixed }
        guard body.count > fixed else { return false }
        var r = ByteReader(body, offset: fixed)
        guard let n = try? r.u16() else { return false }
        for _ in 0..<n {
            guard let klen = try? r.u16(), r.remaining >= Int(klen) else { return false }
            if klen == 0 {
                guard let code = try? r.u8(), MetadataKeyCodes.key(of: code) != nil else { return false }
            }
            r.offset += Int(klen)
            switch (try? r.u8()).flatMap(RecordCodec.Tag.init(rawValue:)) {
            case .string: guard let len = try? r.u32(), r.remaining >= Int(len) else { return false }; r.offset += Int(len)
            case .number, .date: guard r.remaining >= 8 else { return false }; r.offset += 8
            case .bool: guard r.remaining >= 1 else { return false }; r.offset += 1
            case nil: return false
            }
        }
        return r.remaining == 0
    }

    /// Every metadata entry.
    package func metadata() throws -> [String: MetadataValue] {
        guard hasMetadata else { return [:] }
        var out: [String: MetadataValue] = [:]
        try forEachMetadata { k, v in out[k] = v; return false }
        return out
    }

    /// One metadata value, nil when absent (or unreadable).
    func metadataValue(_ key: String) -> MetadataValue? {
        guard hasMetadata else { return nil }
        var found: MetadataValue?
        try? forEachMetadata { k, v in
            if k == key { found = v; return true }
            return false
        }
        return found
    }

    /// Walks the entries; `body` returns true to stop.
    func forEachMetadata(_ visit: (String, MetadataValue) -> Bool) throws {
        var r = ByteReader(body, offset: metadataOffset)
        try RecordCodec.readMetadata(&r, visit)
    }
}

extension RecordCodec {
    /// Reads what `encodeMetadata` wrote; `visit` returns true to stop.
    static func readMetadata(_ r: inout ByteReader, _ visit: (String, MetadataValue) -> Bool) throws {
        let n = Int(try r.u16())
        for _ in 0..<n {
            let klen = Int(try r.u16())
            let key: String
            if klen == 0 {
                guard let known = MetadataKeyCodes.key(of: try r.u8()) else { throw OHKError(.storage, "unknown metadata key code") }
                key = known
            } else {
                guard r.remaining >= klen else { throw OHKError(.storage, "truncated metadata") }
                key = String(decoding: UnsafeRawBufferPointer(rebasing: r.buffer[r.offset..<r.offset + klen]), as: UTF8.self)
                r.offset += klen
            }
            let value: MetadataValue
            switch Tag(rawValue: try r.u8()) {
            case .string: value = .string(try r.string())
            case .number: value = .number(try r.f64())
            case .date: value = .date(Date(timeIntervalSinceReferenceDate: try r.f64()))
            case .bool: value = .bool(try r.u8() != 0)
            case nil: throw OHKError(.storage, "unknown metadata tag")
            }
            if visit(key, value) { return }
        }
    }

    /// The whole metadata `encodeMetadata` wrote.
    static func readMetadata(_ r: inout ByteReader) throws -> [String: MetadataValue] {
        var out: [String: MetadataValue] = [:]
        try readMetadata(&r) { k, v in out[k] = v; return false }
        return out
    }
}
