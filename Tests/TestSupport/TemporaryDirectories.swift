import Glibc
import Synchronization

/// The directories `temporaryDirectory` made, removed when the process
/// exits: a full run of the tests makes a few thousand stores, and left
/// behind they filled /tmp by tens of gigabytes over a few days.
private let made = Mutex<[String]>([])

/// A new, empty temporary directory, removed with what it holds when the
/// process exits (kept when `OHK_KEEP_TEST_DIRS` is set, to look into).
public func temporaryDirectory() -> String {
    var template = Array("/tmp/ohk-test-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    made.withLock { dirs in
        if dirs.isEmpty && getenv("OHK_KEEP_TEST_DIRS") == nil { atexit { removeTemporaryDirectories() } }
        dirs.append(path)
    }
    return path
}

private func removeTemporaryDirectories() {
    let dirs = made.withLock { dirs in
        defer { dirs.removeAll() }
        return dirs
    }
    for dir in dirs { removeTree(dir) }
}

/// Removes `path` and, when it is a directory (not a link to one), what it holds.
private func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR, let d = opendir(path) {
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { removeTree(path + "/" + name) }
        }
        closedir(d)
        rmdir(path)
    } else {
        unlink(path)
    }
}
