import CLMDB
import FoundationEssentials

/// The store's on-disk layout (format 21). One LMDB environment per store
/// directory; integers in keys are big-endian so memcmp order is numeric.
///
/// | tree          | key                          | value                                  |
/// |---------------|------------------------------|----------------------------------------|
/// | `meta`        | name                         | format, store id, position, next ids, zone head, record layout; `check:` and a small table's name: its `TableChecks` hash |
/// | `types`       | type identifier              | type id (UInt16)                       |
/// | `custom`      | type identifier              | custom type definition                 |
/// | `r<id>`       | change sequence              | record (RecordCodec), sample or tombstone |
/// | `b<id>`       | start-time bucket · chunk's first sequence | the chunk's sequences as varints: the start index of `r<id>` (`StartIndex`) |
/// | `zones`       | type id · position >> 12     | least and greatest start there: the zone map (`ZoneMap`) |
/// | `uuid_hash_buckets` | bucket of the uuid's hash | each entry's hash, type id and sequence, as varints, and a check (`UUIDHashBucket`) |
/// | `uuid_runs`   | run id · first uuid          | a chunk of a sorted run of the UUID index |
/// | `uuid_gone`   | uuid                         | empty: a pruned UUID that a run still holds |
/// | `tombs`       | change sequence              | type id, deletion date (for pruning), the position the sample was saved at (format 17 on) |
/// | `sources`     | source id                    | bundle id, name, version               |
/// | `source_keys` | encoded source               | source id                              |
/// | `devices`     | device id                    | the eight device fields                |
/// | `device_keys` | encoded device               | device id                              |
/// | `sync`        | bundle id · 0 · sync id      | type id << 48 · sequence of the live sample |
/// | `subs`        | subscription name            | descriptors, acknowledged position, frequency |
/// | `priorities`  | type identifier              | source bundle identifiers, first first (rule 27) |
/// | `stat_buckets`| type · family · level · bucket | each source's figures (`BucketCodec`); a type's summary; each with an `EntryCheck` |
/// | `stat_cover`  | type · UTC hour              | the seconds its samples cover (`Coverage`), with an `EntryCheck` |
/// | `stat_overlaps` | type · UTC hour            | an `EntryCheck` alone: two samples there may overlap |
/// | `workout_samples` | workout uuid · first sample uuid | sorted sample uuid · type id items: a chunk of the samples associated with the workout (rule 36; `WorkoutLinks`), with an `EntryCheck` |
/// | `early_deletions` | uuid                       | deletion date: a deletion of a UUID the store never held (`apply`, rule 63) |
/// | `digests`     | type id                      | the type's live digest (`LiveDigest`, rule 68) |
/// | `sync_checkpoints` | source store id · name  | a replication's checkpoint (`SyncCheckpoint`, rule 69) |
/// | `sync_conflicts` | uuid                      | source store id, its position: a UUID whose content differs there (rule 70) |
enum Schema {
    /// 2: head and horizon in one `position` value, the `subs` tree, the
    /// start indexes. 3: the zone map, built when a format-2 store is
    /// opened (so a format-2 library, which would not keep it, refuses the
    /// store afterwards). 4: the UUID index's runs (`UUIDIndex`), which a
    /// format-3 library would not read; nothing to build on upgrade.
    /// 5: the UUID index's B-tree keyed by UUID (`uuids`) becomes hashed
    /// buckets (`uuid_hashes`) and pruned marks (`uuid_gone`), and start
    /// buckets grow from 1,024 to 4,096 seconds; both are rebuilt when an
    /// older store is opened. A format-4 library still open on the store
    /// then fails its saves and deletes (its `uuids` tree is gone) and may
    /// miss samples in start-date queries until it reopens the store, which
    /// it then refuses. 6: each new record ends with a check of its bytes
    /// (`RecordCheck`, flagged in the record, so format-5 records read as
    /// before and nothing is rewritten on upgrade); a format-5 library
    /// would read the check as part of the metadata, so it refuses the
    /// store. 7: a record may carry its creation date and UTC offset
    /// (flagged, between the head and the metadata, so format-6 records
    /// read as before and nothing is rewritten on upgrade); a format-6
    /// library would read them as metadata, so it refuses the store. 8: a
    /// record may carry a payload (a workout's fields), flagged, between
    /// those and the metadata; a format-7 library would read it as
    /// metadata, so it refuses the store. Nothing is rewritten on upgrade.
    /// 9: maintained statistics (`stat_buckets`, `stat_cover`,
    /// `stat_overlaps`), built from the samples when an older store is
    /// opened; a format-8 library would not keep them, so it refuses the
    /// store. 10: workout associations (`workout_links`), built from the
    /// routes when an older store is opened; a format-9 library would not
    /// keep them, so it refuses the store. 11: heartbeat series and
    /// audiogram records (new payloads, of types a format-10 library does
    /// not know), so it refuses the store; nothing is rewritten on upgrade.
    /// 12: electrocardiogram and clinical record records, and activity
    /// summaries (`activity`), which a format-11 library does not know;
    /// nothing is rewritten on upgrade. 13: a workout's associations are
    /// kept in sorted chunks (`workout_samples`), moved from the key per
    /// link of `workout_links` when an older store is opened; a
    /// format-12 library would not find them, so it refuses the store.
    /// 14: an audiogram's ears may carry clamping ranges (its payload's
    /// version 2), which a format-13 library would take for corruption,
    /// so it refuses the store; nothing is rewritten on upgrade.
    /// 15: the maintained statistics' values and the chunks of workout
    /// links end with a check of their key and bytes (`EntryCheck`), and the small tables have checks of their
    /// own (`check:` keys in meta, `TableChecks`); the statistics are rebuilt and the
    /// checks computed when an older store is opened. A format-14 library
    /// would write buckets without checks and leave the tables' checks
    /// behind, so it refuses the store; one that had the store open while
    /// it was upgraded does so until it closes it, after which
    /// `ohk rebuild-statistics` mends the statistics and `verify` reports
    /// the tables whose checks it left behind.
    /// 16: deletions of UUIDs the store never held (`early_deletions`),
    /// so that `apply` skips the sample should it come later; a format-15
    /// library would save it, so it refuses the store. The tree starts
    /// empty: nothing is rewritten on upgrade.
    /// 17: each type's live digest (`digests`, rule 68), computed from the
    /// records when an older store is opened, and kept by every write; a
    /// format-16 library would not keep it, so it refuses the store. A
    /// deletion's entry in `tombs` also names the position its sample was
    /// saved at (older entries do not: they read as unknown), and
    /// replications keep their checkpoints and conflicts in the store
    /// (`sync_checkpoints`, `sync_conflicts`), which start empty.
    /// 18: statistics buckets of varints and tagged numbers
    /// (`BucketCodec`), a third of the fixed widths' bytes; rebuilt from
    /// the samples when an older store is opened. A format-17 library
    /// would take them for corruption, so it refuses the store.
    /// 19: records with the flags at offset 24 and, where their fields
    /// fit it exactly, a 38-byte head instead of 48 (`RecordCodec`); the
    /// records of an older store are rewritten when it is opened
    /// (`LegacyRecords`, keyed on `record_layout`). A format-18 library
    /// would misread them, so it refuses the store.
    /// 20: the start index in chunks of delta-encoded positions
    /// (`StartIndex`, trees `b<id>`), about 1.5 bytes a sample where the
    /// fixed-size duplicates of format 19 (`s<id>`) took 11; built from
    /// the records when an older store is opened, and the old trees
    /// dropped. A format-19 library would find no start index to keep,
    /// so it refuses the store.
    /// 21: the UUID index's hashed part as one value per bucket, its
    /// entries' hashes, type ids and positions as varints, with a check
    /// (`UUIDHashBucket`, tree `uuid_hash_buckets`, about 9 bytes a UUID
    /// where the fixed-size duplicates of `uuid_hashes` took 17); moved
    /// when an older store is opened, and the old tree dropped. A
    /// format-20 library would find no hashed entries, so it refuses the
    /// store. And record layout 3: a compact head keeps its device id in
    /// 22 bits and its value's scale in the other 2 (`RecordCodec`), so
    /// that a heart rate in count/min, kept in count/s, or a percentage
    /// takes it; a layout-2 record with a larger device id is rewritten
    /// with a full head when the store is opened
    /// (`LegacyRecords.narrowDevices`). And HealthKit's own metadata keys
    /// as a key length of 0 and a one-byte code (`MetadataKeyCodes`);
    /// older records keep their keys' text and read as before.
    /// Format 1 (development only) is refused.
    static let format: UInt32 = 21
    static let fixedTrees = ["meta", "types", "custom", "uuid_hash_buckets", "uuid_gone", "uuid_runs", "tombs", "sources",
                             "source_keys", "devices", "device_keys", "sync", "subs", "zones", "priorities",
                             "stat_buckets", "stat_cover", "stat_overlaps", "workout_samples", "activity", "early_deletions",
                             "digests", "sync_checkpoints", "sync_conflicts"]
    /// The fixed trees of fixed-size duplicates.
    static let fixedDuplicateTrees: Set<String> = []
    static func typeTreeName(_ id: UInt16) -> String { "r\(id)" }
    static func startIndexName(_ id: UInt16) -> String { "b\(id)" }
    /// The start index of formats 5 to 19 (fixed-size duplicates), dropped
    /// when such a store is opened.
    static func legacyStartIndexName(_ id: UInt16) -> String { "s\(id)" }

