// openhealthkit.h section 250: Replication between stores
import COpenHealthKit
import Glibc
import OpenHealthKitCore
import OpenHealthKitRemote

/// Fills `options` with the defaults of ohk_store_sync for its `version`
/// (pass OHK_SYNC_OPTIONS_VERSION): the name "default", every type, from
/// the checkpoint, 20,000 changes per transaction (batch_size 0). Returns
/// OHK_OK, or OHK_ERR_INVALID_ARGUMENT when options is NULL or the version
/// is unknown. Any thread; never blocks.
@c public func ohk_sync_options_init(_ options: UnsafeMutablePointer<ohk_sync_options>?, _ version: UInt32) -> ohk_status {
    cCall { try syncOptionsVersions.initialize(options, version) }
}

/// Copies every change of `source` since `dest`'s checkpoint for it into
/// `dest` (rule 69; docs/sync.md): in transactions of batch_size changes,
/// each writing the checkpoint with the changes it covers, up to the
/// source's head. Run it again, or both ways, to keep the stores alike
/// (rule 70: a deletion wins, the higher sync version wins, a UUID with
/// other content is a conflict left alone and counted). `options` may be
/// NULL for the defaults. *out_report (may be NULL) receives the counts
/// and whether the received changes rebuild the source's live digest
/// (`verified`). Returns OHK_OK; OHK_ERR_SYNC_CHECKPOINT when the
/// checkpoint does not fit the source (another store now at its place,
/// deletions pruned past it, a source behind it, other types): set
/// from_scratch to copy the source in full; OHK_ERR_SYNC_BUSY when another
/// sync of the same name moved the checkpoint meanwhile; OHK_ERR_INVALID_ARGUMENT
/// (the same store twice, or a copy of its directory; a NULL; options of an
/// unknown version); OHK_ERR_UNKNOWN_TYPE; the errors of ohk_store_apply,
/// after which the batches before the failing one stay applied. Any
/// thread; blocks for the reads and write transactions.
@c public func ohk_store_sync(_ out_report: UnsafeMutablePointer<ohk_sync_report>?,
                              _ dest: UnsafeMutablePointer<ohk_store>?, _ source: UnsafeMutablePointer<ohk_store>?,
                              _ options: UnsafePointer<ohk_sync_options>?) -> ohk_status {
    cCall {
        let into = try StoreHandle.get(dest), from = try StoreHandle.get(source)
        let r = try into.sync(from: from, try syncOptions(options))
        out_report?.pointee = r.c
    }
}

/// The options a C caller passed (NULL: the defaults).
private func syncOptions(_ options: UnsafePointer<ohk_sync_options>?) throws -> SyncOptions {
    var o = SyncOptions()
    guard let c = try syncOptionsVersions.read(options) else { return o }
    if let name = try optionalString(c.name, "options.name") { o.name = name }
    if c.type_count > 0 || c.types != nil {
        o.types = try buffer(c.types, c.type_count, "options.types").enumerated().map { i, p in
            try string(p, "options.types[\(i)]")
        }
    }
    o.fromScratch = c.from_scratch
    if c.batch_size > 0 {
        guard c.batch_size <= UInt64(Int32.max) else { throw CError(.invalidArgument, "options.batch_size is too large") }
        o.batchSize = Int(c.batch_size)
    }
    return o
}

extension SyncReport {
    /// The report as C reads it.
    var c: ohk_sync_report {
        let a = applied
        let (source, received): (LiveDigest, LiveDigest)
        switch verification {
        case .verified(let d): (source, received) = (d, d)
        case .differs(let types):
            source = types.values.map(\.source).reduce(LiveDigest(), +)
            received = types.values.map(\.received).reduce(LiveDigest(), +)
        }
        return ohk_sync_report(
            applied: ohk_apply_outcome(
                added: UInt64(a.added), replaced: UInt64(a.replaced), already_stored: UInt64(a.alreadyStored),
                older_versions: UInt64(a.olderVersions), deleted_before: UInt64(a.deletedBefore), deleted: UInt64(a.deleted),
                already_deleted: UInt64(a.alreadyDeleted), deleted_before_arrival: UInt64(a.deletedBeforeArrival),
                anchor: AnchorValue.make(a.anchor)),
            changes_read: UInt64(changesRead), position: checkpoint.position,
            new_conflicts: UInt64(newConflicts.count),
            verified: verification.isVerified, converged: converged,
            source_digest: source.c, received_digest: received.c)
    }
}

