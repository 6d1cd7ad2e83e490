import COHKSystem
import Glibc

/// How a commit reaches every watcher of the store, in this process or
/// another: a 32-bit counter in a small file of the store directory
/// (`changes`), mapped shared by every process that opens the store. A
/// writer adds one after each commit and wakes the futex on the counter;
/// watchers sleep in `FUTEX_WAIT_BITSET` on it.
///
/// Why a futex on a shared mapping: the wake is one system call for the
/// writer (about a microsecond, nothing when nobody waits) and reaches
/// sleepers of every process directly, so latency is one scheduler wake-up;
/// a sleeping watcher uses no CPU at all. inotify would need a file write
/// per commit and a second wake-up path; a socket needs a server and
/// registration; polling burns CPU and adds its period to the latency.
/// The counter may wrap: watchers only compare it for inequality.
///
/// Why wake bits: a process tells its own live queries of its commits
/// directly (`Store.wakeLiveQueries`), so waking its own watcher as well
/// only puts a third thread on the CPUs at the moment the query's thread
/// should run (on two cores that moved the in-process observer from
/// about −3 to 30 µs). Each process therefore claims one of 31 bits,
/// `Self.slots`, for as long as it has the store open, by locking that
/// byte of the file (a lock the kernel drops when the process dies, so no
/// two live processes ever hold one bit); its watcher sleeps on that bit
/// and its commits wake every bit but it. A process that finds every bit
/// taken uses `Self.sharedBit`, which every commit wakes, its own too.
final class ChangeSignal: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt32>
    /// -1 once the store closed (`closeDescriptor`).
    private var fd: Int32
    /// The bit this process's watcher sleeps on.
    let bit: UInt32
    private static let size = 4096
    /// Byte offsets of the slot locks (past the counter, inside the file).
    private static let slotBase = 64
    private static let slots: UInt32 = 31
    static let sharedBit: UInt32 = 1 << 31

    /// Whether the file is mapped for writing. A store opened read-only by
    /// a process that may not write the file maps it for reading only: it
    /// never commits, and its watcher waits on `sharedBit`, which every
    /// commit wakes (it can claim no slot: the locks need a writable file).
    let writable: Bool

    init(directory: String, readOnly: Bool = false) throws {
        let path = directory + "/changes"
        var fd: Int32
        if readOnly {
            fd = open(path, O_RDWR | O_CLOEXEC)
            if fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) { fd = open(path, O_RDONLY | O_CLOEXEC) }
        } else {
            // Written through a shared map: its block must exist (no SIGBUS on
            // a full disk). No record locks are taken on this file, so the
            // helper's descriptor may close.
            try allocateBlocks(path, bytes: Self.size)
            fd = open(path, O_RDWR | O_CLOEXEC)
        }
        guard fd >= 0 else {
            throw OHKError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) >= Self.size else {
            // Only a read-only open gets here: a map past the file's end
            // would stop the process with SIGBUS when read.
            Glibc.close(fd)
            throw OHKError(.storage, "\(path) is shorter than \(Self.size) bytes: open the store once for writing to repair it")
        }
        writable = fcntl(fd, F_GETFL) & O_ACCMODE == O_RDWR
        let p = mmap(nil, Self.size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw OHKError(.storage, "cannot map \(path): \(message)")
        }
        word = p.bindMemory(to: UInt32.self, capacity: 1)
        self.fd = fd
        bit = writable ? Self.claimBit(fd) : Self.sharedBit
    }

    /// Closing the descriptor releases the slot's lock.
    deinit {
        munmap(word, Self.size)
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Gives the descriptor (and so the slot) back when the store closes,
    /// rather than when the last reference to the store goes: a closed
    /// store holds no descriptor. The mapping stays until then (a page,
    /// no descriptor), so a late reader of the counter is harmless. Call
    /// once the watcher has stopped, with no commit to come.
    func closeDescriptor() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// The first slot whose lock is free, as a bit; the shared bit when
    /// every slot is held (or the file system refuses the lock).
    private static func claimBit(_ fd: Int32) -> UInt32 {
        for slot in 0..<slots where ohk_try_lock_byte(fd, slotBase + Int(slot)) == 0 {
            return 1 << slot
        }
        return sharedBit
    }

    var value: UInt32 { ohk_atomic_load_u32(word) }

    /// Announces a commit of this process to the watchers of every other
    /// process (this process's own live queries are told directly).
    func bump() {
        ohk_atomic_add_u32(word, 1)
        ohk_futex_wake_bits(word, bit == Self.sharedBit ? UInt32.max : ~bit)
    }

    /// Wakes every watcher, this process's too (its watcher stopping);
    /// the others look once and find nothing new.
    func bumpAll() {
        ohk_atomic_add_u32(word, 1)
        ohk_futex_wake_bits(word, UInt32.max)
    }

    /// Wakes every watcher without changing the counter, for a file this
    /// process cannot write (`ChangeWatcher.stop`).
    func wakeAll() {
        ohk_futex_wake_bits(word, UInt32.max)
    }

    /// Sleeps until another process commits, or returns at once when the
    /// counter already differs from `seen` (or on a spurious wake).
    func wait(whileValueIs seen: UInt32) {
        _ = ohk_futex_wait_bits(word, seen, bit)
    }
}
