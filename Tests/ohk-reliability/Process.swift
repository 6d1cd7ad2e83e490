import Glibc

/// glibc's pipe2, which Swift's Glibc module hides behind _GNU_SOURCE.
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// A child process of this program (`/proc/self/exe` with `args`), its
/// standard output read line by line.
final class ChildProcess {
    let pid: pid_t
    private let output: Int32
    private var pending: [UInt8] = []
    private(set) var lines: [String] = []
    private var reaped = false
    private(set) var status: Int32 = 0

    init(_ args: [String]) {
        var fds: [Int32] = [0, 0]
        guard systemPipe2(&fds, O_CLOEXEC) == 0 else { fail("pipe2 failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        let exe = "/proc/self/exe"
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid = pid_t()
        guard posix_spawn(&pid, exe, &actions, nil, argv, environ) == 0 else { fail("cannot start a child") }
        posix_spawn_file_actions_destroy(&actions)
        close(fds[1])
        self.pid = pid
        output = fds[0]
    }

    deinit {
        if !reaped { Glibc.kill(pid, SIGKILL); _ = reap() }
        close(output)
    }

    /// Reads what is available (waiting at most `milliseconds`), and
    /// returns the lines read so far.
    @discardableResult
    func poll(milliseconds: Int32) -> [String] {
        var p = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        var chunk = [UInt8](repeating: 0, count: 65536)
        var wait = milliseconds
        while Glibc.poll(&p, 1, wait) > 0 {
            let n = read(output, &chunk, chunk.count)
            if n <= 0 { break }
            pending += chunk[0..<n]
            while let nl = pending.firstIndex(of: 10) {
                lines.append(String(decoding: pending[..<nl], as: UTF8.self))
                pending.removeSubrange(...nl)
            }
            wait = 0
        }
        return lines
    }

    /// Waits until a line satisfies `done` (at most `seconds`).
    func wait(seconds: Double, until done: ([String]) -> Bool) -> Bool {
        let deadline = now() + seconds
        while !done(lines) {
            if now() > deadline { return false }
            poll(milliseconds: 20)
        }
        return true
    }

    /// SIGKILL, then everything it printed before dying.
    func kill() -> [String] {
        Glibc.kill(pid, SIGKILL)
        _ = reap()
        poll(milliseconds: 0)
        return lines
    }

    func reap() -> Int32 {
        if !reaped {
            waitpid(pid, &status, 0)
            reaped = true
        }
        return status
    }
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// A fresh directory under /tmp.
func scratchDirectory() -> String {
    var template = Array("/tmp/ohk-reliability-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

func removeTree(_ path: String) {
    _ = path.withCString { p in
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("rm"), strdup("-rf"), strdup(p), nil]
        defer { for a in argv { free(a) } }
        var pid = pid_t()
        if posix_spawnp(&pid, "rm", nil, nil, &argv, environ) == 0 { var s: Int32 = 0; waitpid(pid, &s, 0) }
    }
}
