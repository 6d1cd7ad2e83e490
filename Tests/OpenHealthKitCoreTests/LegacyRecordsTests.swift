import CLMDB
import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Format 19, the compact record head: records of the layout of formats
/// 2–18 are rewritten in today's when their store is opened, and read
/// back the same.
@Suite struct LegacyRecordsTests {
    /// Today's record in the old layout (the inverse of
    /// `LegacyRecords.record`): uuid, start, end, value, source, word.
    static func legacy(_ r: RecordView) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: r.bytes[0..<16]))
        w.f64(r.start)
        w.f64(r.end)
        if r.isTombstone {
            w.f64(r.deletionDate)
        } else if r.isCategory {
            w.u64(UInt64(bitPattern: Int64(r.category)))
        } else {
            w.f64(r.quantity)
        }
        w.u32(r.sourceID)
        w.u32(r.word & 0xFF00_0000 & ~RecordCodec.flagCompact | r.deviceID)
        w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: r.bytes[r.headSize..<(r.bytes.count - RecordCheck.size)]))
        RecordCodec.appendCheck(&w, from: 0)
        return w.bytes
    }

    /// Samples of every width: whole counts (compact), values and
    /// durations no Float32 holds (long), categories, metadata, a
    /// creation date, and deleted objects.
    static func samples() throws -> [Sample] {
        var out: [Sample] = []
        for k in 0..<40 {
            out.append(try stepSample(Double(k * 7), minute: k, metadata: k % 5 == 0 ? synced("s\(k)", Double(k)) : [:]))
            let start = t0.addingTimeInterval(Double(k) * 61.3)
            out.append(try Sample.quantity(heartRate, value: 60.1 + Double(k), unit: HealthUnit("count/min"),
                                           start: start, end: start.addingTimeInterval(0.1 * Double(k)), source: appB))
            out.append(try Sample.category(sleep, value: k % 3, start: start, end: start.addingTimeInterval(3600),
                                           source: appA))
        }
        return out
    }

    @Test func aStoreOfTheOldLayoutReadsTheSameWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let saved = try Self.samples()
        try store.save(saved)
        try store.delete(uuids: saved.enumerated().filter { $0.offset % 7 == 0 }.map(\.element.uuid))
        func everything(_ s: Store) throws -> [AnchoredQueryResult] {
            try [steps, heartRate, sleep].map { try s.anchoredQuery(type: $0, anchor: nil) }
        }
        let before = try everything(store)
        // Both layouts among the records, before.
        var compact = 0, long = 0
        try store.env.write { txn in
            var rewritten: [(MDB_dbi, UInt64, [UInt8])] = []
            for (_, t) in store.cache.withLock({ $0.typeTrees }) {
                try txn.forEach(t.records) { k, v in
                    let r = RecordView(bytes: v)
                    if r.isCompact { compact += 1 } else { long += 1 }
                    rewritten.append((t.records, UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)), Self.legacy(r)))
                }
            }
            for (tree, seq, bytes) in rewritten { try txn.put(tree, u64: seq, bytes) }
            // A format-18 store has no format-20 start index: it is built
            // once the records are rewritten, from their starts.
            for (_, t) in store.cache.withLock({ $0.typeTrees }) { try lmdbCheck(mdb_drop(txn.txn, t.starts, 0), "drop") }
            _ = try txn.delete(store.trees.meta, Schema.MetaKey.recordLayout.bytes)
            try txn.setMetaU64(store.trees, .format, 18)
        }
        #expect(compact > 0 && long > 0, "\(compact) compact, \(long) long")
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .recordLayout) } == LegacyRecords.currentLayout)
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let after = try everything(store)
        for (b, a) in zip(before, after) {
            #expect(Array(a.samples) == Array(b.samples))
            #expect(a.deletedUUIDs == b.deletedUUIDs)
            #expect(a.newAnchor == b.newAnchor)
        }
        #expect(try store.verify().problems == [])
    }

    /// A compact field is used only when it gives back the exact value.
    @Test func compactFieldsOnlyWhenExact() {
        let s = 700_000_000.0
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 42.0.bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: Double.pi.bitPattern, category: false, sourceID: 3) == nil)
        // 0.1 is no Float32's, but 6 / 60 gives it back (layout 3's scales).
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 0.1.bitPattern, category: false, sourceID: 3)?.scale == 1)
        // A tenth of a second is a Float32's exactly at the store's dates
        // (a Double of 7e8 s has steps of 2^-23 s), not near the epoch.
        #expect(RecordCodec.compactFields(start: s, end: s + 0.1, value: 42.0.bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: 1, end: 1.1, value: 42.0.bitPattern, category: false, sourceID: 3) == nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: 42.0.bitPattern, category: false, sourceID: 70_000) == nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: (-0.0).bitPattern, category: false, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: UInt64(bitPattern: -5), category: true, sourceID: 3) != nil)
        #expect(RecordCodec.compactFields(start: s, end: s + 60, value: UInt64(bitPattern: 1 << 40), category: true, sourceID: 3) == nil)
    }

    /// A record's head as `appendHead` writes it, read back.
    static func head(_ value: Double, device: UInt32 = 7, _ body: (RecordView) throws -> Void) rethrows {
        var w = ByteWriter()
        RecordCodec.appendHead(&w, uuid: UUID().uuid, start: 700_000_000, end: 700_000_060, value: value.bitPattern,
                               sourceID: 3, word: device | RecordCodec.flagChecked)
        RecordCodec.appendCheck(&w, from: 0)
        try w.bytes.withUnsafeBytes { try body(RecordView(bytes: $0)) }
    }

    /// Layout 3: a quantity no Float32 holds still takes the compact head
    /// when it is a Float32 times 1/60 or 0.01, or divided by 100: rates
    /// in count/min kept in count/s, percentages kept as fractions, two
    /// decimals. Every value reads back bit for bit,
    /// compact or not, and so does the device id, 22 bits in a compact
    /// head (a larger one takes the full head).
    @Test func scaledCompactValuesReadBackBitForBit() {
        var compact = 0
        let perMinute = try! HealthUnit("count/min"), percent = try! HealthUnit("%")
        let rates = try! (30...220).map { try perMinute.convert(Double($0), to: HealthUnit("count/s")) }
        let fractions = try! (0...100).map { try percent.convert(Double($0), to: HealthUnit("count")) }
        for v in rates + fractions + (0...10_000).map({ Double($0) / 100 }) {
            Self.head(v) { r in
                #expect(r.isCompact, "\(v)")
                #expect(r.quantity.bitPattern == v.bitPattern && r.deviceID == 7, "\(v)")
            }
        }
        var rng = ModelBased.Rng(state: 3)
        for i in 0..<20_000 {
            let v = i % 2 == 0 ? Double(bitPattern: rng.next()) : Double(rng.int(1 << 20)) / [7, 60, 100, 1000][rng.int(4)]
            guard v.isFinite else { continue }
            Self.head(v) { r in
                if r.isCompact { compact += 1 }
                #expect(r.quantity.bitPattern == v.bitPattern, "\(v)")
            }
        }
        #expect(compact > 5_000)
        for device: UInt32 in [1 << 22 - 1, 1 << 22, 1 << 24 - 1] {
            Self.head(72.0 / 60, device: device) { r in
                #expect(r.isCompact == (device < 1 << 22) && r.deviceID == device && r.quantity == 72.0 / 60)
            }
        }
    }

    /// Heart rates saved in count/min take the compact head, and read back
    /// in count/s as the conversion made them.
    @Test func heartRatesInCountPerMinuteTakeTheCompactHead() throws {
        let store = try makeStore()
        defer { store.close() }
        let saved = try (40..<140).map { k in
            try Sample.quantity(heartRate, value: Double(k), unit: HealthUnit("count/min"), start: t0.addingTimeInterval(Double(k) * 60),
                                end: t0.addingTimeInterval(Double(k) * 60 + 60), source: appB)
        }
        try store.save(saved)
        let id = try #require(store.knownTypeID(heartRate))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        let compact = try store.env.read { txn in
            var n = 0
            try txn.forEach(t.records) { _, v in if RecordView(bytes: v).isCompact { n += 1 } }
            return n
        }
        #expect(compact == saved.count)
        let back = try store.anchoredQuery(type: heartRate, anchor: nil).samples
        let perSecond = try back.map { try $0.quantity(in: HealthUnit("count/s")) }
        let expected = try (40..<140).map { try HealthUnit("count/min").convert(Double($0), to: HealthUnit("count/s")) }
        #expect(perSecond.map(\.bitPattern).sorted() == expected.map(\.bitPattern).sorted())
    }

    /// A layout-2 store (formats 19 and 20) kept a compact head's device id
    /// in 24 bits. Opened, a compact record whose device id needs more than
    /// 22 is rewritten with a full head, its fields as they were; the
    /// others stay.
    @Test func aLayout2RecordWithALargeDeviceIDIsWidenedWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let saved = try (0..<10).map { try stepSample(Double($0 * 3), minute: $0) }
        try store.save(saved)
        let id = try #require(store.knownTypeID(steps))
        let t = try #require(store.cache.withLock { $0.typeTrees[id] })
        let big: UInt32 = 1 << 22 + 5
        let seqs = try store.env.write { txn -> [UInt64] in
            var keys: [UInt64] = []
            try txn.forEach(t.records) { k, _ in keys.append(UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))) }
            let raw = try #require(try txn.get(t.records, u64: keys[0]))
            var bytes = Array(raw)
            #expect(RecordView(bytes: raw).isCompact)
            let word = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
            withUnsafeBytes(of: (word & 0xFF00_0000 | big).littleEndian) { bytes.replaceSubrange(24..<28, with: $0) }
            var w = ByteWriter()
            w.bytes = Array(bytes.dropLast(RecordCheck.size))
            RecordCodec.appendCheck(&w, from: 0)
            try txn.put(t.records, u64: keys[0], w.bytes)
            try txn.setMetaU64(store.trees, .nextDevice, UInt64(big))
            try txn.setMetaU64(store.trees, .recordLayout, 2)
            return keys
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        try store.env.read { txn in
            #expect(try txn.metaU64(store.trees, .recordLayout) == LegacyRecords.currentLayout)
            let first = RecordView(bytes: try #require(try txn.get(t.records, u64: seqs[0])))
            #expect(!first.isCompact && first.deviceID == big && first.quantity == 0 && first.isChecked && first.checkMatches)
            let second = RecordView(bytes: try #require(try txn.get(t.records, u64: seqs[1])))
            #expect(second.isCompact && second.deviceID == 0 && second.quantity == 3)
        }
    }

    /// Format 21: HealthKit's own metadata keys are stored as a one-byte
    /// code after a key length of 0 (`MetadataKeyCodes`), others as their
    /// text; both read back as given, next to each other, and a code no
    /// key has is damage. Each listed key has one code.
    @Test func healthKitsMetadataKeysAreStoredAsCodesAndReadBackAsText() throws {
        #expect(Set(MetadataKeyCodes.keys).count == MetadataKeyCodes.keys.count && MetadataKeyCodes.keys.count < 256)
        let metadata: [String: MetadataValue] = ["HKWasUserEntered": .bool(true), "HKTimeZone": .string("Europe/Paris"),
                                                 "my.own": .number(2.5), MetadataKey.syncIdentifier: .string("a"),
                                                 MetadataKey.syncVersion: .number(3)]
        var w = ByteWriter()
        RecordCodec.encodeMetadata(metadata, into: &w)
        let coded = w.bytes.count
        #expect(try w.bytes.withUnsafeBytes { b in
            var r = ByteReader(b)
            return try RecordCodec.readMetadata(&r)
        } == metadata)
        // Four codes of 3 bytes and one key of its text.
        #expect(coded == 2 + 4 * 3 + (2 + 6) + (1 + 1) + (1 + 4 + 12) + (1 + 8) + (1 + 4 + 1) + (1 + 8))
        let store = try makeStore()
        defer { store.close() }
        let s = try stepSample(1, metadata: metadata)
        try store.save([s])
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.first?.metadata == metadata)
        #expect(try store.verify().problems == [])
        var bad = ByteWriter()
        bad.u16(1); bad.u16(0); bad.u8(UInt8(MetadataKeyCodes.keys.count + 1)); bad.u8(RecordCodec.Tag.bool.rawValue); bad.u8(1)
        #expect(throws: OHKError.self) {
            _ = try bad.bytes.withUnsafeBytes { b in
                var r = ByteReader(b)
                return try RecordCodec.readMetadata(&r)
            }
        }
    }
}
