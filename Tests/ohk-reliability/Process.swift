import Glibc
import TestSupport

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
        guard let (pid, output) = spawnWithOutput("/proc/self/exe", args) else { fail("cannot start a child") }
        self.pid = pid
        self.output = output
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
            if n == 0 { ended = true }
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

    /// Whether its output has ended: it exited, or closed it.
    private(set) var ended = false

    /// Waits until a line satisfies `done` (at most `seconds`); with
    /// `orEnd`, until its output ends too (a process that died).
    func wait(seconds: Double, orEnd: Bool = false, until done: ([String]) -> Bool) -> Bool {
        let deadline = now() + seconds
        while !done(lines) && !(orEnd && ended) {
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

func removeTree(_ path: String) {
    _ = run("/bin/rm", ["-rf", path])
}
