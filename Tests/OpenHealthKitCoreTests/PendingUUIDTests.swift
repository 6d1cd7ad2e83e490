import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// The UUID index's pending entries sort into the index's key order (the
/// bytes' memcmp order) whatever their spread: random UUIDs, UUIDs that
/// share their first bytes, duplicates, and short lists.
@Suite struct PendingUUIDSort {
    private func entries(_ n: Int, high: (inout ModelBased.Rng) -> UInt64) -> [PendingUUID] {
        var r = ModelBased.Rng(state: UInt64(n) &* 31 &+ 7)
        return (0..<n).map { i in
            PendingUUID(high: high(&r), low: r.next(), value: UInt64(i))
        }
    }

    private func expectSortedLikeMemcmp(_ list: [PendingUUID]) {
        var sorted = list
        sorted.sortByUUID()
        let bytes = { (e: PendingUUID) in withUnsafeBytes(of: e.uuid.uuid) { Array($0) } }
        let want = list.map(bytes).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sorted.map(bytes) == want)
        #expect(Set(sorted.map(\.value)) == Set(list.map(\.value)))  // nothing lost or doubled
    }

    @Test func randomUUIDsInBulk() {
        expectSortedLikeMemcmp(entries(100_000) { r in r.next() })
    }

    @Test func uuidsSharingTheirFirstBytes() {
        // One crowded bucket (the top 16 bits equal), and a few buckets of many.
        expectSortedLikeMemcmp(entries(10_000) { r in 0xABCD_0000_0000_0000 | UInt64(r.int(1 << 40)) })
        expectSortedLikeMemcmp(entries(10_000) { r in UInt64(r.int(4)) << 48 | UInt64(r.int(1 << 20)) })
    }

    @Test func shortListsAndEqualHighHalves() {
        expectSortedLikeMemcmp(entries(100) { r in r.next() })
        expectSortedLikeMemcmp(entries(5_000) { _ in 42 })
    }
}