/// `ohk sync SOURCE DEST`: ohk_store_sync where each side is a store
/// directory (DEST is created when missing; SOURCE must hold a store) or
/// a person's store on `ohk serve`, `http(s)://HOST:PORT/v1/people/PERSON`,
/// reached with the bearer `token` (NULL: none). libcurl is opened for a
/// URL (OHK_ERR_INVALID_ARGUMENT naming it when it is not installed).
/// Returns what ohk_store_sync returns, and OHK_ERR_INVALID_ARGUMENT for a
/// SOURCE directory without a store, a URL that is not a store of ohk
/// serve, a server that cannot be reached or refuses the token (the
/// message gives the server's words); OHK_ERR_STORAGE for a server
/// failure. Any thread; blocks for the requests and transactions.
@c public func ohk_sync(_ out_report: UnsafeMutablePointer<ohk_sync_report>?, _ source: UnsafePointer<CChar>?,
                        _ dest: UnsafePointer<CChar>?, _ token: UnsafePointer<CChar>?,
                        _ options: UnsafePointer<ohk_sync_options>?) -> ohk_status {
    cCall {
        let from = try string(source, "source"), into = try string(dest, "dest")
        let bearer = try optionalString(token, "token")
        var o = try syncOptions(options)
        func remote(_ text: String) -> Bool { text.hasPrefix("http://") || text.hasPrefix("https://") }
        var opened: [Store] = []
        defer { for s in opened { s.close() } }
        let s: any SyncSource
        if remote(from) {
            s = try RemoteStore(url: from, token: bearer)
        } else {
            guard access(from + "/data.mdb", F_OK) == 0 else { throw CError(.invalidArgument, "\(from): no store there (no data.mdb)") }
            let store = try Store(directory: from)
            opened.append(store)
            s = store
        }
        let d: any SyncDestination = remote(into) ? try RemoteStore(url: into, token: bearer) : try {
            let store = try Store(directory: into)
            opened.append(store)
            return store
        }()
        o.sourceLocation = remote(from) ? from : (realpath(from, nil).map { p in defer { free(p) }; return String(cString: p) } ?? from)
        let r = try synchronize(from: s, into: d, o)
        out_report?.pointee = r.c
    }
}

/// The store's live digest (rule 68) of `type` (an identifier or short
/// name), or of every type summed when `type` is NULL, into *out_digest.
/// Two stores with equal digests hold the same live samples. Returns
/// OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL out_digest); OHK_ERR_UNKNOWN_TYPE.
/// Any thread; a read, never blocked by writers.
@c public func ohk_store_live_digest(_ out_digest: UnsafeMutablePointer<ohk_live_digest>?,
                                     _ store: UnsafeMutablePointer<ohk_store>?, _ type: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_digest, "out_digest")
        let s = try StoreHandle.get(store)
        let all = try s.liveDigests()
        if let name = try optionalString(type, "type") {
            result.pointee = (all[try s.sampleType(name).identifier] ?? LiveDigest()).c
        } else {
            result.pointee = all.values.reduce(LiveDigest(), +).c
        }
    }
}

/// The UUIDs a sync found with other content in this store than in its
/// source (rule 70), 16 bytes each, into `uuids` (room for `capacity`
/// UUIDs; may be NULL with capacity 0). *out_count receives how many
/// there are. Returns OHK_OK; OHK_ERR_BUFFER_TOO_SMALL when they do not
/// fit (*out_count says how many to make room for); OHK_ERR_INVALID_ARGUMENT
/// (NULL out_count). Any thread.
@c public func ohk_store_sync_conflicts(_ out_count: UnsafeMutablePointer<UInt64>?, _ store: UnsafeMutablePointer<ohk_store>?,
                                        _ uuids: UnsafeMutablePointer<UInt8>?, _ capacity: UInt64) -> ohk_status {
    cCall {
        let count = try out(out_count, "out_count")
        let conflicts = try StoreHandle.get(store).syncConflicts()
        count.pointee = UInt64(conflicts.count)
        guard UInt64(conflicts.count) <= capacity else {
            throw CError(status: Int32(OHK_ERR_BUFFER_TOO_SMALL), "\(conflicts.count) conflicts, room for \(capacity)")
        }
        guard let uuids else { return }
        for (i, c) in conflicts.enumerated() {
            withUnsafeBytes(of: c.uuid.uuid) { UnsafeMutableRawPointer(uuids + 16 * i).copyMemory(from: $0.baseAddress!, byteCount: 16) }
        }
    }
}

extension LiveDigest {
    var c: ohk_live_digest { ohk_live_digest(count: count, low: low, high: high) }
}

extension SyncVerification {
    var isVerified: Bool { if case .verified = self { true } else { false } }
}
