"""The C library: where it is found, its structs (declared in ``_structs``
and re-exported here), and every function's signature.

Everything here mirrors include/openhealthkit_types.h and the generated
include/openhealthkit.h; tests/test_drift.py fails when they disagree.
The rest of the package calls ``lib.ohk_...`` directly: a function that
returns a status raises the package's exception when it fails (see
``check_status``).
"""

from __future__ import annotations

import ctypes
import os
from ctypes import c_int32
from pathlib import Path
from typing import Any

from ._enums import (  # re-exported (the `as` marks it) for the modules that marshal
    KIND_AUDIOGRAM as KIND_AUDIOGRAM,
    KIND_CATEGORY as KIND_CATEGORY,
    KIND_CLINICAL_RECORD as KIND_CLINICAL_RECORD,
    KIND_CORRELATION as KIND_CORRELATION,
    KIND_ELECTROCARDIOGRAM as KIND_ELECTROCARDIOGRAM,
    KIND_HEARTBEAT_SERIES as KIND_HEARTBEAT_SERIES,
    KIND_QUANTITY as KIND_QUANTITY,
    KIND_WORKOUT as KIND_WORKOUT,
    KIND_WORKOUT_ROUTE as KIND_WORKOUT_ROUTE,
    SAMPLE_CATEGORY as SAMPLE_CATEGORY,
    SAMPLE_HAS_CREATION_DATE as SAMPLE_HAS_CREATION_DATE,
    SAMPLE_HAS_DEVICE as SAMPLE_HAS_DEVICE,
    SAMPLE_HAS_METADATA as SAMPLE_HAS_METADATA,
    SAMPLE_HAS_UTC_OFFSET as SAMPLE_HAS_UTC_OFFSET,
    VALUE_BOOL as VALUE_BOOL,
    VALUE_DATE as VALUE_DATE,
    VALUE_LIST as VALUE_LIST,
    VALUE_NULL as VALUE_NULL,
    VALUE_NUMBER as VALUE_NUMBER,
    VALUE_QUANTITY as VALUE_QUANTITY,
    VALUE_STRING as VALUE_STRING,
    VALUE_UUID as VALUE_UUID,
)
from ._signatures import SIGNATURES as SIGNATURES  # name -> (restype, argtypes), generated
from ._structs import *  # noqa: F403 - the header's constants, structs, handles and callbacks (generated)
from .errors import ArgumentTypeError, InvalidArgumentError, Status, error_for

LIBRARY_NAME = "libopenhealthkit.so"
ENV_VARIABLE = "OPENHEALTHKIT_LIBRARY"

#: ohk_device's and ohk_location's fields, in order: the marshal modules zip values with them.
DEVICE_FIELDS = tuple(field[0] for field in ohk_device._fields_)  # noqa: F405
LOCATION_FIELDS = tuple(field[0] for field in ohk_location._fields_)  # noqa: F405
# struct.Struct formats of the records, for reading whole arrays at once.
SAMPLE_RECORD_FORMAT = "<16sdddIIIid"
DELETED_RECORD_FORMAT = "<16sdddIIQd"  # Q: the sync_identifier pointer


#: Statuses a function returns instead of raising, because its caller reads
#: them as an answer, not a failure; every other status but OK raises.
ALLOWED_STATUSES: dict[str, frozenset[Status]] = {
    # A damaged store is what verify() reports, with the problems it found.
    "ohk_store_verify": frozenset({Status.ERR_STORE_CORRUPT}),
    # The sample has no device.
    "ohk_batch_device": frozenset({Status.ERR_NOT_FOUND}),
    # A query freed meanwhile (close() on another thread) is stopped already.
    "ohk_query_stop": frozenset({Status.ERR_CLOSED}),
    # A value the type does not name: value_name is None.
    "ohk_category_value_name": frozenset({Status.ERR_NOT_FOUND}),
    # No matching sample: statistics() returns None, as HealthKit's errorNoData.
    "ohk_store_statistics": frozenset({Status.ERR_NOT_FOUND}),
    # An import that stopped early still has a report: import_export raises with it.
    "ohk_store_import": frozenset({Status.ERR_IMPORT_DAMAGED, Status.ERR_CANCELLED}),
    # A progress callback that raised stopped the delivery: deliver() raises what it raised.
    "ohk_sink_deliver": frozenset({Status.ERR_CANCELLED}),
    # A part's callback that returned False or raised stopped the read: query_parts() says which.
    "ohk_store_fetch_parts": frozenset({Status.ERR_CANCELLED}),
}


def check_status(status: int, function: Any, arguments: tuple[Any, ...]) -> int:
    """The ``errcheck`` of every function that returns a status: raises the
    exception of a failure (with this thread's message), else returns the
    status, OK or one of the function's ALLOWED_STATUSES."""
    if status != Status.OK and status not in ALLOWED_STATUSES.get(function.__name__, ()):
        raise error_for(status, last_error())
    return status


def candidates() -> list[Path]:
    """Where the library is looked for, in order: next to this package, then
    the path in $OPENHEALTHKIT_LIBRARY."""
    places = [Path(__file__).resolve().parent / LIBRARY_NAME]
    override = os.environ.get(ENV_VARIABLE)
    if override:
        places.append(Path(override))
    return places


def load() -> ctypes.CDLL:
    """Loads the library, declares every signature (check_status checks each
    status returned) and checks the ABI version; one ImportError naming
    every place tried otherwise."""
    tried = []
    for path in candidates():
        if not path.exists():
            tried.append(f"{path}: no such file")
            continue
        try:
            library = ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path}: {error}")
            continue
        missing = [name for name in SIGNATURES if not hasattr(library, name)]
        if missing:
            tried.append(f"{path}: lacks {', '.join(missing[:3])}")
            continue
        for name, (restype, argtypes) in SIGNATURES.items():
            function = getattr(library, name)
            function.restype = restype
            function.argtypes = argtypes
            if restype is c_int32:  # the library returns no other int32_t than a status
                function.errcheck = check_status
        abi = library.ohk_abi_version()
        if abi != ABI_VERSION:
            tried.append(f"{path}: ABI version {abi}, this package needs {ABI_VERSION}")
            continue
        return library
    if ENV_VARIABLE not in os.environ:
        tried.append(f"${ENV_VARIABLE}: not set")
    raise ImportError(
        "openhealthkit cannot load libopenhealthkit.so; looked in:\n  " + "\n  ".join(tried)
        + "\nBuild it with `make python-lib` (places it in the package) or set "
        + f"{ENV_VARIABLE} to its path."
    )


lib = load()


def last_error() -> str:
    # restype c_char_p: bytes; the library never returns NULL here ("" before any failure).
    message: bytes = lib.ohk_last_error_message()
    return message.decode("utf-8", "replace")


def encode(text: str, what: str) -> bytes:
    """A Python str as NUL-free UTF-8 for the C library."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"{what} must be a str, not {type(text).__name__}")
    data = text.encode("utf-8")
    if b"\0" in data:
        raise InvalidArgumentError(f"{what} must not contain NUL characters")
    return data


def decode(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8")
