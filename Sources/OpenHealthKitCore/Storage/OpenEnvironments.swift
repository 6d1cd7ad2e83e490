import Glibc

/// The LMDB environments this process has open, one per store file, shared
/// by every `Store` handle on it and closed with the last.
///
/// LMDB's rule (its manual, "Caveats"): a process must not open one
/// environment twice. Its readers' and writer's locks are POSIX record
/// locks on `lock.mdb`, which the kernel keeps per process and drops when
/// the process closes *any* descriptor of the file. Two environments on
/// one store in a process (a notebook re-running a cell, two handles in a
/// program) meant that closing either dropped the locks of the other; the
/// next process to open the store then believed itself alone, reset the
/// lock table and wrote beside a live writer, losing acknowledged saves.
///
/// A store is known by the device and inode of its `data.mdb`, so every
/// path to it (a symlink, `..`, a bind mount) finds the same environment.
/// The file stays open while its environment is, so its inode cannot be
/// reused by another store meanwhile.
enum OpenEnvironments {
    struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let table = Locked<[Key: (environment: Environment, users: Int)]>([:])

    /// The environment of the store in `directory`, opened when this
    /// process has none on it yet. The options of the first opener decide
    /// the map's first size and whether commits sync (`Environment.write`
    /// syncs for a durable handle on a non-durable environment). A
    /// read-only handle shares a writable environment (the handle refuses
    /// writes); a writable one cannot share a read-only environment.
    static func acquire(directory: String, mapSize: Int, maxTrees: UInt32, durable: Bool,
                        checkPages: Bool = true, readOnly: Bool = false) throws -> Environment {
        try table.withLock { open in
            if let key = key(directory), let entry = open[key] {
                guard readOnly || !entry.environment.readOnly else {
                    throw OHKError(.readOnly, "this process has the store at \(directory) open read-only: "
                                   + "close those handles before opening it for writing")
                }
                open[key] = (entry.environment, entry.users + 1)
                return entry.environment
            }
            let environment = try Environment(path: directory, mapSize: mapSize, maxTrees: maxTrees, durable: durable,
                                              readOnly: readOnly)
            if checkPages {
                // LMDB trusts its pages: walk them in the snapshot a read
                // pins, before anything else reads them. A store that kept
                // changing under every try is opened unwalked.
                let problems: [String]
                do {
                    problems = try environment.read { txn in
                        PageWalk.checkIfConclusive(file: directory + "/data.mdb", txnID: UInt64(txn.id), limit: 1) ?? []
                    }
                } catch {
                    environment.close()
                    throw error
                }
                if let p = problems.first {
                    environment.close()
                    throw OHKError(.storeCorrupt, "the store at \(directory) is damaged: \(p) (`ohk check` names every problem)")
                }
            }
            guard let key = key(directory) else {
                environment.close()
                throw OHKError(.storage, "cannot read \(directory)/data.mdb after opening it: \(String(cString: strerror(errno)))")
            }
            environment.key = key
            open[key] = (environment, 1)
            return environment
        }
    }

    /// One handle fewer on `environment`; the last one closes it.
    static func release(_ environment: Environment) {
        let last = table.withLock { open -> Environment? in
            guard let key = environment.key, let entry = open[key], entry.environment === environment else {
                return environment
            }
            if entry.users > 1 {
                open[key] = (environment, entry.users - 1)
                return nil
            }
            open[key] = nil
            return environment
        }
        last?.close()
    }

    /// How many handles share the environment of `directory` (for tests).
    static func users(of directory: String) -> Int {
        table.withLock { open in key(directory).flatMap { open[$0]?.users } ?? 0 }
    }

    private static func key(_ directory: String) -> Key? {
        var st = stat()
        guard stat(directory + "/data.mdb", &st) == 0 else { return nil }
        return Key(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}
