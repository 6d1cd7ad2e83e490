import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// What an open store holds of its process (docs/architecture.md, "What
/// one process holds"): four file descriptors, all given back on close.
@Suite struct ProcessResourcesTests {
    /// The process's descriptors open on files under `directory`
    /// (other tests, running at the same time, open their own elsewhere).
    private func descriptors(under directory: String) -> Int {
        guard let d = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(d) }
        var n = 0
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            var target = [CChar](repeating: 0, count: 4096)
            let k = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            guard k > 0 else { continue }
            let path = String(decoding: target[..<k].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if path.hasPrefix(directory + "/") { n += 1 }
        }
        return n
    }

    @Test func aStoreHoldsFourDescriptorsUntilItCloses() throws {
        let root = temporaryDirectory()
        let stores = try (0..<64).map { i in try makeStore(directory: "\(root)/person-\(i)") }
        // data.mdb twice (LMDB's reads and its synchronous meta writes), lock.mdb, changes.
        #expect(descriptors(under: root) == 64 * 4)
        // A live query adds no descriptor.
        let query = ObserverQuery(descriptors: [QueryDescriptor(type: steps)]) { _, _, _ in }
        try stores[0].execute(query)
        #expect(descriptors(under: root) == 64 * 4)
        query.stop()
        for s in stores { s.close() }
        #expect(descriptors(under: root) == 0)
    }
}
