// openhealthkit.h section 80: Anchored queries and batches
import COpenHealthKit
import OpenHealthKitCore

/// Fetches once what an anchored query finds (HKAnchoredObjectQuery
/// without an update handler; the long-running queries are the ohk_query_*
/// functions and their ohk_query handles): the samples added and the objects deleted after `anchor`
/// (NULL or "no anchor": every live sample and every retained deleted object) that
/// match the descriptors (a type and an optional predicate each; an object
/// matching several comes once), in change order, at most `limit` objects
/// (samples and deleted objects together; 0: no limit). *out_batch
/// receives the result and its new anchor; free it with ohk_batch_free.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT; OHK_ERR_UNKNOWN_TYPE;
/// OHK_ERR_INVALID_PREDICATE / OHK_ERR_INCOMPATIBLE_UNIT (a predicate
/// term that does not apply to its type); OHK_ERR_ANCHOR_CORRUPT,
/// OHK_ERR_ANCHOR_WRONG_STORE, OHK_ERR_ANCHOR_FROM_FUTURE,
/// OHK_ERR_ANCHOR_EXPIRED; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// a read transaction that never waits for writers.
@c public func ohk_store_fetch(_ out_batch: UnsafeMutablePointer<UnsafeMutablePointer<ohk_batch>?>?,
                               _ store: UnsafeMutablePointer<ohk_store>?,
                               _ descriptors: UnsafePointer<ohk_descriptor>?, _ descriptor_count: UInt64,
                               _ anchor: UnsafePointer<ohk_anchor>?, _ limit: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_batch, "out_batch")
        let h = try StoreHandle.handle(store)
        guard limit <= UInt64(Int.max) else { throw CError(.invalidArgument, "limit \(limit) is too large") }
        // The records are laid out as the scan reads, not copied first,
        // unless the query can return only a few.
        let fetched: RowsQueryResult
        if descriptor_count == 1, let d = descriptors?.pointee, d.predicate == nil {
            // One type, no predicate (every delta): no descriptor array.
            fetched = try h.store.anchoredQuery(type: try sampleType(d.type, h.store, "descriptors[0].type"),
                                                anchor: try AnchorValue.read(anchor), limit: Int(limit),
                                                rows: BatchHandle.recordLayout, deleted: BatchHandle.deletedLayout,
                                                rowsFrom: BatchHandle.rowsFrom)
        } else {
            let ds = try OpenHealthKitC.descriptors(descriptors, descriptor_count, h.store)
            fetched = try h.store.anchoredQuery(ds, anchor: try AnchorValue.read(anchor), limit: Int(limit),
                                                rows: BatchHandle.recordLayout, deleted: BatchHandle.deletedLayout,
                                                rowsFrom: BatchHandle.rowsFrom)
        }
        if let rows = fetched.rows {
            result.pointee = Registry.add(BatchHandle(fetched, rows: rows, names: h.names))
        } else {
            result.pointee = Registry.add(BatchHandle(fetched.result, names: h.names))
        }
    }
}

