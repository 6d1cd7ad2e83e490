import Dispatch
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// Writer threads and writer processes at once, with live anchored
/// queries rebuilding the store from what they are told: when the writers
/// stop, each watcher's rebuilt set equals the store.
func stress(seconds: Double, directory: String) throws -> (saves: Int, watchersEqual: Int, watchers: Int, problems: [String]) {
    let store = try Store(directory: directory)
    defer { store.close() }
    final class Watcher: @unchecked Sendable {
        let lock = NSLockLike()
        var live = Set<UUID>()
        var anchor: QueryAnchor?
        var failure: String?
        func apply(_ result: Result<AnchoredQueryResult, OHKError>) {
            lock.locked {
                switch result {
                case .success(let r):
                    live.formUnion(r.samples.map(\.uuid))
                    live.subtract(r.deletedObjects.map(\.uuid))
                    anchor = r.newAnchor
                case .failure(let e): failure = "\(e)"
                }
            }
        }
    }
    let watchers = [Watcher(), Watcher()]
    for w in watchers {
        let q = AnchoredObjectQuery(type: Child.steps, anchor: nil, resultsHandler: { _, r in w.apply(r) },
                                    updateHandler: { _, r in w.apply(r) })
        try store.execute(q)
    }
    let processes = [ChildProcess(["writer", directory, "9001"]), ChildProcess(["writer", directory, "9002"])]
    let deadline = now() + seconds
    let saves = Counter()
    let group = DispatchGroup()
    for t in 0..<2 {
        DispatchQueue.global().async(group: group) {
            let seed = UInt64(9100 + t)
            var b = 0
            while now() < deadline {
                do {
                    try Child.writeStep(store, seed: seed, batch: b)
                    saves.add(1)
                } catch {
                    saves.problem("thread \(t): \(error)")
                }
                b += 1
            }
        }
    }
    // Read the children's output as it comes, so their pipes never fill.
    while now() < deadline { for p in processes { p.poll(milliseconds: 50) } }
    group.wait()
    for p in processes { saves.add(Child.marked(p.kill(), "S").count) }
    var problems = saves.problems
    let head = try store.currentAnchor()
    let truth = Set(try store.anchoredQuery(type: Child.steps, anchor: nil).samples.map(\.uuid))
    var equal = 0
    for w in watchers {
        let limit = now() + 60
        while now() < limit, w.lock.locked({ w.anchor.map { $0.position < head.position } ?? true }) { usleep(2000) }
        w.lock.locked {
            if let failure = w.failure { problems.append("watcher: \(failure)") }
            if w.live == truth { equal += 1 }
        }
    }
    return (saves.value, equal, watchers.count, problems)
}

/// A pthread mutex for the suite's own state.
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}

/// A count and the problems met, from several threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLockLike()
    private var count = 0
    private var found: [String] = []
    func add(_ n: Int) { lock.locked { count += n } }
    func problem(_ p: String) { lock.locked { found.append(p) } }
    var value: Int { lock.locked { count } }
    var problems: [String] { lock.locked { found } }
}
