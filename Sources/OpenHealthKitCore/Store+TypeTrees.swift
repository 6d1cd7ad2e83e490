import FoundationEssentials

/// The store's type trees as a read needs them: opened when another
/// process created them, and the read run again.
extension Store {
    /// A read, again after opening a type tree another process created, or
    /// when another thread opened a handle after the read began.
    func readRetryingTrees<T>(_ body: (Txn) throws -> T) throws -> T {
        try operation {
            var stale = 0
            while true {
                do {
                    return try env.read(body)
                } catch let need as NeedTree {
                    try openTypeTree(need.typeID)
                } catch is StaleTree {
                    // A handle opened since this read began: read again. A
                    // handle that stays refused is not that; report it.
                    stale += 1
                    guard stale < 8 else { throw OHKError(.storage, "cannot open cursor: invalid tree handle") }
                }
            }
        }
    }

    /// The id and trees of `type`, nil when the store has never held one
    /// of its samples (one lock for both in the common case).
    func storedTrees(_ type: SampleType, _ txn: Txn) throws -> (UInt16, TypeTrees)? {
        if let (typeID, trees) = cache.withLock({ c in c.typeID(of: type).map { ($0, c.typeTrees[$0]) } }) {
            guard let trees else { throw NeedTree(typeID: typeID) }
            return (typeID, trees)
        }
        // Not in this process's cache: another process may have saved the type.
        guard let typeID = try existingTypeID(type, txn) else { return nil }
        guard let trees = cache.withLock({ $0.typeTrees[typeID] }) else { throw NeedTree(typeID: typeID) }
        return (typeID, trees)
    }

    /// Opens a type tree another process (or handle) created, one opening
    /// at a time in the process (`Environment.openingTrees`).
    func openTypeTree(_ typeID: UInt16) throws {
        let t = try env.openingTrees { txn in try WriteContext.openTypeTrees(txn, typeID, create: false) }
        cache.withLock { $0.typeTrees[typeID] = t }
    }
}
