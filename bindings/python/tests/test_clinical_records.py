"""Clinical records from Python (rule 42 of docs/semantics.md): a display
name and a FHIR resource whose JSON the store keeps byte for byte, saved
under one of HealthKit's nine clinical types, refused as the library
refuses them, and change-tracked like any sample."""

from __future__ import annotations

import gc
import json
import uuid
from datetime import datetime, timedelta

import pytest

import openhealthkit as ohk
from openhealthkit import clinical as clinical_module
from conftest import STEPS, T0, Inbox, steps

PREFIX = "HKClinicalTypeIdentifier"
IMMUNIZATION = PREFIX + "ImmunizationRecord"
CLINICAL_TYPES = ["AllergyRecord", "ClinicalNoteRecord", "ConditionRecord", "CoverageRecord", "ImmunizationRecord",
                  "LabResultRecord", "MedicationRecord", "ProcedureRecord", "VitalSignRecord"]
HOSPITAL = ohk.Source("com.apple.health.clinical", "Sutter Health")
# Odd spacing, key order, an escape and a non-ASCII character: kept as they are.
FLU_JSON = ('  {"resourceType" : "Immunization", "id":"imm-1",\n'
            '   "vaccineCode": {"text": "Influenza, caf\u00e9 \\u00e9dition"},'
            ' "status": "completed"}\n').encode("utf-8")


def flu(**changes) -> ohk.ClinicalRecord:
    fields = dict(display_name="Influenza vaccine", resource_type="Immunization", identifier="imm-1",
                  fhir_version="4.0.1", source_url="https://fhir.example.org/r4/Immunization/imm-1", data=FLU_JSON)
    fields.update(changes)
    return ohk.ClinicalRecord(**fields)


def test_rule_42_a_record_round_trips_its_json_byte_for_byte(store):
    record = flu()
    chosen = uuid.uuid4()
    device = ohk.Device(name="iPhone")
    [outcome] = store.save_clinical_record(IMMUNIZATION, record, T0, T0 + timedelta(hours=1), source=HOSPITAL,
                                           device=device, metadata={"HKWasUserEntered": False}, uuid=chosen,
                                           creation_date=T0 + timedelta(days=2), utc_offset=timedelta(hours=-8))
    assert outcome == ohk.SaveOutcome(chosen, ohk.SaveResult.SAVED, None)
    [sample] = store.query(IMMUNIZATION).samples
    assert isinstance(sample, ohk.ClinicalRecordSample) and sample.uuid == chosen
    assert sample.sample_type.identifier == IMMUNIZATION
    assert (sample.start_date, sample.end_date) == (T0, T0 + timedelta(hours=1))
    assert (sample.source, sample.device, sample.metadata) == (HOSPITAL, device, {"HKWasUserEntered": False})
    assert sample.creation_date == T0 + timedelta(days=2) and sample.utc_offset == timedelta(hours=-8)
    read = sample.clinical_record
    assert read == record
    assert read.data == FLU_JSON and isinstance(read.data, bytes)  # identical bytes, spacing and escapes too
    assert (read.display_name, read.resource_type, read.identifier, read.fhir_version) == (
        "Influenza vaccine", "Immunization", "imm-1", "4.0.1")
    assert read.source_url == "https://fhir.example.org/r4/Immunization/imm-1"
    assert read.json() == {"resourceType": "Immunization", "id": "imm-1",
                           "vaccineCode": {"text": "Influenza, caf\u00e9 \u00e9dition"}, "status": "completed"}
    assert sample.value == len(FLU_JSON)  # the record's number: its JSON's bytes
    assert "Influenza vaccine" in repr(sample)


def test_rule_42_every_clinical_type_holds_records_and_is_found_by_its_short_name(store):
    saved = {}
    for index, name in enumerate(CLINICAL_TYPES):
        kind = ohk.sample_type(PREFIX + name)
        assert kind.is_clinical_record and kind.short_name == name and ohk.sample_type(name) == kind
        assert not (kind.is_category or kind.is_electrocardiogram or kind.is_audiogram or kind.is_workout)
        assert kind.canonical_unit is None
        # The short name saves too; the end defaults to the start.
        [outcome] = store.save_clinical_record(name, flu(identifier=f"r-{index}", source_url=None),
                                               T0 + timedelta(days=index))
        saved[name] = outcome.uuid
    for index, name in enumerate(CLINICAL_TYPES):
        [sample] = store.query(name).samples
        assert sample.uuid == saved[name] and sample.sample_type.identifier == PREFIX + name
        assert sample.start_date == sample.end_date == T0 + timedelta(days=index)
        assert sample.clinical_record.identifier == f"r-{index}" and sample.clinical_record.source_url is None
    assert len(store.query([PREFIX + name for name in CLINICAL_TYPES]).samples) == 9
    assert [t.identifier for t in ohk.sample_types() if t.is_clinical_record] == [PREFIX + n for n in CLINICAL_TYPES]


