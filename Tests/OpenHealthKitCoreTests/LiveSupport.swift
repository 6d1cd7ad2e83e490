import FoundationEssentials
import Glibc
@testable import OpenHealthKitCore

/// Waits for a condition that handlers make true, with a generous bound
/// (never a sleep standing in for the event).
final class Waiter: @unchecked Sendable {
    // Recursive: predicates read the waiter's own counts while it waits.
    private let monitor = Monitor(recursive: true)
    private var state: [String: Int] = [:]

    func add(_ key: String, _ n: Int = 1) {
        monitor.locked { state[key, default: 0] += n; monitor.broadcast() }
    }

    func value(_ key: String) -> Int { monitor.locked { state[key, default: 0] } }

    /// True when `predicate` held within `seconds`. `predicate` may read
    /// any state, provided whatever changes it also calls `add`.
    func wait(seconds: Double = 30, until predicate: () -> Bool) -> Bool {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        ts.tv_sec += Int(seconds)
        return monitor.locked {
            while !predicate() {
                if !monitor.wait(until: ts) { return predicate() }
            }
            return true
        }
    }
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Rebuilds a store's matching set from what a long-running query
/// delivers, and counts anything delivered twice or out of place.
final class Consumer: @unchecked Sendable {
    /// Told after every delivery.
    let waiter = Waiter()
    private typealias State = (live: Set<UUID>, seen: Set<UUID>, errors: [String], anchor: QueryAnchor?, calls: Int, maxBatch: Int)
    private let lock = Locked<State>(([], [], [], nil, 0, 0))

    /// `update`: false for the snapshot (a batch size bounds updates only).
    func apply(_ r: AnchoredQueryResult, update: Bool = true) {
        lock.withLock { (s: inout State) in
            s.calls += 1
            if update { s.maxBatch = max(s.maxBatch, r.samples.count + r.deletedObjects.count) }
            for u in r.sampleUUIDs {
                if !s.seen.insert(u).inserted { s.errors.append("sample \(u) delivered twice") }
                s.live.insert(u)
            }
            for u in r.deletedUUIDs {
                if s.live.remove(u) == nil && s.seen.contains(u) { s.errors.append("deleted \(u) not live") }
                s.seen.insert(u)
            }
            if let a = s.anchor, r.newAnchor.position < a.position {
                s.errors.append("anchor went backwards")
            }
            s.anchor = r.newAnchor
        }
        waiter.add("calls")
    }

    /// A long-running query from a nil anchor that feeds this consumer.
    func query(_ type: SampleType, maxBatchSize: Int = 0) -> AnchoredObjectQuery {
        AnchoredObjectQuery(type: type, anchor: nil, maxBatchSize: maxBatchSize,
                            resultsHandler: { _, r in self.apply(try! r.get(), update: false) },
                            updateHandler: { _, r in self.apply(try! r.get()) })
    }

    /// Waits (bounded) until the consumer has caught up with the store.
    func waitUntilCaughtUp(with store: Store) -> Bool {
        waiter.wait { self.caughtUp(with: store) }
    }

    var live: Set<UUID> { lock.withLock { $0.live } }
    var errors: [String] { lock.withLock { $0.errors } }
    var anchor: QueryAnchor? { lock.withLock { $0.anchor } }
    var calls: Int { lock.withLock { $0.calls } }
    var maxBatch: Int { lock.withLock { $0.maxBatch } }

    /// True once the consumer has caught up with the store's head.
    func caughtUp(with store: Store) -> Bool {
        guard let a = anchor, let head = try? store.currentAnchor() else { return false }
        return a.position >= head.position
    }
}

/// Runs `ohk-test-writer subscribe DIR NAME mode` until its first delivery
/// ends ("END"); with `noack` the process is then killed with SIGKILL
/// (a crash before acknowledging), with `ack` it acknowledges and exits.
/// Returns the delivered UUIDs and whether the process acknowledged.
func subscriberRun(_ dir: String, _ name: String, acknowledge: Bool) -> (uuids: [UUID], acked: Bool) {
    guard let (pid, fd) = spawnWithOutput(siblingExecutable("ohk-test-writer"),
                                          ["subscribe", dir, name, acknowledge ? "ack" : "noack"]) else { return ([], false) }
    var text = ""
    var lines: [String] = []
    var byte: UInt8 = 0
    // Line by line until END (and ACKED or EOF when acknowledging).
    while read(fd, &byte, 1) == 1 {
        if byte != UInt8(ascii: "\n") { text.append(Character(UnicodeScalar(byte))); continue }
        lines.append(text)
        text = ""
        if lines.last == "END", !acknowledge { break }
    }
    if !acknowledge { kill(pid, SIGKILL) }
    close(fd)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let uuids = lines.prefix { $0 != "END" }.compactMap { UUID(uuidString: $0) }
    return (uuids, lines.contains("ACKED"))
}
