// openhealthkit.h section 60: Applying a receiver's batch
import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// Applies a receiver's batch (rule 63) in one transaction, all or
/// nothing: the `sample_count` samples (as ohk_store_save takes them),
/// then the `deleted_count` deletions (UUIDs, 16 bytes each, packed), as
/// a phone's anchored query returned them. A sample whose UUID is stored
/// with the same content is skipped; one whose UUID was deleted, here or
/// by an earlier deletion of a UUID the store never held, is skipped too.
/// A deletion of a UUID the store never held is kept, so that the
/// sample, should it come later, is skipped. Sending the same batch
/// again changes nothing. *out_outcome (may be NULL) receives the counts
/// and the store's anchor after the call. Returns OHK_OK;
/// OHK_ERR_DUPLICATE_UUID (a stored UUID with other content: nothing is
/// applied, the message names it); OHK_ERR_INVALID_ARGUMENT (a UUID twice
/// among the samples, a NULL with a count) and the errors of
/// ohk_store_save, each naming the sample's index. Any thread; blocks for
/// the write transaction.
@c public func ohk_store_apply(_ out_outcome: UnsafeMutablePointer<ohk_apply_outcome>?,
                               _ store: UnsafeMutablePointer<ohk_store>?,
                               _ samples: UnsafePointer<ohk_sample_input>?, _ sample_count: UInt64,
                               _ deleted_uuids: UnsafePointer<UInt8>?, _ deleted_count: UInt64) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        var builder = SampleBuilder(store: s)
        let built = try builder.buildAll(samples, sample_count)
        let o = try s.apply(samples: built, deletions: try UUIDBytes.array(deleted_uuids, deleted_count, "deleted_uuids"))
        out_outcome?.pointee = ohk_apply_outcome(
            added: UInt64(o.added), replaced: UInt64(o.replaced), already_stored: UInt64(o.alreadyStored),
            older_versions: UInt64(o.olderVersions), deleted_before: UInt64(o.deletedBefore), deleted: UInt64(o.deleted),
            already_deleted: UInt64(o.alreadyDeleted), deleted_before_arrival: UInt64(o.deletedBeforeArrival),
            anchor: AnchorValue.make(o.anchor))
    }
}
