import COHKSystem
import Glibc
import Synchronization

/// The last rows blocks a store's queries freed, kept for its next rows
/// queries. After large work `FreedMemory` gives the process's free memory
/// back, so a block malloc'd after it is fresh memory: a fault per 4 KB
/// page on first write, some 2.5 µs each on a virtual machine, 114 of
/// them (0.3 ms) for a query of 7,300 samples. The kept blocks' pages
/// stay written. At most `slots` blocks a store (a read in parts on two
/// threads has five parts in hand: two the second thread read, two read
/// ahead here and one going out, `PartsAhead`; each a block of samples'
/// rows and one of deleted objects' rows), of at most `maxBytes`
/// together; only their written pages count (glibc, untrimmed, keeps far
/// more). One store's samples and deleted objects share its blocks (the
/// rows are 64 bytes either way): the first large deleted read after
/// reads of samples, the workload's delete's query, made three fresh
/// blocks, 195 page faults, where the samples' spare blocks sat unused.
package final class SpareBlock: Sendable {
    /// Larger blocks are freed as before, and so are blocks under a kilobyte
    /// (malloc's own free lists serve those).
    package static let maxBytes = 8 << 20, minBytes = 1_024
    package static let slots = 10

    /// The kept blocks' addresses, the newest last.
    private let kept = Locked<[UInt]>([])

    package init() {}

    deinit { drop() }

    /// A malloc'd block of at least `bytes`: a kept one when one is large
    /// enough (the newest), else a new one.
    package func take(_ bytes: Int) -> UnsafeMutableRawPointer {
        let found = kept.withLock { k -> UInt? in
            guard let i = k.lastIndex(where: { Self.size($0) >= bytes }) else { return nil }
            return k.remove(at: i)
        }
        return UnsafeMutableRawPointer(bitPattern: found ?? 0) ?? malloc(max(bytes, 1))!
    }

    /// Keeps a malloc'd block for `take` (freeing the oldest kept ones
    /// when there are too many, or too many bytes), or frees it when it is
    /// too large or too small to keep.
    package func give(_ block: UnsafeMutableRawPointer) {
        let size = ohk_malloc_size(block)
        guard size >= Self.minBytes, size <= Self.maxBytes else { return FreedMemory.free(block) }
        let dropped = kept.withLock { k -> [UInt] in
            var total = k.reduce(size) { $0 + Self.size($1) }
            var out: [UInt] = []
            while !k.isEmpty, k.count >= Self.slots || total > Self.maxBytes {
                total -= Self.size(k[0])
                out.append(k.removeFirst())
            }
            k.append(UInt(bitPattern: block))
            return out
        }
        for d in dropped { FreedMemory.free(UnsafeMutableRawPointer(bitPattern: d)!) }
    }

    /// How many blocks it keeps (for tests).
    package var count: Int { kept.withLock { $0.count } }

    /// Frees the kept blocks (when the store closes).
    package func drop() {
        for d in kept.withLock({ k in defer { k = [] }; return k }) { FreedMemory.free(UnsafeMutableRawPointer(bitPattern: d)!) }
    }

    private static func size(_ address: UInt) -> Int { ohk_malloc_size(UnsafeMutableRawPointer(bitPattern: address)) }
}