    /// The start index groups starts in buckets of this many seconds
    /// (`StartIndex`: a bucket's positions in chunks of delta-encoded
    /// varints). 1,024-second buckets took more bytes, their keys' overhead
    /// shared by fewer samples. The index only narrows a query, by whole
    /// buckets at its ends; the predicate still decides.
    static let startBucketSeconds = 4096.0

    /// The start-index key of a start time: its bucket, in an
    /// order-preserving big-endian form.
    static func startBucketKey(_ start: Double) -> UInt64 {
        let bucket = (start / startBucketSeconds).rounded(.down)
        let clamped = Int64(max(-9e18, min(9e18, bucket.isNaN ? 0 : bucket)))
        return (UInt64(bitPattern: clamped) ^ (1 << 63)).bigEndian
    }

    /// The first start time of the bucket in a start-index key.
    static func bucketStart(ofKey k: UnsafeRawBufferPointer) -> Double {
        let v = UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)) ^ (1 << 63)
        return Double(Int64(bitPattern: v)) * startBucketSeconds
    }

    enum MetaKey: String, CaseIterable {
        /// `position`: the change order's head and the tombstone horizon,
        /// one 16-byte value so that a query reads both with one lookup.
        case format, storeID = "store_id", position
        case nextType = "next_type", nextSource = "next_source", nextDevice = "next_device"
        /// The position up to which the zone map holds every record (a
        /// format-2 library still open on the store appends past it).
        case zoneHead = "zone_head"
        /// How many buckets the UUID index's hash has (`UUIDBuckets`).
        case uuidBuckets = "uuid_buckets"
        /// The position up to which the maintained statistics hold every
        /// change (a library that does not keep them may write past it).
        case statisticsHead = "statistics_head"
        /// The person's characteristics (`CharacteristicsCodec`); absent
        /// until set, so older libraries and stores need no step.
        case characteristics
        /// The change sequence of the last activity summary save (rule 43).
        case activitySequence = "activity_sequence"
        /// The UUID index's merge under way, if any (`UUIDIndex.MergePlan`);
        /// 0 or absent when none, so older stores need no step.
        case uuidMerge = "uuid_merge"
        /// The records' layout: 2 for the flags at offset 24 and the
        /// compact head (`RecordCodec`), 3 for a compact head's value
        /// scale (format 21); absent in a store whose records
        /// have the layout of formats 2–18, which opening converts
        /// (`LegacyRecords`). Its own key rather than the format's, so
        /// that a store marked with an older format keeps its records.
        case recordLayout = "record_layout"
        /// How many entries the UUID index's hashed part holds (format
        /// 21: its tree's entries are buckets); what its buckets grow by.
        case uuidHashed = "uuid_hashed"

        /// The key's bytes, computed once (meta is read on every query).
        var bytes: [UInt8] {
            switch self {
            case .format: Self.keys[0]
            case .storeID: Self.keys[1]
            case .position: Self.keys[2]
            case .nextType: Self.keys[3]
            case .nextSource: Self.keys[4]
            case .nextDevice: Self.keys[5]
            case .zoneHead: Self.keys[6]
            case .uuidBuckets: Self.keys[7]
            case .statisticsHead: Self.keys[8]
            case .characteristics: Self.keys[9]
            case .activitySequence: Self.keys[10]
            case .uuidMerge: Self.keys[11]
            case .recordLayout: Self.keys[12]
            case .uuidHashed: Self.keys[13]
            }
        }
        private static let keys = allCases.map { Array($0.rawValue.utf8) }
    }

    static func pack(type: UInt16, seq: UInt64) -> UInt64 { UInt64(type) << 48 | seq }
    static func unpack(_ v: UInt64) -> (type: UInt16, seq: UInt64) { (UInt16(v >> 48), v & 0xFFFF_FFFF_FFFF) }
}

