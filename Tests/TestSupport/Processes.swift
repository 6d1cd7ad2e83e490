import Glibc

/// glibc's pipe2, which Swift's Glibc module hides behind _GNU_SOURCE.
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// The path of an executable built next to the test bundle.
public func siblingExecutable(_ name: String) -> String {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    let exe = n > 0 ? String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let dir = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return dir + "/" + name
}

/// Starts a program with its standard output on a pipe; returns its pid
/// and the pipe's reading end, or nil when it could not start. `setting`
/// adds to (or replaces in) this process's environment.
public func spawnWithOutput(_ path: String, _ args: [String], mergeStderr: Bool = false,
                            setting: [String: String] = [:]) -> (pid: pid_t, output: Int32)? {
    var fds: [Int32] = [0, 0]
    // Close-on-exec: tests run in parallel, and a pipe inherited by another
    // test's long-running child would never reach end-of-file.
    guard systemPipe2(&fds, O_CLOEXEC) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    if mergeStderr { posix_spawn_file_actions_adddup2(&actions, fds[1], 2) }
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let argv = ([path] + args).map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    // Test threads (Dispatch workers) block signals; the child must not
    // inherit that, or SIGTERM would never end it.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid = pid_t()
    var inherited: [String] = []
    var e = environ
    while let entry = e.pointee {
        let text = String(cString: entry)
        if !setting.keys.contains(where: { text.hasPrefix($0 + "=") }) { inherited.append(text) }
        e += 1
    }
    let envp = (inherited + setting.map { "\($0)=\($1)" }).map { strdup($0) } + [nil]
    defer { for v in envp { free(v) } }
    let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    posix_spawnattr_destroy(&attributes)
    posix_spawn_file_actions_destroy(&actions)
    close(fds[1])
    guard rc == 0 else { close(fds[0]); return nil }
    return (pid, fds[0])
}

/// Runs a program to completion; returns its exit status and standard
/// output (with standard error when `mergeStderr`).
public func run(_ path: String, _ args: [String], mergeStderr: Bool = false,
                setting: [String: String] = [:]) -> (status: Int32, output: String) {
    guard let (pid, fd) = spawnWithOutput(path, args, mergeStderr: mergeStderr, setting: setting) else {
        return (-1, "spawn failed")
    }
    let out = readToEnd(fd)
    close(fd)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return ((status >> 8) & 0xff, out)
}

/// Everything `fd` gives until end-of-file, as text.
public func readToEnd(_ fd: Int32) -> String {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let k = read(fd, &chunk, chunk.count)
        if k <= 0 { break }
        out += chunk[0..<k]
    }
    return String(decoding: out, as: UTF8.self)
}
