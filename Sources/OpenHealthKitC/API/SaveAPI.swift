// openhealthkit.h section 50: Saving and deleting
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// Builds core samples from C inputs. Consecutive inputs usually draw
/// on a few types, units and sources, so the recent ones are remembered.
struct SampleBuilder {
    let store: Store
    private var types = RecentByText<SampleType>()
    private var units = RecentByText<HealthUnit>()
    private var sources = RecentByText<Source>()

    init(store: Store) { self.store = store }

    /// What every sample has, read from an input (its type, value and unit aside).
    struct Fields {
        var source: Source
        var start: Date
        var end: Date
        var uuid: UUID
        var device: Device?
        var metadata: [String: MetadataValue]
        var created: Date?
        var offset: Int?
    }

    mutating func fields(_ c: ohk_sample_input, _ what: @autoclosure () -> String) throws -> Fields {
        Fields(source: try source(c.source, what()),
               start: try UnixTime.date(c.start, "\(what()).start"), end: try UnixTime.date(c.end, "\(what()).end"),
               uuid: UUIDBytes.isZero(c.uuid) ? RandomUUID.make() : UUID(uuid: c.uuid),
               device: try c.device.map { try Self.device($0.pointee, what()) },
               metadata: try CMetadata.read(c.metadata, c.metadata_count, "\(what()).metadata"),
               created: c.has_creation_date ? try UnixTime.date(c.creation_date, "\(what()).creation_date") : nil,
               offset: c.has_utc_offset ? Int(c.utc_offset) : nil)
    }

    mutating func build(_ c: ohk_sample_input, _ i: Int) throws -> Sample {
        let type = try sampleType(c.type, "samples[\(i)].type")
        let f = try fields(c, "samples[\(i)]")
        if let canonical = type.canonicalUnit {
            let unit = try c.unit.map { try self.unit($0, i) } ?? canonical
            return try Sample.quantity(type, value: c.value, unit: unit, start: f.start, end: f.end, source: f.source,
                                       device: f.device, metadata: f.metadata, uuid: f.uuid,
                                       creationDate: f.created, utcOffset: f.offset)
        }
        if case .category = type.kind {} else {
            throw CError(.invalidArgument, "samples[\(i)]: \(type.identifier) samples are saved with ohk_store_save_workout, "
                         + "ohk_store_save_route, ohk_store_save_correlation, ohk_store_save_heartbeat_series, "
                         + "ohk_store_save_audiogram, ohk_store_save_electrocardiogram or ohk_store_save_clinical_record")
        }
        guard c.unit == nil else {
            throw CError(.invalidArgument, "samples[\(i)]: \(type.identifier) is a category type; unit must be NULL")
        }
        guard c.value.isFinite, c.value.rounded() == c.value, abs(c.value) < 9e15 else {
            throw CError(.invalidValue, "samples[\(i)]: a category value is an integer, got \(c.value)")
        }
        return try Sample.category(type, value: Int(c.value), start: f.start, end: f.end, source: f.source,
                                   device: f.device, metadata: f.metadata, uuid: f.uuid,
                                   creationDate: f.created, utcOffset: f.offset)
    }

    private mutating func sampleType(_ p: UnsafePointer<CChar>?, _ what: @autoclosure () -> String) throws -> SampleType {
        guard let p else { throw CError(.invalidArgument, "\(what()) is NULL") }
        if let t = types.find(p) { return t }
        let t = try store.sampleType(try string(p, what()))
        types.add(t, p)
        return t
    }

    private mutating func unit(_ p: UnsafePointer<CChar>, _ i: Int) throws -> HealthUnit {
        if let u = units.find(p) { return u }
        let u = try HealthUnit(try string(p, "samples[\(i)].unit"))
        units.add(u, p)
        return u
    }

    private mutating func source(_ s: ohk_source, _ what: @autoclosure () -> String) throws -> Source {
        // Only sources with both strings are remembered: a NULL one is
        // never found here, and fails below.
        if let known = sources.find(s.bundle_identifier, s.name, s.version) { return known }
        let source = Source(bundleIdentifier: try string(s.bundle_identifier, "\(what()).source.bundle_identifier"),
                            name: try string(s.name, "\(what()).source.name"),
                            version: try optionalString(s.version, "\(what()).source.version"))
        sources.add(source, s.bundle_identifier, s.name, s.version)
        return source
    }

    static func device(_ d: ohk_device, _ what: @autoclosure () -> String) throws -> Device {
        func f(_ p: UnsafePointer<CChar>?, _ name: String) throws -> String? {
            try optionalString(p, "\(what()).device.\(name)")
        }
        return Device(name: try f(d.name, "name"), manufacturer: try f(d.manufacturer, "manufacturer"),
                      model: try f(d.model, "model"), hardwareVersion: try f(d.hardware_version, "hardware_version"),
                      firmwareVersion: try f(d.firmware_version, "firmware_version"),
                      softwareVersion: try f(d.software_version, "software_version"),
                      localIdentifier: try f(d.local_identifier, "local_identifier"),
                      udiDeviceIdentifier: try f(d.udi_device_identifier, "udi_device_identifier"))
    }
}

