import FoundationEssentials
import Glibc
import OpenHealthKitCore
import TestSupport

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
            let deleted = try writeStep(store, seed: seed, batch: b)
            say("S \(b)")
            if let d = deleted { say("D \(d)") }
            b += 1
        }
    }

    /// One step of a writer: saves batch `b`, and after every third one
    /// deletes the batch saved two before; returns that batch's number.
    @discardableResult
    static func writeStep(_ store: Store, seed: UInt64, batch b: Int) throws -> Int? {
        try store.save(batch(seed: seed, number: b))
        guard b % 3 == 2 else { return nil }
        try store.delete(uuids: uuids(seed: seed, batch: b - 2))
        return b - 2
    }

    /// The payloads of a child's lines that start with `tag` and a space
    /// (`S 12` → "12").
    static func marked(_ lines: [String], _ tag: String) -> [Substring] {
        lines.compactMap { $0.hasPrefix(tag + " ") ? $0.dropFirst(tag.count + 1) : nil }
    }

    /// The UUIDs a consumer printed as delivered (`G uuid`).
    static func delivered(_ lines: [String]) -> [UUID] {
        marked(lines, "G").compactMap { UUID(uuidString: String($0)) }
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

    static func batch(seed: UInt64, number: Int, metadata: [String: MetadataValue] = [:]) throws -> [Sample] {
        let us = uuids(seed: seed, batch: number)
        return try us.enumerated().map { i, u in
            let start = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(number * batchSize + i) * 60)
            return try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"), start: start,
                                       end: start.addingTimeInterval(60), source: source, metadata: metadata, uuid: u)
        }
    }

    /// A UUID that follows from (seed, index) alone.
    static func uuid(seed: UInt64, index: UInt64) -> UUID {
        var rng = Rng(state: seed &* 0x1_0000_0001 ^ index)
        let a = rng.next(), b = rng.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * i)); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * i)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// One line on standard output, whole: a problem may name a damaged key
/// that holds a NUL, which a C string would end at, leaving no line.
func say(_ line: String) {
    let bytes = Array(line.utf8).map { $0 == 0 || $0 == 10 ? UInt8(ascii: "?") : $0 } + [10]
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// A line on standard error: progress of a long run.
func note(_ message: String) {
    let text = "ohk-reliability: " + message + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

func fail(_ message: String) -> Never {
    let text = "ohk-reliability: " + message + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
