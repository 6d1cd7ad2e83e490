// The reference workload's data (docs/benchmarks.md, "The workload"):
// the same samples, UUIDs and fingerprints as the C peers' bench.c.
import FoundationEssentials
import OpenHealthKitCore

public enum Workload {
    public static let epochMs: Int64 = 1_577_836_800_000

    public static func mix64(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public static func splitmix(_ k: UInt64) -> UInt64 { mix64(42 &+ (k &+ 1) &* 0x9E37_79B9_7F4A_7C15) }

    public static func uuid(_ i: UInt64) -> UUID {
        // Big-endian bytes, then the version-4 and RFC 4122 variant bits.
        let hi = (splitmix(2 * i) & ~0xF000 | 0x4000).bigEndian
        let lo = (splitmix(2 * i + 1) & ~(0xC0 << 56) | (0x80 << 56)).bigEndian
        return UUID(uuid: unsafeBitCast((hi, lo), to: uuid_t.self))
    }

    public static func hash(_ u: UUID) -> UInt64 {
        withUnsafeBytes(of: u.uuid) { raw in
            let a = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            let b = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            return mix64(a ^ mix64(b))
        }
    }

    public static func hashOf(_ i: UInt64) -> UInt64 { hash(uuid(i)) }
    public static func isStep(_ i: UInt64) -> Bool { i % 10 < 8 }
    public static func isDeleted(_ i: UInt64) -> Bool {
        guard isStep(i) else { return false }
        return ((i / 10) * 8 + i % 10) % 10 == 0
    }
    public static func startMs(_ i: UInt64) -> Int64 { epochMs + Int64(i) * 60_000 }

    public static let steps = try! SampleType.named("HKQuantityTypeIdentifierStepCount")
    public static let heartRate = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")
    public static let count = try! HealthUnit("count")
    public static let perMinute = try! HealthUnit("count/min")
    public static let sources = (0..<5).map { Source(bundleIdentifier: "com.example.source\($0)", name: "com.example.source\($0)") }

    public static func sample(_ i: UInt64, forceSteps: Bool = false) -> Sample {
        let step = forceSteps || isStep(i)
        let start = Date(timeIntervalSince1970: Double(startMs(i)) / 1000)
        let end = Date(timeIntervalSince1970: Double(startMs(i) + 60_000) / 1000)
        let metadata: [String: MetadataValue] = i % 10 == 0 ? [MetadataKey.wasUserEntered: .bool(true)] : [:]
        return try! Sample.quantity(step ? steps : heartRate,
                                    value: step ? Double(i % 1000) : Double(40 + i % 140),
                                    unit: step ? count : perMinute, start: start, end: end,
                                    source: sources[Int(i % 5)], metadata: metadata, uuid: uuid(i))
    }

    /// Phase 2's decoding: every sample's uuid, start, end, value and
    /// source read; the count, a UUID fingerprint and a checksum.
    public static func consume(_ batch: SampleBatch) -> (count: Int, fingerprint: UInt64, checksum: Double) {
        var fp: UInt64 = 0
        var sum = 0.0
        batch.forEach { f in
            fp &+= hash(f.uuid)
            sum += f.startTime + f.endTime + (f.quantity ?? 0) + Double(f.bundleIdentifier?.utf8.count ?? 0)
        }
        return (batch.count, fp, sum)
    }
}
