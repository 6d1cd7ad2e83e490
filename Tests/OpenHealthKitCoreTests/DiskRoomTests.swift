import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// The map is writable (`MDB_WRITEMAP`): LMDB writes pages in place in a
/// sparse file, so a write a full disk cannot hold must be refused before
/// it writes, with an error, instead of ending the process with SIGBUS.
@Suite struct DiskRoomTests {
    @Test func aWriteTheDiskCannotHoldIsRefusedAndWritesNothing() throws {
        let store = try makeStore()
        defer { store.close() }
        let first = try stepSample(1)
        try store.save([first])
        store.env.room.freeBytes = { _ in 4 << 20 }
        let many = try (0..<10_000).map { try stepSample(Double($0), minute: $0 + 1) }
        #expect(diskSpaceRefusal { try store.save(many) })
        #expect(diskSpaceRefusal { try store.saveNew(many) })
        #expect(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs == [first.uuid])
        // A delete by predicate knows its size only after its scan.
        store.env.room.freeBytes = { _ in 1 << 30 }
        try store.save(many)
        store.env.room.freeBytes = { _ in 4 << 20 }
        #expect(diskSpaceRefusal { try store.delete(type: steps, predicate: nil) })
        #expect(diskSpaceRefusal { try store.delete(uuids: many.map(\.uuid)) })
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == 10_001)
        // What fits still goes through.
        try store.save([try stepSample(2, minute: 20_000)])
        try store.delete(uuids: [first.uuid])
        let now = try store.anchoredQuery(type: steps, anchor: nil)
        #expect(now.samples.count == 10_001 && now.deletedUUIDs == [first.uuid])
    }

    /// A real full file system: an 8 MB tmpfs (needs root to mount; skipped
    /// where mounting is not allowed). Saves go through until one is
    /// refused; everything saved before it is there, before and after
    /// reopening.
    @Test(.enabled(if: Tmpfs.canMount)) func aFullFileSystemRefusesTheSaveItCannotHold() throws {
        let mount = try Tmpfs(megabytes: 8)
        defer { mount.remove() }
        let dir = mount.path + "/store"
        let store = try makeStore(durable: true, mapSize: 64 << 20, directory: dir)
        var saved = 0
        var refused = false
        for round in 0..<200 where !refused {
            let batch = try (0..<1000).map { try stepSample(Double($0), minute: round * 1000 + $0) }
            if diskSpaceRefusal({ try store.save(batch) }) { refused = true } else { saved += 1000 }
        }
        #expect(refused && saved > 0)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).samples.count == saved)
        store.close()
        let again = try makeStore(durable: true, mapSize: 64 << 20, directory: dir)
        #expect(try again.anchoredQuery(type: steps, anchor: nil).samples.count == saved)
        again.close()
    }

    private func diskSpaceRefusal(_ body: () throws -> Void) -> Bool {
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

    /// Whether this process may mount one (root, outside a locked-down container).
    static let canMount: Bool = {
        guard let t = try? Tmpfs(megabytes: 1) else { return false }
        t.remove()
        return true
    }()
}
