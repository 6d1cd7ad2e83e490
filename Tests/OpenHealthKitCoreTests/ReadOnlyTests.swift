import FoundationEssentials
import Glibc
import Testing
import TestSupport
@testable import OpenHealthKitCore

/// Rule 64: a store opened read-only reads as any handle does, refuses
/// every write, creates nothing, and needs only read access to its files.
@Suite struct ReadOnlyTests {
    private func readOnly() -> StoreOptions {
        var o = StoreOptions()
        o.readOnly = true
        return o
    }

    @Test func rule64_aReadOnlyHandleReadsAndRefusesEveryWrite() throws {
        let dir = temporaryDirectory()
        let writer = try Store(directory: dir)
        let kept = try stepSample(1)
        try writer.save([kept, try stepSample(2, minute: 1)])
        let reader = try Store(directory: dir, options: readOnly())
        defer { reader.close() }
        #expect(Set(try reader.anchoredQuery(type: steps, anchor: nil).sampleUUIDs).contains(kept.uuid))
        #expect(try reader.storeID == writer.storeID && reader.currentAnchor() == writer.currentAnchor())
        let writes: [(String, () throws -> Void)] = [
            ("save", { try reader.save([try stepSample(3, minute: 2)]) }),
            ("delete", { try reader.delete(uuids: [kept.uuid]) }),
            ("apply", { _ = try reader.apply(samples: [], deletions: [kept.uuid]) }),
            ("prune", { _ = try reader.pruneAll() }),
            ("register a custom type", { try reader.registerCustomType("org.example.mood", kind: .category(values: ["low": 0, "high": 1])) }),
        ]
        for (what, write) in writes {
            let e = try #require(throws: OHKError.self, "\(what)") { try write() }
            #expect(e.code == .readOnly && e.message.contains("read-only"), "\(what): \(e)")
        }
        writer.close()
        // Its reads go on after the writable handle closed.
        #expect(try reader.anchoredQuery(type: steps, anchor: nil).sampleUUIDs.count == 2)
    }

    @Test func rule64_aWritableOpenBesideAReadOnlyEnvironmentIsRefused() throws {
        let dir = temporaryDirectory()
        try Store(directory: dir).close()
        let reader = try Store(directory: dir, options: readOnly())
        let e = try #require(throws: OHKError.self) { try Store(directory: dir) }
        #expect(e.code == .readOnly && e.message.contains("close those handles"))
        reader.close()
        try Store(directory: dir).close()  // alone again, it opens
    }

    @Test func rule64_aReadOnlyOpenCreatesNothing() throws {
        let missing = temporaryDirectory() + "/never/made"
        let e = try #require(throws: OHKError.self) { try Store(directory: missing, options: readOnly()) }
        #expect(e.code == .storage && e.message.contains("does not create"))
        #expect(access(missing, F_OK) != 0)
    }

    /// A process that may not write the store's data reads it, is refused
    /// a save, and (with write access to LMDB's lock file alone) follows
    /// another process's commits live, then stops its watcher and closes.
    @Test(arguments: ["once", "live"])
    func rule64_aProcessThatCannotWriteTheStoreReadsIt(mode: String) throws {
        let dir = temporaryDirectory()
        let store = try Store(directory: dir)
        defer { store.close() }
        try store.save((0..<5).map { try stepSample(Double($0), minute: $0) })
        let program = try readOnlyProgram(in: dir)
        try chmodEach([dir: 0o755, dir + "/data.mdb": 0o444, dir + "/changes": 0o444,
                       dir + "/lock.mdb": mode == "live" ? 0o666 : 0o444])
        let before = try fileState(dir + "/data.mdb")
        guard let (pid, fd) = spawnWithOutput(program.path, program.arguments + ["read-only", dir, mode], mergeStderr: true) else {
            Issue.record("cannot start \(program.path)")
            return
        }
        defer { close(fd) }
        let lines = LineReader(fd, pid)
        #expect(lines.next() == "COUNT 5")
        #expect(lines.next() == "REFUSED readOnly")
        if mode == "live" {
            #expect(lines.next() == "LIVE")
            try store.save([try stepSample(9, minute: 9)])
            #expect(lines.next() == "UPDATE 1")
        } else {
            #expect(try fileState(dir + "/data.mdb") == before)
        }
        #expect(lines.next() == "CLOSED")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0, "the read-only process ended with \(status)")
    }

    /// The test writer, run as `nobody` when this process is root (root may
    /// write any file): a copy in `dir`, which `nobody` can reach wherever
    /// the build lies.
    private func readOnlyProgram(in dir: String) throws -> (path: String, arguments: [String]) {
        let copy = dir + "/ohk-test-writer"
        let r = run("/bin/cp", [siblingExecutable("ohk-test-writer"), copy], mergeStderr: true)
        guard r.status == 0 else { throw OHKError(.storage, "cannot copy the test writer: \(r.output)") }
        guard getuid() == 0 else { return (copy, []) }
        return ("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", copy])
    }

    private func chmodEach(_ modes: [String: mode_t]) throws {
        for (path, mode) in modes where chmod(path, mode) != 0 {
            throw OHKError(.storage, "chmod \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func fileState(_ path: String) throws -> [Int] {
        var st = stat()
        guard stat(path, &st) == 0 else { throw OHKError(.storage, "stat \(path)") }
        return [Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
    }
}

/// Lines of a child's output, read as they come; a line that does not
/// come within a minute ends the child and reads as "timed out".
private final class LineReader {
    private let fd: Int32
    private let pid: pid_t
    init(_ fd: Int32, _ pid: pid_t) { self.fd = fd; self.pid = pid }
    func next() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 60_000) == 1 else { kill(pid, SIGKILL); return "timed out" }
            guard read(fd, &byte, 1) == 1 else { break }
            if byte == 10 { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}
