import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// What a sink is called and how it delivers.
public struct SinkOptions: Sendable {
    /// Names the sink; one store may feed several (default `default`).
    public var name = "default"
    /// Names the person or store in the rows; nil: the store's id.
    public var person: String?
    /// Changes per PostgreSQL transaction.
    public var batchSize = 50_000

    public init() {}
}

/// How far a sink has come: counts since it started, and positions.
public struct SinkProgress: Sendable {
    /// Samples saved and objects deleted that this run delivered.
    public var saves = 0, deletions = 0
    /// Transactions committed.
    public var batches = 0
    /// The position committed in PostgreSQL, and the store's head when last read.
    public var position: UInt64 = 0, head: UInt64 = 0
    /// Where this run started.
    public var startPosition: UInt64 = 0
}

/// Delivers a store's changes into PostgreSQL exactly once (rule 61):
/// each batch of the change feed is one transaction holding the journal
/// rows, the deletions, the samples, and last the checkpoint, moved only
/// where the fence taken at start is still this sink's. The position is
/// read back from PostgreSQL at start and after any failure, never kept
/// on this side. One thread at a time.
public final class PostgresSink {
    public let store: Store
    public let name: String
    public let person: String
    /// This sink's fence: a sink started later with the same name and
    /// person takes a higher one, and this one's next commit fails.
    public private(set) var fence: Int64 = 0
    public private(set) var progress = SinkProgress()
    private let url: String
    private let batchSize: Int
    private var conn: PostgresConnection
    private var rows: SampleRows
    /// The committed checkpoint (nil: nothing delivered yet).
    private var anchor: QueryAnchor?

    /// Connects, creates the tables when missing, and takes the fence.
    /// `.connect` for an unreachable server, bad credentials or a missing
    /// database; `.checkpoint` when this name and person were fed by
    /// another store.
    public init(store: Store, url: String, options: SinkOptions = SinkOptions()) throws {
        guard !options.name.isEmpty, options.name.utf8.count <= 255 else {
            throw SinkError(.invalidArgument, "a sink name must be 1 to 255 bytes")
        }
        guard options.batchSize > 0 else {
            throw SinkError(.invalidArgument, "the batch size must be positive, got \(options.batchSize)")
        }
        self.store = store
        self.url = url
        name = options.name
        person = options.person ?? store.storeID.uuidString.lowercased()
        guard !person.isEmpty else { throw SinkError(.invalidArgument, "a person id must not be empty") }
        batchSize = options.batchSize
        rows = SampleRows(person: person, sink: name)
        conn = try PostgresConnection(url: url)
        try conn.execute(SinkSchema.create)
        try conn.execute(SinkSchema.staging)
        try claim()
        progress.startPosition = anchor?.position ?? 0
        progress.position = progress.startPosition
    }

    /// Takes a new fence for (person, name) and reads the checkpoint.
    private func claim() throws {
        try conn.execute("BEGIN")
        do {
            let existing = try conn.query("SELECT store_id FROM ohk_sink_checkpoints WHERE person = $1 AND sink = $2 FOR UPDATE",
                                          [person, name])
            if let id = existing.first?[0], UUID(uuidString: id) != store.storeID {
                throw SinkError(.checkpoint, "sink '\(name)' of person '\(person)' in \(conn.displayURL) is fed by store \(id), "
                                + "not this one (\(store.storeID.uuidString.lowercased())): give another --name or --person")
            }
            let row = try conn.query("""
                INSERT INTO ohk_sink_checkpoints (person, sink, fence, store_id) VALUES ($1, $2, 1, $3)
                ON CONFLICT (person, sink) DO UPDATE SET fence = ohk_sink_checkpoints.fence + 1, updated_at = now()
                RETURNING fence, anchor
                """, [person, name, store.storeID.uuidString])
            try conn.execute("COMMIT")
            fence = Int64(row[0][0] ?? "") ?? 0
            anchor = try row[0][1].map(checkpointAnchor)
        } catch {
            try? conn.execute("ROLLBACK")
            throw error
        }
    }

