// hk-bench: phases 2-4 of the reference workload (docs/benchmarks.md)
// through the HealthKit-shaped API (`import OpenHealthKit`), each beside
// the same phase on the core's API in the same run, one JSON line each;
// and "latest": the latest 100 heart rates by a sorted sample query.
//   hk-bench --n 1000000 --dir /path/to/fresh/dir [--runs 5] [--phases 2,3,4,latest]
// Phase 1's store is filled through the core (transactions of 100,000).
import Foundation
import OpenHealthKit
import OpenHealthKitCore
import Workload

var n: UInt64 = 1_000_000
var dir = "/tmp/hk-bench"
var runs = 5
var phases: Set<String> = ["2", "3", "4", "latest"]
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--n": n = UInt64(args.popFirst() ?? "") ?? n
    case "--dir": dir = args.popFirst() ?? dir
    case "--runs": runs = Int(args.popFirst() ?? "") ?? runs
    case "--phases": phases = Set((args.popFirst() ?? "").split(separator: ",").map(String.init))
    default: print("usage: hk-bench [--n N] [--dir DIR] [--runs R] [--phases 2,3,4,latest]"); exit(2)
    }
}

var allOK = true
func emit(_ system: String, _ phase: String, _ fields: String, ok: Bool) {
    if !ok { allOK = false }
    print("{\"system\":\"\(system)\",\"phase\":\"\(phase)\",\"n\":\(n),\(fields),\"ok\":\(ok)}")
    fflush(stdout)
}
func f1(_ x: Double) -> String { String(Double(Int(x * 10)) / 10) }
func median(_ xs: [Double]) -> Double { percentile(xs.sorted(), 0.5) }

// Phase 1: the workload's samples, through the core.
var options = StoreOptions()
options.mapSize = 1 << 30
do {
    let filler = try Store(directory: dir, options: options)
    var i: UInt64 = 0
    while i < n {
        let end = min(n, i + 100_000)
        try filler.save((i..<end).lazy.map { Workload.sample($0) })
        i = end
    }
    filler.close()
}
var expectedSteps: UInt64 = 0
var stepCount = 0
for k in 0..<n where Workload.isStep(k) { expectedSteps &+= Workload.hashOf(k); stepCount += 1 }

let store = HKHealthStore(directory: dir)
// The same open store: LMDB forbids a second environment on one directory.
let core = try store.coreStore()
let stepType = HKQuantityType(.stepCount)
let count = HKUnit.count()

/// Decodes what phase 2 asks for (uuid, start, end, value, source) from
/// HealthKit objects: count, UUID fingerprint, checksum.
func consume(_ samples: [HKQuantitySample]) -> (count: Int, fingerprint: UInt64, checksum: Double) {
    var fp: UInt64 = 0
    var sum = 0.0
    for s in samples {
        fp &+= Workload.hash(s.uuid)
        sum += s.startDate.timeIntervalSinceReferenceDate + s.endDate.timeIntervalSinceReferenceDate
            + s.quantity.doubleValue(for: count) + Double(s.sourceRevision.source.bundleIdentifier.utf8.count)
    }
    return (samples.count, fp, sum)
}

func descriptor(_ anchor: HKQueryAnchor?, limit: Int? = nil) -> HKAnchoredObjectQueryDescriptor<HKQuantitySample> {
    HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: stepType)], anchor: anchor, limit: limit)
}

// Phase 2: full read, nil anchor, every sample an HKQuantitySample; the
// median of `runs` runs, the core's beside it.
var hkTimes: [Double] = [], coreTimes: [Double] = []
var hkOK = true, coreOK = true
var a1: HKQueryAnchor?
for _ in 0..<(phases.contains("2") ? runs : 0) {
    var t = now()
    let r = try await descriptor(nil).result(for: store)
    let s = consume(r.addedSamples)
    hkTimes.append(now() - t)
    hkOK = hkOK && s.count == stepCount && s.fingerprint == expectedSteps
    a1 = r.newAnchor
    t = now()
    let c = Workload.consume(try core.anchoredQuery(type: Workload.steps, anchor: nil).samples)
    coreTimes.append(now() - t)
    coreOK = coreOK && c.count == stepCount && c.fingerprint == expectedSteps
}
if phases.contains("2") {
emit("openhealthkit-hk", "full_read", "\"per_s\":\(Int(Double(stepCount) / median(hkTimes))),\"median_s\":\(median(hkTimes)),\"runs\":\(runs),\"count\":\(stepCount)", ok: hkOK)
emit("openhealthkit-swift", "full_read", "\"per_s\":\(Int(Double(stepCount) / median(coreTimes))),\"median_s\":\(median(coreTimes)),\"runs\":\(runs)", ok: coreOK)
}

