// Phase 7 (WORKLOAD.md): observer latency in-process and from a second
// process, plus the CPU an idle process with 10 observers uses.
import Dispatch
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import Workload

func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Records the first clock read of each observer call and wakes the
/// benchmark's thread.
final class CallbackClock: @unchecked Sendable {
    private let lock = PthreadLock()
    private var times: [UInt64] = []
    let ready = DispatchSemaphore(value: 0)

    func called() {
        let t = nowNs()
        lock.locked { times.append(t) }
        ready.signal()
    }

    /// The time of call number `k` (0-based), waiting up to 5 s for it.
    func time(of k: Int) -> UInt64? {
        while lock.locked({ times.count }) <= k {
            if ready.wait(timeout: .now() + 5) == .timedOut { return nil }
        }
        return lock.locked { times[k] }
    }
}

final class PthreadLock: @unchecked Sendable {
    private var m = pthread_mutex_t()
    init() { pthread_mutex_init(&m, nil) }
    func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(&m)
        defer { pthread_mutex_unlock(&m) }
        return body()
    }
}

/// In-process: save one sample, then wait for the observer's call.
func observerInProcess(_ store: Store, n: UInt64) throws -> (lat: [Double], ok: Bool) {
    let clock = CallbackClock()
    let observer = ObserverQuery(type: Workload.steps) { _, _, done in clock.called(); done() }
    try store.execute(observer)
    defer { observer.stop() }
    var lat: [Double] = []
    for round in 0..<UInt64(1000) {
        try store.save([Workload.sample(n + 10_000 + round, forceSteps: true)])
        let tRet = nowNs()
        guard let tCb = clock.time(of: Int(round)) else { return (lat, false) }
        lat.append(Double(Int64(tCb) - Int64(tRet)) / 1000)
    }
    return (lat, true)
}

/// Cross-process: this binary in `--writer` mode saves one sample per
/// round on the same store and reports when its save returned.
func observerCrossProcess(_ store: Store, n: UInt64, dir: String) throws -> (lat: [Double], ok: Bool) {
    let clock = CallbackClock()
    let observer = ObserverQuery(type: Workload.steps) { _, _, done in clock.called(); done() }
    try store.execute(observer)
    defer { observer.stop() }
    var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
    guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return ([], false) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
    let words: [String] = ["ohk-bench-writer", "--writer", dir, String(n + 11_000), "1000"]
    let argv = words.map { strdup($0) } + [nil]
    var pid = pid_t()
    let rc = posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, environ)
    posix_spawn_file_actions_destroy(&actions)
    for a in argv { free(a) }
    close(toChild[0]); close(fromChild[1])
    guard rc == 0 else { return ([], false) }
    defer {
        var q: UInt8 = UInt8(ascii: "q")
        _ = write(toChild[1], &q, 1)
        close(toChild[1]); close(fromChild[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
    var ready: UInt8 = 0
    guard read(fromChild[0], &ready, 1) == 1, ready == UInt8(ascii: "r") else { return ([], false) }
    var lat: [Double] = []
    for round in 0..<1000 {
        var go = UInt8(ascii: "g")
        guard write(toChild[1], &go, 1) == 1 else { return (lat, false) }
        var tRet: UInt64 = 0
        guard withUnsafeMutableBytes(of: &tRet, { read(fromChild[0], $0.baseAddress, 8) }) == 8,
              let tCb = clock.time(of: round) else { return (lat, false) }
        lat.append(Double(Int64(tCb) - Int64(tRet)) / 1000)
    }
    return (lat, true)
}

/// The writer process of the cross-process phase: one save per 'g' read
/// from stdin, the CLOCK_MONOTONIC time its save returned written to stdout.
func runWriter(dir: String, start: UInt64, count: UInt64) -> Never {
    do {
        let store = try Store(directory: dir)
        var r = UInt8(ascii: "r")
        _ = write(1, &r, 1)
        var k: UInt64 = 0
        while k < count {
            var c: UInt8 = 0
            guard read(0, &c, 1) == 1, c == UInt8(ascii: "g") else { break }
            try store.save([Workload.sample(start + k, forceSteps: true)])
            var t = nowNs()
            _ = withUnsafeBytes(of: &t) { write(1, $0.baseAddress, 8) }
            k += 1
        }
        store.close()
        exit(0)
    } catch {
        let message = "ohk-bench writer: \(error)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(1)
    }
}

/// CPU time this process uses in 10 s with 10 observers and no writes.
func idleObserverCPU(_ store: Store) throws -> Double {
    let observers = (0..<10).map { _ in ObserverQuery(type: Workload.steps) { _, _, done in done() } }
    for o in observers { try store.execute(o) }
    defer { for o in observers { o.stop() } }
    func cpu() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000
            + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000
    }
    let before = cpu()
    var ts = timespec(tv_sec: 10, tv_nsec: 0)
    nanosleep(&ts, nil)
    return cpu() - before
}