    private func checkpointAnchor(_ text: String) throws -> QueryAnchor {
        do {
            return try QueryAnchor(base64: text)
        } catch {
            throw SinkError(.checkpoint, "the checkpoint of sink '\(name)' of person '\(person)' is not an anchor: \(error)")
        }
    }

    /// Delivers every change up to the store's head as it is now, in
    /// batches; `onBatch` after each commit. Returns when caught up.
    public func deliverAvailable(onBatch: (SinkProgress) -> Void = { _ in }) throws {
        while try deliverBatch() { onBatch(progress) }
    }

    /// Reads one batch of changes and commits it; false when there was
    /// nothing to deliver.
    @discardableResult
    public func deliverBatch() throws -> Bool {
        let batch: ChangeBatch
        do {
            batch = try store.changes(after: anchor, limit: batchSize)
        } catch let e as OHKError {
            throw storeError(e)
        }
        progress.head = batch.head
        let from = anchor?.position ?? 0
        guard batch.count > 0 || batch.newAnchor.position != from else { return false }
        var deletions = 0
        do {
            try conn.execute("BEGIN")
            if batch.count > 0 {
                try conn.copy(SinkSchema.copyJournal) { w in deletions = try rows.journal(batch, into: &w) }
                if deletions > 0 {
                    try conn.query(SinkSchema.deleteJournaled, [person, name, String(from)])
                }
                if deletions < batch.count { try writeSamples(batch) }
            }
            // Last: the checkpoint, only where the fence is still ours.
            let moved = try conn.query("""
                UPDATE ohk_sink_checkpoints SET position = $1, anchor = $2, updated_at = now()
                WHERE person = $3 AND sink = $4 AND fence = $5 AND position = $6 RETURNING 1
                """, [String(batch.newAnchor.position), batch.newAnchor.base64, person, name, String(fence), String(from)])
            guard !moved.isEmpty else { throw SinkError(.fenced, fencedMessage) }
            try conn.execute("COMMIT")
            anchor = batch.newAnchor
            progress.position = batch.newAnchor.position
            progress.saves += batch.count - deletions
            progress.deletions += deletions
            progress.batches += 1
            return true
        } catch let e as SinkError {
            throw afterFailure(e)
        }
    }

    /// The batch's saved samples into `ohk_samples`: straight by COPY, as
    /// nearly always; when a UUID is already there (another sink of this
    /// person, or rows written by hand), through the staging table and an
    /// upsert instead.
    private func writeSamples(_ batch: ChangeBatch) throws {
        var saveRows: [Int] = []
        try conn.execute("SAVEPOINT direct")
        do {
            try conn.copy(SinkSchema.copySamples) { w in saveRows = try rows.samples(batch, into: &w) }
            try conn.execute("RELEASE SAVEPOINT direct")
            return
        } catch let e as SinkError where e.kind == .server && e.sqlState == SinkSchema.uniqueViolation {
            try conn.execute("ROLLBACK TO SAVEPOINT direct")
        } catch let e as SinkError where e.kind == .server {
            throw refusedRow(e, batch, saveRows)
        }
        do {
            try conn.copy(SinkSchema.copyStaging) { w in saveRows = try rows.samples(batch, into: &w) }
        } catch let e as SinkError where e.kind == .server {
            throw refusedRow(e, batch, saveRows)
        }
        try conn.execute(SinkSchema.upsert)
    }

    /// A failed batch: rolled back, and told apart from being fenced off.
    private func afterFailure(_ e: SinkError) -> SinkError {
        guard e.kind != .connectionLost, conn.isOpen else {
            return SinkError(.connectionLost, e.message + "; what was committed stays, and the next run resumes after it",
                             sqlState: e.sqlState)
        }
        try? conn.execute("ROLLBACK")
        if e.kind != .fenced, let row = try? conn.query("SELECT fence FROM ohk_sink_checkpoints WHERE person = $1 AND sink = $2",
                                                         [person, name]),
           let current = row.first?[0].flatMap({ Int64($0) }), current != fence {
            return SinkError(.fenced, fencedMessage)
        }
        return e
    }

