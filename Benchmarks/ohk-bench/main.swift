// ohk-bench: the reference workload (docs/benchmarks.md) on the
// core's Swift API, phases 1, 1b and 2-8, one JSON line per phase.
//   ohk-bench --n 1000000 --dir /path/to/fresh/dir [--phases 1,1b,2,3,4,5,6,7,8] [--keep-bulk]
// (`--phases 1b,sync` also copies phase 1b's store by `Store.sync`.)
// (`--keep-bulk` leaves phase 1b's store in DIR-bulk, to time `ohk check` on it.)
// (`--writer DIR START COUNT` is the second process of phase 7.)
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import Workload

var n: UInt64 = 1_000_000
var dir = "/tmp/ohk-bench"
var phases: Set<String> = ["1", "1b", "2", "3", "4", "5", "6", "7", "8"]
var keepBulk = false
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--n": n = UInt64(args.popFirst() ?? "") ?? n
    case "--dir": dir = args.popFirst() ?? dir
    case "--writer":
        let a = Array(args)
        guard a.count == 3, let start = UInt64(a[1]), let count = UInt64(a[2]) else { exit(2) }
        runWriter(dir: a[0], start: start, count: count)
    case "--phases": phases = Set((args.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--keep-bulk": keepBulk = true
    default: print("usage: ohk-bench [--n N] [--dir DIR] [--phases 1,1b,2,...] [--keep-bulk]"); exit(2)
    }
}

signal(SIGPIPE, SIG_IGN)  // a dead writer process is reported, not fatal
var allOK = true
var anonByPhase: [(String, Double)] = []
func rssAnonMB() -> Double {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(cString: line)
        if s.hasPrefix("RssAnon:") {
            return Double(s.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0) / 1024
        }
    }
    return 0
}
func emit(_ phase: String, _ fields: String, ok: Bool = true) {
    if !ok { allOK = false }
    print("{\"system\":\"openhealthkit-swift\",\"phase\":\"\(phase)\",\"n\":\(n),\(fields),\"ok\":\(ok)}")
    fflush(stdout)
    anonByPhase.append((phase, rssAnonMB()))
}
func f1(_ x: Double) -> String { String(Double(Int(x * 10)) / 10) }
func dirBytes(_ path: String) -> UInt64 {
    guard let d = opendir(path) else { return 0 }
    defer { closedir(d) }
    var total: UInt64 = 0
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name == "." || name == ".." { continue }
        var st = stat()
        if lstat(path + "/" + name, &st) == 0 { total += UInt64(st.st_blocks) * 512 }
    }
    return total
}
/// Runs a query `runs` times: the median wall time in seconds, and how
/// many samples the last run returned.
func medianOfRuns(_ runs: Int, _ query: () throws -> AnchoredQueryResult) rethrows -> (seconds: Double, count: Int) {
    var times: [Double] = []
    var count = 0
    for _ in 0..<runs {
        let t = now()
        count = try query().samples.count
        times.append(now() - t)
    }
    times.sort()
    return (percentile(times, 0.5), count)
}

var options = StoreOptions()
options.mapSize = 1 << 30
let store = try Store(directory: dir, options: options)

// Phase 1: ingest, durable transactions of 1,000 (the later phases read
// its store; leave it out only to time phase 1b alone).
var t0 = now()
var i: UInt64 = phases.contains("1") ? 0 : n
while i < n {
    let end = min(n, i + 1000)
    try store.save((i..<end).lazy.map { Workload.sample($0) })
    i = end
}
let ingestSeconds = now() - t0
if phases.contains("1") { emit("ingest", "\"per_s\":\(Int(Double(n) / ingestSeconds)),\"seconds\":\(ingestSeconds)") }
let bytesAfterIngest = dirBytes(dir)

// Phase 1b: bulk ingest into a second store, transactions of 100,000.
if phases.contains("1b") {
    let bulkDir = dir + "-bulk"
    let bulk = try Store(directory: bulkDir, options: options)
    t0 = now()
    i = 0
    while i < n {
        let end = min(n, i + 100_000)
        try bulk.save((i..<end).lazy.map { Workload.sample($0) })
        i = end
    }
    let secs = now() - t0
    let got = try bulk.anchoredQuery(type: Workload.steps, anchor: nil)
    let fp = Workload.consume(got.samples).fingerprint
    var expected: UInt64 = 0
    for k in 0..<n where Workload.isStep(k) { expected &+= Workload.hashOf(k) }
    let bytes = dirBytes(bulkDir)
    emit("bulk_ingest", "\"per_s\":\(Int(Double(n) / secs)),\"seconds\":\(secs),\"bytes_per_sample\":\(f1(Double(bytes) / Double(n)))",
         ok: fp == expected)
    if phases.contains("sync") { try syncPhase(source: bulk, dir: dir, n: n, options: options) }
    bulk.close()
    if !keepBulk { system("rm -rf '\(bulkDir)'") }
}