/// Saves `count` samples in one transaction: all or nothing. Every input
/// is checked first (type, unit, finite values, times, metadata, UTF-8);
/// the first bad one fails the call with a message naming its index, and
/// nothing is saved. `out_outcomes` (NULL, or room for `count`) receives
/// what happened to each sample in input order, with its UUID. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_UNKNOWN_TYPE, OHK_ERR_INVALID_UNIT,
/// OHK_ERR_INCOMPATIBLE_UNIT, OHK_ERR_INVALID_VALUE,
/// OHK_ERR_INVALID_DATE_RANGE, OHK_ERR_INVALID_METADATA,
/// OHK_ERR_DUPLICATE_UUID, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread;
/// blocks for the write transaction (one writer at a time, across
/// processes) and, on a durable store, for fsync.
@c public func ohk_store_save(_ out_outcomes: UnsafeMutablePointer<ohk_save_outcome>?,
                              _ store: UnsafeMutablePointer<ohk_store>?,
                              _ samples: UnsafePointer<ohk_sample_input>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        var builder = SampleBuilder(store: s)
        let built = try builder.buildAll(samples, count)
        // Made by the validating constructors just now.
        let results = try s.save(constructed: built)
        guard let outcomes = out_outcomes else { return }
        for (i, r) in results.enumerated() { outcomes[i] = cOutcome(built[i].uuid, r) }
    }
}

extension SampleBuilder {
    /// The samples of `count` inputs; the first bad one is named by its index.
    mutating func buildAll(_ samples: UnsafePointer<ohk_sample_input>?, _ count: UInt64) throws -> [Sample] {
        let inputs = try buffer(samples, count, "samples")
        var built: [Sample] = []
        built.reserveCapacity(inputs.count)
        for (i, c) in inputs.enumerated() { built.append(try build(named: c, i)) }
        return built
    }

    /// Input `i`'s sample; an error names the input.
    mutating func build(named c: ohk_sample_input, _ i: Int) throws -> Sample {
        do {
            return try build(c, i)
        } catch let e as OHKError {
            throw CError(e.code, "samples[\(i)]: \(e.message)")
        }
    }
}

/// What a save did with the sample `uuid`, for C; nil is a sample that was
/// stored already (ohk_store_add_to_workout only associated it).
func cOutcome(_ uuid: UUID, _ r: SaveOutcome?) -> ohk_save_outcome {
    var o = ohk_save_outcome()
    o.uuid = uuid.uuid
    switch r {
    case .saved?: o.outcome = Int32(OHK_SAVED)
    case .replaced(let old)?: o.outcome = Int32(OHK_SAVE_REPLACED); o.other_uuid = old.uuid
    case .notSavedOlderVersion(let existing)?: o.outcome = Int32(OHK_SAVE_KEPT_EXISTING); o.other_uuid = existing.uuid
    case nil: o.outcome = Int32(OHK_SAVE_ALREADY_STORED)
    }
    return o
}

/// Deletes the samples with these `count` UUIDs (16 bytes each, packed)
/// in one transaction, all or nothing; each becomes a deleted object.
/// Returns OHK_OK; OHK_ERR_NOT_FOUND (an unknown or already deleted UUID:
/// nothing is deleted); OHK_ERR_INVALID_ARGUMENT; OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_delete_uuids(_ store: UnsafeMutablePointer<ohk_store>?,
                                      _ uuids: UnsafePointer<UInt8>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        try s.delete(uuids: try UUIDBytes.array(uuids, count, "uuids"))
    }
}

/// Associates `count` stored samples (UUIDs, 16 bytes each, packed) with
/// the stored workout whose UUID is the 16 bytes at `workout` (HealthKit's
/// add(_:to:), rule 36), in one transaction, all or nothing; associating
/// a sample again changes nothing. ohk_predicate_workout finds them.
/// Returns OHK_OK; OHK_ERR_NOT_FOUND (no live workout or sample with such
/// a UUID); OHK_ERR_INVALID_ARGUMENT (NULL, `workout` not a workout, a
/// sample that is not a quantity or category sample); OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_associate(_ store: UnsafeMutablePointer<ohk_store>?, _ workout: UnsafePointer<UInt8>?,
                                   _ uuids: UnsafePointer<UInt8>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        guard let workout else { throw CError(.invalidArgument, "workout is NULL") }
        try s.associate(try UUIDBytes.array(uuids, count, "uuids"), with: UUIDBytes.read(workout))
    }
}

/// Deletes every sample of `type` that `predicate` (NULL: all) matches, in
/// one transaction. *out_deleted (may be NULL) receives how many.
/// Returns OHK_OK, OHK_ERR_UNKNOWN_TYPE, OHK_ERR_INVALID_PREDICATE,
/// OHK_ERR_INCOMPATIBLE_UNIT, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED,
/// OHK_ERR_STORAGE. Any thread; blocks for the write transaction.
@c public func ohk_store_delete_matching(_ out_deleted: UnsafeMutablePointer<UInt64>?,
                                         _ store: UnsafeMutablePointer<ohk_store>?, _ type: UnsafePointer<CChar>?,
                                         _ predicate: UnsafePointer<ohk_predicate>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let t = try sampleType(type, s)
        let p = try predicate.map { try PredicateHandle.get($0) }
        // Deleted first: `out?.pointee = f()` does not call f when out is NULL.
        let deleted = try s.delete(type: t, predicate: p)
        out_deleted?.pointee = UInt64(deleted)
    }
}
