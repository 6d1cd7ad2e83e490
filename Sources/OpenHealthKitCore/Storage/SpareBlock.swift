import COHKSystem
import Glibc
import Synchronization

/// The last rows block a store's queries freed, kept for its next rows
/// query. After large work `FreedMemory` gives the process's free memory
/// back, so a block malloc'd after it is fresh memory: a fault per 4 KB
/// page on first write, some 2.5 µs each on a virtual machine, 114 of
/// them (0.3 ms) for a query of 7,300 samples. The kept block's pages
/// stay written. One block a store, of at most `maxBytes`; only its
/// written pages count (glibc, untrimmed, keeps far more).
package final class SpareBlock: Sendable {
    /// Larger blocks are freed as before.
    package static let maxBytes = 8 << 20

    /// The kept block's address, 0 when none; exchanged whole, so two
    /// threads never hold the same block.
    private let slot = Atomic<UInt>(0)

    package init() {}

    deinit { drop() }

    /// A malloc'd block of at least `bytes`: the kept one when it is
    /// large enough, else a new one.
    package func take(_ bytes: Int) -> UnsafeMutableRawPointer {
        if let kept = UnsafeMutableRawPointer(bitPattern: slot.exchange(0, ordering: .acquiringAndReleasing)) {
            if ohk_malloc_size(kept) >= bytes { return kept }
            give(kept)  // too small for this one; maybe not for the next
        }
        return malloc(max(bytes, 1))!
    }

    /// Keeps a malloc'd block for `take` (freeing the one it replaces),
    /// or frees it when it is too large to keep.
    package func give(_ block: UnsafeMutableRawPointer) {
        let size = ohk_malloc_size(block)
        guard size > 0, size <= Self.maxBytes else { return FreedMemory.free(block) }
        let old = slot.exchange(UInt(bitPattern: block), ordering: .acquiringAndReleasing)
        if let old = UnsafeMutableRawPointer(bitPattern: old) { FreedMemory.free(old) }
    }

    /// Frees the kept block (when the store closes).
    package func drop() {
        if let old = UnsafeMutableRawPointer(bitPattern: slot.exchange(0, ordering: .acquiringAndReleasing)) {
            FreedMemory.free(old)
        }
    }
}
