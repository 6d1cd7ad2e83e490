import FoundationEssentials

/// Where a UUID's entry goes in `uuid_hashes` (`UUIDIndex`): a 32-bit hash
/// of the UUID, keyed by the store's id, split into the bucket (the tree's
/// 2-byte key) and the filter (the entry's first 2 bytes).
///
/// Why a hash and not the UUID's own bytes: time-ordered UUIDs (versions 1,
/// 6 and 7) share their first bytes, and would crowd a few buckets. Why
/// keyed: UUIDs come from callers, and with a public hash anyone could make
/// many share one bucket and filter, which costs a record read each.
struct UUIDHash: Sendable {
    private let k0, k1: UInt64
    /// Tests: every UUID in one bucket with one filter, so that every
    /// lookup reads records to tell UUIDs apart.
    let collideAll: Bool

    init(storeID: UUID, collideAll: Bool = false) {
        let key = PendingUUID(storeID)
        (k0, k1, self.collideAll) = (key.high, key.low, collideAll)
    }

    /// The bucket in the high 16 bits, the filter in the low 16.
    @inline(__always)
    func slot(_ u: PendingUUID) -> UInt32 {
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
