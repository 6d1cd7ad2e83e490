import COHKSystem
import FoundationEssentials
import Glibc

/// Random (version 4) UUIDs for samples saved without one. On Linux,
/// FoundationEssentials' `UUID()` opens, reads and closes /dev/urandom for
/// every UUID: three system calls, about 6 µs, most of the cost of saving
/// 3,600 heart rates through C. These come from a pool that getrandom(2)
/// fills 4 KB at a time.
public enum RandomUUID {
    /// A new random UUID.
    public static func make() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { RandomPool.shared.take(into: $0) }
        bytes.6 = (bytes.6 & 0x0f) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3f) | 0x80  // RFC variant
        return UUID(uuid: bytes)
    }
}

/// Random bytes handed out in order, never twice. A forked child must not
/// hand out its parent's remaining bytes (both would make the same UUIDs):
/// the fork handlers empty the child's pool, and hold the lock across
/// fork so that the child never inherits it taken.
private final class RandomPool: @unchecked Sendable {
    static let shared = RandomPool()

    private static let capacity = 4096
    private let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    private var used = capacity
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    private init() {
        pthread_mutex_init(mutex, nil)
        pthread_atfork({ RandomPool.shared.lock() }, { RandomPool.shared.unlock() },
                       { RandomPool.shared.forgetAfterFork() })
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    private func forgetAfterFork() {
        used = Self.capacity
        pthread_mutex_init(mutex, nil)
    }

    /// Fills `out` (at most `capacity` bytes).
    func take(into out: UnsafeMutableRawBufferPointer) {
        lock()
        defer { unlock() }
        if Self.capacity - used < out.count { refill() }
        out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[used ..< used + out.count]))
        used += out.count
    }

    private func refill() {
        var filled = 0
        while filled < Self.capacity {
            let n = ohk_getrandom(bytes.baseAddress! + filled, Self.capacity - filled)
            if n > 0 {
                filled += Int(n)
            } else if errno != EINTR {
                // No getrandom (kernels before 3.17): the system's own generator.
                var g = SystemRandomNumberGenerator()
                for i in filled ..< Self.capacity { bytes[i] = UInt8.random(in: 0 ... 255, using: &g) }
                filled = Self.capacity
            }
        }
        used = 0
    }
}
