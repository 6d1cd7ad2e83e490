import Glibc

/// The memory an exported Arrow table's buffers live in: freed when the
/// last array that uses it is released (the root and any child a consumer
/// moved out keep it alive). Large blocks are mapped, not malloc'ed: a
/// block sized for a query's bound costs only the pages its rows touch,
/// and pages never written read as zeros without being given.
final class ArrowMemory: @unchecked Sendable {
    private var mapped: [(UnsafeMutableRawPointer, Int)] = []
    private var allocated: [UnsafeMutableRawPointer] = []

    /// Blocks from this size on are mapped.
    private static let mapFrom = 1 << 20

    /// `bytes` of zeros, 64-byte aligned (Arrow's recommendation).
    func zeroed(_ bytes: Int) -> UnsafeMutableRawPointer {
        let size = max(bytes, 1)
        if size >= Self.mapFrom {
            let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let p, p != MAP_FAILED {
                // No huge pages: a fresh block of tens of MB paid for them in
                // compaction, half again a full read (as the Python columns found).
                _ = madvise(p, size, 15)  // MADV_NOHUGEPAGE (14 is MADV_HUGEPAGE)
                mapped.append((p, size))
                return p
            }
        }
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, 64, size) == 0, let p else { fatalError("out of memory: \(size) bytes") }
        memset(p, 0, size)
        allocated.append(p)
        return p
    }

    /// A typed block of `count` zeros.
    func zeroed<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
        zeroed(count * MemoryLayout<T>.stride).bindMemory(to: type, capacity: count)
    }

    /// A copy of `bytes`.
    func copy(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
        let p = zeroed(bytes.count)
        bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return p
    }

    deinit {
        for (p, n) in mapped { munmap(p, n) }
        for p in allocated { free(p) }
    }
}

/// A validity bitmap of `count` rows, one bit each (1: valid), built as
/// rows are tested; counts the nulls.
struct ValidityBitmap {
    let bits: UnsafeMutablePointer<UInt8>
    private(set) var nullCount = 0

    init(_ memory: ArrowMemory, rows count: Int) {
        bits = memory.zeroed(UInt8.self, (count + 7) / 8)
    }

    @inline(__always)
    mutating func set(_ row: Int, valid: Bool) {
        if valid { bits[row >> 3] |= UInt8(1) << UInt8(row & 7) } else { nullCount += 1 }
    }
}
