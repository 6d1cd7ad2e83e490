"""Clinical records to and from C (``ohk_clinical_record``, rule 42)."""

from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any

from .. import _native as n
from ..errors import InvalidValueError

if TYPE_CHECKING:
    from ..clinical import ClinicalRecord

#: A record's fields as a batch holds them, in ClinicalRecord's order:
#: display name, resource type, identifier, FHIR version, source URL (None
#: where unknown) and the resource's JSON; all but the name None for a
#: record without a resource.
RecordParts = tuple[str, "str | None", "str | None", "str | None", "str | None", "bytes | None"]


def read_clinical_record(handle: Any, index: int) -> RecordParts:
    """Sample `index`'s record, copied out of the batch."""
    r = n.ohk_clinical_record()
    n.lib.ohk_batch_clinical_record(r, handle, index)
    if r.resource_type is None:  # a record without a resource
        return (r.display_name.decode("utf-8"), None, None, None, None, None)
    length = r.data_length
    address = ctypes.cast(r.data, ctypes.c_void_p).value
    data = ctypes.string_at(address, length) if length and address else b""
    return (r.display_name.decode("utf-8"), r.resource_type.decode("utf-8"), r.identifier.decode("utf-8"),
            r.fhir_version.decode("utf-8"), None if r.source_url is None else r.source_url.decode("utf-8"), data)


def clinical_record_to_c(record: ClinicalRecord, keep: list[Any]) -> n.ohk_clinical_record:
    """The C form of `record`; its strings stay in `keep`. The JSON is
    passed in place (bytes are immutable), not copied. A record without a
    resource has a NULL resource type."""
    if record.data is None:
        name = n.encode(record.display_name, "display_name")
        keep.append(name)
        return n.ohk_clinical_record(name)
    texts = [n.encode(getattr(record, name), name)
             for name in ("display_name", "resource_type", "identifier", "fhir_version")]
    url = None if record.source_url is None else n.encode(record.source_url, "source_url")
    data = ctypes.c_char_p(record.data)  # points into the bytes object
    keep.extend((*texts, url, record.data, data))
    c = n.ohk_clinical_record(*texts, url)
    c.data = ctypes.cast(data, ctypes.POINTER(ctypes.c_uint8))
    c.data_length = len(record.data)
    return c


def check_fhir_json(data: bytes) -> None:
    """InvalidValueError unless `data` is one JSON object (the library
    checks it too; here the message says where it fails)."""
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidValueError(f"the clinical record's data is not JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise InvalidValueError(f"the clinical record's data is JSON, but a {type(parsed).__name__}, "
                                "not an object")
