import Glibc

/// This process's resident memory backed by files: mapped store pages
/// and the program's own code (the third field of `/proc/self/statm`).
public enum ResidentMemory {
    public static func fileBackedBytes() -> Int {
        guard let f = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), f) != nil else { return 0 }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: " ")
        guard fields.count >= 3, let pages = Int(fields[2]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Keeps the store pages that one large write maps in under a bound: a
/// save of many samples looks each one up in the UUID index, which at
/// millions of entries touches tens of megabytes of the map, resident
/// until the writer lets go. `check()` is cheap (the process's count of
/// page faults, one system call) and is called often; once enough pages
/// were faulted in to matter, the resident size is read, and past
/// `extra` bytes more than when the write began the store's pages are
/// unmapped (they stay in the page cache).
final class MappedPageBound {
    private let env: Environment
    /// The resident bytes the bound keeps down: the process's file-backed
    /// memory (a test that shares its process with others measures its
    /// store's mapping instead).
    private let resident: () -> Int
    private let limit: Int
    /// Faults between looks at the resident size: a quarter of the
    /// allowance, where one fault on a file maps up to 16 pages (the
    /// kernel's fault-around maps the cached pages beside the one asked for).
    private let faultsBetweenLooks: Int
    private var faultsAtLastLook: Int

    init(_ env: Environment, extra: Int = 12 << 20, resident: @escaping () -> Int = ResidentMemory.fileBackedBytes) {
        self.env = env
        self.resident = resident
        limit = resident() + extra
        faultsBetweenLooks = extra / 4 / (16 * Int(sysconf(Int32(_SC_PAGESIZE))))
        faultsAtLastLook = Self.faults()
    }

    func check() {
        let faults = Self.faults()
        guard faults - faultsAtLastLook > faultsBetweenLooks else { return }
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