/// Fetches what ohk_store_fetch fetches without a limit, handing it to
/// `callback` in parts of at most 4,096 objects (samples and deleted
/// objects together), in change order, all read from one snapshot (rule
/// 75): a large read needs the memory of one part, where one batch holds
/// all of it, as SQLite's and LMDB's cursors read a row at a time. Each
/// part is a batch lent for the call (the ohk_batch_* getters read it; do
/// not free it). Its anchor (ohk_batch_anchor) is the position after its
/// last object; the last part holds fewer than 4,096 objects (perhaps
/// none: there is always one) and its anchor is the query's new anchor,
/// as ohk_store_fetch's. The callback returns 0 to go on; anything else
/// stops the fetch. It may read the store and save to it; it must not
/// close it (the fetch holds it open, and the close would wait for it).
/// Returns OHK_OK; OHK_ERR_CANCELLED (the callback stopped it);
/// OHK_ERR_INVALID_ARGUMENT (a NULL callback, or as ohk_store_fetch);
/// OHK_ERR_UNKNOWN_TYPE; OHK_ERR_INVALID_PREDICATE /
/// OHK_ERR_INCOMPATIBLE_UNIT; OHK_ERR_ANCHOR_CORRUPT,
/// OHK_ERR_ANCHOR_WRONG_STORE, OHK_ERR_ANCHOR_FROM_FUTURE,
/// OHK_ERR_ANCHOR_EXPIRED; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// the callback runs on the calling thread, inside a read transaction
/// that never waits for writers. A large fetch of one type, without a
/// predicate or with a range of start dates alone, reads some parts on a
/// second thread, which the store keeps until ohk_store_close (on a
/// machine with two processors or more).
@c public func ohk_store_fetch_parts(_ store: UnsafeMutablePointer<ohk_store>?,
                                     _ descriptors: UnsafePointer<ohk_descriptor>?, _ descriptor_count: UInt64,
                                     _ anchor: UnsafePointer<ohk_anchor>?, _ callback: ohk_fetch_part_fn?,
                                     _ user_data: UnsafeMutableRawPointer?) -> ohk_status {
    cCall {
        let h = try StoreHandle.handle(store)
        guard let callback else { throw CError(.invalidArgument, "callback is NULL") }
        var stopped = false
        // A local function, used only as a non-escaping argument: a
        // closure value was two allocations per call (its context and
        // `stopped`'s box).
        func lend(_ fetched: RowsQueryResult) -> Bool {
            let b = fetched.rows.map { BatchHandle(fetched, rows: $0, names: h.names) }
                ?? BatchHandle(fetched.result, names: h.names)
            b.borrowed = true
            let lent: UnsafeMutablePointer<ohk_batch> = Registry.add(b)
            stopped = callback(lent, user_data) != 0
            _ = Registry.remove(lent, BatchHandle.self)
            return !stopped
        }
        let from = try AnchorValue.read(anchor)
        if descriptor_count == 1, let d = descriptors?.pointee, d.predicate == nil {
            // One type, no predicate (every delta): no descriptor array.
            try h.store.anchoredQueryParts(type: try sampleType(d.type, h.store, "descriptors[0].type"), anchor: from,
                                           part: BatchHandle.partSize, rows: BatchHandle.recordLayout,
                                           deleted: BatchHandle.deletedLayout, rowsFrom: BatchHandle.rowsFrom, lend)
        } else {
            try h.store.anchoredQueryParts(try OpenHealthKitC.descriptors(descriptors, descriptor_count, h.store),
                                           anchor: from, part: BatchHandle.partSize, rows: BatchHandle.recordLayout,
                                           deleted: BatchHandle.deletedLayout, rowsFrom: BatchHandle.rowsFrom, lend)
        }
        if stopped { throw CError(status: Int32(OHK_ERR_CANCELLED), "the callback stopped the fetch") }
    }
}

/// Frees a batch and everything borrowed from it. NULL is ignored, and so
/// is a batch lent to a callback (the library frees that one). Any thread.
@c public func ohk_batch_free(_ batch: UnsafeMutablePointer<ohk_batch>?) {
    guard let b = try? BatchHandle.get(batch), !b.borrowed else { return }
    _ = Registry.remove(batch, BatchHandle.self)
}

/// The batch's samples: *out_records points at *out_count contiguous
/// records (NULL when there are none), borrowed from the batch.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED (freed). Any thread.
@c public func ohk_batch_samples(_ out_records: UnsafeMutablePointer<UnsafePointer<ohk_sample_record>?>?,
                                 _ out_count: UnsafeMutablePointer<UInt64>?,
                                 _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try lend(out_records, "out_records", out_count) { try BatchHandle.get(batch).samples } }
}

