import FoundationEssentials
import Glibc
import OpenHealthKitCore
import TestSupport

/// What a run of kills found.
struct KillFigures {
    var kills = 0
    /// Acknowledged saves or deletes not in the store, or changes never
    /// delivered to a consumer.
    var lost = 0
    /// Batches in the store in part (a save or delete is all or nothing).
    var partial = 0
    /// Objects in the store twice, or delivered again after an
    /// acknowledgement.
    var duplicated = 0
    var problems: [String] = []

    var clean: Bool { lost == 0 && partial == 0 && duplicated == 0 && problems.isEmpty }
}

/// SIGKILLs writer processes at random moments of their saves and
/// deletes, then holds the store to what each had acknowledged: every
/// acknowledged save and delete is there, whole, and every batch is all
/// or nothing.
func writerKills(rounds: Int, directory: String, rng: inout Rng) throws -> KillFigures {
    var f = KillFigures()
    let store = try Store(directory: directory)
    defer { store.close() }
    for round in 0..<rounds {
        let seed = UInt64(round) + 1
        let child = ChildProcess(["writer", directory, String(seed)])
        guard child.wait(seconds: 60, until: { !Child.marked($0, "S").isEmpty }) else {
            f.problems.append("writer \(seed) saved nothing in 60 s")
            continue
        }
        usleep(UInt32(rng.int(30_000)))
        let lines = child.kill()
        f.kills += 1
        checkWriter(store, seed: seed, lines: lines, into: &f)
    }
    return f
}

/// Holds the store to what a killed writer printed it had saved and
/// deleted, and the batch it was in the middle of.
func checkWriter(_ store: Store, seed: UInt64, lines: [String], into f: inout KillFigures) {
    let saved = Set(Child.marked(lines, "S").compactMap { Int($0) })
    let deleted = Set(Child.marked(lines, "D").compactMap { Int($0) })
    check(store, seed: seed, batches: 0...(saved.max() ?? 0) + 1, saved: saved, deleted: deleted, into: &f)
}

/// Holds the store to what a writer acknowledged, batch by batch.
func check(_ store: Store, seed: UInt64, batches: ClosedRange<Int>, saved: Set<Int>, deleted: Set<Int>,
           into f: inout KillFigures) {
    for b in batches {
        let uuids = Set(Child.uuids(seed: seed, batch: b))
        guard let r = try? store.anchoredQuery(type: Child.steps, predicate: .uuids(uuids), anchor: nil) else {
            f.problems.append("query of batch \(b) of writer \(seed) failed")
            continue
        }
        let live = r.samples.map(\.uuid), gone = r.deletedObjects.map(\.uuid)
        if Set(live).count != live.count || Set(gone).count != gone.count || !Set(live).isDisjoint(with: gone) {
            f.duplicated += 1
        }
        let present = Set(live).union(gone).count
        if (present != 0 && present != uuids.count) || (gone.count != 0 && gone.count != uuids.count) { f.partial += 1 }
        if saved.contains(b) && present != uuids.count { f.lost += 1 }
        if deleted.contains(b) && gone.count != uuids.count { f.lost += 1 }
    }
}

/// SIGKILLs durable-subscription consumers at random moments of their
/// deliveries and acknowledgements: nothing acknowledged is delivered
/// again, and every change is delivered at least once in the end.
func consumerKills(rounds: Int, directory: String, rng: inout Rng) throws -> KillFigures {
    var f = KillFigures()
    let store = try Store(directory: directory)
    defer { store.close() }
    let seed: UInt64 = 0xC0FFEE
    // A subscription starts at the head when it is first opened: open it
    // before anything is saved, so that every save is a change to deliver.
    let opening = DurableSubscription(name: "reliability", descriptors: [QueryDescriptor(type: Child.steps)]) { _, _, _ in }
    try store.execute(opening)
    opening.stop()
    var saved = Set<UUID>(), delivered = Set<UUID>(), acknowledged = Set<UUID>()
    func read(_ lines: [String]) {
        var current: [UUID] = []
        for line in lines {
            if line == "A" {
                acknowledged.formUnion(current)
                current.removeAll()
            } else if let u = Child.delivered([line]).first {
                if acknowledged.contains(u) { f.duplicated += 1 }
                delivered.insert(u)
                current.append(u)
            }
        }
    }
    for round in 0..<rounds {
        try store.save(Child.batch(seed: seed, number: round))
        saved.formUnion(Child.uuids(seed: seed, batch: round))
        let child = ChildProcess(["consumer", directory, "reliability"])
        _ = child.wait(seconds: Double(rng.int(60)) / 1000) { _ in false }
        read(child.kill())
        f.kills += 1
    }
    // A last consumer, left to deliver everything.
    let last = ChildProcess(["consumer", directory, "reliability"])
    // What no consumer has had yet; a consumer killed after its
    // acknowledgement committed but before it said so is not asked again.
    let pending = saved.subtracting(delivered)
    _ = last.wait(seconds: 0.2) { _ in false }
    let done = last.wait(seconds: 60) { lines in
        let got = Child.delivered(lines)
        return pending.isSubset(of: Set(got)) && (got.isEmpty || lines.last == "A")
    }
    read(last.kill())
    if !done { f.problems.append("the last consumer did not deliver everything in 60 s") }
    f.lost += saved.subtracting(delivered).count
    return f
}
