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

    /// No wrong read after a clean check, and no crash or hang of any
    /// read, checked first or not; unchecked wrong reads are counted.
    var clean: Bool {
        wrong.isEmpty && crashes.isEmpty && hangs.isEmpty && uncheckedCrashes.isEmpty && uncheckedHangs.isEmpty
    }

    /// One line per failure, for the summary.
    var problems: [String] {
        wrong.map { "a byte flip that check did not catch changed a read: \($0)" }
            + crashes.map { "byte flip at \($0)" } + hangs.map { "byte flip at \($0): hung" }
            + uncheckedCrashes.map { "read without a check, byte flip at \($0)" }
            + uncheckedHangs.map { "read without a check, byte flip at \($0): hung" }
    }
}

/// Flips one byte of `data.mdb` at a time, each in a fresh copy of a
/// store with every kind of page, and has a child process check it and,
/// when the check finds nothing, read it; then read it again without the
/// check. No child may crash or hang, and no read after a clean check may
/// differ from the undamaged store's; an unchecked read that differs is
/// counted.
/// With `keep`, each flip that fails the run leaves its damaged copy
/// there (`flip-OFFSET-XOR/data.mdb`), beside the undamaged store
/// (`original/data.mdb`), to replay by hand.
func byteFlips(rounds: Int, rng: inout Rng, keep: String? = nil) throws -> FlipFigures {
    var f = FlipFigures()
    guard rounds > 0 else { return f }
    // A child that crashes should say so at once, not symbolicate first
    // (which under load can outlast the hang bound).
    setenv("SWIFT_BACKTRACE", "enable=no", 1)
    defer { unsetenv("SWIFT_BACKTRACE") }
    let original = temporaryDirectory()
    defer { removeTree(original) }
    try Child.fillVariedStore(original)
    let expected = try harnessFingerprint(original)
    var st = stat()
    stat(original + "/data.mdb", &st)
    let size = Int(st.st_size)
    let data = try readFile(original + "/data.mdb")
    if let keep {
        mkdir(keep, 0o755)
        mkdir(keep + "/original", 0o755)
        try writeFile(keep + "/original/data.mdb", data)
    }
    for round in 0..<rounds {
        if round > 0 && round % 100 == 0 { note("byte flips: \(round) of \(rounds)") }
        let offset = rng.int(size)
        let xor = UInt8(1 + rng.int(255))
        var damaged = data
        damaged[offset] ^= xor
        f.flips += 1
        let failures = f.problems.count
        defer {
            if let keep, f.problems.count > failures {
                let dir = keep + "/flip-\(offset)-\(xor)"
                mkdir(dir, 0o755)
                try? writeFile(dir + "/data.mdb", damaged)
            }
        }
        let place = "offset \(offset) (page \(offset / 4096)) ^ \(xor)"
        for checked in [true, false] {
            // Each read in its own copy: opening a store writes to it.
            let copy = temporaryDirectory()
            defer { removeTree(copy) }
            try writeFile(copy + "/data.mdb", damaged)
            let child = ChildProcess(["read-store", copy, checked ? "check" : "read"])
            let finished = child.wait(seconds: 30, orEnd: true) { $0.contains { $0.hasPrefix("READ ") || $0.hasPrefix("CAUGHT") || $0.hasPrefix("ERROR") } }
            var place = place
            if !finished {
                place += " (\(waitingIn(child.pid)))"
                _ = child.kill()
            }
            let status = child.reap()
            child.poll(milliseconds: 0)
            let line = child.lines.first { $0.hasPrefix("READ ") || $0.hasPrefix("CAUGHT") || $0.hasPrefix("ERROR") } ?? ""
            let signal = finished && status & 0x7f != 0
            if checked {
                if !finished { f.hangs.append(place) } else if signal { f.crashes.append("\(place): signal \(status & 0x7f)") }
                else if line.hasPrefix("CAUGHT") { f.caught += 1 } else if line.hasPrefix("ERROR") { f.refused += 1 }
                else if line == expected { f.harmless += 1 } else { f.wrong.append("\(place): \(differingParts(expected, line))") }
            } else {
                if !finished { f.uncheckedHangs.append(place) } else if signal { f.uncheckedCrashes.append("\(place): signal \(status & 0x7f)") }
                else if line.hasPrefix("ERROR") { f.uncheckedErrors += 1 } else if line != expected { f.uncheckedWrong += 1 }
            }
        }
    }
    return f
}

/// Where a hung process waits: its kernel wait channel and system call.
private func waitingIn(_ pid: pid_t) -> String {
    func text(_ name: String) -> String {
        (try? readFile("/proc/\(pid)/\(name)")).map { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "" } ?? "?"
    }
    return "waiting in \(text("wchan")), system call \(text("syscall").split(separator: " ").first ?? "?")"
}

/// The undamaged store's fingerprint, after showing that the harness can
/// tell harmless from wrong: two processes read the same fingerprint of
/// one store, and a copy with one sample deleted reads another.
private func harnessFingerprint(_ original: String) throws -> String {
    func read(_ dir: String) -> String {
        let child = ChildProcess(["read-store", dir, "check"])
        guard child.reap() == 0, let line = child.poll(milliseconds: 0).first(where: { $0.hasPrefix("READ ") }) else {
            fail("the undamaged store does not read: \(child.lines)")
        }
        return line
    }
    let first = read(original), second = read(original)
    guard first == second else { fail("two reads of one store differ: the fingerprint is not deterministic: \(differingParts(first, second))") }
    let changed = temporaryDirectory()
    defer { removeTree(changed) }
    try writeFile(changed + "/data.mdb", try readFile(original + "/data.mdb"))
    let store = try Store(directory: changed)
    try store.delete(uuids: [Child.uuid(seed: 11, index: 0)])
    store.close()
    guard read(changed) != first else { fail("a store with a sample deleted has the undamaged store's fingerprint") }
    return first
}

/// The parts of two `READ` lines that differ, or the second line whole
/// when it is not a fingerprint.
private func differingParts(_ expected: String, _ line: String) -> String {
    guard line.hasPrefix("READ ") else { return line }
    let a = expected.split(separator: " "), b = line.split(separator: " ")
    let differ = zip(a, b).filter { $0 != $1 }.map { "\($0.1) (was \($0.0))" }
    return differ.isEmpty ? line : differ.joined(separator: ", ")
}

extension Child {
    /// `read-store DIR check|read|lines`: with `check`, `Store.verify`
    /// first (pages, then records), printing `CAUGHT problem` and stopping
    /// when it finds something; then the store's `Fingerprint`, printed as
    /// `READ fingerprint`. `ERROR message` when the store refuses. `lines`
    /// prints every line the fingerprint hashes, to compare two by hand.
    static func readStore(directory: String, mode: String) -> Never {
        let check = mode == "check"
        if mode == "lines" {
            do {
                for part in try Fingerprint.read(try Store(directory: directory)).parts {
                    for line in part.lines { say("\(part.name) \(line)") }
                }
            } catch { say("ERROR \(error)") }
            exit(0)
        }
        if check, let p = Store.verifyPages(directory: directory).first { say("CAUGHT \(p)"); exit(0) }
        do {
            let store = try Store(directory: directory)
            if check, let p = try store.verify().problems.first { say("CAUGHT \(p)"); exit(0) }
            say("READ \(try Fingerprint.read(store).text)")
            exit(0)
        } catch {
            say("ERROR \(error)")
            exit(0)
        }
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