def test_rule_42_a_save_refuses_what_healthkit_would_not_read(store, monkeypatch):
    def refused(error, record=None, clinical_type=IMMUNIZATION, start=T0, end=None):
        with pytest.raises(error) as raised:
            store.save_clinical_record(clinical_type, flu() if record is None else record, start, end)
        assert isinstance(raised.value, ohk.OpenHealthKitError) and raised.value.status == error.status
        return str(raised.value)

    # Refused by the library.
    assert "Patient" in refused(ohk.InvalidValueError, flu(resource_type="Patient"))
    refused(ohk.InvalidValueError, flu(resource_type="immunization"))  # FHIR's names are case-sensitive
    refused(ohk.InvalidValueError, flu(display_name=""))
    refused(ohk.InvalidValueError, flu(identifier=""))
    refused(ohk.InvalidValueError, flu(fhir_version=""))
    refused(ohk.InvalidDateRangeError, end=T0 - timedelta(seconds=1))
    refused(ohk.InvalidArgumentError, start=datetime(2024, 3, 1))  # naive
    refused(ohk.InvalidArgumentError, flu(identifier="a\0b"))
    # A clinical record is saved under a clinical type, and no other.
    assert "not a clinical type" in refused(ohk.InvalidArgumentError, clinical_type="HeartRate")
    refused(ohk.InvalidArgumentError, clinical_type="Electrocardiogram")
    refused(ohk.UnknownTypeError, clinical_type="PatientRecord")
    refused(ohk.ArgumentTypeError, record={"resourceType": "Immunization"})
    # Data that is not a JSON object: refused here (the library reads only its
    # first character, so a truncated object would pass it) ...
    for data in (b"", b"   ", b"[1, 2]", b'"Immunization"', b"null", b'{"resourceType": "Immunization"',
                 b"\xff{}", b'{"a": 1} trailing'):
        assert "JSON" in refused(ohk.InvalidValueError, flu(data=data))
    # ... and by the library when it gets one.
    monkeypatch.setattr(clinical_module, "check_fhir_json", lambda data: None)
    assert "not a JSON object" in refused(ohk.InvalidValueError, flu(data=b"[1, 2]"))
    refused(ohk.InvalidValueError, flu(data=b""))
    monkeypatch.undo()
    assert len(store.query(IMMUNIZATION).samples) == 0
    # The dataclass takes str fields and JSON as bytes (a str is UTF-8).
    with pytest.raises(ohk.ArgumentTypeError):
        flu(display_name=None)
    with pytest.raises(ohk.ArgumentTypeError):
        flu(source_url=b"https://x")
    with pytest.raises(ohk.ArgumentTypeError):
        flu(data={"resourceType": "Immunization"})
    assert flu(data=FLU_JSON.decode("utf-8")).data == FLU_JSON == flu(data=bytearray(FLU_JSON)).data


def test_rule_42_a_record_of_a_resource_given_as_a_dict(store):
    resource = {"resourceType": "Condition", "id": "cond-7", "code": {"text": "Asthma"},
                "clinicalStatus": "active"}
    record = ohk.ClinicalRecord.from_resource("Asthma", resource, "1.0.2")
    assert (record.resource_type, record.identifier, record.fhir_version, record.source_url) == (
        "Condition", "cond-7", "1.0.2", None)
    assert record.json() == resource
    store.save_clinical_record("ConditionRecord", record, T0)
    [sample] = store.query("ConditionRecord").samples
    assert sample.clinical_record == record and sample.clinical_record.json() == resource
    with pytest.raises(ohk.InvalidValueError):
        ohk.ClinicalRecord.from_resource("Asthma", {"resourceType": "Condition"}, "1.0.2")  # no id


