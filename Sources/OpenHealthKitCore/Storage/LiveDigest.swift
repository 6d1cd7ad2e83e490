import CLMDB
import FoundationEssentials

/// An order-independent digest of a set of live samples: how many, and
/// the sum (mod 2^128, as two 64-bit lanes) of a hash of each sample's
/// UUID and sync version (rule 68). Adding and removing a sample are
/// inverse, so the store keeps it current in each write transaction and a
/// replica rebuilds it from the changes it received, in any order.
///
/// The hash is not cryptographic: it finds a lost, repeated or extra
/// change, not a forged one. Each lane mixes the UUID's halves and the
/// version with a different seed (SplitMix64's finalizer, which passes
/// SMHasher's avalanche tests), so two sets with the same count collide
/// with a chance of about 2^-128.
public struct LiveDigest: Sendable, Hashable, CustomStringConvertible {
    public var count: Int64 = 0
    public var low: UInt64 = 0
    public var high: UInt64 = 0

    public init() {}

    init(count: Int64, low: UInt64, high: UInt64) {
        (self.count, self.low, self.high) = (count, low, high)
    }

    /// Adds the sample with this UUID and sync version (0 without one).
    public mutating func add(_ uuid: UUID, version: Double) {
        let (a, b) = Self.hash(uuid, version)
        count &+= 1
        low &+= a
        high &+= b
    }

    /// Removes what `add` added.
    public mutating func remove(_ uuid: UUID, version: Double) {
        let (a, b) = Self.hash(uuid, version)
        count &-= 1
        low &-= a
        high &-= b
    }

    public static func + (l: LiveDigest, r: LiveDigest) -> LiveDigest {
        LiveDigest(count: l.count &+ r.count, low: l.low &+ r.low, high: l.high &+ r.high)
    }

    public static func - (l: LiveDigest, r: LiveDigest) -> LiveDigest {
        LiveDigest(count: l.count &- r.count, low: l.low &- r.low, high: l.high &- r.high)
    }

    public static func += (l: inout LiveDigest, r: LiveDigest) { l = l + r }

    public var isEmpty: Bool { self == LiveDigest() }

    /// The count and the 128-bit sum in hexadecimal.
    public var description: String {
        "\(count) samples, " + String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
    }

    /// The version a record's digest entry uses: its sync version, 0 without one.
    static func version(_ r: RecordView) -> Double {
        if case .number(let v)? = r.metadataValue(MetadataKey.syncVersion) { return v }
        return 0
    }

    static func hash(_ uuid: UUID, _ version: Double) -> (UInt64, UInt64) {
        let (x, y) = withUnsafeBytes(of: uuid.uuid) {
            ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        // -0 and 0 are one version.
        let v = version == 0 ? 0 : version.bitPattern
        return (mix(mix(mix(x ^ 0x9E37_79B9_7F4A_7C15) ^ y) ^ v),
                mix(mix(mix(y ^ 0xD1B5_4A32_D192_ED03) ^ x) ^ v ^ 0x8CB9_2BA7_2F3D_8DD7))
    }

    /// SplitMix64's finalizer.
    @inline(__always) static func mix(_ z0: UInt64) -> UInt64 {
        var z = z0 &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 24 bytes, little-endian: count, low, high.
    var encoded: [UInt8] {
        var w = ByteWriter()
        w.u64(UInt64(bitPattern: count))
        w.u64(low)
        w.u64(high)
        return w.bytes
    }

    /// `encoded`, for a sync over HTTP.
    public var wireBytes: [UInt8] { encoded }

    public init(wire bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { raw in
            do { return try LiveDigest(encoded: raw) } catch { throw OHKError(.invalidArgument, "a live digest of \(raw.count) bytes, not 24") }
        }
    }

    init(encoded raw: UnsafeRawBufferPointer) throws {
        guard raw.count == 24 else { throw OHKError(.storeCorrupt, "a live digest of \(raw.count) bytes, not 24") }
        var r = ByteReader(raw)
        self.init(count: Int64(bitPattern: try r.u64()), low: try r.u64(), high: try r.u64())
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The `digests` tree: each type's live digest, keyed by its type id
/// (big-endian), kept by `WriteContext.finish` (rule 68).
enum DigestTable {
    static func key(_ typeID: UInt16) -> [UInt8] { withUnsafeBytes(of: typeID.bigEndian) { Array($0) } }

    static func read(_ txn: Txn, _ trees: FixedTrees, typeID: UInt16) throws -> LiveDigest {
        guard let raw = try txn.get(trees.digests, key(typeID)) else { return LiveDigest() }
        return try LiveDigest(encoded: raw)
    }

    /// Every type's digest, by type id.
    static func all(_ txn: Txn, _ trees: FixedTrees) throws -> [UInt16: LiveDigest] {
        var out: [UInt16: LiveDigest] = [:]
        try txn.forEach(trees.digests) { k, v in
            guard k.count == 2 else { throw OHKError(.storeCorrupt, "a live digest under a \(k.count)-byte key") }
            out[UInt16(bigEndian: k.loadUnaligned(as: UInt16.self))] = try LiveDigest(encoded: v)
        }
        return out
    }

    static func write(_ txn: Txn, _ trees: FixedTrees, typeID: UInt16, _ d: LiveDigest) throws {
        if d.isEmpty {
            _ = try? txn.delete(trees.digests, key(typeID))
        } else {
            try txn.put(trees.digests, key(typeID), d.encoded)
        }
    }

    /// A type's digest computed from its records: what the table should hold.
    static func compute(_ txn: Txn, records: MDB_dbi) throws -> LiveDigest {
        var d = LiveDigest()
        let c = try txn.cursor(records)
        defer { c.close() }
        var entry = try c.first()
        while let (_, raw) = entry {
            let r = try RecordView(stored: raw)
            if !r.isTombstone { d.add(r.uuid, version: LiveDigest.version(r)) }
            entry = try c.next()
        }
        return d
    }

    /// Fills the table from the records (a store of format 16 or older).
    static func build(_ txn: Txn, _ trees: FixedTrees, _ cache: StoreCache) throws {
        try txn.empty(trees.digests)
        for (id, t) in cache.typeTrees {
            try write(txn, trees, typeID: id, try compute(txn, records: t.records))
        }
    }
}
