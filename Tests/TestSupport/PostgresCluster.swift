import Glibc
import Synchronization

/// The throwaway PostgreSQL cluster of a test process: started on first
/// use by scripts/pg_cluster.sh (initdb in a temporary folder, a loopback
/// port), stopped when the process exits. A machine where it cannot start
/// fails the tests that need it, with the script's reason; they never skip.
public final class PostgresCluster: Sendable {
    /// The superuser's URL to the `postgres` database.
    public let url: String
    public let directory: String
    private let databases = Atomic<Int>(0)

    private static let started = Mutex<Result<PostgresCluster, ClusterError>?>(nil)

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The process's shared cluster, started on first call.
    public static func shared() throws -> PostgresCluster {
        try started.withLock { slot in
            if let slot { return try slot.get() }
            let result = Result { try start() }.mapError { $0 as! ClusterError }
            slot = result
            return try result.get()
        }
    }

    /// A cluster of the caller's own (for a test that restarts it); stop
    /// it with `stop()`, else it stops when the process exits.
    public static func start() throws -> PostgresCluster {
        let parent = temporaryDirectory()
        chmod(parent, 0o711)  // the server's user (nobody, under root) must reach its folder
        let dir = parent + "/pg"
        let r = run("/bin/bash", [script, "start", dir], mergeStderr: true)
        guard r.status == 0 else { throw ClusterError(description: "cannot start PostgreSQL (scripts/pg_cluster.sh): \(r.output)") }
        // Stopped before the temporary folders go (atexit runs last-registered first).
        running.withLock { dirs in
            if dirs.isEmpty { atexit { PostgresCluster.stopAtExit() } }
            dirs.insert(dir)
        }
        return PostgresCluster(url: r.output.split(separator: "\n").last.map(String.init) ?? "", directory: dir)
    }

    /// Stops the server.
    public func stop() {
        _ = run("/bin/bash", [Self.script, "stop", directory], mergeStderr: true)
        _ = Self.running.withLock { $0.remove(directory) }
    }

    private init(url: String, directory: String) {
        self.url = url
        self.directory = directory
    }

    /// The clusters still running, stopped at exit.
    private static let running = Mutex<Set<String>>([])

    private static func stopAtExit() {
        for dir in running.withLock({ $0 }) { _ = run("/bin/bash", [script, "stop", dir], mergeStderr: true) }
    }

    /// scripts/pg_cluster.sh of this repository.
    static var script: String {
        let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.dropLast(3).joined(separator: "/") + "/scripts/pg_cluster.sh"
    }

    /// A new, empty database of its own for one test; its URL.
    public func newDatabase() throws -> String {
        let name = "ohk_test_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
        _ = try psql(url, "CREATE DATABASE \(name)")
        return String(url[..<url.lastIndex(of: "/")!]) + "/" + name
    }

    /// Runs SQL with psql; the rows, `|`-separated, one per line.
    public func psql(_ url: String, _ sql: String) throws -> String {
        let r = run("/usr/bin/psql", [url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], mergeStderr: true)
        guard r.status == 0 else { throw ClusterError(description: "psql failed (\(r.status)): \(r.output)") }
        return r.output
    }

    /// Stops and starts the server again, on the same port.
    public func restart() throws {
        let r = run("/bin/bash", [Self.script, "restart", directory], mergeStderr: true)
        guard r.status == 0 else { throw ClusterError(description: "cannot restart PostgreSQL: \(r.output)") }
    }
}
