import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitPostgres
import TestSupport

let steps = try! SampleType.named("HKQuantityTypeIdentifierStepCount")
let heartRate = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")
let sleep = try! SampleType.named("HKCategoryTypeIdentifierSleepAnalysis")
let appA = Source(bundleIdentifier: "com.example.a", name: "A", version: "1.0")
let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch")
let t0 = Date(timeIntervalSinceReferenceDate: 700_000_000)

func makeStore() throws -> Store {
    var o = StoreOptions()
    o.durable = false
    o.mapSize = 64 << 20
    return try Store(directory: temporaryDirectory(), options: o)
}

func stepSample(_ value: Double, minute: Int, metadata: [String: MetadataValue] = [:]) throws -> Sample {
    try Sample.quantity(steps, value: value, unit: HealthUnit("count"), start: t0.addingTimeInterval(Double(minute) * 60),
                        end: t0.addingTimeInterval(Double(minute) * 60 + 60), source: appA, device: watch,
                        metadata: metadata, utcOffset: 3600)
}

func synced(_ id: String, _ version: Double) -> [String: MetadataValue] {
    [MetadataKey.syncIdentifier: .string(id), MetadataKey.syncVersion: .number(version)]
}

/// A database of its own on the test process's cluster.
func newDatabase() throws -> (PostgresCluster, String) {
    let cluster = try PostgresCluster.shared()
    return (cluster, try cluster.newDatabase())
}

/// The `ohk` built beside the tests.
let ohkPath = siblingExecutable("ohk")

/// Random saves, deletions and sync replacements, as a person's store sees them.
struct ChangeMaker {
    var rng: Rng
    var live: [Sample] = []
    var minute = 0
    var syncVersions: [String: Double] = [:]

    init(seed: UInt64) { rng = Rng(state: seed) }

    /// One commit: a few new samples (some synced, some sleep), perhaps a
    /// deletion, perhaps a replacement of a synced sample.
    mutating func commit(_ store: Store) throws {
        var batch: [Sample] = []
        for _ in 0..<(1 + rng.int(4)) {
            minute += 1
            if rng.chance(0.2) {
                batch.append(try Sample.category(sleep, value: rng.int(3), start: t0.addingTimeInterval(Double(minute) * 60),
                                                 end: t0.addingTimeInterval(Double(minute) * 60 + 30), source: appA))
            } else if rng.chance(0.3) {
                let id = "s\(rng.int(20))"
                let v = (syncVersions[id] ?? 0) + 1
                syncVersions[id] = v
                batch.append(try stepSample(Double(rng.int(500) + 1), minute: minute, metadata: synced(id, v)))
            } else {
                batch.append(try stepSample(Double(rng.int(500) + 1), minute: minute))
            }
        }
        _ = try store.save(batch)
        live += batch
        if rng.chance(0.4), !live.isEmpty {
            let victim = live.remove(at: rng.int(live.count))
            try? store.delete(uuids: [victim.uuid])  // a replaced one is gone already
        }
    }
}

/// What PostgreSQL holds for a sink against the store (rule 61): the
/// live samples exactly (by UUID and position); every change of the
/// store's feed once in the journal, in order; journal rows beyond the
/// feed only for saves deleted since; the checkpoint at the head.
/// Returns the problems found (empty when it mirrors).
func mirrorProblems(_ store: Store, _ cluster: PostgresCluster, _ db: String, person: String,
                    sink: String = "default") throws -> [String] {
    let feed = try store.changes(after: nil)
    var live: [String: UInt64] = [:], changes: [UInt64: (String, String)] = [:], deletedAt: [String: UInt64] = [:]
    feed.forEach { c in
        let uuid = c.fields.uuid.uuidString.lowercased()
        changes[c.position] = (c.isDeletion ? "delete" : "save", uuid)
        if c.isDeletion { deletedAt[uuid] = c.position } else { live[uuid] = c.position }
    }
    var problems: [String] = []
    let rows = try cluster.psql(db, "SELECT uuid, position FROM ohk_samples WHERE person = '\(person)'")
    var stored: [String: UInt64] = [:]
    for line in rows.split(separator: "\n") {
        let f = line.split(separator: "|")
        if stored.updateValue(UInt64(f[1])!, forKey: String(f[0])) != nil { problems.append("sample \(f[0]) twice") }
    }
    if stored != live {
        problems.append("ohk_samples differs: \(Set(stored.keys).symmetricDifference(live.keys).count) UUIDs, "
                        + "\(stored.count) rows against \(live.count) live samples")
    }
    let journal = try cluster.psql(db, "SELECT position, kind, uuid FROM ohk_changes WHERE person = '\(person)' "
                                   + "AND sink = '\(sink)' ORDER BY position")
    var seen = Set<UInt64>()
    for line in journal.split(separator: "\n") {
        let f = line.split(separator: "|").map(String.init)
        let position = UInt64(f[0])!
        seen.insert(position)
        if let (kind, uuid) = changes[position] {
            if kind != f[1] || uuid != f[2] { problems.append("journal position \(position) is \(f[1]) \(f[2]), the store's is \(kind) \(uuid)") }
        } else if f[1] != "save" || (deletedAt[f[2]] ?? 0) <= position {
            problems.append("journal position \(position) (\(f[1]) \(f[2])) is no change of the store")
        }
    }
    let missing = Set(changes.keys).subtracting(seen)
    if !missing.isEmpty { problems.append("\(missing.count) changes never journaled, first \(missing.min()!)") }
    let checkpoint = try cluster.psql(db, "SELECT position FROM ohk_sink_checkpoints WHERE person = '\(person)' AND sink = '\(sink)'")
    if UInt64(checkpoint.split(separator: "\n").first ?? "") != feed.newAnchor.position {
        problems.append("checkpoint \(checkpoint) is not the head \(feed.newAnchor.position)")
    }
    return problems
}

