// A second process for the cross-process tests.
//   ohk-test-writer DIR COUNT
//     commits COUNT step-count samples, one transaction each, deleting
//     every third one it saved; prints the UUIDs it left alive.
//   ohk-test-writer subscribe DIR NAME ack|noack
//     opens the durable subscription NAME on step counts, prints the
//     UUIDs of its first delivery and END; then with `ack` acknowledges,
//     prints ACKED and exits, with `noack` waits to be killed.
//   ohk-test-writer lock-holder DIR
//     prints the pid of a process holding LMDB's liveness lock (byte 0 of
//     DIR/lock.mdb), or "none": a process cannot see its own record locks.
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import COHKSystem

func fail(_ message: String, _ status: Int32) -> Never {
    message.withCString { _ = write(2, $0, strlen($0)) }
    exit(status)
}

func say(_ line: String) {
    let text = line + "\n"
    text.withCString { _ = write(1, $0, strlen($0)) }
}

let args = CommandLine.arguments
if args.count == 5, args[1] == "subscribe" {
    do {
        let store = try Store(directory: args[2])
        let steps = try SampleType.named("HKQuantityTypeIdentifierStepCount")
        let acknowledging = args[4] == "ack"
        let sub = DurableSubscription(name: args[3], descriptors: [QueryDescriptor(type: steps)]) { _, result, ack in
            guard let r = try? result.get() else { fail("subscription failed\n", 1) }
            for u in r.samples.map(\.uuid) + r.deletedObjects.map(\.uuid) { say(u.uuidString) }
            say("END")
            guard acknowledging else { return }
            do { try ack() } catch { fail("acknowledge failed: \(error)\n", 1) }
            say("ACKED")
            exit(0)
        }
        try store.execute(sub)
        while true { pause() }
    } catch {
        fail("ohk-test-writer: \(error)\n", 1)
    }
}
if args.count == 3, args[1] == "lock-holder" {
    let fd = open(args[2] + "/lock.mdb", O_RDONLY)
    guard fd >= 0 else { fail("cannot open lock.mdb\n", 1) }
    var probe = flock()
    probe.l_type = Int16(F_WRLCK)
    probe.l_whence = Int16(SEEK_SET)
    probe.l_start = 0
    probe.l_len = 1
    guard ohk_get_lock(fd, &probe) == 0 else { fail("F_GETLK failed\n", 1) }
    say(probe.l_type == Int16(F_UNLCK) ? "none" : String(probe.l_pid))
    exit(0)
}
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