// Every later phase reads phase 1's store.
guard phases.contains("1") else { store.close(); exit(allOK ? 0 : 1) }

// Phase 2: full read from a nil anchor.
var expectedSteps: UInt64 = 0
var stepCount = 0
for k in 0..<n where Workload.isStep(k) { expectedSteps &+= Workload.hashOf(k); stepCount += 1 }
if getenv("OHK_WARM") != nil {
    for _ in 0..<3 {
        let t = now(); let r = try store.anchoredQuery(type: Workload.steps, anchor: nil); let q = now() - t
        _ = Workload.consume(r.samples); print("warm query", q, "total", now() - t)
    }
}
// The result is held until emit has read RssAnon, then dropped, as a
// caller keeping only the anchor would (a top-level `let` would keep its
// 800,000 samples alive through every later phase).
var secs = 0.0
let a1: QueryAnchor = try {
    t0 = now()
    let full = try store.anchoredQuery(type: Workload.steps, anchor: nil)
    let fullStats = Workload.consume(full.samples)
    secs = now() - t0
    emit("full_read", "\"per_s\":\(Int(Double(fullStats.count) / secs)),\"seconds\":\(secs),\"count\":\(fullStats.count),\"expected\":\(stepCount)",
         ok: fullStats.count == stepCount && fullStats.fingerprint == expectedSteps)
    return full.newAnchor
}()

// Phase 3: batches of 1,000 until an empty one.
if phases.contains("3") {
    t0 = now()
    var anchor: QueryAnchor? = nil
    var total = 0, batches = 0
    var fp: UInt64 = 0
    while true {
        let r = try store.anchoredQuery(type: Workload.steps, anchor: anchor, limit: 1000)
        let s = Workload.consume(r.samples)
        batches += 1
        total += s.count
        fp &+= s.fingerprint
        anchor = r.newAnchor
        if r.samples.isEmpty && r.deletedObjects.isEmpty { break }
    }
    secs = now() - t0
    emit("batched_read", "\"per_s\":\(Int(Double(total) / secs)),\"seconds\":\(secs),\"count\":\(total),\"batches\":\(batches)",
         ok: total == stepCount && fp == expectedSteps)
}

// Phase 4: 1,000 rounds of {save 10; query from the previous anchor}.
if phases.contains("4") {
    var anchor = a1
    var lat: [Double] = []
    var bad = 0
    for round in 0..<UInt64(1000) {
        let base = n + round * 10
        try store.save((base..<base + 10).map { Workload.sample($0, forceSteps: true) })
        let t = now()
        let r = try store.anchoredQuery(type: Workload.steps, anchor: anchor)
        lat.append((now() - t) * 1e6)
        var fp: UInt64 = 0
        for k in 0..<r.samples.count { fp &+= Workload.hash(r.samples.uuid(at: k)) }
        var want: UInt64 = 0
        for k in base..<base + 10 { want &+= Workload.hashOf(k) }
        if r.samples.count != 10 || !r.deletedObjects.isEmpty || fp != want { bad += 1 }
        anchor = r.newAnchor
    }
    lat.sort()
    emit("delta", "\"median_us\":\(f1(percentile(lat, 0.5))),\"p99_us\":\(f1(percentile(lat, 0.99))),\"max_us\":\(f1(lat.last!)),\"rounds\":1000,\"bad_rounds\":\(bad)",
         ok: bad == 0)
}

// Phase 5: delete every 10th step sample (by ordinal), 1,000 per transaction; query from A1.
if phases.contains("5") {
    let victims = (0..<n).filter(Workload.isDeleted)
    t0 = now()
    var k = 0
    while k < victims.count {
        let end = min(victims.count, k + 1000)
        try store.delete(uuids: victims[k..<end].map { Workload.uuid($0) })
        k = end
    }
    secs = now() - t0
    let tq = now()
    let r = try store.anchoredQuery(type: Workload.steps, anchor: a1)
    let qms = (now() - tq) * 1000
    let added = phases.contains("4") ? 10_000 : 0
    var fpDel: UInt64 = 0
    for d in r.deletedObjects { fpDel &+= Workload.hash(d.uuid) }
    var wantDel: UInt64 = 0
    for v in victims { wantDel &+= Workload.hashOf(v) }
    emit("delete", "\"per_s\":\(Int(Double(victims.count) / secs)),\"seconds\":\(secs),\"deleted\":\(victims.count),\"query_ms\":\(String(Double(Int(qms * 100)) / 100)),\"query_deleted_objects\":\(r.deletedObjects.count),\"query_samples\":\(r.samples.count)",
         ok: r.deletedObjects.count == victims.count && fpDel == wantDel && r.samples.count == added)
}