// Phase 2 again through HKAnchoredObjectQuery and its results handler
// (the classic form; the handler runs on the query's thread).
if phases.contains("2") {
    var times: [Double] = []
    var ok = true
    for _ in 0..<runs {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var got = (count: 0, fingerprint: UInt64(0), checksum: 0.0)
        let t = now()
        store.execute(HKAnchoredObjectQuery(type: stepType, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, samples, _, _, _ in
            got = consume(samples as? [HKQuantitySample] ?? [])
            done.signal()
        })
        done.wait()
        times.append(now() - t)
        ok = ok && got.count == stepCount && got.fingerprint == expectedSteps
    }
    emit("openhealthkit-hk", "full_read_query", "\"per_s\":\(Int(Double(stepCount) / median(times))),\"median_s\":\(median(times)),\"runs\":\(runs)", ok: ok)
}

// Phase 3: batches of 1,000 until an empty one.
if phases.contains("3") {
    var t = now()
    var anchor: HKQueryAnchor?
    var total = 0
    var fp: UInt64 = 0
    while true {
        let r = try await descriptor(anchor, limit: 1000).result(for: store)
        let s = consume(r.addedSamples)
        total += s.count
        fp &+= s.fingerprint
        anchor = r.newAnchor
        if r.addedSamples.isEmpty && r.deletedObjects.isEmpty { break }
    }
    var secs = now() - t
    emit("openhealthkit-hk", "batched_read", "\"per_s\":\(Int(Double(total) / secs)),\"seconds\":\(secs),\"count\":\(total)",
         ok: total == stepCount && fp == expectedSteps)
    t = now()
    var coreAnchor: QueryAnchor?
    total = 0
    while true {
        let r = try core.anchoredQuery(type: Workload.steps, anchor: coreAnchor, limit: 1000)
        total += Workload.consume(r.samples).count
        coreAnchor = r.newAnchor
        if r.samples.isEmpty && r.deletedObjects.isEmpty { break }
    }
    secs = now() - t
    emit("openhealthkit-swift", "batched_read", "\"per_s\":\(Int(Double(total) / secs)),\"seconds\":\(secs),\"count\":\(total)",
         ok: total == stepCount)
}

