import FoundationEssentials

/// A UUID's 32-bit hash for the UUID index's hashed part (`UUIDIndex`,
/// `UUIDHashBucket`), keyed by the store's id. Its top bits pick the
/// bucket; the entry keeps it whole, to tell a bucket's UUIDs apart
/// before reading records and to split the bucket later.
///
/// Why a hash and not the UUID's own bytes: time-ordered UUIDs (versions 1,
/// 6 and 7) share their first bytes, and would crowd a few buckets. Why
/// keyed: UUIDs come from callers, and with a public hash anyone could make
/// many share one hash, which costs a record read each.
struct UUIDHash: Sendable {
    private let k0, k1: UInt64
    /// Tests: every UUID has one hash, so that every lookup reads records
    /// to tell UUIDs apart.
    let collideAll: Bool

    /// The bits of the hash a format-20 entry kept (`LegacyUUIDHashes`).
    static let keptBits: UInt32 = 22
    static let keptMask: UInt32 = 1 << keptBits - 1

    init(storeID: UUID, collideAll: Bool = false) {
        let key = PendingUUID(storeID)
        (k0, k1, self.collideAll) = (key.high, key.low, collideAll)
    }

    @inline(__always)
    func callAsFunction(_ u: PendingUUID) -> UInt32 {
        if collideAll { return 0 }
        let a = (u.high ^ k0) &* 0xBF58_476D_1CE4_E5B9
        let b = (u.low ^ k1) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: Self.mix(a ^ (b >> 32 | b << 32)) >> 32)
    }

    /// splitmix64's finalizer: every input bit moves every output bit.
    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How many buckets the hashed part has, and which one holds a hash: linear
/// hashing. With `count` = 2^level + next, buckets below `next` were split
/// in this round and are picked by level + 1 top bits of the hash, the
/// rest by `level` bits. A bucket's key is its top bits followed by zeros,
/// so splitting one keeps half its entries under the same key and moves
/// those with the next bit set to a new key.
struct UUIDBuckets: Equatable {
    /// Never fewer: with `level` ≥ 10, the bit a split looks at (31 − level)
    /// was among the 22 a format-20 entry kept, and those entries' whole
    /// hashes are known again from their key (`LegacyUUIDHashes`).
    static let minimum: UInt64 = 1024
    var count: UInt64

    var level: UInt32 { UInt32(63 - count.leadingZeroBitCount) }
    /// The next bucket to split (of those picked by `level` bits).
    var next: UInt32 { UInt32(count - 1 << level) }

    /// The key of the bucket holding `hash`.
    func key(of hash: UInt32) -> UInt32 {
        var bits = level
        if hash >> (32 - bits) < next { bits += 1 }
        return bits == 32 ? hash : (hash >> (32 - bits)) << (32 - bits)
    }

    /// The next split: the bucket that splits, the bit that decides which of
    /// its entries move, and the key they move to.
    var split: (key: UInt32, bit: UInt32, to: UInt32) {
        let bit: UInt32 = 1 << (31 - level)
        let key = next << (32 - level)
        return (key, bit, key | bit)
    }
}
