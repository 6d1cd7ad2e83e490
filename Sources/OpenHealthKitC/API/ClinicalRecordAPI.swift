// openhealthkit.h section 135: Clinical records
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// Clinical records (rule 42) through C: saved from one struct, read back
// as one struct borrowed from the batch, the resource's JSON contiguous.

/// Saves a clinical record (HKClinicalRecord, rule 42) of the clinical
/// type `sample->type` names (HKClinicalTypeIdentifierImmunizationRecord…):
/// its display name and FHIR resource, whose JSON (`record->data`) is kept
/// byte for byte; a NULL `record->resource_type` saves a record without a
/// resource (HealthKit's fhirResource is optional; the other resource
/// fields are then not read). The input's value and unit are not read.
/// Returns OHK_OK; OHK_ERR_INVALID_VALUE (a resource type HealthKit does
/// not read, an empty name, identifier or version, data that is not one
/// JSON object); OHK_ERR_INVALID_ARGUMENT (no type, or not a clinical one);
/// OHK_ERR_INVALID_DATE_RANGE; OHK_ERR_INVALID_METADATA;
/// OHK_ERR_DUPLICATE_UUID; OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any thread;
/// blocks for the write transaction.
@c public func ohk_store_save_clinical_record(_ out_outcome: UnsafeMutablePointer<ohk_save_outcome>?,
                                              _ store: UnsafeMutablePointer<ohk_store>?,
                                              _ sample: UnsafePointer<ohk_sample_input>?,
                                              _ record: UnsafePointer<ohk_clinical_record>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        let c = try input(sample, "sample", kind: .clinicalRecord)
        let type = try sampleType(c.type, nil, "sample.type")
        guard let r = record?.pointee else { throw CError(.invalidArgument, "record is NULL") }
        let value = ClinicalRecord(
            displayName: try string(r.display_name, "record->display_name"),
            fhirResource: r.resource_type == nil ? nil : .init(
                resourceType: try string(r.resource_type, "record->resource_type"),
                identifier: try string(r.identifier, "record->identifier"),
                fhirVersion: try string(r.fhir_version, "record->fhir_version"),
                sourceURL: r.source_url == nil ? nil : try string(r.source_url, "record->source_url"),
                data: Array(try buffer(r.data, r.data_length, "record->data"))))
        try saveOne(out_outcome, s, c) { f in
            try Sample.clinicalRecord(type, value, start: f.start, end: f.end, source: f.source, device: f.device,
                                      metadata: f.metadata, uuid: f.uuid, creationDate: f.created, utcOffset: f.offset)
        }
    }
}

/// Sample `sample_index`'s record (a clinical record's): *out_record is filled,
/// its strings and JSON borrowed from the batch; a record without a FHIR
/// resource has resource_type, identifier, fhir_version, source_url and
/// data NULL. Returns OHK_OK;
/// OHK_ERR_INVALID_ARGUMENT (an index out of range, a sample that is not
/// a clinical record); OHK_ERR_CLOSED. Any thread.
@c public func ohk_batch_clinical_record(_ out_record: UnsafeMutablePointer<ohk_clinical_record>?,
                                         _ batch: UnsafePointer<ohk_batch>?, _ sample_index: UInt64) -> ohk_status {
    cCall {
        let o = try out(out_record, "out_record")
        guard case .clinicalRecord(let r) = try BatchHandle.get(batch).part(sample_index) else {
            throw CError(.invalidArgument, "sample \(sample_index) is not a clinical record")
        }
        o.pointee = r
    }
}