// Phase 4: 1,000 rounds of {save 10 step samples; query from the previous
// anchor}, each round queried through the HealthKit API and through the
// core (which goes first alternates), so both read the same 10 samples on
// the same store and machine state. Each query must return exactly its 10.
// The query right after the save is the one the workload times (caches
// cold from the save's sync); the second one of a round finds them warm.
// The ratio compares the two APIs in the first place: the median of all
// rounds mixes the two populations half and half and lands anywhere in
// the gap between them (the core's moved between 2.1 and 4.7 µs).
if phases.contains("4") {
    // Phase 2's anchor, or the same read when phase 2 was left out.
    var hkAnchor: HKQueryAnchor
    if let a1 { hkAnchor = a1 } else { hkAnchor = try await descriptor(nil).result(for: store).newAnchor }
    var coreAnchor = try core.currentAnchor()
    // By place in the round: [0] right after the save, [1] second.
    var hkAt: [[Double]] = [[], []], coreAt: [[Double]] = [[], []]
    var bad = 0
    for round in 0..<UInt64(1000) {
        let base = n + round * 10
        try core.save((base..<base + 10).map { Workload.sample($0, forceSteps: true) })
        var want: UInt64 = 0
        for k in base..<base + 10 { want &+= Workload.hashOf(k) }
        let order = round % 2 == 0 ? [0, 1] : [1, 0]
        for place in 0..<2 {
            let path = order[place]
            var fp: UInt64 = 0
            let t = now()
            if path == 0 {
                let r = try await descriptor(hkAnchor).result(for: store)
                hkAt[place].append((now() - t) * 1e6)
                for s in r.addedSamples { fp &+= Workload.hash(s.uuid) }
                if r.addedSamples.count != 10 || !r.deletedObjects.isEmpty { bad += 1 }
                hkAnchor = r.newAnchor
            } else {
                let r = try core.anchoredQuery(type: Workload.steps, anchor: coreAnchor)
                coreAt[place].append((now() - t) * 1e6)
                for k in 0..<r.samples.count { fp &+= Workload.hash(r.samples.uuid(at: k)) }
                if r.samples.count != 10 || !r.deletedObjects.isEmpty { bad += 1 }
                coreAnchor = r.newAnchor
            }
            if fp != want { bad += 1 }
        }
    }
    let hkLat = (hkAt[0] + hkAt[1]).sorted(), coreLat = (coreAt[0] + coreAt[1]).sorted()
    for i in 0..<2 { hkAt[i].sort(); coreAt[i].sort() }
    let ratio = percentile(hkAt[0], 0.5) / percentile(coreAt[0], 0.5)
    let ratioAll = percentile(hkLat, 0.5) / percentile(coreLat, 0.5)
    func places(_ at: [[Double]]) -> String {
        "\"after_save_median_us\":\(f1(percentile(at[0], 0.5))),\"second_median_us\":\(f1(percentile(at[1], 0.5)))"
    }
    emit("openhealthkit-hk", "delta", "\"median_us\":\(f1(percentile(hkLat, 0.5))),\"p99_us\":\(f1(percentile(hkLat, 0.99))),\(places(hkAt)),\"rounds\":1000,\"bad_rounds\":\(bad),\"ratio_to_core\":\(String(format: "%.2f", ratio)),\"ratio_of_all_rounds\":\(String(format: "%.2f", ratioAll))", ok: bad == 0)
    emit("openhealthkit-swift", "delta", "\"median_us\":\(f1(percentile(coreLat, 0.5))),\"p99_us\":\(f1(percentile(coreLat, 0.99))),\(places(coreAt)),\"rounds\":1000", ok: bad == 0)
}
// The latest 100 heart rates (a fifth of the store's samples) by a sample
// query sorted by start date, newest first: through HKSampleQueryDescriptor,
// through the core, and through the core sorted by end date, which reads
// every heart rate (what the start index saves). 200 runs each,
// interleaved; each must return exactly the 100 the workload says.
if phases.contains("latest") {
    var want: [UUID] = []
    var k = n
    while want.count < 100 && k > 0 { k -= 1; if !Workload.isStep(k) { want.append(Workload.uuid(k)) } }
    let hr = HKQuantityType(.heartRate)
    let latest = HKSampleQueryDescriptor(predicates: [.quantitySample(type: hr)],
                                         sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 100)
    let d = [QueryDescriptor(type: Workload.heartRate)]
    var hkUs: [Double] = [], coreUs: [Double] = [], fullUs: [Double] = []
    var bad = 0
    for run in 0..<200 {
        var t = now()
        let a = try await latest.result(for: store)
        hkUs.append((now() - t) * 1e6)
        t = now()
        let b = try core.sampleQuery(d, sort: [SampleSort(.startDate, ascending: false)], limit: 100)
        coreUs.append((now() - t) * 1e6)
        if a.map(\.uuid) != want || b.map(\.uuid) != want { bad += 1 }
        if run % 20 == 0 {
            t = now()
            let c = try core.sampleQuery(d, sort: [SampleSort(.endDate, ascending: false)], limit: 100)
            fullUs.append((now() - t) * 1e6)
            if c.map(\.uuid) != want { bad += 1 }
        }
    }
    let heartRates = n / 5
    emit("openhealthkit-hk", "latest", "\"median_us\":\(f1(median(hkUs))),\"of\":\(heartRates),\"runs\":200,\"bad_runs\":\(bad)", ok: bad == 0)
    emit("openhealthkit-swift", "latest", "\"median_us\":\(f1(median(coreUs))),\"every_match_sorted_median_us\":\(f1(median(fullUs))),\"of\":\(heartRates),\"runs\":200", ok: bad == 0)
}
store.close()
exit(allOK ? 0 : 1)