/// The two trees of one sample type: its records in change order and
/// their start-date index.
struct TypeTrees: Sendable {
    let records: MDB_dbi
    let starts: MDB_dbi
}

/// Handles of the fixed trees, opened once at store open.
struct FixedTrees: Sendable {
    let meta, types, custom, uuidHashes, uuidGone, uuidRuns, tombs, sources, sourceKeys, devices, deviceKeys, sync, subs,
        zones, priorities, workoutLinks, activity, earlyDeletions,
        digests, syncCheckpoints, syncConflicts: MDB_dbi
    let statistics: StatisticsTrees

    init(_ dbis: [String: MDB_dbi]) {
        meta = dbis["meta"]!
        types = dbis["types"]!
        custom = dbis["custom"]!
        uuidHashes = dbis["uuid_hash_buckets"]!
        uuidGone = dbis["uuid_gone"]!
        uuidRuns = dbis["uuid_runs"]!
        tombs = dbis["tombs"]!
        sources = dbis["sources"]!
        sourceKeys = dbis["source_keys"]!
        devices = dbis["devices"]!
        deviceKeys = dbis["device_keys"]!
        sync = dbis["sync"]!
        subs = dbis["subs"]!
        zones = dbis["zones"]!
        priorities = dbis["priorities"]!
        workoutLinks = dbis["workout_samples"]!
        activity = dbis["activity"]!
        earlyDeletions = dbis["early_deletions"]!
        digests = dbis["digests"]!
        syncCheckpoints = dbis["sync_checkpoints"]!
        syncConflicts = dbis["sync_conflicts"]!
        statistics = StatisticsTrees(buckets: dbis["stat_buckets"]!, cover: dbis["stat_cover"]!,
                                     overlaps: dbis["stat_overlaps"]!)
    }
}

