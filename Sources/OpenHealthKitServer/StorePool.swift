#if Server
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitUpload

/// The people's stores this server has open: at most `capacity` at once
/// (each holds 4 descriptors and its map), opened on demand and closed
/// least recently used first when another is needed, so that a data
/// folder of any number of people fits under the descriptor limit. A
/// store in use (a request, a long poll, an event stream) is never closed
/// under it: when every open store is in use, a request for another is
/// refused with 503.
final class StorePool: @unchecked Sendable {
    let directory: String
    let capacity: Int
    private let durable: Bool

    private final class Entry: @unchecked Sendable {
        let store: Store
        let commits = CommitBroadcast()
        var users = 0
        var lastUse: UInt64 = 0
        var listener: CommitListener?
        /// Held while the listener starts, so that a second caller waits
        /// for it to run rather than returning before it does.
        let starting = Locked(())
        init(store: Store) { self.store = store }
    }

    private struct State {
        var open: [String: Entry] = [:]
        var clock: UInt64 = 0
        var closing = false
    }
    private let state = Locked(State())
    /// Serialises opening and closing stores (not their use).
    private let opening = Locked(())

    init(directory: String, capacity: Int, durable: Bool = true) {
        self.directory = directory
        self.capacity = capacity
        self.durable = durable
    }

    /// How many stores are open now.
    var openCount: Int { state.withLock { $0.open.count } }

    /// A lease on `person`'s store, opened when needed; with `create`, the
    /// store is made when the person has none (else 404). Blocking: call
    /// from a thread pool. Give it back with `release`.
    func acquire(_ person: String, create: Bool) throws -> Lease {
        if let lease = lease(person) { return lease }
        return try opening.withLock { _ throws -> Lease in
            if let lease = lease(person) { return lease }
            let dir = directory + "/" + person
            if !create && access(dir + "/data.mdb", F_OK) != 0 {
                throw APIError(.notFound, "no samples for \(person) yet: the first upload makes the store", field: "person")
            }
            try makeRoom()
            var options = StoreOptions()
            options.durable = durable
            let store: Store
            do { store = try Store(directory: dir, options: options) } catch {
                throw APIError(error)
            }
            let entry = Entry(store: store)
            return state.withLock { s in
                s.clock += 1
                entry.lastUse = s.clock
                entry.users = 1
                s.open[person] = entry
                return Lease(pool: self, person: person, store: store, commits: entry.commits)
            }
        }
    }

    private func lease(_ person: String) -> Lease? {
        state.withLock { s in
            guard let e = s.open[person] else { return nil }
            s.clock += 1
            e.lastUse = s.clock
            e.users += 1
            return Lease(pool: self, person: person, store: e.store, commits: e.commits)
        }
    }

    fileprivate func release(_ person: String) {
        state.withLock { s in s.open[person]?.users -= 1 }
    }

    /// Starts the store's commit listener for waiters (once per open store).
    fileprivate func listen(_ person: String) throws {
        guard let entry = state.withLock({ $0.open[person] }) else { return }
        try entry.starting.withLock { _ in
            guard state.withLock({ _ in entry.listener == nil }) else { return }
            let commits = entry.commits
            let listener = CommitListener { commits.committed() }
            try entry.store.execute(listener)  // published only once it runs
            state.withLock { _ in entry.listener = listener }
        }
    }

    /// Closes idle stores, least recently used first, until one more fits.
    private func makeRoom() throws(APIError) {
        while true {
            let victim = state.withLock { s -> Entry? in
                guard s.open.count >= capacity else { return nil }
                guard let (person, e) = s.open.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) else {
                    return Entry?.none
                }
                s.open[person] = nil
                return e
            }
            guard let victim else {
                if state.withLock({ $0.open.count < capacity }) { return }
                throw APIError(.serviceUnavailable, "all \(capacity) open stores are in use; try again (ohk serve --max-open-stores)")
            }
            victim.listener?.stop()
            victim.store.close()
        }
    }

    /// Wakes every waiter of every open store (the server is stopping).
    func wakeAll() {
        for e in state.withLock({ Array($0.open.values) }) { e.commits.committed() }
    }

    /// Closes every store (the server is stopping): waits for none.
    func closeAll() {
        let entries = state.withLock { s -> [Entry] in
            s.closing = true
            defer { s.open.removeAll() }
            return Array(s.open.values)
        }
        for e in entries {
            e.listener?.stop()
            e.store.close()
        }
    }
}

/// One use of a person's store; give it back with `release()`.
struct Lease: Sendable {
    fileprivate let pool: StorePool
    let person: String
    let store: Store
    let commits: CommitBroadcast

    func release() { pool.release(person) }

    /// Makes sure commits wake `commits` (for long polls and streams).
    func listenForCommits() throws { try pool.listen(person) }
}
#endif
