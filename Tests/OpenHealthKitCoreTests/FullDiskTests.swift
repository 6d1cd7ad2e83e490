import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// A full disk is an error, never a signal (docs/semantics.md, rule 20).
/// LMDB writes pages with pwrite at commit, so a write the disk cannot hold
/// fails with `.storage` and leaves the store as it was; the files written
/// through shared maps (`lock.mdb`, `changes`) have their blocks allocated
/// when the store opens. Each test runs on a small tmpfs of its own (root
/// mounts it; skipped where mounting is not allowed).
@Suite(.enabled(if: Tmpfs.canMount)) struct FullDiskTests {
    /// The issue's case: 200 samples of 50 KB of metadata each with 6 MB
    /// free killed the process with SIGBUS (an estimate of 1 KB an object
    /// let the write through).
    @Test func rule20_aSaveLargerThanTheFreeSpaceIsRefusedAndWritesNothing() throws {
        let disk = try Tmpfs(megabytes: 32)
        defer { disk.remove() }
        let store = try makeStore(durable: true, directory: disk.path + "/store")
        defer { store.close() }
        let first = try stepSample(1)
        try store.save([first])
        let filler = try disk.fill(leaving: 6 << 20)
        let big = MetadataValue.string(String(repeating: "x", count: 50_000))
        let heavy = try (0..<200).map { try stepSample(Double($0), minute: $0 + 1, metadata: ["Notes": big]) }
        #expect(diskFullRefusal { try store.save(heavy) })
        #expect(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs == [first.uuid])
        // With room again, the same save goes through whole.
        unlink(filler)
        try store.save(heavy)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 201)
    }

    /// Saves go through until one is refused; everything saved before it
    /// is there, before and after reopening.
    @Test func rule20_savesUntilTheDiskIsFullKeepEverySaveThatReturned() throws {
        let disk = try Tmpfs(megabytes: 8)
        defer { disk.remove() }
        let dir = disk.path + "/store"
        let store = try makeStore(durable: true, mapSize: 64 << 20, directory: dir)
        var saved = 0
        var refused = false
        for round in 0..<200 where !refused {
            let batch = try (0..<1000).map { try stepSample(Double($0), minute: round * 1000 + $0) }
            if diskFullRefusal({ try store.save(batch) }) { refused = true } else { saved += 1000 }
        }
        #expect(refused && saved > 0)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == saved)
        store.close()
        let again = try makeStore(durable: true, mapSize: 64 << 20, directory: dir)
        #expect(try again.anchoredQuery(type: steps, anchor: nil).samples.count == saved)
        again.close()
    }

    /// A store on a disk with no byte free opens, answers queries and
    /// watches; a save gets the error (the estimate that guarded the
    /// writable map refused even the open: "may need up to 1 MB").
    @Test func rule20_aStoreOnAFullDiskStillOpensForReading() throws {
        let disk = try Tmpfs(megabytes: 8)
        defer { disk.remove() }
        let dir = disk.path + "/store"
        let store = try makeStore(durable: true, directory: dir)
        let samples = try (0..<50).map { try stepSample(Double($0), minute: $0) }
        try store.save(samples)
        store.close()
        _ = try disk.fill(leaving: 0)
        let again = try makeStore(durable: true, directory: dir)
        defer { again.close() }
        #expect(try again.anchoredQuery(type: steps, anchor: nil).samples.count == 50)
        #expect(diskFullRefusal { try again.save((0..<2000).map { try stepSample(Double($0), minute: 100 + $0) }) })
        #expect(try again.anchoredQuery(type: steps, anchor: nil).samples.count == 50)
    }

    /// Another process fills the disk while this one saves: every save
    /// either returns and is kept, or is refused with the error.
    @Test func rule20_anotherProcessFillingTheDiskDuringSaves() throws {
        let disk = try Tmpfs(megabytes: 16)
        defer { disk.remove() }
        let store = try makeStore(durable: true, directory: disk.path + "/store")
        defer { store.close() }
        guard let (pid, output) = spawnWithOutput("/bin/dd", ["if=/dev/zero", "of=\(disk.path)/filler", "bs=16k"], mergeStderr: true) else {
            Issue.record("cannot start dd")
            return
        }
        defer { close(output) }
        var kept = 0, refusals = 0, round = 0
        var status: Int32 = 0
        var ddRunning = true
        // Until dd has filled the disk and a save has met the full disk.
        while ddRunning || refusals == 0 {
            let batch = try (0..<100).map { try stepSample(Double($0), minute: round * 100 + $0) }
            round += 1
            if diskFullRefusal({ try store.save(batch) }) { refusals += 1 } else { kept += 100 }
            if ddRunning, waitpid(pid, &status, WNOHANG) == pid { ddRunning = false }
            guard round < 100_000 else { Issue.record("the disk never filled"); break }
        }
        #expect(refusals > 0)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == kept)
    }

    private func diskFullRefusal(_ body: () throws -> Void) -> Bool {
        do { try body(); return false } catch let e as OHKError {
            return e.code == .storage && e.message.contains("not enough disk space")
        } catch { return false }
    }
}

/// A small tmpfs mounted on a fresh temporary directory.
struct Tmpfs {
    let path: String

    init(megabytes: Int) throws {
        path = temporaryDirectory()
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m") == 0 else {
            throw OHKError(.storage, "cannot mount a tmpfs on \(path): errno \(errno)")
        }
    }

    func remove() {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    /// Writes a file until at most `leaving` bytes are free; returns its path.
    func fill(leaving: Int) throws -> String {
        let file = path + "/filler-\(UUID().uuidString)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw OHKError(.storage, "cannot create \(file)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 1, count: 64 << 10)
        while free() > leaving {
            let n = min(chunk.count, free() - leaving)
            if write(fd, chunk, max(n, 1)) <= 0 { break }
        }
        return file
    }

    func free() -> Int {
        var s = statvfs()
        statvfs(path, &s)
        return Int(s.f_bavail) * Int(s.f_frsize)
    }

    /// Whether this process may mount one (root, outside a locked-down container).
    static let canMount: Bool = {
        guard let t = try? Tmpfs(megabytes: 1) else { return false }
        t.remove()
        return true
    }()
}
