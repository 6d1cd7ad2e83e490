import Glibc
import Testing
@testable import OpenHealthKitCore

/// When the library gives freed memory back to the system (`FreedMemory`).
@Suite struct FreedMemoryTests {
    /// A trim runs only when the heaps hold `largeByteCount` free or more,
    /// and the free bytes it asks about count what a thread frees inside
    /// its heap (every other block of 16 MB, holes the heap's top cannot
    /// take back on its own).
    @Test func aTrimRunsOnlyWithMegabytesFree() {
        #expect(!FreedMemory.worthTrimming(freeBytes: FreedMemory.largeByteCount - 1))
        #expect(FreedMemory.worthTrimming(freeBytes: FreedMemory.largeByteCount))
        let blocks = (0..<16_384).map { _ in malloc(1_000)! }
        let before = FreedMemory.freeBytes
        for i in stride(from: 0, to: blocks.count, by: 2) { free(blocks[i]) }
        let after = FreedMemory.freeBytes
        #expect(after > before && after - before >= 4 << 20, "\(before) -> \(after) bytes free")
        for i in stride(from: 1, to: blocks.count, by: 2) { free(blocks[i]) }
    }
}
