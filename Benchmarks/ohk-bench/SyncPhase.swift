import FoundationEssentials
import Glibc
import OpenHealthKitCore
import Workload

/// Phase "sync" (rule 69): phase 1b's store copied into a fresh one by
/// `Store.sync`, whose ceiling is the bulk ingest just measured; then
/// incremental syncs of 10 changes each, timed alone.
func syncPhase(source: Store, dir: String, n: UInt64, options: StoreOptions) throws {
    let destDir = dir + "-sync"
    system("rm -rf '\(destDir)'")
    let dest = try Store(directory: destDir, options: options)
    defer {
        dest.close()
        system("rm -rf '\(destDir)'")
    }
    var o = SyncOptions()
    o.batchSize = 100_000
    var t = now()
    let full = try dest.sync(from: source, o)
    let secs = now() - t
    let verified = full.verification == .verified(try source.liveDigests().values.reduce(LiveDigest(), +)) && full.converged
    emit("sync_full", "\"per_s\":\(Int(Double(full.changesRead) / secs)),\"seconds\":\(secs),\"changes\":\(full.changesRead)",
         ok: verified && full.applied.added == Int(n))
    // 10 changes a round: 8 saves and 2 deletions of earlier ones; with
    // durable commits of the destination, then without (`durable = false`).
    var next = n
    for durable in [true, false] {
        var o10 = o
        o10.batchSize = 20_000
        var d = options
        d.durable = durable
        let into = durable ? dest : try Store(directory: destDir + "-nosync", options: d)
        if !durable { _ = try into.sync(from: source, o) }
        var times: [Double] = []
        var ok = true
        for _ in 0..<200 {
            try source.save((next..<next + 8).lazy.map { Workload.sample($0) })
            try source.delete(uuids: [Workload.sample(next - 200).uuid, Workload.sample(next - 199).uuid])
            next += 8
            t = now()
            let r = try into.sync(from: source, o10)
            times.append(now() - t)
            ok = ok && r.changesRead == 10
        }
        times.sort()
        emit(durable ? "sync_10_changes" : "sync_10_changes_nosync",
             "\"median_us\":\(f1(percentile(times, 0.5) * 1e6)),\"p99_us\":\(f1(percentile(times, 0.99) * 1e6))", ok: ok)
        if !durable {
            into.close()
            system("rm -rf '\(destDir)-nosync'")
        }
    }
}
