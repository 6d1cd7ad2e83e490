"""Clinical records (``HKClinicalRecord``, rule 42 of docs/semantics.md): a
record's display name and FHIR resource (``ClinicalRecord``) and
``ClinicalRecordSample``, a record read from a store."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._checks import set_field, text
from ._marshal.clinical import check_fhir_json, clinical_record_to_c, read_clinical_record
from ._own_fields import OwnFieldsSample, SaveCall
from .errors import ArgumentTypeError, InvalidValueError


@dataclass(frozen=True, slots=True, repr=False)
class ClinicalRecord:
    """A clinical record's own fields (``HKClinicalRecord``, rule 42): the
    ``display_name`` a person reads, and its FHIR resource
    (``HKFHIRResource``): ``resource_type`` ("Immunization",
    "Observation"...), the resource's ``identifier`` at its source, the
    ``fhir_version`` ("1.0.2" is DSTU2, "4.0.1" R4), the ``source_url``
    (None where unknown) and ``data``, the resource's JSON, kept byte for
    byte (a str is taken as UTF-8). ``json()`` parses it;
    ``from_resource`` makes a record of a resource given as a dict. A
    record without a resource (HealthKit's ``fhirResource`` is optional:
    an import whose export lacks the record's file keeps it so) has its
    display name alone, the other fields None (``has_resource`` False).

        ohk.ClinicalRecord("Influenza vaccine", "Immunization", "imm-1", "4.0.1", None,
                           b'{"resourceType": "Immunization", "id": "imm-1"}')
    """

    display_name: str
    resource_type: str | None = None
    identifier: str | None = None
    fhir_version: str | None = None
    source_url: str | None = None
    data: bytes | None = None

    def __post_init__(self) -> None:
        text(self.display_name, "display_name")
        if self.resource_type is None:
            given = [name for name in ("identifier", "fhir_version", "source_url", "data") if getattr(self, name) is not None]
            if given:
                raise InvalidValueError(f"a record without a resource (resource_type None) has no {', '.join(given)}")
            return
        for name in ("resource_type", "identifier", "fhir_version"):
            text(getattr(self, name), name)
        if self.source_url is not None:
            text(self.source_url, "source_url")
        data: Any = self.data
        if isinstance(data, str):
            set_field(self, "data", data.encode("utf-8"))
        elif isinstance(data, (bytearray, memoryview)):
            set_field(self, "data", bytes(data))
        elif not isinstance(data, bytes):
            raise ArgumentTypeError(f"data must be the resource's JSON as bytes, not {type(data).__name__}")

    @classmethod
    def from_resource(cls, display_name: str, resource: Mapping[str, Any], fhir_version: str,
                      source_url: str | None = None) -> "ClinicalRecord":
        """A record of a FHIR resource given as a dict: its
        ``resourceType`` and ``id`` are the record's ``resource_type`` and
        ``identifier``, its JSON (UTF-8, compact) the ``data``."""
        if not isinstance(resource, Mapping):
            raise ArgumentTypeError(f"resource must be a dict, not {type(resource).__name__}")
        missing = [key for key in ("resourceType", "id") if not isinstance(resource.get(key), str)]
        if missing:
            raise InvalidValueError(f"the resource lacks {' and '.join(missing)} (a str)")
        data = json.dumps(resource, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        return cls(display_name, resource["resourceType"], resource["id"], fhir_version, source_url, data)

    @property
    def has_resource(self) -> bool:
        """Whether the record holds its FHIR resource."""
        return self.resource_type is not None

    def json(self) -> Any:
        """The resource's JSON parsed (a dict for every record a store
        accepts), None for a record without a resource.
        ``json.JSONDecodeError`` (a ValueError) if it does not parse."""
        return None if self.data is None else json.loads(self.data)

    def __repr__(self) -> str:
        if self.data is None:
            return f"ClinicalRecord({self.display_name!r}, no FHIR resource)"
        return (f"ClinicalRecord({self.display_name!r}, {self.resource_type}, identifier={self.identifier!r}, "
                f"fhir_version={self.fhir_version!r}, {len(self.data)} bytes of JSON)")


class ClinicalRecordSample(OwnFieldsSample):
    """A clinical record read from a store (``HKClinicalRecord``, rule
    42): a sample of a clinical type (``AllergyRecord``,
    ``ImmunizationRecord``...) whose ``clinical_record`` has its display
    name and FHIR resource. ``value`` is its JSON's length in bytes."""

    __slots__ = ()
    _saved_by = "save_clinical_record"

    @property
    def clinical_record(self) -> ClinicalRecord:
        """The record's display name and FHIR resource."""
        found: ClinicalRecord = self._fields()
        return found

    def _value_text(self) -> str:
        record = self.clinical_record
        return f"{record.display_name!r} ({record.resource_type or 'no FHIR resource'})"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> ClinicalRecord:
        return ClinicalRecord(*read_clinical_record(handle, index))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        record = self.clinical_record
        if record.data is not None:
            check_fhir_json(record.data)  # the library checks it too; here the message says where it fails
        return SaveCall("ohk_store_save_clinical_record", (clinical_record_to_c(record, keep),))


__all__ = ["ClinicalRecord", "ClinicalRecordSample"]