/// Copies the records of samples `first`, `first` + 1, ... into the
/// caller's `records`, at most `capacity` of them (fewer at the end of the
/// batch, none at or past it); *out_count receives how many, and
/// *out_flags (unless NULL) the OR of their flags (no OHK_SAMPLE_HAS_*
/// bit: none of them has that field). The same records as
/// ohk_batch_samples, a part at a time, in the caller's memory: what a
/// reader that converts each record into an object of its own language
/// wants.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL out_count, or NULL
/// records with a capacity); OHK_ERR_CLOSED (a freed batch). Any thread.
@c public func ohk_batch_copy_samples(_ out_count: UnsafeMutablePointer<UInt64>?,
                                      _ out_flags: UnsafeMutablePointer<UInt32>?,
                                      _ records: UnsafeMutablePointer<ohk_sample_record>?, _ capacity: UInt64,
                                      _ batch: UnsafePointer<ohk_batch>?, _ first: UInt64) -> ohk_status {
    cCall {
        let count = try out(out_count, "out_count")
        guard records != nil || capacity == 0 else { throw CError(.invalidArgument, "records is NULL") }
        let b = try BatchHandle.get(batch)
        let n = UInt64(b.sampleCount)
        out_flags?.pointee = 0
        guard first < n, capacity > 0, let records else { count.pointee = 0; return }
        let room = Int(min(capacity, n - first))
        let copied = b.copyRecords(from: Int(first), into: UnsafeMutableBufferPointer(start: records, count: room))
        count.pointee = UInt64(copied)
        if let out_flags { out_flags.pointee = (0..<copied).reduce(0) { $0 | records[$1].flags } }
    }
}

/// The batch's samples as columns: writes each sample's fields into the
/// arrays of *columns (NULL arrays are skipped), which the caller owns and
/// sizes for at least `capacity` samples; *out_count receives the number
/// of samples. With every array NULL it only reports the count (to size
/// the arrays; `capacity` is then ignored). For analysis code that wants
/// columns of a batch it has; ohk_store_fetch_columns fills columns
/// straight from the store, without a batch's records.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL columns or out_count,
/// capacity below the sample count); OHK_ERR_CLOSED (a freed batch).
/// Any thread.
@c public func ohk_batch_sample_columns(_ out_count: UnsafeMutablePointer<UInt64>?,
                                        _ columns: UnsafePointer<ohk_sample_columns>?, _ capacity: UInt64,
                                        _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall {
        let count = try out(out_count, "out_count")
        guard let columns else { throw CError(.invalidArgument, "columns is NULL") }
        let b = try BatchHandle.get(batch)
        let n = UInt64(b.sampleCount)
        let c = columns.pointee
        let none = c.uuid == nil && c.start_us == nil && c.end_us == nil && c.value == nil
            && c.type_index == nil && c.source_index == nil && c.flags == nil
        if !none {
            guard capacity >= n else { throw CError(.invalidArgument, "capacity \(capacity) is below the batch's \(n) samples") }
            b.fillColumns(c)
        }
        count.pointee = n
    }
}

/// The batch's deleted objects, like ohk_batch_samples.
@c public func ohk_batch_deleted(_ out_records: UnsafeMutablePointer<UnsafePointer<ohk_deleted_record>?>?,
                                 _ out_count: UnsafeMutablePointer<UInt64>?,
                                 _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try lend(out_records, "out_records", out_count) { try BatchHandle.get(batch).deleted } }
}

/// The anchor to pass to the next query: after the last object of the
/// batch (with a limit), or the store's head when the query ran to the end.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_anchor(_ out_anchor: UnsafeMutablePointer<ohk_anchor>?,
                                _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall {
        let result = try out(out_anchor, "out_anchor")
        result.pointee = AnchorValue.make(try BatchHandle.get(batch).result.newAnchor)
    }
}

/// *out_initial receives 1 when the batch is a long-running anchored
/// query's initial results (the snapshot HealthKit hands its results
/// handler), 0 for its later change sets and for every other batch.
@c public func ohk_batch_is_initial(_ out_initial: UnsafeMutablePointer<Int32>?,
                                    _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try out(out_initial, "out_initial").pointee = try BatchHandle.get(batch).isInitial ? 1 : 0 }
}

/// How many entries the batch's type table has (type_index < this).
@c public func ohk_batch_type_count(_ out_count: UnsafeMutablePointer<UInt64>?,
                                    _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try out(out_count, "out_count").pointee = UInt64(try BatchHandle.get(batch).types.count) }
}

