import FoundationEssentials
import Glibc
@testable import OpenHealthKitCore
// Processes and temporary directories, shared with the importer's tests.
@_exported import TestSupport

/// A fresh store in its own temporary directory.
func makeStore(durable: Bool = false, retention: Double? = nil, mapSize: Int = 16 << 20,
               directory: String? = nil) throws -> Store {
    var o = StoreOptions()
    o.durable = durable
    o.tombstoneRetention = retention
    o.mapSize = mapSize
    return try Store(directory: directory ?? temporaryDirectory(), options: o)
}

let steps = try! SampleType.named("HKQuantityTypeIdentifierStepCount")
let heartRate = try! SampleType.named("HKQuantityTypeIdentifierHeartRate")
let bodyMass = try! SampleType.named("HKQuantityTypeIdentifierBodyMass")
let sleep = try! SampleType.named("HKCategoryTypeIdentifierSleepAnalysis")
let appA = Source(bundleIdentifier: "com.example.a", name: "A", version: "1.0")
let appB = Source(bundleIdentifier: "com.example.b", name: "B")
let t0 = Date(timeIntervalSinceReferenceDate: 700_000_000)

func stepSample(_ value: Double, minute: Int = 0, source: Source = appA,
                metadata: [String: MetadataValue] = [:], uuid: UUID = UUID()) throws -> Sample {
    try Sample.quantity(steps, value: value, unit: HealthUnit("count"),
                        start: t0.addingTimeInterval(Double(minute) * 60),
                        end: t0.addingTimeInterval(Double(minute) * 60 + 60),
                        source: source, metadata: metadata, uuid: uuid)
}

/// The C library's `ohk_sample_record` as a row layout (the rows tests').
let sampleRecordLayout = SampleRowLayout.standard

func synced(_ id: String, _ version: Double) -> [String: MetadataValue] {
    [MetadataKey.syncIdentifier: .string(id), MetadataKey.syncVersion: .number(version)]
}

extension AnchoredQueryResult {
    var sampleUUIDs: [UUID] { samples.map(\.uuid) }
    var deletedUUIDs: [UUID] { deletedObjects.map(\.uuid) }
}

/// The error code a throwing call ends with, or nil when it did not throw.
func errorCode(_ body: () throws -> Void) -> OHKError.Code? {
    do { try body(); return nil } catch let e as OHKError { return e.code } catch { return nil }
}

/// A small deterministic generator for the model tests (SplitMix64),
/// so that a failure repeats.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