extension Txn {
    /// Every type the store has held a sample of: identifier and id.
    func forEachType(_ trees: FixedTrees, _ body: (String, UInt16) throws -> Void) throws {
        try forEach(trees.types) { k, v in
            try body(String(decoding: k, as: UTF8.self), UInt16(littleEndian: v.loadUnaligned(as: UInt16.self)))
        }
    }

    func metaU64(_ trees: FixedTrees, _ key: Schema.MetaKey) throws -> UInt64 {
        guard let v = try get(trees.meta, key.bytes) else { return 0 }
        guard v.count == 8 else { throw OHKError(.storeCorrupt, "corrupt meta entry \(key.rawValue)") }
        return UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))
    }

    /// The change order's head and the tombstone horizon.
    func position(_ trees: FixedTrees) throws -> (head: UInt64, horizon: UInt64) {
        guard let v = try get(trees.meta, Schema.MetaKey.position.bytes) else { return (0, 0) }
        guard v.count == 16 else { throw OHKError(.storeCorrupt, "corrupt meta entry position") }
        return (UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)),
                UInt64(littleEndian: v.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    func setPosition(_ trees: FixedTrees, head: UInt64, horizon: UInt64) throws {
        try withUnsafeBytes(of: (head.littleEndian, horizon.littleEndian)) { v in
            _ = try Schema.MetaKey.position.bytes.withUnsafeBytes { k in try put(trees.meta, k, v) }
        }
    }

    func setMetaU64(_ trees: FixedTrees, _ key: Schema.MetaKey, _ value: UInt64) throws {
        try withUnsafeBytes(of: value.littleEndian) { v in
            _ = try key.bytes.withUnsafeBytes { k in try put(trees.meta, k, v) }
        }
    }
}