/// The identifier of the batch's type number `type_index` (a record's
/// type_index). *out_identifier lives as long as the process.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT (out of range), OHK_ERR_CLOSED.
@c public func ohk_batch_type(_ out_identifier: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                              _ batch: UnsafePointer<ohk_batch>?, _ type_index: UInt32) -> ohk_status {
    cCall {
        let result = try out(out_identifier, "out_identifier")
        let b = try BatchHandle.get(batch)
        result.pointee = b.names.identifier(try entry(b.types, type_index, "type_index"))
    }
}

/// How many entries the batch's source table has (source_index < this).
@c public func ohk_batch_source_count(_ out_count: UnsafeMutablePointer<UInt64>?,
                                      _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try out(out_count, "out_count").pointee = UInt64(try BatchHandle.get(batch).sources.count) }
}

/// The batch's source number `source_index` (bundle identifier, name,
/// version or NULL), strings borrowed from the batch.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT (out of range), OHK_ERR_CLOSED.
@c public func ohk_batch_source(_ out_source: UnsafeMutablePointer<ohk_source>?,
                                _ batch: UnsafePointer<ohk_batch>?, _ source_index: UInt32) -> ohk_status {
    cCall {
        let result = try out(out_source, "out_source")
        result.pointee = try entry(try BatchHandle.get(batch).sources.entries, source_index, "source_index")
    }
}

/// The batch's whole source table in one call: *out_sources points at
/// *out_count contiguous entries, numbered as records' source_index (NULL
/// when there are none), borrowed from the batch with their strings.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED (freed). Any thread.
@c public func ohk_batch_sources(_ out_sources: UnsafeMutablePointer<UnsafePointer<ohk_source>?>?,
                                 _ out_count: UnsafeMutablePointer<UInt64>?,
                                 _ batch: UnsafePointer<ohk_batch>?) -> ohk_status {
    cCall { try lend(out_sources, "out_sources", out_count) { try BatchHandle.get(batch).sources.entries } }
}

/// Sample `sample_index`'s metadata: *out_entries points at *out_count
/// entries sorted by key (NULL and 0 when it has none), borrowed from the
/// batch. Decoded on first access. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT (index out of range), OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_metadata(_ out_entries: UnsafeMutablePointer<UnsafePointer<ohk_metadata_entry>?>?,
                                  _ out_count: UnsafeMutablePointer<UInt64>?,
                                  _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall { try lend(out_entries, "out_entries", out_count) { try BatchHandle.get(batch).metadata(sample_index) } }
}

/// Sample `sample_index`'s device into *out_device (strings borrowed from
/// the batch, NULL for absent fields). Returns OHK_OK; OHK_ERR_NOT_FOUND
/// when the sample has no device; OHK_ERR_INVALID_ARGUMENT; OHK_ERR_CLOSED.
@c public func ohk_batch_device(_ out_device: UnsafeMutablePointer<ohk_device>?,
                                _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_device, "out_device")
        guard let d = try BatchHandle.get(batch).device(sample_index) else {
            throw CError(.notFound, "sample \(sample_index) has no device")
        }
        result.pointee = d
    }
}

/// Hands C a borrowed array as pointer (NULL when empty) and count,
/// checking the out-parameters before reading the array.
private func lend<T>(_ out_items: UnsafeMutablePointer<UnsafePointer<T>?>?, _ what: String,
                     _ out_count: UnsafeMutablePointer<UInt64>?,
                     _ items: () throws -> UnsafeMutableBufferPointer<T>) throws {
    let pointer = try out(out_items, what), count = try out(out_count, "out_count")
    let b = try items()
    pointer.pointee = b.isEmpty ? nil : UnsafePointer(b.baseAddress)
    count.pointee = UInt64(b.count)
}

/// `table[index]`, or an invalid-argument error naming the index.
private func entry<Table: RandomAccessCollection<Table.Element>>(_ table: Table, _ index: UInt32,
                                                                 _ name: String) throws -> Table.Element where Table.Index == Int {
    guard Int(index) < table.count else {
        throw CError(.invalidArgument, "\(name) \(index) is out of range 0..<\(table.count)")
    }
    return table[Int(index)]
}
