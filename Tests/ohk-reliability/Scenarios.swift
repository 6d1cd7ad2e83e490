import FoundationEssentials
import Glibc
import OpenHealthKitCore
import TestSupport

/// Two handles on one store in this process, one closed, then a writer
/// process beside the other (rule 19): every acknowledged save of both is
/// in the store, seen by a fresh open.
func doubleOpen(rounds: Int, rng: inout Rng) throws -> KillFigures {
    var f = KillFigures()
    for round in 0..<rounds {
        let dir = temporaryDirectory()
        defer { removeTree(dir) }
        let first = try Store(directory: dir)
        let second = try Store(directory: dir)
        first.close()
        let seed = UInt64(5000 + round)
        let child = ChildProcess(["writer", dir, String(seed)])
        var mine = 0
        let until = now() + 0.05 + Double(rng.int(100)) / 1000
        while now() < until || mine < 5 {
            try second.save(Child.batch(seed: 1, number: mine))
            mine += 1
            child.poll(milliseconds: 0)
        }
        f.kills += 1
        checkWriter(second, seed: seed, lines: child.kill(), into: &f)
        check(second, seed: 1, batches: 0...mine - 1, saved: Set(0..<mine), deleted: [], into: &f)
        second.close()
        let fresh = try Store(directory: dir)
        check(fresh, seed: 1, batches: 0...mine - 1, saved: Set(0..<mine), deleted: [], into: &f)
        fresh.close()
    }
    return f
}

/// A process saving samples with 50 KB of metadata each on a 16 MB tmpfs
/// while another fills it (rule 20): the save that does not fit is
/// refused, the process is never killed by a signal, and every save it
/// acknowledged is there. Needs root; nil where a tmpfs cannot be mounted.
func diskFull(rounds: Int) throws -> (rounds: Int, signals: Int, refused: Int, figures: KillFigures)? {
    var f = KillFigures()
    var signals = 0, refused = 0
    for round in 0..<rounds {
        let disk = temporaryDirectory()
        guard mount("tmpfs", disk, "tmpfs", 0, "size=16m") == 0 else {
            rmdir(disk)
            return round == 0 ? nil : (round, signals, refused, f)
        }
        defer { umount2(disk, Int32(MNT_DETACH)); rmdir(disk) }
        let dir = disk + "/store"
        // The writer makes its store before the disk fills: a store cannot
        // be made on a full disk, and the filler, started at once, won
        // that race on a fast machine. The saves race the filler.
        let child = ChildProcess(["heavy-writer", dir])
        guard child.wait(seconds: 60, orEnd: true, until: { $0.contains("O") }), child.lines.contains("O") else {
            f.problems.append("disk full: the writer did not open its store on an empty disk: \(child.kill())")
            continue
        }
        let filler = ChildProcess(["fill-disk", disk + "/filler"])
        let status = child.reap()
        child.poll(milliseconds: 0)
        _ = filler.kill()
        if status & 0x7f != 0 { signals += 1 }
        if child.lines.contains("REFUSED") { refused += 1 }
        let saved = Child.marked(child.lines, "S").count
        // Room again for the open that counts (an open writes).
        unlink(disk + "/filler")
        let store = try Store(directory: dir)
        let count = try store.anchoredQuery(type: Child.steps, anchor: nil).samples.count
        if count != saved * Child.batchSize { f.lost += 1; f.problems.append("disk full: \(count) samples for \(saved) saves") }
        store.close()
    }
    return (rounds, signals, refused, f)
}

extension Child {
    /// `heavy-writer DIR`: opens the store (`O`), then saves batches of
    /// samples with 50 KB of metadata each until the disk refuses one
    /// (`REFUSED`, exit 0); `S b` after each save that returned.
    static func heavyWriter(directory: String) throws -> Never {
        let store = try Store(directory: directory)
        say("O")
        let notes: [String: MetadataValue] = ["Notes": .string(String(repeating: "x", count: 50_000))]
        var b = 0
        while true {
            let samples = try batch(seed: 77, number: b, metadata: notes)
            do {
                try store.save(samples)
            } catch let e as OHKError where e.code == .storage && e.message.contains("not enough disk space") {
                say("REFUSED")
                exit(0)
            }
            say("S \(b)")
            b += 1
        }
    }

    /// `fill-disk FILE`: writes FILE until the disk is full, then waits.
    static func fillDisk(_ path: String) -> Never {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let chunk = [UInt8](repeating: 1, count: 16 << 10)
        while fd >= 0, write(fd, chunk, chunk.count) > 0 {}
        while true { pause() }
    }
}
