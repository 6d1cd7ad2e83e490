import COHKSystem
import Glibc

/// Gives the memory that large work freed back to the system. glibc keeps
/// what a process frees on its heap, and after a large block has been
/// freed it serves blocks up to that size from the heap too: a bulk save
/// and a full read left 60 MB of freed memory counted in the process
/// (67 MB anonymous against 9 MB after a trim, on the workload's 1 M).
package enum FreedMemory {
    /// Work at least this large (objects written, bytes freed) is followed
    /// by a trim; below it the trim's cost (a walk of the free lists) is
    /// not worth it.
    package static let largeObjectCount = 10_000
    package static let largeByteCount = 4 << 20

    /// Returns the free memory at the heaps' tops and whole free pages
    /// inside them (`malloc_trim`), when there is `largeByteCount` or
    /// more of it: a trim walks every heap and gives pages back one
    /// `madvise` at a time, 130–160 µs after the workload's full read
    /// and its delete's query for some 300–570 KB, and the threads it
    /// interrupts to flush their TLBs wait too.
    package static func giveBack() {
        guard worthTrimming(freeBytes: freeBytes) else { return }
        ohk_malloc_trim()
    }

    /// The bytes free inside malloc's heaps (`Int.max` where the C
    /// library does not say).
    package static var freeBytes: Int { Int(clamping: ohk_malloc_free_bytes()) }

    /// Whether a trim is worth its cost with `freeBytes` free.
    package static func worthTrimming(freeBytes: Int) -> Bool { freeBytes >= largeByteCount }

    /// Frees a malloc'd block, and gives the memory back when it was large.
    package static func free(_ block: UnsafeMutableRawPointer) {
        let large = ohk_malloc_size(block) >= largeByteCount
        Glibc.free(block)
        if large { giveBack() }
    }
}