    private var fencedMessage: String {
        "sink '\(name)' of person '\(person)' was fenced off by another started since (in \(conn.displayURL)); "
            + "this one stops, its last batch rolled back"
    }

    /// The sample behind a row PostgreSQL refused in a COPY of samples.
    private func refusedRow(_ e: SinkError, _ batch: ChangeBatch, _ saveRows: [Int]) -> SinkError {
        guard let (line, column) = e.copyRow, line >= 1, line <= saveRows.count,
              let s = batch.sample(at: saveRows[line - 1]) else { return e }
        return SinkError(.server, "PostgreSQL refused sample \(s.uuid.uuidString) (\(s.type.identifier), position "
                         + "\(batch.positions[saveRows[line - 1]])\(column.map { ", column \($0)" } ?? "")): \(e.message); "
                         + "the batch was rolled back and nothing after position \(anchor?.position ?? 0) was delivered",
                         sqlState: e.sqlState)
    }

    private func storeError(_ e: OHKError) -> Error {
        switch e.code {
        case .anchorExpired:
            return SinkError(.checkpoint, "deleted objects after the checkpoint of sink '\(name)' (position "
                             + "\(anchor?.position ?? 0)) were pruned from the store, so PostgreSQL can no longer be "
                             + "brought level by changes: drop this person's rows and the checkpoint, then deliver again")
        case .anchorFromFuture:
            return SinkError(.checkpoint, "the checkpoint of sink '\(name)' (position \(anchor?.position ?? 0)) is ahead "
                             + "of the store (was it restored from an older copy?)")
        case .anchorWrongStore:
            return SinkError(.checkpoint, "the checkpoint of sink '\(name)' belongs to another store: \(e.message)")
        default:
            return e
        }
    }

    /// Whether the connection broke (a server restart): `reconnect()` first.
    public var isBroken: Bool { !conn.isOpen }

    /// Reconnects after a lost connection and reads the checkpoint back,
    /// keeping this sink's fence: `.fenced` when another took over meanwhile.
    public func reconnect() throws {
        conn = try PostgresConnection(url: url)
        try conn.execute(SinkSchema.staging)
        let row = try conn.query("SELECT fence, anchor FROM ohk_sink_checkpoints WHERE person = $1 AND sink = $2", [person, name])
        guard let first = row.first, Int64(first[0] ?? "") == fence else { throw SinkError(.fenced, fencedMessage) }
        anchor = try first[1].map(checkpointAnchor)
        progress.position = anchor?.position ?? 0
    }

    /// Delivers until `shouldStop` says so: every change as it is
    /// committed, from any process. `shouldStop` is asked after each
    /// commit (a long backlog stops between batches) and at least every
    /// quarter second while idle. A lost connection is retried with
    /// backoff (0.5 s doubling to 30 s; `onRetry` is told), resuming from
    /// the checkpoint PostgreSQL holds; being fenced off, a refused row or
    /// a checkpoint that no longer fits stop it with the error.
    public func follow(shouldStop: @escaping () -> Bool, onBatch: (SinkProgress) -> Void = { _ in },
                       onRetry: (SinkError, Double) -> Void = { _, _ in }) throws {
        let waiter = CommitWaiter()
        try store.execute(waiter)
        defer { waiter.stop() }
        var backoff = 0.5
        while !shouldStop() {
            do {
                var delivered = false
                while !shouldStop(), try deliverBatch() {
                    onBatch(progress)
                    delivered = true
                }
                backoff = 0.5
                // A commit wakes it at once; the period only bounds how long a stop waits.
                if !delivered { waiter.wait(seconds: 0.25) }
            } catch let e as SinkError where e.kind == .connectionLost {
                onRetry(e, backoff)
                var slept = 0.0
                while slept < backoff && !shouldStop() {
                    usleep(100_000)
                    slept += 0.1
                }
                backoff = min(backoff * 2, 30)
                do { try reconnect() } catch let again as SinkError where again.kind == .connect || again.kind == .connectionLost {
                    continue  // still down: wait longer
                }
            }
        }
    }
}
