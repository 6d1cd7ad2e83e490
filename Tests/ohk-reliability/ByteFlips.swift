import FoundationEssentials
import Glibc
import OpenHealthKitCore
import TestSupport

/// What became of the byte flips (rule 18: a damaged store is reported,
/// never trusted into a crash).
struct FlipFigures {
    var flips = 0
    /// `check` named a problem (in the pages or in the records).
    var caught = 0
    /// The store refused to open, with an error.
    var refused = 0
    /// Nothing found, and every read equal to the undamaged store's: the
    /// byte was in free space or a field no read uses.
    var harmless = 0
    /// Nothing found, yet a read differed from the undamaged store's.
    var wrong: [String] = []
    var crashes: [String] = []
    var hangs: [String] = []
    /// The same flips read without `check` first: a read that crashed,
    /// hung or differed (what a store that is never checked risks).
    var uncheckedCrashes: [String] = [], uncheckedHangs: [String] = [], uncheckedWrong = 0, uncheckedErrors = 0

    var clean: Bool { crashes.isEmpty && hangs.isEmpty }
}

/// Flips one byte of `data.mdb` at a time, each in a fresh copy of a
/// store with every kind of page, and has a child process check it and,
/// when the check finds nothing, read it: no child may crash or hang,
/// and a read that differs from the undamaged store's is counted.
func byteFlips(rounds: Int, rng: inout Rng) throws -> FlipFigures {
    var f = FlipFigures()
    guard rounds > 0 else { return f }
    // A child that crashes should say so at once, not symbolicate first
    // (which under load can outlast the hang bound).
    setenv("SWIFT_BACKTRACE", "enable=no", 1)
    defer { unsetenv("SWIFT_BACKTRACE") }
    let original = temporaryDirectory()
    defer { removeTree(original) }
    try Child.fillVariedStore(original)
    let truth = ChildProcess(["read-store", original, "check"])
    guard truth.reap() == 0, let expected = truth.poll(milliseconds: 0).first(where: { $0.hasPrefix("READ ") }) else {
        fail("the undamaged store does not read: \(truth.lines)")
    }
    var st = stat()
    stat(original + "/data.mdb", &st)
    let size = Int(st.st_size)
    let data = try readFile(original + "/data.mdb")
    for _ in 0..<rounds {
        let offset = rng.int(size)
        let xor = UInt8(1 + rng.int(255))
        let copy = temporaryDirectory()
        defer { removeTree(copy) }
        var damaged = data
        damaged[offset] ^= xor
        try writeFile(copy + "/data.mdb", damaged)
        f.flips += 1
        let place = "offset \(offset) (page \(offset / 4096)) ^ \(xor)"
        for checked in [true, false] {
            let child = ChildProcess(["read-store", copy, checked ? "check" : "read"])
            let finished = child.wait(seconds: 30) { $0.contains { $0.hasPrefix("READ ") || $0.hasPrefix("CAUGHT") || $0.hasPrefix("ERROR") } }
            if !finished { _ = child.kill() }
            let status = child.reap()
            child.poll(milliseconds: 0)
            let line = child.lines.first { $0.hasPrefix("READ ") || $0.hasPrefix("CAUGHT") || $0.hasPrefix("ERROR") } ?? ""
            let signal = finished && status & 0x7f != 0
            if checked {
                if !finished { f.hangs.append(place) } else if signal { f.crashes.append("\(place): signal \(status & 0x7f)") }
                else if line.hasPrefix("CAUGHT") { f.caught += 1 } else if line.hasPrefix("ERROR") { f.refused += 1 }
                else if line == expected { f.harmless += 1 } else { f.wrong.append("\(place): \(line)") }
            } else {
                if !finished { f.uncheckedHangs.append(place) } else if signal { f.uncheckedCrashes.append("\(place): signal \(status & 0x7f)") }
                else if line.hasPrefix("ERROR") { f.uncheckedErrors += 1 } else if line != expected { f.uncheckedWrong += 1 }
            }
        }
    }
    return f
}

extension Child {
    static let heartRate = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")

    /// A store with every kind of LMDB page: many samples of two types
    /// (branch pages), large metadata (overflow pages), samples that start
    /// together (duplicates in a sub-tree), deletions and a prune (a free
    /// list), and a durable subscription.
    static func fillVariedStore(_ directory: String) throws {
        let store = try Store(directory: directory)
        defer { store.close() }
        let big: [String: MetadataValue] = ["Notes": .string(String(repeating: "n", count: 6000))]
        for b in 0..<60 { try store.save(batch(seed: 9, number: b, metadata: b % 10 == 0 ? big : [:])) }
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        try store.save((0..<600).map { i in
            try Sample.quantity(heartRate, value: Double(50 + i % 90), unit: HealthUnit("count/min"), start: start,
                                end: start, source: source, uuid: uuid(seed: 10, index: UInt64(i)))
        })
        for b in stride(from: 0, to: 60, by: 4) { try store.delete(uuids: uuids(seed: 9, batch: b)) }
        try store.pruneAll()
        for b in stride(from: 1, to: 60, by: 8) { try store.delete(uuids: uuids(seed: 9, batch: b)) }
        let sub = DurableSubscription(name: "flips", descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try store.execute(sub)
        sub.stop()
    }

    /// `read-store DIR check|read`: with `check`, `Store.verify` first
    /// (pages, then records), printing `CAUGHT problem` and stopping when
    /// it finds something; then every object of both types, once in one
    /// read and once in batches of 50, printed as `READ digest` when the
    /// two agree and `READ differ …` when they do not. `ERROR message`
    /// when the store refuses.
    static func readStore(directory: String, check: Bool) -> Never {
        if check, let p = Store.verifyPages(directory: directory).first { say("CAUGHT \(p)"); exit(0) }
        do {
            let store = try Store(directory: directory)
            if check, let p = try store.verify().problems.first { say("CAUGHT \(p)"); exit(0) }
            let descriptors = [QueryDescriptor(type: steps), QueryDescriptor(type: heartRate)]
            let once = try store.anchoredQuery(descriptors, anchor: nil)
            var batched: [String] = []
            var anchor: QueryAnchor? = nil
            while true {
                let r = try store.anchoredQuery(descriptors, anchor: anchor, limit: 50)
                if r.samples.isEmpty && r.deletedObjects.isEmpty { break }
                batched += lines(r)
                anchor = r.newAnchor
            }
            let a = digest(lines(once)), b = digest(batched)
            say(a == b ? "READ \(a)" : "READ differ \(a) / \(b)")
            exit(0)
        } catch {
            say("ERROR \(error)")
            exit(0)
        }
    }

    /// Every sample and deleted object of `r`, whole, one line each.
    private static func lines(_ r: AnchoredQueryResult) -> [String] {
        r.samples.map { "\($0)" } + r.deletedObjects.map { "\($0)" }
    }

    /// The lines' count and an FNV-1a hash of them in sorted order: the
    /// same objects give the same digest in any process.
    private static func digest(_ lines: [String]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in lines.sorted() {
            for byte in line.utf8 + [10] { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return "\(lines.count) \(String(h, radix: 16))"
    }
}

private func readFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw OHKError(.storage, "cannot open \(path)") }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = read(fd, &chunk, chunk.count)
        if n <= 0 { break }
        out += chunk[0..<n]
    }
    return out
}

private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw OHKError(.storage, "cannot create \(path)") }
    defer { close(fd) }
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw OHKError(.storage, "cannot write \(path)")
    }
}
