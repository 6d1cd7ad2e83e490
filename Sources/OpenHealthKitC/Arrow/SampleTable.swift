import COpenHealthKit
import OpenHealthKitCore

/// A query's samples as an Arrow table (ohk_arrow_columns says which
/// columns; docs/arrow.md lists them). The columns are written once, by
/// the query itself (`ohk_store_fetch_arrow`) or from a batch's records
/// (`ohk_batch_export_arrow`), into blocks the table then hands out as
/// its buffers; only the small dictionaries and the metadata text are
/// laid out afterwards.
final class SampleTable {
    static let every: UInt32 = 0xFFF

    let memory = ArrowMemory()
    let wanted: UInt32
    let capacity: Int
    /// What the writer fills.
    private(set) var pointers = SampleColumnPointers()
    private let metadata: MetadataText?
    /// Every row's type is 0: the type column's zeros need no writing.
    private let oneType: Bool

    init(capacity: Int, columns: UInt32, oneType: Bool) throws {
        guard columns & ~Self.every == 0 else {
            throw CError(.invalidArgument, "columns has bits \(columns & ~Self.every) that are not OHK_ARROW_ columns")
        }
        wanted = columns == 0 ? Self.every : columns
        self.capacity = capacity
        self.oneType = oneType
        metadata = wanted & UInt32(OHK_ARROW_METADATA) != 0 ? MetadataText(memory, capacity: capacity) : nil
        func want(_ bit: Int) -> Bool { wanted & UInt32(bit) != 0 }
        if want(OHK_ARROW_UUID) { pointers.uuid = memory.zeroed(capacity * 16) }
        if want(OHK_ARROW_START_DATE) { pointers.startUnixMicroseconds = memory.zeroed(Int64.self, capacity) }
        if want(OHK_ARROW_END_DATE) { pointers.endUnixMicroseconds = memory.zeroed(Int64.self, capacity) }
        if want(OHK_ARROW_VALUE) { pointers.value = memory.zeroed(Double.self, capacity) }
        if want(OHK_ARROW_TYPE) || want(OHK_ARROW_UNIT) || want(OHK_ARROW_VALUE) {
            let p = memory.zeroed(UInt32.self, capacity)
            pointers.typeIndex = p
            typeColumn = p
        }
        if want(OHK_ARROW_SOURCE) || want(OHK_ARROW_SOURCE_BUNDLE) { pointers.sourceID = memory.zeroed(UInt32.self, capacity) }
        if want(OHK_ARROW_DEVICE) { pointers.deviceID = memory.zeroed(UInt32.self, capacity) }
        if want(OHK_ARROW_UTC_OFFSET) { pointers.utcOffset = memory.zeroed(Int32.self, capacity) }
        if want(OHK_ARROW_CREATION_DATE) { pointers.creationUnixMicroseconds = memory.zeroed(Int64.self, capacity) }
        pointers.metadata = metadata
    }

    private var typeColumn: UnsafeMutablePointer<UInt32>?

    /// The writer's columns; a query of one type leaves the type column
    /// alone (fresh blocks are zeros).
    var writerPointers: SampleColumnPointers {
        var p = pointers
        if oneType { p.typeIndex = nil }
        return p
    }

    /// What the table's dictionaries and conversions need of the result.
    struct Names {
        let types: [SampleType]
        /// By the source column's numbers.
        let sources: UnsafeMutableBufferPointer<ohk_source>
        let device: (UInt32) -> Device?

        /// A batch's: the source column holds its numbering.
        init(_ batch: BatchHandle) {
            let samples = batch.result.samples
            types = samples.types
            sources = batch.sources.entries
            device = { samples.device(id: $0) }
        }
    }

