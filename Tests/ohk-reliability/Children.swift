import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// What the suite's child processes do until they are killed. Each says
/// on standard output what has been acknowledged to it (a save or delete
/// that returned, an acknowledgement that returned), one line each, flushed
/// at once: what the parent may hold the store to after the kill.
enum Child {
    static let steps = try! SampleType.named("HKQuantityTypeIdentifierStepCount")
    static let source = Source(bundleIdentifier: "org.openhealthkit.reliability", name: "reliability")

    /// `writer DIR SEED`: saves batch after batch of `batchSize` samples
    /// (UUIDs from the seed and the batch number), printing `S b` after
    /// batch b's save returns; after every third save it deletes the batch
    /// saved two before, printing `D b` after the delete returns.
    static func writer(directory: String, seed: UInt64) throws -> Never {
        let store = try Store(directory: directory)
        var b = 0
        while true {
            try store.save(batch(seed: seed, number: b))
            say("S \(b)")
            if b % 3 == 2 {
                try store.delete(uuids: uuids(seed: seed, batch: b - 2))
                say("D \(b - 2)")
            }
            b += 1
        }
    }

    /// `consumer DIR NAME`: a durable subscription on step counts; for each
    /// delivery prints `G uuid` per object, acknowledges, then prints `A`.
    static func consumer(directory: String, name: String) throws -> Never {
        let store = try Store(directory: directory)
        let sub = DurableSubscription(name: name, descriptors: [QueryDescriptor(type: steps)]) { _, result, ack in
            guard let r = try? result.get() else { fail("delivery failed") }
            for u in r.samples.map(\.uuid) + r.deletedObjects.map(\.uuid) { say("G \(u.uuidString)") }
            do { try ack() } catch { fail("acknowledge failed: \(error)") }
            say("A")
        }
        try store.execute(sub)
        while true { pause() }
    }

    static let batchSize = 10

    static func uuids(seed: UInt64, batch: Int) -> [UUID] {
        (0..<batchSize).map { uuid(seed: seed, index: UInt64(batch * batchSize + $0)) }
    }

    static func batch(seed: UInt64, number: Int) throws -> [Sample] {
        let us = uuids(seed: seed, batch: number)
        return try us.enumerated().map { i, u in
            let start = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(number * batchSize + i) * 60)
            return try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"), start: start,
                                       end: start.addingTimeInterval(60), source: source, uuid: u)
        }
    }

    /// A UUID that follows from (seed, index) alone (splitmix64).
    static func uuid(seed: UInt64, index: UInt64) -> UUID {
        func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let a = mix(seed &* 0x1_0000_0001 ^ index), b = mix(a ^ 0xA5A5_A5A5)
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * i)); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * i)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

func fail(_ message: String) -> Never {
    let text = "ohk-reliability: " + message + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
