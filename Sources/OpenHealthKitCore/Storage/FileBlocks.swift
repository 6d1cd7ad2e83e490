import Glibc

/// Makes sure the first `bytes` of the file at `path` have blocks on disk,
/// creating the file if needed.
///
/// LMDB's lock file and the store's `changes` file are written through
/// shared memory maps. A page of such a map over a hole in a sparse file
/// needs a new block the first time it is written, and on a full disk the
/// kernel answers that write with SIGBUS, which kills the process. With
/// the blocks allocated here, on open, the maps never need one: a full
/// disk is then an error at open (for a store whose files were never
/// allocated) and never a signal later. A file already allocated is left
/// alone, so a store that is opened on a full disk still opens.
///
/// Closing the descriptor drops this process's POSIX record locks on the
/// file (LMDB holds such locks on `lock.mdb`): call this only before this
/// process opens the store's environment (`OpenEnvironments`).
func allocateBlocks(_ path: String, bytes: Int) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
        throw OHKError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var st = stat()
    if fstat(fd, &st) == 0, st.st_size >= bytes, Int(st.st_blocks) * 512 >= bytes { return }
    let rc = posix_fallocate(fd, 0, off_t(bytes))
    guard rc == 0 else {
        let reason = rc == ENOSPC || rc == EDQUOT ? "the disk is full" : String(cString: strerror(rc))
        throw OHKError(.storage, "cannot allocate \(bytes / 1024) KB for \(path): \(reason)")
    }
}
