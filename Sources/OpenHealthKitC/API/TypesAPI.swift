// openhealthkit.h section 30: The type catalogue
import COpenHealthKit
import Glibc
import OpenHealthKitCore
import Synchronization

/// SampleType → ohk_type_info, strings interned (they live as long as the process).
func typeInfo(_ t: SampleType) -> ohk_type_info {
    var info = ohk_type_info()
    info.identifier = Interned.cString(t.identifier)
    info.is_custom = t.isCustom
    switch t.kind {
    case .quantity(let unit, let aggregation):
        info.kind = Int32(OHK_KIND_QUANTITY)
        info.aggregation = Int32(aggregation.rawValue)
        info.canonical_unit = Interned.cString(unit.description)
        info.display_unit = Interned.cString((t.displayUnit ?? unit).description)
    case .category:
        info.kind = Int32(OHK_KIND_CATEGORY)
        info.aggregation = -1
        info.canonical_unit = nil
    case .workout, .route, .correlation, .heartbeatSeries, .audiogram, .electrocardiogram, .clinicalRecord:
        let kinds: [(SampleType.Kind, Int)] = [(.workout, OHK_KIND_WORKOUT), (.route, OHK_KIND_WORKOUT_ROUTE),
                                               (.correlation, OHK_KIND_CORRELATION), (.heartbeatSeries, OHK_KIND_HEARTBEAT_SERIES),
                                               (.audiogram, OHK_KIND_AUDIOGRAM), (.electrocardiogram, OHK_KIND_ELECTROCARDIOGRAM),
                                               (.clinicalRecord, OHK_KIND_CLINICAL_RECORD)]
        info.kind = Int32(kinds.first { $0.0 == t.kind }!.1)
        info.aggregation = -1
        info.canonical_unit = nil
    }
    return info
}

/// A type by identifier: HealthKit's, or (with a store) one registered there.
func sampleType(_ identifier: UnsafePointer<CChar>?, _ store: Store?, _ what: @autoclosure () -> String = "type") throws -> SampleType {
    if let identifier, let t = catalogueType(identifier) { return t }
    let id = try string(identifier, what())
    if let store { return try store.sampleType(id) }
    return try SampleType.named(id)
}

private let catalogue = TypeCatalogue.all
/// The catalogue's identifiers as C strings, in the catalogue's (sorted) order.
nonisolated(unsafe) private let catalogueIdentifiers = catalogue.map { Interned.cString($0.identifier) }

/// HealthKit's type with this identifier, found by comparing C strings
/// (making a Swift string and hashing it was a tenth of a short query
/// through C); nil for anything else, which the caller looks up the slow
/// way (custom types, and the errors).
private func catalogueType(_ identifier: UnsafePointer<CChar>) -> SampleType? {
    // A program asks for the same type again and again: one comparison
    // instead of eight, each on a line of its own after a durable save.
    let last = lastCatalogueHit.load(ordering: .relaxed)
    if strcmp(catalogueIdentifiers[last], identifier) == 0 { return catalogue[last] }
    var lo = 0, hi = catalogueIdentifiers.count
    while lo < hi {
        let mid = (lo + hi) / 2
        let c = strcmp(catalogueIdentifiers[mid], identifier)
        if c == 0 {
            lastCatalogueHit.store(mid, ordering: .relaxed)
            return catalogue[mid]
        }
        if c < 0 { lo = mid + 1 } else { hi = mid }
    }
    return nil
}

/// The index of the type `catalogueType` found last.
private let lastCatalogueHit = Atomic<Int>(0)

/// How many types HealthKit's catalogue has (quantity and category types).
/// Any thread; never blocks.
@c public func ohk_type_count() -> UInt64 { UInt64(catalogue.count) }

/// The catalogue's type number `index` (0 ≤ index < ohk_type_count(), in
/// identifier order) into *out_info. Returns OHK_OK, or
/// OHK_ERR_INVALID_ARGUMENT for NULL or an index out of range. Any thread.
@c public func ohk_type_at(_ out_info: UnsafeMutablePointer<ohk_type_info>?, _ index: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_info, "out_info")
        guard index < UInt64(catalogue.count) else {
            throw CError(.invalidArgument, "type index \(index) is out of range 0..<\(catalogue.count)")
        }
        result.pointee = typeInfo(catalogue[Int(index)])
    }
}

/// Looks up a type by identifier ("HKQuantityTypeIdentifierHeartRate").
/// With a store (may be NULL), types registered in that store are found too.
/// Returns OHK_OK, OHK_ERR_UNKNOWN_TYPE, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_CLOSED. Any thread; may read the store.
@c public func ohk_type_lookup(_ out_info: UnsafeMutablePointer<ohk_type_info>?,
                               _ store: UnsafeMutablePointer<ohk_store>?,
                               _ identifier: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_info, "out_info")
        let s = try store.map { try StoreHandle.get($0) }
        result.pointee = typeInfo(try sampleType(identifier, s, "identifier"))
    }
}