// Phase 6: the middle 1 % of the remaining step samples by start date.
if phases.contains("6") {
    var remaining: [UInt64] = (0..<n).filter { Workload.isStep($0) && !(phases.contains("5") && Workload.isDeleted($0)) }
    if phases.contains("4") { remaining += (n..<n + 10_000) }
    let r = remaining.count, kk = r / 100, lo = (r - kk) / 2
    let tLo = Workload.startMs(remaining[lo]), tHi = Workload.startMs(remaining[lo + kk - 1])
    var want: UInt64 = 0
    for k in lo..<lo + kk { want &+= Workload.hashOf(remaining[k]) }
    let pred = SamplePredicate.and([.startDate(.greaterThanOrEqual, Date(timeIntervalSince1970: Double(tLo) / 1000)),
                              .startDate(.lessThan, Date(timeIntervalSince1970: Double(tHi + 1) / 1000))])
    t0 = now()
    let res = try store.anchoredQuery(type: Workload.steps, predicate: pred, anchor: nil)
    let s = Workload.consume(res.samples)
    let ms = (now() - t0) * 1000
    // The same query warm, 30 times: a steadier figure than the single cold one.
    let warm = try medianOfRuns(30) { try store.anchoredQuery(type: Workload.steps, predicate: pred, anchor: nil) }
    // The same predicate from an anchor 1 % of the store before the head:
    // only the changes since then are read, and none is in the range.
    let head = try store.currentAnchor().position
    let near = QueryAnchor(fromValue: Int(head - n / 100))
    let nearHead = try medianOfRuns(100) { try store.anchoredQuery(type: Workload.steps, predicate: pred, anchor: near) }
    emit("predicate", "\"ms\":\(String(Double(Int(ms * 1000)) / 1000)),\"warm_median_ms\":\(String(Double(Int(warm.seconds * 1e6)) / 1000)),\"count\":\(s.count),\"expected\":\(kk),\"near_head_median_us\":\(f1(nearHead.seconds * 1e6)),\"near_head_count\":\(nearHead.count)",
         ok: s.count == kk && s.fingerprint == want && nearHead.count == 0)

    // 100 of the same step samples by UUID from a nil anchor, which the
    // planner reads through the UUID index instead of walking the store.
    let picked = stride(from: 0, to: remaining.count, by: max(1, remaining.count / 100)).prefix(100).map { remaining[$0] }
    let byUUID = SamplePredicate.uuids(Set(picked.map(Workload.uuid)))
    let lookups = try medianOfRuns(100) { try store.anchoredQuery(type: Workload.steps, predicate: byUUID, anchor: nil) }
    emit("uuid_predicate", "\"uuids\":\(picked.count),\"median_us\":\(f1(lookups.seconds * 1e6)),\"count\":\(lookups.count)",
         ok: lookups.count == picked.count)
}

// Phase 7: observer latency, in-process then from a second process, and
// the CPU of 10 idle observers.
if phases.contains("7") {
    let inProc = try observerInProcess(store, n: n)
    var lat = inProc.lat.sorted()
    emit("observer", "\"mode\":\"in_process\",\"median_us\":\(f1(percentile(lat, 0.5))),\"p99_us\":\(f1(percentile(lat, 0.99))),\"max_us\":\(f1(lat.last ?? 0)),\"mechanism\":\"the commit wakes the query thread (condvar); other processes through a futex\"",
         ok: inProc.ok && lat.count == 1000)
    let cross = try observerCrossProcess(store, n: n, dir: dir)
    lat = cross.lat.sorted()
    emit("observer", "\"mode\":\"cross_process\",\"median_us\":\(f1(percentile(lat, 0.5))),\"p99_us\":\(f1(percentile(lat, 0.99))),\"max_us\":\(f1(lat.last ?? 0)),\"mechanism\":\"second process saves; futex wake through the store's changes file\"",
         ok: cross.ok && lat.count == 1000)
    let idle = try idleObserverCPU(store)
    emit("observer_idle", "\"observers\":10,\"seconds\":10,\"cpu_ms\":\(f1(idle))", ok: idle <= 20)
}

// Phase 8: size and memory.
var usage = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
let peakAnon = max(anonByPhase.map(\.1).max() ?? 0, rssAnonMB())
let perPhase = anonByPhase.map { "\"\($0.0)\":\(f1($0.1))" }.joined(separator: ",")
emit("size", "\"bytes_per_sample\":\(f1(Double(bytesAfterIngest) / Double(n))),\"disk_bytes_after_ingest\":\(bytesAfterIngest),\"peak_rss_mb\":\(f1(Double(usage.ru_maxrss) / 1024)),\"peak_anon_mb\":\(f1(peakAnon)),\"anon_mb_at_phase_end\":{\(perPhase)}")
store.close()
exit(allOK ? 0 : 1)