/// Encodings of the interned tables (sources, devices, custom types).
enum TableCodec {
    static func encode(_ s: Source) -> [UInt8] {
        var w = ByteWriter()
        w.string(s.bundleIdentifier)
        w.string(s.name)
        w.optionalString(s.version)
        return w.bytes
    }

    static func decodeSource(_ raw: UnsafeRawBufferPointer) throws -> Source {
        var r = ByteReader(raw)
        return Source(bundleIdentifier: try r.string(), name: try r.string(), version: try r.optionalString())
    }

    static func encode(_ d: Device) -> [UInt8] {
        var w = ByteWriter()
        for f in Device.Field.allCases { w.optionalString(d[f]) }
        return w.bytes
    }

    static func decodeDevice(_ raw: UnsafeRawBufferPointer) throws -> Device {
        var r = ByteReader(raw)
        var d = Device()
        for f in Device.Field.allCases { d[f] = try r.optionalString() }
        return d
    }

    static func encode(_ kind: SampleType.Kind) -> [UInt8] {
        var w = ByteWriter()
        switch kind {
        case .quantity(let unit, let style):
            w.u8(0)
            w.string(unit.description)
            w.u8(UInt8(style.rawValue))
        case .category(let values):
            w.u8(1)
            w.u32(UInt32(values.count))
            for (k, v) in values.sorted(by: { $0.key < $1.key }) {
                w.string(k)
                w.u64(UInt64(bitPattern: Int64(v)))
            }
        case .workout, .route, .correlation, .heartbeatSeries, .audiogram, .electrocardiogram, .clinicalRecord:
            // Never a custom type's (registerCustomType refuses them).
            preconditionFailure("a \(kind) type is not stored as a custom type")
        }
        return w.bytes
    }

    static func decodeKind(_ raw: UnsafeRawBufferPointer) throws -> SampleType.Kind {
        var r = ByteReader(raw)
        switch try r.u8() {
        case 0:
            let unit = try HealthUnit(try r.string())
            guard let style = AggregationStyle(rawValue: Int(try r.u8())) else {
                throw OHKError(.storeCorrupt, "corrupt custom type")
            }
            return .quantity(canonicalUnit: unit, aggregation: style)
        case 1:
            var values: [String: Int] = [:]
            for _ in 0..<(try r.u32()) {
                let k = try r.string()
                values[k] = Int(Int64(bitPattern: try r.u64()))
            }
            return .category(values: values)
        default:
            throw OHKError(.storeCorrupt, "corrupt custom type")
        }
    }
}
