import COpenHealthKit
import OpenHealthKitCore

/// Options structs of every version (docs/c-conventions.md): a program
/// built against an older header passes a smaller struct, so only the
/// bytes its version has are read, over the current defaults, and an
/// `_init` writes only those.
struct VersionedOptions<T> {
    /// The struct's name in messages ("options").
    let name: String
    /// The C name of its `_init` and `_INIT`, for the message.
    let initName: String
    /// Bytes of each version, from version 1 to the current one.
    let sizes: [Int]
    let defaults: T

    var current: UInt32 { UInt32(sizes.count) }

    func size(of version: UInt32) throws -> Int {
        guard version >= 1, version <= current else {
            throw CError(.invalidArgument, "\(name).version is \(version), not 1 to \(current): "
                         + "fill it with \(initName)_init or \(initName.uppercased())_INIT")
        }
        return sizes[Int(version) - 1]
    }

    /// The caller's options over the defaults, or nil for NULL.
    func read(_ p: UnsafePointer<T>?) throws -> T? {
        guard let p else { return nil }
        let n = try size(of: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
        var value = defaults
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: n)) }
        return value
    }

    /// Writes `version` and that version's defaults, nothing past them.
    func initialize(_ p: UnsafeMutablePointer<T>?, _ version: UInt32) throws {
        let target = try out(p, name)
        let n = try size(of: version)
        var value = defaults
        withUnsafeMutableBytes(of: &value) { $0.storeBytes(of: version, as: UInt32.self) }
        withUnsafeBytes(of: &value) { UnsafeMutableRawPointer(target).copyMemory(from: $0.baseAddress!, byteCount: n) }
    }
}

// Each options struct's versions. The current version's size must be the
// last: a test of each `_init` checks the header's VERSION against it.

nonisolated(unsafe) let storeOptionsVersions = VersionedOptions<ohk_store_options>(
    name: "options", initName: "ohk_store_options",
    // Version 1 ended before read_only (its byte was padding).
    sizes: [MemoryLayout<ohk_store_options>.offset(of: \ohk_store_options.read_only)!,
            MemoryLayout<ohk_store_options>.size],
    defaults: {
        let d = StoreOptions()
        return ohk_store_options(version: UInt32(OHK_STORE_OPTIONS_VERSION), map_size: UInt64(d.mapSize),
                                 tombstone_retention: d.tombstoneRetention ?? -1, durable: d.durable, read_only: d.readOnly)
    }())

nonisolated(unsafe) let syncOptionsVersions = VersionedOptions<ohk_sync_options>(
    name: "options", initName: "ohk_sync_options", sizes: [MemoryLayout<ohk_sync_options>.size],
    defaults: ohk_sync_options(version: UInt32(OHK_SYNC_OPTIONS_VERSION), name: nil, types: nil, type_count: 0,
                               from_scratch: false, batch_size: 0))

nonisolated(unsafe) let queryOptionsVersions = VersionedOptions<ohk_query_options>(
    name: "options", initName: "ohk_query_options", sizes: [MemoryLayout<ohk_query_options>.size],
    defaults: ohk_query_options(version: UInt32(OHK_QUERY_OPTIONS_VERSION), descriptors: nil, descriptor_count: 0,
                                anchor: nil, max_batch_size: 0, subscription_name: nil,
                                frequency: ohk_frequency(OHK_FREQUENCY_IMMEDIATE), start_day: 0, end_day: 0,
                                statistics: nil))

nonisolated(unsafe) let statisticsOptionsVersions = VersionedOptions<ohk_statistics_options>(
    name: "statistics options", initName: "ohk_statistics_options", sizes: [MemoryLayout<ohk_statistics_options>.size],
    defaults: ohk_statistics_options(version: UInt32(OHK_STATISTICS_OPTIONS_VERSION), type: nil, predicate: nil,
                                     flags: 0, anchor: 0, interval_count: 1,
                                     interval_unit: ohk_interval_unit(OHK_INTERVAL_DAY), from: 0, to: 0,
                                     utc_offset: 0, time_zone: nil))

/// A query's options, which its start call needs (NULL is refused).
func queryOptions(_ p: UnsafePointer<ohk_query_options>?) throws -> ohk_query_options {
    guard let o = try queryOptionsVersions.read(p) else { throw CError(.invalidArgument, "options is NULL") }
    return o
}

/// A subscription frequency from C.
func deliveryFrequency(_ frequency: ohk_frequency) throws -> DeliveryFrequency {
    guard frequency >= 0, frequency <= 255, let f = DeliveryFrequency(rawValue: UInt8(frequency)) else {
        throw CError(.invalidArgument, "frequency \(frequency) is not an OHK_FREQUENCY_ value")
    }
    return f
}
