// openhealthkit.h section 20: Stores
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

final class StoreHandle: Handle, @unchecked Sendable {
    override class var kindName: String { "ohk_store" }
    let store: Store
    /// The C strings of the store's sources, for its batches.
    let names = CNames()
    init(_ store: Store) { self.store = store }
}

extension StoreHandle {
    static func get(_ p: UnsafePointer<ohk_store>?) throws -> Store {
        try handle(p).store
    }

    static func handle(_ p: UnsafePointer<ohk_store>?) throws -> StoreHandle {
        try Registry.get(p, StoreHandle.self, "store")
    }
}

/// Fills `options` with the defaults of its `version` (pass
/// OHK_STORE_OPTIONS_VERSION): a 256 MiB initial map (it grows by itself),
/// deleted objects kept 90 days, durable commits, writable. Writes only
/// the fields that version has, so a program built against an older
/// header may pass its own smaller struct. Returns OHK_OK, or
/// OHK_ERR_INVALID_ARGUMENT when options is NULL or the version is not
/// 1 to OHK_STORE_OPTIONS_VERSION. Any thread; never blocks.
@c public func ohk_store_options_init(_ options: UnsafeMutablePointer<ohk_store_options>?, _ version: UInt32) -> ohk_status {
    cCall { try storeOptionsVersions.initialize(options, version) }
}

/// Opens the store in directory `path`, creating the directory and the
/// store when missing. `options` may be NULL for the defaults.
/// With options.read_only the store must exist in this library's format;
/// nothing is created, upgraded or pruned, read access to data.mdb is
/// enough, and every write through the handle returns OHK_ERR_READ_ONLY
/// (rule 64: without write access to lock.mdb too, reads are sound only
/// while no other process writes the store).
/// On success *out_store receives the store; close it with ohk_store_close.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL, bad UTF-8, options of
/// a version this library does not know, a map size below 1 MiB, a NaN
/// retention); OHK_ERR_STORE_FORMAT_TOO_NEW or
/// OHK_ERR_STORE_FORMAT_TOO_OLD for a store of another format (read-only:
/// any older one); OHK_ERR_READ_ONLY for a writable open in a process that
/// has the store open read-only; OHK_ERR_STORAGE when the directory cannot
/// be used; OHK_ERR_STORE_CORRUPT
/// when its pages are damaged (the first open in a process walks them
/// before LMDB reads any, rule 23). *out_store is left
/// unchanged on failure. Blocks on file I/O. Any thread; a store handle may
/// be used from many threads at once.
@c public func ohk_store_open(_ out_store: UnsafeMutablePointer<UnsafeMutablePointer<ohk_store>?>?,
                              _ path: UnsafePointer<CChar>?,
                              _ options: UnsafePointer<ohk_store_options>?) -> ohk_status {
    cCall {
        let result = try out(out_store, "out_store")
        let dir = try string(path, "path")
        var o = StoreOptions()
        if let c = try storeOptionsVersions.read(options) {
            guard c.map_size >= 1 << 20, c.map_size <= UInt64(Int.max) else {
                throw CError(.invalidArgument, "map_size \(c.map_size) must be at least 1 MiB")
            }
            guard !c.tombstone_retention.isNaN else { throw CError(.invalidArgument, "tombstone_retention is NaN") }
            o.mapSize = Int(c.map_size)
            o.tombstoneRetention = c.tombstone_retention < 0 ? nil : c.tombstone_retention
            o.durable = c.durable
            o.readOnly = c.read_only
        }
        let store = try Store(directory: dir, options: o)
        result.pointee = Registry.add(StoreHandle(store))
    }
}

/// Closes a store: stops its live queries (waiting for running callbacks,
/// except the one calling), waits for calls in progress on other threads,
/// and frees the handle. Later calls with it return OHK_ERR_CLOSED; queries
/// and batches made from it stay valid to free (batches stay readable).
/// NULL and already-closed handles are ignored. Blocks until the above is done.
@c public func ohk_store_close(_ store: UnsafeMutablePointer<ohk_store>?) {
    Registry.remove(store, StoreHandle.self)?.store.close()
}

/// Writes the store's current anchor (the head of its change order) to
/// *out_anchor: a query from it returns only later changes.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED, OHK_ERR_STORAGE.
/// Any thread; a short read transaction.
@c public func ohk_store_current_anchor(_ out_anchor: UnsafeMutablePointer<ohk_anchor>?,
                                        _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let result = try out(out_anchor, "out_anchor")
        result.pointee = AnchorValue.make(try StoreHandle.get(store).currentAnchor())
    }
}

