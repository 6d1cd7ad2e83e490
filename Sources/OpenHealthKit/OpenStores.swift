import Foundation
import OpenHealthKitCore

/// One core store per directory in this process, shared by every
/// `HKHealthStore` on it: programs written for HealthKit make
/// `HKHealthStore()` wherever they need one, and one `Store` keeps one
/// watcher thread and one cache for all of them. (Two `Store`s on one
/// store would be safe too: the core shares the LMDB environment, rule 19
/// of docs/semantics.md.) The store closes when its last `HKHealthStore`
/// closes or goes.
enum OpenStores {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var open: [String: (store: Store, users: Int)] = [:]

    /// The store of `directory`, opened when no one has it open.
    static func retain(_ directory: String) throws -> (key: String, store: Store) {
        let key = URL(fileURLWithPath: directory).standardizedFileURL.path
        return try lock.withLock {
            if let entry = open[key] {
                open[key] = (entry.store, entry.users + 1)
                return (key, entry.store)
            }
            let store = try Store(directory: directory)
            open[key] = (store, 1)
            return (key, store)
        }
    }

    /// One user fewer; the last one closes the store.
    static func release(_ key: String) {
        let last: Store? = lock.withLock {
            guard let entry = open[key] else { return nil }
            if entry.users > 1 {
                open[key] = (entry.store, entry.users - 1)
                return nil
            }
            open[key] = nil
            return entry.store
        }
        last?.close()
    }
}
