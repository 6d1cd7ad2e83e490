import CLMDB
import Glibc

/// Room on the disk for what a write transaction may add.
///
/// The map is writable (`MDB_WRITEMAP`, see `Environment`): LMDB writes
/// pages in place in a sparse file, and a page the file system cannot back
/// on a full disk would stop the process with SIGBUS instead of failing the
/// commit. So a write transaction first makes sure the disk has room for
/// the most it may add and otherwise refuses with `.storage`, having
/// written nothing. Best effort: another process may fill the disk between
/// the check and the write.
///
/// Used only inside write transactions, which LMDB serializes, so it takes
/// no lock of its own.
final class DiskRoom: @unchecked Sendable {
    private let directory: String
    private let env: OpaquePointer
    private let pageSize: Int
    /// Free bytes on the store's file system, nil when it cannot say (the
    /// check is then skipped). Tests replace it; the next check reads the
    /// new one.
    var freeBytes: (String) -> Int? { didSet { readAt = -.infinity } }
    /// The last reading, what has been granted since, and when it was taken:
    /// while the disk is far from full, a reading a second old will do.
    private var free = 0, granted = 0
    private var readAt = -Double.infinity

    /// Readings closer than this to the need are taken afresh every time.
    private static let margin = 256 << 20

    init(directory: String, env: OpaquePointer) {
        self.directory = directory
        self.env = env
        var st = MDB_stat()
        mdb_env_stat(env, &st)
        pageSize = Int(st.ms_psize)
        freeBytes = DiskRoom.statvfsFree
    }

    /// Makes sure the disk can take what a transaction writing `objects`
    /// objects may add: each can copy (copy-on-write) a leaf of each index
    /// it touches, but together never more than the store holds, plus its
    /// own bytes, plus a megabyte for branch pages and trees.
    func reserve(objects: Int) throws {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        let used = (info.me_last_pgno + 1) * pageSize
        let need = min(objects * 3 * pageSize, used) + objects * 1024 + (1 << 20)
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        let now = Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        if now - readAt < 1, free - granted - need > Self.margin {
            granted += need
            return
        }
        guard let f = freeBytes(directory) else { return }
        (free, granted, readAt) = (f, 0, now)
        guard need <= f else {
            throw OHKError(.storage, "not enough disk space for the store at \(directory): \(f >> 20) MB free, this write may need up to \(need >> 20) MB")
        }
        granted = need
    }

    private static func statvfsFree(_ directory: String) -> Int? {
        var s = statvfs()
        guard statvfs(directory, &s) == 0 else { return nil }
        return Int(s.f_bavail) * Int(s.f_frsize)
    }
}