/// Drops the deleted objects deleted before `deleted_before` (Unix
/// seconds), then anchors older than the newest one dropped get
/// OHK_ERR_ANCHOR_EXPIRED. *out_pruned (may be NULL) receives how many.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_INVALID_VALUE (NaN),
/// OHK_ERR_INVALID_DATE_RANGE, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread;
/// blocks for a write transaction (one writer at a time, across processes).
@c public func ohk_store_prune(_ out_pruned: UnsafeMutablePointer<UInt64>?,
                               _ store: UnsafeMutablePointer<ohk_store>?, _ deleted_before: Double) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let n = try s.prune(deletedBefore: try UnixTime.date(deleted_before, "deleted_before"))
        out_pruned?.pointee = UInt64(n)
    }
}

/// Drops every deleted object (see ohk_store_prune).
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED, OHK_ERR_STORAGE.
/// Any thread; blocks for a write transaction.
@c public func ohk_store_prune_all(_ out_pruned: UnsafeMutablePointer<UInt64>?,
                                   _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let n = try StoreHandle.get(store).pruneAll()
        out_pruned?.pointee = UInt64(n)
    }
}

/// Checks the whole store, like SQLite's `PRAGMA integrity_check`: first
/// LMDB's pages, read without LMDB (which trusts them), then every record,
/// index entry, deletion, sync identifier, workout link and subscription
/// against each other, and the maintained statistics and small tables
/// against their checks. Each problem names the tree, the key and what
/// disagrees. It repairs nothing. *out_samples and *out_deleted_objects (each
/// may be NULL) receive how many were read. *out_problems (may be NULL)
/// receives the problems, one per line (at most 100, then a count of the
/// rest), or NULL when there are none; free it with ohk_string_free.
/// Returns OHK_OK when the store is sound; OHK_ERR_STORE_CORRUPT when a
/// problem was found (ohk_last_error_message names the first);
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any thread;
/// one read transaction over the whole store (writers go on meanwhile).
@c public func ohk_store_verify(_ out_samples: UnsafeMutablePointer<UInt64>?,
                                _ out_deleted_objects: UnsafeMutablePointer<UInt64>?,
                                _ out_problems: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let report = try StoreHandle.get(store).verify()
        out_samples?.pointee = UInt64(report.samples)
        out_deleted_objects?.pointee = UInt64(report.deletedObjects)
        var lines = report.problems
        if report.moreProblems > 0 { lines.append("and \(report.moreProblems) more problems") }
        out_problems?.pointee = lines.isEmpty ? nil : ownedCString(lines.joined(separator: "\n"))
        if let first = report.problems.first {
            throw CError(.storeCorrupt, "the store is damaged: \(first)")
        }
    }
}

/// What the store holds, per type it has held a sample of (what `ohk
/// stats` counts): *out_counts receives *out_count entries by identifier,
/// each with its live samples and retained deleted objects; free them with
/// ohk_store_type_counts_free. One look per type, not a scan of the samples.
/// Returns OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED, OHK_ERR_STORAGE. Any
/// thread.
@c public func ohk_store_type_counts(_ out_counts: UnsafeMutablePointer<UnsafeMutablePointer<ohk_store_type_count>?>?,
                                     _ out_count: UnsafeMutablePointer<UInt64>?,
                                     _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let counts = try out(out_counts, "out_counts"), count = try out(out_count, "out_count")
        let found = try StoreHandle.get(store).counts().types
        let array = mallocArray(of: ohk_store_type_count.self, found.count)
        for (i, t) in found.enumerated() {
            array[i] = ohk_store_type_count(type: UnsafePointer(ownedCString(t.type.identifier)), samples: UInt64(t.samples),
                                      deleted_objects: UInt64(t.deletedObjects))
        }
        counts.pointee = array
        count.pointee = UInt64(found.count)
    }
}

/// Frees what ohk_store_type_counts gave (`count` entries). NULL is
/// ignored. Any thread.
@c public func ohk_store_type_counts_free(_ counts: UnsafeMutablePointer<ohk_store_type_count>?, _ count: UInt64) {
    guard let counts else { return }
    for i in 0..<Int(count) { free(UnsafeMutablePointer(mutating: counts[i].type)) }
    free(counts)
}

