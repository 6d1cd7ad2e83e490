// openhealthkit.h section 95: Arrow tables
import COpenHealthKit
import OpenHealthKitCore

/// Fills `options` with the defaults for its `version` (pass
/// OHK_ARROW_OPTIONS_VERSION): no descriptors, no anchor, no limit, each
/// type's canonical unit, every column. Returns OHK_OK, or
/// OHK_ERR_INVALID_ARGUMENT when options is NULL or the version is
/// unknown. Any thread; never blocks.
@c public func ohk_arrow_options_init(_ options: UnsafeMutablePointer<ohk_arrow_options>?, _ version: UInt32) -> ohk_status {
    cCall { try arrowOptionsVersions.initialize(options, version) }
}

/// The anchored query of `options->descriptors` (after `options->anchor`,
/// at most `options->limit` objects) with its samples as an Arrow table,
/// through the Arrow C Data Interface: *out_array and *out_schema receive
/// a struct array of `options->columns` (docs/arrow.md: uuid, start_date
/// and end_date as timestamp[us, UTC], value in `options->unit` or each
/// type's canonical unit, unit, type, source, source_bundle and device as
/// dictionary-encoded strings, metadata as JSON text, utc_offset,
/// creation_date), one row per sample in change order. The query writes
/// the columns as it reads, as ohk_store_fetch_columns does, into memory
/// the table owns: no copy on the way to pyarrow, Polars or DuckDB. The
/// consumer calls each struct's `release` (once; moving children out
/// is allowed). *out_batch receives the rest of the result: the deleted
/// objects, the new anchor (ohk_batch_anchor), and no samples; free it
/// with ohk_batch_free. Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (a NULL
/// out-parameter or options, no descriptors, unknown column bits),
/// OHK_ERR_INVALID_UNIT, OHK_ERR_INCOMPATIBLE_UNIT (`unit` with a
/// category type, or of another dimension than a type's), and the errors
/// of ohk_store_fetch. Any thread.
@c public func ohk_store_fetch_arrow(_ out_batch: UnsafeMutablePointer<UnsafeMutablePointer<ohk_batch>?>?,
                                     _ out_array: UnsafeMutablePointer<ArrowArray>?,
                                     _ out_schema: UnsafeMutablePointer<ArrowSchema>?,
                                     _ store: UnsafeMutablePointer<ohk_store>?,
                                     _ options: UnsafePointer<ohk_arrow_options>?) -> ohk_status {
    cCall {
        let result = try out(out_batch, "out_batch")
        let array = try out(out_array, "out_array"), schema = try out(out_schema, "out_schema")
        guard let o = try arrowOptionsVersions.read(options) else { throw CError(.invalidArgument, "options is NULL") }
        let h = try StoreHandle.handle(store)
        let ds = try descriptors(o.descriptors, o.descriptor_count, h.store)
        guard o.limit <= UInt64(Int.max) else { throw CError(.invalidArgument, "options.limit \(o.limit) is too large") }
        let limit = Int(o.limit), anchor = try AnchorValue.read(o.anchor)
        let unit = try arrowUnit(o)
        let oneType = Set(ds.map(\.type)).count == 1
        // One row more than the bound: a full table means a save came in
        // between, and the read runs again with the new bound.
        while true {
            let bound = try h.store.fetchBound(ds)
            let capacity = (limit > 0 ? min(bound, limit) : bound) + 1
            let table = try SampleTable(capacity: capacity, columns: o.columns, oneType: oneType)
            let r = try h.store.anchoredQuery(ds, anchor: anchor, limit: limit, into: table.writerPointers, capacity: capacity)
            if r.count == capacity { continue }
            let batch = BatchHandle(r.result, names: h.names, sourceOrder: r.sourceOrder)
            let column = try table.table(rows: r.count, names: .init(batch), unit: unit)
            ArrowExport.export(column, memory: table.memory, array: array, schema: schema)
            result.pointee = Registry.add(batch)
            return
        }
    }
}

/// A batch's samples as an Arrow table, as ohk_store_fetch_arrow gives
/// them (`options` may be NULL: every column, canonical units; its
/// descriptors, anchor and limit are not read). The table owns its
/// columns and outlives the batch. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_INVALID_UNIT,
/// OHK_ERR_INCOMPATIBLE_UNIT, OHK_ERR_CLOSED (a freed batch). Any thread.
@c public func ohk_batch_export_arrow(_ out_array: UnsafeMutablePointer<ArrowArray>?,
                                      _ out_schema: UnsafeMutablePointer<ArrowSchema>?,
                                      _ batch: UnsafePointer<ohk_batch>?,
                                      _ options: UnsafePointer<ohk_arrow_options>?) -> ohk_status {
    cCall {
        let array = try out(out_array, "out_array"), schema = try out(out_schema, "out_schema")
        let o = try arrowOptionsVersions.read(options) ?? arrowOptionsVersions.defaults
        let b = try BatchHandle.get(batch)
        let rows = b.sampleCount
        let table = try SampleTable(capacity: rows, columns: o.columns, oneType: false)
        b.fill(table.writerPointers)
        let column = try table.table(rows: rows, names: .init(b), unit: try arrowUnit(o))
        ArrowExport.export(column, memory: table.memory, array: array, schema: schema)
    }
}

/// A statistics result (ohk_store_statistics_collection's, or one a
/// statistics query delivered) as an Arrow table: start_date, end_date,
/// source and source_bundle (null on the rows with sources merged; with
/// OHK_STATISTICS_SEPARATE_BY_SOURCE each interval's rows per source
/// follow its merged row), sum, average, minimum, maximum, most_recent
/// (in `options->unit`, or the type's canonical unit: the field's
/// metadata names it), most_recent_start, most_recent_end, duration
/// (seconds) and count. A figure not asked for, or of an interval without
/// data, is a null. Times are timestamp[us, UTC], or without a zone for a
/// collection counted in each sample's own offset (wall-clock times,
/// rule 28). Only `options->unit` is read; `options` may be NULL. The
/// table outlives the result. Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_INVALID_UNIT, OHK_ERR_INCOMPATIBLE_UNIT. Any thread.
@c public func ohk_statistics_result_export_arrow(_ out_array: UnsafeMutablePointer<ArrowArray>?,
                                                  _ out_schema: UnsafeMutablePointer<ArrowSchema>?,
                                                  _ result: UnsafePointer<ohk_statistics_result>?,
                                                  _ options: UnsafePointer<ohk_arrow_options>?) -> ohk_status {
    cCall {
        let array = try out(out_array, "out_array"), schema = try out(out_schema, "out_schema")
        guard let result else { throw CError(.invalidArgument, "result is NULL") }
        let o = try arrowOptionsVersions.read(options) ?? arrowOptionsVersions.defaults
        let (column, memory) = try StatisticsTable.table(StatisticsResultC.block(result).pointee, unit: try arrowUnit(o))
        ArrowExport.export(column, memory: memory, array: array, schema: schema)
    }
}

/// The unit the options ask for; nil: each type's canonical one.
private func arrowUnit(_ o: ohk_arrow_options) throws -> HealthUnit? {
    try o.unit.map { try HealthUnit(try string($0, "options.unit")) }
}

nonisolated(unsafe) let arrowOptionsVersions = VersionedOptions<ohk_arrow_options>(
    name: "options", initName: "ohk_arrow_options", sizes: [MemoryLayout<ohk_arrow_options>.size],
    defaults: ohk_arrow_options(version: UInt32(OHK_ARROW_OPTIONS_VERSION), descriptors: nil, descriptor_count: 0,
                                anchor: nil, limit: 0, unit: nil, columns: 0))
