import Glibc

/// This process's resident memory backed by files: mapped store pages
/// and the program's own code (the third field of `/proc/self/statm`).
public enum ResidentMemory {
    /// `/proc/self/statm`, kept open: it is read back from its start
    /// (`pread`), without an open and a close each time.
    private static let statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)

    public static func fileBackedBytes() -> Int {
        // Opened each time if it could not be kept (no descriptor left then).
        let fd = statm >= 0 ? statm : open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        defer { if fd != statm && fd >= 0 { close(fd) } }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
            let n = pread(fd, buffer.baseAddress, buffer.count, 0)
            guard n > 0 else { return 0 }
            // "size resident shared …": the third number, in pages.
            var field = 0, pages = 0
            for b in buffer[..<n] {
                if b == UInt8(ascii: " ") {
                    field += 1
                    if field == 3 { break }
                } else if field == 2, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                    pages = pages * 10 + Int(b - UInt8(ascii: "0"))
                }
            }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }
}

/// Keeps the store pages that one large write maps in under a bound: a
/// save of many samples looks each one up in the UUID index, which at
/// millions of entries touches tens of megabytes of the map, resident
/// until the writer lets go. `check()` is cheap (the process's count of
/// page faults, one system call) and is called often; after a fault the
/// resident size is read (a `pread`), and past `extra` bytes more than
/// when the write began the store's pages are unmapped (they stay in the
/// page cache).
final class MappedPageBound {
    private let env: Environment
    /// The resident bytes the bound keeps down: the process's file-backed
    /// memory (a test that shares its process with others measures its
    /// store's mapping instead).
    private let resident: () -> Int
    private let limit: Int
    private var faultsAtLastLook: Int

    init(_ env: Environment, extra: Int = 4 << 20, resident: @escaping () -> Int = ResidentMemory.fileBackedBytes) {
        self.env = env
        self.resident = resident
        limit = resident() + extra
        faultsAtLastLook = Self.faults()
    }

    /// Looks at the resident size after any fault: one fault on the map
    /// may map a whole large folio of the page cache, up to megabytes (as
    /// Linux 6.18 does here), so a count of faults says little of how
    /// much was mapped.
    func check() {
        let faults = Self.faults()
        guard faults != faultsAtLastLook else { return }
        faultsAtLastLook = faults
        if resident() > limit { env.releaseMappedPages() }
    }

    /// Page faults of the process, minor and major: a store page the
    /// kernel had evicted from its cache (memory pressure) is mapped by a
    /// major fault, and counting minor ones alone let such pages pile up
    /// unlooked-at.
    private static func faults() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_minflt + usage.ru_majflt
    }
}
