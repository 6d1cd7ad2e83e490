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
from ctypes import POINTER, c_bool, c_char, c_char_p, c_double, c_int32, c_int64, c_uint32, c_uint64, c_void_p
from pathlib import Path
from typing import Any

from ._structs import *  # noqa: F403 - every struct, handle and prototype: n.ohk_... (and the signatures below)
from .errors import ArgumentTypeError, InvalidArgumentError, Status, error_for

#: The ABI this binding was written for (OHK_ABI_VERSION of the header).
ABI_VERSION = 4
#: The options structs' current versions (OHK_<NAME>_VERSION of the header).
STORE_OPTIONS_VERSION = 2
SYNC_OPTIONS_VERSION = 1
QUERY_OPTIONS_VERSION = 1
STATISTICS_OPTIONS_VERSION = 1
LIBRARY_NAME = "libopenhealthkit.so"
ENV_VARIABLE = "OPENHEALTHKIT_LIBRARY"

P = POINTER

#: name -> (return type, argument types), in the header's order. Conventions:
#: ``const char *`` is c_char_p; byte buffers (``uint8_t *``) are c_char_p so
#: that ``bytes`` pass without a copy; handles are pointers to their struct.
SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "ohk_version_string": (c_char_p, []),
    "ohk_abi_version": (c_uint32, []),
    "ohk_last_error_message": (c_char_p, []),
    "ohk_status_name": (c_char_p, [c_int32]),
    "ohk_string_free": (None, [OWNED_STRING]),
    "ohk_store_options_init": (c_int32, [P(ohk_store_options), c_uint32]),
    "ohk_store_open": (c_int32, [P(P(ohk_store)), c_char_p, P(ohk_store_options)]),
    "ohk_store_close": (None, [P(ohk_store)]),
    "ohk_store_current_anchor": (c_int32, [P(ohk_anchor), P(ohk_store)]),
    "ohk_store_prune": (c_int32, [P(c_uint64), P(ohk_store), c_double]),
    "ohk_store_prune_all": (c_int32, [P(c_uint64), P(ohk_store)]),
    "ohk_store_verify": (c_int32, [P(c_uint64), P(c_uint64), P(OWNED_STRING), P(ohk_store)]),
    "ohk_type_count": (c_uint64, []),
    "ohk_type_at": (c_int32, [P(ohk_type_info), c_uint64]),
    "ohk_type_lookup": (c_int32, [P(ohk_type_info), P(ohk_store), c_char_p]),
    "ohk_category_value": (c_int32, [P(c_int64), c_char_p, c_char_p]),
    "ohk_store_register_quantity_type": (c_int32, [P(ohk_type_info), P(ohk_store), c_char_p, c_char_p, c_int32]),
    "ohk_store_register_category_type": (c_int32, [P(ohk_type_info), P(ohk_store), c_char_p, P(c_char_p), P(c_int64), c_uint64]),
    "ohk_unit_convert": (c_int32, [P(c_double), c_double, c_char_p, c_char_p]),
    "ohk_unit_canonical": (c_int32, [P(OWNED_STRING), c_char_p]),
    "ohk_unit_compatible": (c_int32, [P(c_bool), c_char_p, c_char_p]),
    "ohk_store_save": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input), c_uint64]),
    "ohk_store_delete_uuids": (c_int32, [P(ohk_store), c_char_p, c_uint64]),
    "ohk_store_associate": (c_int32, [P(ohk_store), c_char_p, c_char_p, c_uint64]),
    "ohk_store_delete_matching": (c_int32, [P(c_uint64), P(ohk_store), c_char_p, P(ohk_predicate)]),
    "ohk_predicate_parse": (c_int32, [P(P(ohk_predicate)), c_char_p, P(ohk_value), c_uint64]),
    "ohk_predicate_to_text": (c_int32, [P(OWNED_STRING), P(ohk_predicate)]),
    "ohk_predicate_free": (None, [P(ohk_predicate)]),
    "ohk_predicate_date_range": (c_int32, [P(P(ohk_predicate)), P(c_double), P(c_double), c_int32]),
    "ohk_predicate_uuids": (c_int32, [P(P(ohk_predicate)), c_char_p, c_uint64]),
    "ohk_predicate_workout": (c_int32, [P(P(ohk_predicate)), c_char_p]),
    "ohk_predicate_sources": (c_int32, [P(P(ohk_predicate)), P(c_char_p), c_uint64]),
    "ohk_predicate_metadata_exists": (c_int32, [P(P(ohk_predicate)), c_char_p]),
    "ohk_predicate_metadata_compare": (c_int32, [P(P(ohk_predicate)), c_char_p, c_int32, P(ohk_value)]),
    "ohk_predicate_quantity": (c_int32, [P(P(ohk_predicate)), c_int32, c_double, c_char_p]),
    "ohk_predicate_category_value": (c_int32, [P(P(ohk_predicate)), c_int32, c_int64]),
    "ohk_predicate_and": (c_int32, [P(P(ohk_predicate)), P(P(ohk_predicate)), c_uint64]),
    "ohk_predicate_or": (c_int32, [P(P(ohk_predicate)), P(P(ohk_predicate)), c_uint64]),
    "ohk_predicate_not": (c_int32, [P(P(ohk_predicate)), P(ohk_predicate)]),
    "ohk_store_fetch": (c_int32, [P(P(ohk_batch)), P(ohk_store), P(ohk_descriptor), c_uint64, P(ohk_anchor), c_uint64]),
    "ohk_store_fetch_bound": (c_int32, [P(c_uint64), P(ohk_store), P(ohk_descriptor), c_uint64]),
    "ohk_store_fetch_columns": (c_int32, [P(P(ohk_batch)), P(c_uint64), P(ohk_store), P(ohk_descriptor), c_uint64,
                                          P(ohk_anchor), c_uint64, P(ohk_sample_columns), c_uint64]),
    "ohk_batch_free": (None, [P(ohk_batch)]),
    "ohk_batch_samples": (c_int32, [P(P(ohk_sample_record)), P(c_uint64), P(ohk_batch)]),
    "ohk_batch_sample_columns": (c_int32, [P(c_uint64), P(ohk_sample_columns), c_uint64, P(ohk_batch)]),
    "ohk_batch_copy_samples": (c_int32, [P(c_uint64), P(c_uint32), P(ohk_sample_record), c_uint64, P(ohk_batch),
                                         c_uint64]),
    "ohk_batch_deleted": (c_int32, [P(P(ohk_deleted_record)), P(c_uint64), P(ohk_batch)]),
    "ohk_batch_anchor": (c_int32, [P(ohk_anchor), P(ohk_batch)]),
    "ohk_batch_type_count": (c_int32, [P(c_uint64), P(ohk_batch)]),
    "ohk_batch_type": (c_int32, [P(c_char_p), P(ohk_batch), c_uint32]),
    "ohk_batch_source_count": (c_int32, [P(c_uint64), P(ohk_batch)]),
    "ohk_batch_source": (c_int32, [P(ohk_source), P(ohk_batch), c_uint32]),
    "ohk_batch_sources": (c_int32, [P(P(ohk_source)), P(c_uint64), P(ohk_batch)]),
    "ohk_batch_metadata": (c_int32, [P(P(ohk_metadata_entry)), P(c_uint64), P(ohk_batch), c_uint64]),
    "ohk_batch_device": (c_int32, [P(ohk_device), P(ohk_batch), c_uint64]),
    "ohk_store_save_workout": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input), P(ohk_workout)]),
    "ohk_store_save_route": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input), c_char_p,
                                       P(ohk_location), c_uint64]),
    "ohk_store_save_correlation": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input),
                                             P(ohk_sample_input), c_uint64]),
    "ohk_store_add_to_workout": (c_int32, [P(ohk_save_outcome), P(ohk_store), c_char_p, P(ohk_sample_input), c_uint64]),
    "ohk_batch_workout": (c_int32, [P(ohk_workout), P(ohk_batch), c_uint64]),
    "ohk_batch_route": (c_int32, [P(ohk_route), P(ohk_batch), c_uint64]),
    "ohk_batch_correlation": (c_int32, [P(c_char_p), P(c_uint64), P(ohk_batch), c_uint64]),
    "ohk_store_save_heartbeat_series": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input),
                                                  P(ohk_heartbeat), c_uint64]),
    "ohk_batch_heartbeats": (c_int32, [P(P(ohk_heartbeat)), P(c_uint64), P(ohk_batch), c_uint64]),
    "ohk_store_save_audiogram": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input), P(ohk_audiogram)]),
    "ohk_batch_audiogram": (c_int32, [P(P(ohk_audiogram_point)), P(c_uint64), P(ohk_batch), c_uint64]),
    "ohk_batch_audiogram_clamping": (c_int32, [P(P(ohk_audiogram_clamping)), P(c_uint64), P(ohk_batch), c_uint64]),
    "ohk_store_save_electrocardiogram": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input),
                                                   P(ohk_electrocardiogram)]),
    "ohk_batch_electrocardiogram": (c_int32, [P(ohk_electrocardiogram), P(ohk_batch), c_uint64]),
    "ohk_store_save_clinical_record": (c_int32, [P(ohk_save_outcome), P(ohk_store), P(ohk_sample_input),
                                                 P(ohk_clinical_record)]),
    "ohk_batch_clinical_record": (c_int32, [P(ohk_clinical_record), P(ohk_batch), c_uint64]),
    "ohk_store_save_activity_summaries": (c_int32, [P(c_uint64), P(ohk_store), P(ohk_activity_summary), c_uint64]),
    "ohk_store_activity_summaries": (c_int32, [P(P(ohk_activity_summary)), P(c_uint64), P(c_uint64), P(ohk_store),
                                               c_int32, c_int32, c_uint64]),
    "ohk_activity_summaries_free": (None, [P(ohk_activity_summary)]),
    "ohk_query_start_activity_summaries": (c_int32, [P(P(ohk_query)), P(ohk_store), P(ohk_query_options),
                                                     ohk_activity_summaries_fn, c_void_p, ohk_destroy_fn]),
    "ohk_store_characteristics": (c_int32, [P(ohk_characteristics), P(ohk_store)]),
    "ohk_store_set_characteristics": (c_int32, [P(ohk_store), P(ohk_characteristics)]),
    "ohk_anchor_from_bytes": (c_int32, [P(ohk_anchor), c_char_p, c_uint64]),
    "ohk_anchor_to_bytes": (c_int32, [c_char_p, c_uint64, P(c_uint64), P(ohk_anchor)]),
    "ohk_anchor_from_text": (c_int32, [P(ohk_anchor), c_char_p]),
    "ohk_anchor_to_text": (c_int32, [P(c_char), c_uint64, P(ohk_anchor)]),
    "ohk_anchor_from_value": (c_int32, [P(ohk_anchor), c_int64]),
    "ohk_anchor_compare": (c_int32, [P(c_int32), P(ohk_anchor), P(ohk_anchor)]),
    "ohk_query_options_init": (c_int32, [P(ohk_query_options), c_uint32]),
    "ohk_query_start_anchored": (c_int32, [P(P(ohk_query)), P(ohk_store), P(ohk_query_options), ohk_results_fn, c_void_p,
                                           ohk_destroy_fn]),
    "ohk_query_start_observer": (c_int32, [P(P(ohk_query)), P(ohk_store), P(ohk_query_options), ohk_observer_fn,
                                           c_void_p, ohk_destroy_fn]),
    "ohk_query_start_subscription": (c_int32, [P(P(ohk_query)), P(ohk_store), P(ohk_query_options), ohk_results_fn,
                                               c_void_p, ohk_destroy_fn]),
    "ohk_query_acknowledge": (c_int32, [P(ohk_query)]),
    "ohk_store_remove_subscription": (c_int32, [P(ohk_store), c_char_p]),
    "ohk_query_stop": (c_int32, [P(ohk_query)]),
    "ohk_query_free": (None, [P(ohk_query)]),
    "ohk_store_set_commit_hook": (c_int32, [P(ohk_store), ohk_commit_fn, c_void_p, ohk_destroy_fn]),
    "ohk_category_value_name": (c_int32, [P(c_char_p), c_char_p, c_int64]),
    "ohk_store_statistics": (c_int32, [P(P(ohk_statistics_result)), P(ohk_store), c_char_p, P(ohk_predicate), c_uint32]),
    "ohk_statistics_options_init": (c_int32, [P(ohk_statistics_options), c_uint32]),
    "ohk_store_statistics_collection": (c_int32, [P(P(ohk_statistics_result)), P(ohk_store), P(ohk_statistics_options)]),
    "ohk_statistics_result_free": (None, [P(ohk_statistics_result)]),
    "ohk_store_category_durations": (c_int32, [P(P(ohk_category_durations_result)), P(ohk_store),
                                               P(ohk_statistics_options)]),
    "ohk_category_durations_free": (None, [P(ohk_category_durations_result)]),
    "ohk_store_type_counts": (c_int32, [P(P(ohk_store_type_count)), P(c_uint64), P(ohk_store)]),
    "ohk_store_type_counts_free": (None, [P(ohk_store_type_count), c_uint64]),
    "ohk_batch_is_initial": (c_int32, [P(c_int32), P(ohk_batch)]),
    "ohk_query_start_statistics_collection": (c_int32, [P(P(ohk_query)), P(ohk_store), P(ohk_query_options),
                                                        ohk_statistics_fn, c_void_p, ohk_destroy_fn]),
    "ohk_store_set_source_priority": (c_int32, [P(ohk_store), c_char_p, P(c_char_p), c_uint64]),
    "ohk_store_source_priority": (c_int32, [P(OWNED_STRING), P(ohk_store), c_char_p]),
    "ohk_store_source_priority_in_force": (c_int32, [P(OWNED_STRING), P(ohk_store), c_char_p]),
    "ohk_store_import": (c_int32, [P(P(ohk_import_report)), P(ohk_store), c_char_p, ohk_import_progress_fn, c_void_p]),
    "ohk_import_report_free": (None, [P(ohk_import_report)]),
    "ohk_store_apply": (c_int32, [P(ohk_apply_outcome), P(ohk_store), P(ohk_sample_input), c_uint64, c_char_p,
                                  c_uint64]),
    "ohk_sync_options_init": (c_int32, [P(ohk_sync_options), c_uint32]),
    "ohk_store_sync": (c_int32, [P(ohk_sync_report), P(ohk_store), P(ohk_store), P(ohk_sync_options)]),
    "ohk_store_live_digest": (c_int32, [P(ohk_live_digest), P(ohk_store), c_char_p]),
    "ohk_sync": (c_int32, [P(ohk_sync_report), c_char_p, c_char_p, c_char_p, P(ohk_sync_options)]),
    "ohk_store_sync_conflicts": (c_int32, [P(c_uint64), P(ohk_store), c_char_p, c_uint64]),
    "ohk_store_register_subscription": (c_int32, [P(ohk_store), P(ohk_query_options)]),
    "ohk_store_subscriptions": (c_int32, [P(P(ohk_subscription_status)), P(c_uint64), P(ohk_store)]),
    "ohk_subscription_statuses_free": (None, [P(ohk_subscription_status), c_uint64]),
    "ohk_sink_open_postgres": (c_int32, [P(P(ohk_sink)), P(ohk_store), c_char_p, c_char_p, c_char_p, c_uint64]),
    "ohk_sink_deliver": (c_int32, [P(ohk_sink), ohk_sink_progress_fn, c_void_p]),
    "ohk_sink_follow": (c_int32, [P(ohk_sink), ohk_sink_progress_fn, c_void_p]),
    "ohk_sink_get_progress": (c_int32, [P(ohk_sink_progress), P(ohk_sink)]),
    "ohk_sink_free": (None, [P(ohk_sink)]),
}


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
