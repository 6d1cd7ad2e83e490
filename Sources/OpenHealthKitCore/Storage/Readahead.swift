import Glibc

/// A walk's own readahead. The map is read without the kernel's
/// (`MDB_NORDAHEAD`, see `Environment`), so a walk over a store that is not
/// in the page cache would fault its pages in one at a time. A cold full
/// read of 810,000 samples (from Python) takes 0.80 s that way, 0.30 s with
/// this, and 0.12 s with the kernel's readahead: its large folios make
/// bigger reads, but they are what made commits write back 6× too much.
///
/// Whenever the walk reads outside the megabyte it last looked at, it
/// looks whether its thread had to wait for the disk since it last looked
/// (a major fault, `getrusage`); if so, it asks the kernel to read the
/// megabyte from the page being read (`MADV_WILLNEED`: asynchronous, and in
/// small folios). Looking costs a system call, so the walk looks less
/// often while it finds its pages in memory: after each look without a
/// fault it lets twice as many moves pass (up to 64), after a fault it
/// looks at every move again. The first few moves are not looked at, so a
/// short query (a delta) makes no system call. (Advising pages already in
/// memory is not free either: the kernel looks each one up, which made a
/// warm full read 30 % slower when every move advised.)
struct Readahead {
    /// Off for plans that jump from record to record (UUID lookups,
    /// several types merged): every record would be a move.
    let enabled: Bool
    private var low: UInt = 0
    /// Moves to let pass without looking, and how many after the next
    /// look without a fault.
    private var skip = 4, stride = 1
    /// The thread's major faults at the last look (-1: not looked yet).
    private var faults = -1
    private static let window: UInt = 1 << 20

    init(enabled: Bool) { self.enabled = enabled }

    /// Notes that the walk reads at `address` (a pointer into the map).
    @inline(__always)
    mutating func note(_ address: UnsafeRawPointer?) {
        let a = UInt(bitPattern: address)
        if a &- low >= Self.window, enabled { moved(to: a) }
    }

    @inline(never)
    private mutating func moved(to a: UInt) {
        low = a & ~UInt(4095)
        if skip > 0 { skip -= 1; return }
        var usage = rusage()
        getrusage(1, &usage)  // RUSAGE_THREAD, which Glibc's module does not export
        let now = usage.ru_majflt
        defer { faults = now }
        guard faults >= 0, now > faults else {
            stride = min(stride * 2, 64)
            skip = stride - 1
            return
        }
        stride = 1
        // Past the map's end the kernel refuses the rest (ENOMEM): harmless.
        _ = madvise(UnsafeMutableRawPointer(bitPattern: low), Int(Self.window), MADV_WILLNEED)
    }
}
