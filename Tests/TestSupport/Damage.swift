import Glibc

/// Damages the store in `directory` as a disk might: every page after the
/// two meta pages gets a wrong page number in its header (LMDB's reads
/// never look there, so the store still opens). Returns how many pages.
public func renumberPages(_ directory: String) -> Int {
    let fd = open(directory + "/data.mdb", O_RDWR)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var st = stat()
    fstat(fd, &st)
    let psize = Int(sysconf(Int32(_SC_PAGESIZE)))
    var done = 0
    for page in 2..<max(2, Int(st.st_size) / psize) {
        var number: UInt64 = 0
        guard pread(fd, &number, 8, off_t(page * psize)) == 8 else { break }
        number ^= 0x5A5A
        guard pwrite(fd, &number, 8, off_t(page * psize)) == 8 else { break }
        done += 1
    }
    return done
}
