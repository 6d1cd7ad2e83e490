// A second process for the cross-process tests: opens the store in DIR
// and commits COUNT step-count samples, one transaction each, then
// deletes every third one it saved; prints the UUIDs it left alive.
//   ohk-test-writer DIR COUNT
import FoundationEssentials
import Glibc
import OpenHealthKitCore

func fail(_ message: String, _ status: Int32) -> Never {
    message.withCString { _ = write(2, $0, strlen($0)) }
    exit(status)
}

let args = CommandLine.arguments
guard args.count == 3, let count = Int(args[2]) else {
    fail("usage: ohk-test-writer DIR COUNT\n", 2)
}
do {
    var options = StoreOptions()
    options.durable = false
    options.tombstoneRetention = nil
    let store = try Store(directory: args[1], options: options)
    let steps = try SampleType.named("HKQuantityTypeIdentifierStepCount")
    let source = Source(bundleIdentifier: "org.openhealthkit.test-writer", name: "test writer")
    var saved: [UUID] = []
    for i in 0..<count {
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(i) * 60)
        let s = try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"), start: start,
                                    end: start.addingTimeInterval(60), source: source)
        try store.save([s])
        saved.append(s.uuid)
        if i % 3 == 2 { try store.delete(uuids: [saved.removeFirst()]) }
    }
    for u in saved { print(u.uuidString) }
    store.close()
} catch {
    fail("ohk-test-writer: \(error)\n", 1)
}