    /// The table of the first `rows` rows, once the writer is done.
    func table(rows: Int, names: Names, unit: HealthUnit?) throws -> ArrowColumn {
        func want(_ bit: Int) -> Bool { wanted & UInt32(bit) != 0 }
        var columns: [ArrowColumn] = []
        let units = unitTexts(names.types, unit)
        if want(OHK_ARROW_UUID) {
            columns.append(ArrowColumn("uuid", format: "w:16", length: rows, buffers: [nil, UnsafeRawPointer(pointers.uuid!)]))
        }
        if want(OHK_ARROW_START_DATE) { columns.append(time("start_date", pointers.startUnixMicroseconds!, rows)) }
        if want(OHK_ARROW_END_DATE) { columns.append(time("end_date", pointers.endUnixMicroseconds!, rows)) }
        if want(OHK_ARROW_VALUE) {
            if let unit { try convert(rows, names.types, to: unit) }
            columns.append(ArrowColumn("value", format: "g", length: rows, buffers: [nil, UnsafeRawPointer(pointers.value!)],
                                       metadata: unit.map { [("unit", $0.description)] } ?? []))
        }
        if want(OHK_ARROW_UNIT) {
            // A category type's rows have no unit: nulls, through a bitmap
            // only when such a type is among them.
            var valid: ValidityBitmap?
            if units.contains(nil) {
                var v = ValidityBitmap(memory, rows: rows)
                let type = typeColumn!
                for i in 0..<rows { v.set(i, valid: units[Int(type[i])] != nil) }
                valid = v
            }
            columns.append(.dictionary("unit", indices: UnsafeRawPointer(typeColumn!), length: rows, validity: valid,
                                       values: units, memory))
        }
        if want(OHK_ARROW_TYPE) {
            columns.append(.dictionary("type", indices: UnsafeRawPointer(typeColumn!), length: rows,
                                       values: names.types.map(\.identifier), memory))
        }
        if want(OHK_ARROW_SOURCE) {
            columns.append(.dictionary("source", indices: UnsafeRawPointer(pointers.sourceID!), length: rows,
                                       values: names.sources.map { $0.name.map { String(cString: $0) } }, memory))
        }
        if want(OHK_ARROW_SOURCE_BUNDLE) {
            columns.append(.dictionary("source_bundle", indices: UnsafeRawPointer(pointers.sourceID!), length: rows,
                                       values: names.sources.map { $0.bundle_identifier.map { String(cString: $0) } },
                                       memory))
        }
        if want(OHK_ARROW_DEVICE) { columns.append(devices(rows, names.device)) }
        if let metadata { columns.append(metadata.column("metadata", rows: rows, memory)) }
        if want(OHK_ARROW_UTC_OFFSET) {
            columns.append(nullable("utc_offset", "i", pointers.utcOffset!, rows, none: SampleColumnPointers.noUTCOffset))
        }
        if want(OHK_ARROW_CREATION_DATE) {
            columns.append(nullable("creation_date", "tsu:UTC", pointers.creationUnixMicroseconds!, rows,
                                    none: SampleColumnPointers.noCreationDate))
        }
        return .table(columns, length: rows)
    }

    /// A column whose rows holding `none` (the writer's mark of a missing
    /// value) are nulls.
    private func nullable<T: Equatable>(_ name: String, _ format: String, _ p: UnsafeMutablePointer<T>, _ rows: Int,
                                        none: T) -> ArrowColumn {
        var valid = ValidityBitmap(memory, rows: rows)
        for i in 0..<rows { valid.set(i, valid: p[i] != none) }
        return ArrowColumn(name, format: format, length: rows, nullCount: valid.nullCount,
                           buffers: [UnsafeRawPointer(valid.bits), UnsafeRawPointer(p)], nullable: true)
    }

    private func time(_ name: String, _ p: UnsafeMutablePointer<Int64>, _ rows: Int) -> ArrowColumn {
        ArrowColumn(name, format: "tsu:UTC", length: rows, buffers: [nil, UnsafeRawPointer(p)])
    }

    /// Each type's unit as the unit column names it: `unit`, or the
    /// type's canonical unit; nil for category types.
    private func unitTexts(_ types: [SampleType], _ unit: HealthUnit?) -> [String?] {
        types.map { t in t.canonicalUnitText == nil ? nil : unit?.description ?? t.canonicalUnitText }
    }

    /// Converts the value column to `unit` (rule 44: `ReadConversion`).
    /// A type whose unit is `unit` however spelt is left exact.
    private func convert(_ rows: Int, _ types: [SampleType], to unit: HealthUnit) throws {
        var maps: [ReadConversion?] = []
        for t in types {
            guard let canonical = t.canonicalUnit else {
                throw CError(.incompatibleUnit, "\(t.identifier) is a category type: its values have no unit to convert to '\(unit)'")
            }
            guard canonical.isCompatible(with: unit) else {
                throw CError(.incompatibleUnit, "cannot convert \(t.identifier)'s '\(canonical)' to '\(unit)': different dimensions")
            }
            maps.append(try ReadConversion(from: canonical, to: unit))
        }
        let value = pointers.value!, type = typeColumn!
        for i in 0..<rows {
            if let map = maps[Int(type[i])] { value[i] = map(value[i]) }
        }
    }

    /// The device column: each row's store device id becomes its index in
    /// a dictionary of the devices' names, in place; id 0 is a null.
    private func devices(_ rows: Int, _ device: (UInt32) -> Device?) -> ArrowColumn {
        let ids = pointers.deviceID!
        let indices = UnsafeMutableRawPointer(ids).assumingMemoryBound(to: Int32.self)
        var valid = ValidityBitmap(memory, rows: rows)
        // Store ids are dense from 1: a table by id, -1 until first met.
        var number: [Int32] = []
        var names: [String?] = []
        for i in 0..<rows {
            let id = Int(ids[i])
            guard id != 0 else {
                valid.set(i, valid: false)
                continue
            }
            if id >= number.count || number[id] < 0 {
                if id >= number.count { number += repeatElement(-1, count: id + 1 - number.count) }
                let d = device(UInt32(id))
                number[id] = Int32(names.count)
                names.append(d?.name ?? d?.model ?? d?.manufacturer)
            }
            indices[i] = number[id]
            valid.set(i, valid: names[Int(number[id])] != nil)  // a device with none of the three: null
        }
        return .dictionary("device", indices: UnsafeRawPointer(indices), length: rows, validity: valid, values: names, memory)
    }
}
