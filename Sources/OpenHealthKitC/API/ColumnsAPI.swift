// openhealthkit.h section 90: Queries into columns
import COpenHealthKit
import OpenHealthKitCore

/// How many rows the columns of ohk_store_fetch_columns need for these
/// descriptors, from any anchor: at least the objects the query can
/// return (those their types hold, deleted ones included). A count of
/// stored objects, read in a few pages; memory sized by it and never
/// written costs nothing on Linux. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_UNKNOWN_TYPE,
/// OHK_ERR_INVALID_PREDICATE, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_fetch_bound(_ out_bound: UnsafeMutablePointer<UInt64>?,
                                     _ store: UnsafeMutablePointer<ohk_store>?,
                                     _ descriptors: UnsafePointer<ohk_descriptor>?,
                                     _ descriptor_count: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_bound, "out_bound")
        let h = try StoreHandle.handle(store)
        result.pointee = UInt64(try h.store.fetchBound(try OpenHealthKitC.descriptors(descriptors, descriptor_count, h.store)))
    }
}

/// ohk_store_fetch with the samples written straight into the caller's
/// columns as the query reads them (NULL arrays skipped, as in
/// ohk_batch_sample_columns) instead of into the batch: no record is
/// copied, so a full read costs about half. *out_count receives the rows
/// written; *out_batch the rest of the result (the deleted objects, the
/// type and source tables the columns' indexes refer to, the new anchor),
/// and holds no samples. At most `capacity` samples (at least 1): when
/// more match, the result ends after the last one written, as a limit
/// ends it, and the batch's anchor continues from there. Size the columns
/// with ohk_store_fetch_bound to have every sample in one call. A large
/// read asks the kernel for the columns' pages a little ahead of the rows
/// it writes (MADV_POPULATE_WRITE: up to some 8,192 rows past the last,
/// never past `capacity`), leaving their contents as they are.
/// Returns what ohk_store_fetch returns; OHK_ERR_INVALID_ARGUMENT also for
/// NULL columns or out_count and a capacity of 0.
@c public func ohk_store_fetch_columns(_ out_batch: UnsafeMutablePointer<UnsafeMutablePointer<ohk_batch>?>?,
                                       _ out_count: UnsafeMutablePointer<UInt64>?,
                                       _ store: UnsafeMutablePointer<ohk_store>?,
                                       _ descriptors: UnsafePointer<ohk_descriptor>?, _ descriptor_count: UInt64,
                                       _ anchor: UnsafePointer<ohk_anchor>?, _ limit: UInt64,
                                       _ columns: UnsafePointer<ohk_sample_columns>?, _ capacity: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_batch, "out_batch")
        let count = try out(out_count, "out_count")
        guard let columns else { throw CError(.invalidArgument, "columns is NULL") }
        let h = try StoreHandle.handle(store)
        guard limit <= UInt64(Int.max) else { throw CError(.invalidArgument, "limit \(limit) is too large") }
        guard capacity > 0, capacity <= UInt64(Int.max) else {
            throw CError(.invalidArgument, "capacity \(capacity) is out of range 1...\(Int.max)")
        }
        let r = try h.store.anchoredQuery(try OpenHealthKitC.descriptors(descriptors, descriptor_count, h.store),
                                          anchor: try AnchorValue.read(anchor), limit: Int(limit),
                                          into: columnPointers(columns.pointee), capacity: Int(capacity))
        result.pointee = Registry.add(BatchHandle(r.result, names: h.names, sourceOrder: r.sourceOrder))
        count.pointee = UInt64(r.count)
    }
}

/// The core's view of C columns (the flag bits are OHK_SAMPLE_*'s).
func columnPointers(_ c: ohk_sample_columns) -> SampleColumnPointers {
    var out = SampleColumnPointers()
    out.uuid = c.uuid.map(UnsafeMutableRawPointer.init)
    out.startUnixMicroseconds = c.start_us
    out.endUnixMicroseconds = c.end_us
    out.value = c.value
    out.typeIndex = c.type_index
    out.sourceID = c.source_index
    out.flags = c.flags
    out.creationUnixMicroseconds = c.creation_us
    out.utcOffset = c.utc_offset
    return out
}
