import CSystem
import Glibc

/// How a commit reaches every watcher of the store, in this process or
/// another: a 32-bit counter in a small file of the store directory
/// (`changes`), mapped shared by every process that opens the store. A
/// writer adds one after each commit and wakes the futex on the counter;
/// watchers sleep in `FUTEX_WAIT` on it.
///
/// Why a futex on a shared mapping: the wake is one system call for the
/// writer (about a microsecond, nothing when nobody waits) and reaches
/// sleepers of every process directly, so latency is one scheduler wake-up;
/// a sleeping watcher uses no CPU at all. inotify would need a file write
/// per commit and a second wake-up path; a socket needs a server and
/// registration; polling burns CPU and adds its period to the latency.
/// The counter may wrap: watchers only compare it for inequality.
final class ChangeSignal: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt32>
    private static let size = 4096

    init(directory: String) throws {
        let path = directory + "/changes"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw OHKError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size < Self.size, ftruncate(fd, off_t(Self.size)) != 0 {
            throw OHKError(.storage, "cannot size \(path): \(String(cString: strerror(errno)))")
        }
        let p = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else {
            throw OHKError(.storage, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        word = p.bindMemory(to: UInt32.self, capacity: 1)
    }

    deinit { munmap(word, Self.size) }

    var value: UInt32 { ohk_atomic_load_u32(word) }

    /// Announces a commit to every watcher of the store.
    func bump() {
        ohk_atomic_add_u32(word, 1)
        ohk_futex_wake_all(word)
    }

    /// Sleeps until the counter differs from `seen` (or a spurious wake).
    func wait(whileValueIs seen: UInt32) {
        _ = ohk_futex_wait(word, seen, nil)
    }
}