def test_rule_42_save_takes_a_record_read_back_and_the_constructors_name_the_call(store):
    store.save_clinical_record(IMMUNIZATION, flu(), T0)
    [record] = store.query(IMMUNIZATION).samples
    with pytest.raises(ohk.DuplicateUUIDError):
        store.save(record)  # saved as it is: here, its UUID is taken (test_save_read_back.py: another store)
    with pytest.raises(ohk.ArgumentTypeError, match="save_clinical_record"):
        ohk.QuantitySample(IMMUNIZATION, T0, T0, 1)
    with pytest.raises(ohk.ArgumentTypeError, match="save_clinical_record"):
        ohk.ClinicalRecordSample()
    assert len(store.query(STEPS).samples) == 0
    # A record read back saves again, under another type too, as a new sample.
    store.save_clinical_record("ProcedureRecord", record.clinical_record, T0)
    [again] = store.query("ProcedureRecord").samples
    assert again.clinical_record == record.clinical_record and again.uuid != record.uuid


def test_rule_42_a_deletion_shows_in_the_anchored_query(store):
    [kept] = store.save_clinical_record(IMMUNIZATION, flu(), T0)
    [gone] = store.save_clinical_record(IMMUNIZATION, flu(identifier="imm-2"), T0 + timedelta(days=1))
    samples, deleted, anchor = store.query("ImmunizationRecord")
    assert {s.uuid for s in samples} == {kept.uuid, gone.uuid} and not deleted
    assert store.delete(gone.uuid) == 1
    samples, deleted, _ = store.query("ImmunizationRecord", anchor)
    assert len(samples) == 0
    assert [(d.uuid, d.sample_type.identifier) for d in deleted] == [(gone.uuid, IMMUNIZATION)]
    assert [s.uuid for s in store.query(IMMUNIZATION).samples] == [kept.uuid]


def test_rule_42_a_record_is_change_tracked_like_any_sample(store):
    inbox = Inbox()

    def delivered() -> list:
        return [sample for result in inbox.items for sample in result.samples]

    with store.watch(["ImmunizationRecord", "AllergyRecord"], inbox.put):
        inbox.wait(1)  # the empty snapshot
        [outcome] = store.save_clinical_record(IMMUNIZATION, flu(), T0, source=HOSPITAL)
        inbox.wait_until(lambda results: delivered(), "the record")
        store.delete(outcome.uuid)
        results = inbox.wait_until(lambda results: any(r.deleted for r in results), "its deletion")
    # A lent batch's strings and JSON are copied during the callback: readable after it.
    gc.collect()
    [sample] = delivered()
    assert isinstance(sample, ohk.ClinicalRecordSample) and sample.uuid == outcome.uuid
    assert sample.clinical_record == flu() and sample.source == HOSPITAL
    assert [d.uuid for result in results for d in result.deleted] == [outcome.uuid]
    assert len(store.query(IMMUNIZATION).samples) == 0


def test_rule_42_a_large_resource_is_kept_whole(store):
    entries = [{"code": f"c{i}", "display": "x" * 50} for i in range(20_000)]
    data = json.dumps({"resourceType": "Observation", "id": "obs-1", "component": entries}).encode()
    assert len(data) > 1_000_000
    store.save_clinical_record("LabResultRecord", flu(resource_type="Observation", identifier="obs-1", data=data), T0)
    [sample] = store.query("LabResultRecord").samples
    assert sample.clinical_record.data == data and sample.value == len(data)


def test_rule_42_a_record_without_its_resource_round_trips(store, tmp_path):
    # HealthKit's fhirResource is optional: an export that lacks a record's file.
    bare = ohk.ClinicalRecord("Procedure")
    assert not bare.has_resource and bare.json() is None and "no FHIR resource" in repr(bare)
    [outcome] = store.save_clinical_record(IMMUNIZATION, bare, T0, source=HOSPITAL)
    [read] = store.query(IMMUNIZATION).samples
    assert read.uuid == outcome.uuid and read.clinical_record == bare and read.value == 0
    with ohk.HealthStore(tmp_path / "other", durable=False) as other:
        other.save([read])  # a read record saves as it is, into another store
        assert [s.clinical_record for s in other.query(IMMUNIZATION).samples] == [bare]
    with pytest.raises(ohk.InvalidValueError, match="without a resource"):
        ohk.ClinicalRecord("Procedure", None, "imm-1")
