// The core's quickstart: save -> anchored query -> save -> anchored query
// from the returned anchor, which sees exactly the new change.
import FoundationEssentials
import Glibc
import OpenHealthKitCore

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/ohk-quickstart-\(getpid())"

do {
    let store = try Store(directory: directory)
    defer { store.close() }
    let steps = try SampleType.named("HKQuantityTypeIdentifierStepCount")
    let app = Source(bundleIdentifier: "com.example.walker", name: "Walker")
    let now = Date()

    // 1. Save a first batch: all or nothing, on disk when save returns.
    let first = try (0..<3).map { i in
        try Sample.quantity(steps, value: Double(100 * (i + 1)), unit: HealthUnit("count"),
                            start: now.addingTimeInterval(Double(i) * 60),
                            end: now.addingTimeInterval(Double(i) * 60 + 60), source: app)
    }
    try store.save(first)

    // 2. The snapshot: a nil anchor returns everything that matches.
    let snapshot = try store.anchoredQuery(type: steps, anchor: nil)
    print("snapshot: \(snapshot.samples.count) samples, \(snapshot.deletedObjects.count) deleted, anchor \(snapshot.newAnchor.base64)")

    // 3. Change the store: one more sample, one deletion.
    let later = try Sample.quantity(steps, value: 42, unit: HealthUnit("count"),
                                    start: now.addingTimeInterval(600), end: now.addingTimeInterval(660), source: app)
    try store.save([later])
    try store.delete(uuids: [first[0].uuid])

    // 4. From the anchor: exactly what changed since.
    let delta = try store.anchoredQuery(type: steps, anchor: snapshot.newAnchor)
    for s in delta.samples { print("added:   \(s.uuid) \(try s.quantity(in: HealthUnit("count"))) count") }
    for d in delta.deletedObjects { print("deleted: \(d.uuid)") }
    print("delta: \(delta.samples.count) added, \(delta.deletedObjects.count) deleted; next anchor \(delta.newAnchor.base64)")
    guard delta.samples.map(\.uuid) == [later.uuid], delta.deletedObjects.map(\.uuid) == [first[0].uuid] else {
        print("unexpected delta")
        exit(1)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
