// The crash and stress suite (make reliability): SIGKILLs of writers and
// of durable-subscription consumers at random moments, writer threads and
// processes beside live watchers, the double open, full disks, and byte
// flips in copies of a store (checked, then read). Prints
// one summary line; exits 1 if anything acknowledged was lost, duplicated
// or left in part, a process died of a signal or hung, or a read after a
// clean check differed from the undamaged store's.
//
//   ohk-reliability [--writer-kills N] [--consumer-kills N] [--stress S]
//                   [--double-open N] [--disk-full N] [--byte-flips N] [--seed N]
//                   [--keep-failures DIR]
//
// The same program is its own child processes (writer, consumer,
// heavy-writer, fill-disk; see Children.swift).
import FoundationEssentials
import Glibc
import TestSupport

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "writer": try Child.writer(directory: args[1], seed: UInt64(args[2])!)
    case "consumer": try Child.consumer(directory: args[1], name: args[2])
    case "heavy-writer": try Child.heavyWriter(directory: args[1])
    case "fill-disk": Child.fillDisk(args[1])
    case "read-store": Child.readStore(directory: args[1], mode: args[2])
    case "varied-store": try Child.fillVariedStore(args[1]); exit(0)  // to replay a flip by hand
    default: break
    }
} catch {
    fail("\(args.first ?? ""): \(error)")
}

func option(_ name: String, _ fallback: Int) -> Int {
    guard let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1]) else { return fallback }
    return v
}

var rng = Rng(state: UInt64(option("--seed", 1)))
let started = now()
do {
    let writersDir = temporaryDirectory(), consumersDir = temporaryDirectory(), stressDir = temporaryDirectory()
    defer { for d in [writersDir, consumersDir, stressDir] { removeTree(d) } }
    let writers = try writerKills(rounds: option("--writer-kills", 600), directory: writersDir, rng: &rng)
    let consumers = try consumerKills(rounds: option("--consumer-kills", 400), directory: consumersDir, rng: &rng)
    let load = try stress(seconds: Double(option("--stress", 30)), directory: stressDir)
    let doubles = try doubleOpen(rounds: option("--double-open", 20), rng: &rng)
    let disks = try diskFull(rounds: option("--disk-full", 10))
    let keep = args.firstIndex(of: "--keep-failures").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
    let flips = try byteFlips(rounds: option("--byte-flips", 300), rng: &rng, keep: keep)
    var problems = writers.problems + consumers.problems + load.problems + doubles.problems + (disks?.figures.problems ?? [])
    if let d = disks, d.signals > 0 { problems.append("\(d.signals) processes died of a signal on a full disk") }
    problems += flips.problems
    for p in problems.prefix(20) { print("problem: \(p)") }
    let diskText = disks.map { "disk full \($0.rounds) rounds (refused \($0.refused), signals \($0.signals), lost \($0.figures.lost))" }
        ?? "disk full skipped (no tmpfs: needs root)"
    let ok = writers.clean && consumers.clean && doubles.clean && problems.isEmpty && load.watchersEqual == load.watchers
        && (disks.map { $0.signals == 0 && $0.figures.clean } ?? true) && flips.clean
    print("reliability: \(ok ? "ok" : "FAILED"); "
        + "writer kills \(writers.kills) (lost \(writers.lost), partial \(writers.partial), duplicated \(writers.duplicated)); "
        + "consumer kills \(consumers.kills) (lost \(consumers.lost), redelivered after ack \(consumers.duplicated)); "
        + "stress \(option("--stress", 30)) s: \(load.saves) saves by 2 threads and 2 processes, \(load.watchersEqual)/\(load.watchers) watchers equal to the store; "
        + "double open \(doubles.kills) rounds (lost \(doubles.lost), partial \(doubles.partial)); "
        + "\(diskText); "
        + "byte flips \(flips.flips) (checked first: caught \(flips.caught), refused \(flips.refused), harmless \(flips.harmless), "
        + "wrong \(flips.wrong.count), crashes \(flips.crashes.count), hangs \(flips.hangs.count); "
        + "read unchecked: crashes \(flips.uncheckedCrashes.count), hangs \(flips.uncheckedHangs.count), errors \(flips.uncheckedErrors), "
        + "wrong \(flips.uncheckedWrong)); \(Int(now() - started)) s")
    exit(ok ? 0 : 1)
} catch {
    fail("\(error)")
}