/// The integer of a category type's named value, e.g. type
/// "HKCategoryTypeIdentifierSleepAnalysis", name "AsleepCore" or HealthKit's
/// full case name "HKCategoryValueSleepAnalysisAsleepCore". Returns OHK_OK,
/// OHK_ERR_UNKNOWN_TYPE, OHK_ERR_NOT_FOUND (no such name), or
/// OHK_ERR_INVALID_ARGUMENT (NULL, a quantity type). Any thread.
@c public func ohk_category_value(_ out_value: UnsafeMutablePointer<Int64>?,
                                  _ type: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_value, "out_value")
        let t = try sampleType(type, nil)
        let n = try string(name, "name")
        guard !t.isQuantity else {
            throw CError(.invalidArgument, "\(t.identifier) is a quantity type; it has no named values")
        }
        guard let v = t.categoryValue(named: n) else { throw CError(.notFound, "\(t.identifier) has no value named '\(n)'") }
        result.pointee = Int64(v)
    }
}

/// The case name of a category type's value ("AsleepREM" for type
/// "HKCategoryTypeIdentifierSleepAnalysis", value 5; of names that share a
/// value, HealthKit's current one). *out_name lives as long as the
/// process. Returns OHK_OK, OHK_ERR_UNKNOWN_TYPE, OHK_ERR_NOT_FOUND (a
/// value the type does not name), or OHK_ERR_INVALID_ARGUMENT (NULL, a
/// quantity type). Any thread.
@c public func ohk_category_value_name(_ out_name: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                       _ type: UnsafePointer<CChar>?, _ value: Int64) -> ohk_status {
    cCall {
        let result = try out(out_name, "out_name")
        let t = try sampleType(type, nil)
        guard !t.isQuantity else {
            throw CError(.invalidArgument, "\(t.identifier) is a quantity type; it has no named values")
        }
        guard let name = t.categoryValueName(Int(value)) else {
            throw CError(.notFound, "\(t.identifier) has no value \(value)")
        }
        result.pointee = Interned.cString(name)
    }
}

/// Registers a quantity type of the store's own: `identifier` (1 to 255
/// bytes, not one of HealthKit's), its canonical unit and aggregation
/// (OHK_AGGREGATION_...). Registering the same definition again is
/// harmless. *out_info (may be NULL) receives the type. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT (another definition exists, bad identifier or
/// aggregation), OHK_ERR_INVALID_UNIT, OHK_ERR_CLOSED, OHK_ERR_STORAGE.
/// Any thread; blocks for a write transaction.
@c public func ohk_store_register_quantity_type(_ out_info: UnsafeMutablePointer<ohk_type_info>?,
                                                _ store: UnsafeMutablePointer<ohk_store>?,
                                                _ identifier: UnsafePointer<CChar>?,
                                                _ canonical_unit: UnsafePointer<CChar>?,
                                                _ aggregation: ohk_aggregation) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let id = try string(identifier, "identifier")
        let unit = try HealthUnit(try string(canonical_unit, "canonical_unit"))
        guard let style = AggregationStyle(rawValue: Int(aggregation)) else {
            throw CError(.invalidArgument, "unknown aggregation \(aggregation)")
        }
        let t = try s.registerCustomType(id, kind: .quantity(canonicalUnit: unit, aggregation: style))
        out_info?.pointee = typeInfo(t)
    }
}

/// Registers a category type of the store's own with `count` named
/// values (names[i] ↦ values[i]; at least one). See
/// ohk_store_register_quantity_type for the rules and return codes.
@c public func ohk_store_register_category_type(_ out_info: UnsafeMutablePointer<ohk_type_info>?,
                                                _ store: UnsafeMutablePointer<ohk_store>?,
                                                _ identifier: UnsafePointer<CChar>?,
                                                _ names: UnsafePointer<UnsafePointer<CChar>?>?,
                                                _ values: UnsafePointer<Int64>?, _ count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let id = try string(identifier, "identifier")
        let ns = try buffer(names, count, "names"), vs = try buffer(values, count, "values")
        var table: [String: Int] = [:]
        for i in 0..<ns.count {
            let name = try string(ns[i], "names[\(i)]")
            guard table.updateValue(Int(vs[i]), forKey: name) == nil else {
                throw CError(.invalidArgument, "value name '\(name)' appears twice")
            }
        }
        let t = try s.registerCustomType(id, kind: .category(values: table))
        out_info?.pointee = typeInfo(t)
    }
}