/// Waits until `condition` holds, at most `seconds`; whether it did.
func eventually(seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    var waited = 0.0
    while waited < seconds {
        if try condition() { return true }
        usleep(20_000)
        waited += 0.02
    }
    return try condition()
}

/// One round of a kill loop: starts `ohk args`, lets `write` commit,
/// then SIGKILLs it at a moment drawn between `from` and 1.1 of the
/// time a run takes (`runMicroseconds`, updated from the runs that end
/// by themselves). Nil when ohk cannot start; else whether the kill
/// came first, and otherwise its exit status and output.
func killRound(_ args: [String], rng: inout Rng, runMicroseconds: inout Double, from: Double = 0,
               write: () throws -> Void) rethrows -> (killed: Bool, status: Int32, output: String)? {
    guard let (pid, out) = spawnWithOutput(ohkPath, args, mergeStderr: true) else { return nil }
    var started = timespec()
    clock_gettime(CLOCK_MONOTONIC, &started)
    try write()
    let earliest = Int(runMicroseconds * from)
    usleep(UInt32(earliest + rng.int(max(1, Int(runMicroseconds * 1.1) - earliest))))  // the kill's moment, not a wait for anything
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let text = readToEnd(out)
    close(out)
    if status & 0x7f == SIGKILL { return (true, 0, text) }
    var ended = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ended)
    let took = Double(ended.tv_sec - started.tv_sec) * 1e6 + Double(ended.tv_nsec - started.tv_nsec) / 1e3
    runMicroseconds = 0.7 * runMicroseconds + 0.3 * took
    return (false, (status >> 8) & 0xff, text)
}

/// One round of a kill loop aimed inside the copying: starts `ohk args`,
/// lets `write` commit, waits for `progressed` (the event: a batch has
/// landed), then SIGKILLs at a moment drawn below 1.2 of the time a run
/// takes from there to its end (`tailMicroseconds`, updated from runs
/// that end by themselves). A timer alone lands most kills in the start
/// on a loaded machine; this one waits on the event, with a bound.
/// Nil when ohk cannot start, or neither copies nor ends in a minute.
func killRoundAfterProgress(_ args: [String], rng: inout Rng, tailMicroseconds: inout Double,
                            write: () throws -> Void, progressed: () throws -> Bool)
    rethrows -> (killed: Bool, status: Int32, output: String)? {
    guard let (pid, out) = spawnWithOutput(ohkPath, args, mergeStderr: true) else { return nil }
    defer { close(out) }
    try write()
    var status: Int32 = 0
    var reaped = false
    var began = timespec(), seen = timespec()
    clock_gettime(CLOCK_MONOTONIC, &began)
    // A minute by the clock: `progressed` may be slow (a psql process).
    while try !progressed() {
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true; break }
        clock_gettime(CLOCK_MONOTONIC, &seen)
        guard seen.tv_sec - began.tv_sec < 60 else { kill(pid, SIGKILL); waitpid(pid, nil, 0); return nil }
        usleep(100)
    }
    clock_gettime(CLOCK_MONOTONIC, &seen)
    if !reaped {
        usleep(UInt32(rng.int(max(1, Int(tailMicroseconds * 1.2)))))  // the kill's moment, not a wait for anything
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
    let text = readToEnd(out)
    if status & 0x7f == SIGKILL { return (true, 0, text) }
    var ended = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ended)
    let took = Double(ended.tv_sec - seen.tv_sec) * 1e6 + Double(ended.tv_nsec - seen.tv_nsec) / 1e3
    if !reaped { tailMicroseconds = 0.7 * tailMicroseconds + 0.3 * took }
    return (false, (status >> 8) & 0xff, text)
}
