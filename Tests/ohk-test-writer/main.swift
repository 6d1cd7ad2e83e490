// A second process for the cross-process tests.
//   ohk-test-writer DIR COUNT
//     commits COUNT step-count samples, one transaction each, deleting
//     every third one it saved; prints the UUIDs it left alive.
//   ohk-test-writer subscribe DIR NAME ack|noack
//     opens the durable subscription NAME on step counts, prints the
//     UUIDs of its first delivery and END; then with `ack` acknowledges,
//     prints ACKED and exits, with `noack` waits to be killed.
//   ohk-test-writer read-only DIR once|live
//     opens the store read-only; prints COUNT and the number of step
//     counts, then REFUSED and the code a save got. With `live` it runs
//     an anchored query, prints LIVE after its snapshot, then UPDATE and the number of
//     samples of the first update that has any; it stops the query,
//     closes the store and prints CLOSED.
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

/// One value handed from a handler thread to the main thread.
final class Handoff: @unchecked Sendable {
    private var value: Int?
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    init() { pthread_mutex_init(&mutex, nil); pthread_cond_init(&cond, nil) }
    func signal(_ v: Int) {
        pthread_mutex_lock(&mutex)
        if value == nil { value = v }
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
    }
    func wait() -> Int {
        pthread_mutex_lock(&mutex)
        while value == nil { pthread_cond_wait(&cond, &mutex) }
        defer { pthread_mutex_unlock(&mutex) }
        return value!
    }
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
if args.count == 4, args[1] == "read-only" {
    do {
        var options = StoreOptions()
        options.readOnly = true
        let store = try Store(directory: args[2], options: options)
        let steps = try SampleType.named("HKQuantityTypeIdentifierStepCount")
        say("COUNT \(try store.anchoredQuery(type: steps, anchor: nil).samples.count)")
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let s = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: start, end: start.addingTimeInterval(60),
                                    source: Source(bundleIdentifier: "org.openhealthkit.test-writer", name: "test writer"))
        do { try store.save([s]); say("REFUSED nothing") } catch let e as OHKError { say("REFUSED \(e.code)") }
        if args[3] == "live" {
            // LIVE once the snapshot was read, so that a commit after it is an update.
            let snapshot = Handoff(), updated = Handoff()
            let query = AnchoredObjectQuery(descriptors: [QueryDescriptor(type: steps)], anchor: nil,
                                            resultsHandler: { _, result in
                guard let r = try? result.get() else { fail("the live query failed\n", 1) }
                snapshot.signal(r.samples.count)
            }, updateHandler: { _, result in
                guard let r = try? result.get() else { fail("the live query failed\n", 1) }
                if !r.samples.isEmpty { updated.signal(r.samples.count) }
            })
            try store.execute(query)
            _ = snapshot.wait()
            say("LIVE")
            say("UPDATE \(updated.wait())")
            query.stop()
        }
        store.close()
        say("CLOSED")
        exit(0)
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
