"""The C library: where it is found, its structs, and every function's signature.

Everything here mirrors include/openhealthkit_types.h and the generated
include/openhealthkit.h; tests/test_drift.py fails when they disagree.
The rest of the package calls ``lib.ohk_...`` directly: a function that
returns a status raises the package's exception when it fails (see
``check_status``).
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (
    CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int8, c_int32, c_int64,
    c_uint8, c_uint32, c_uint64, c_void_p,
)
from pathlib import Path
from typing import Any

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

ANCHOR_SIZE = 40
ANCHOR_TEXT_SIZE = 64

# ohk_value.kind, ohk_sample_record.flags, ohk_type_info.kind (generated)
from ._enums import (  # noqa: E402 - re-exported (the `as` marks it) for the modules that marshal
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


# ---- opaque handles: distinct types so a store is never passed as a batch

class ohk_store(Structure):
    _fields_ = [("ohk_private_", c_char)]


class ohk_batch(Structure):
    _fields_ = [("ohk_private_", c_char)]


class ohk_predicate(Structure):
    _fields_ = [("ohk_private_", c_char)]


class ohk_query(Structure):
    _fields_ = [("ohk_private_", c_char)]


class ohk_sink(Structure):
    _fields_ = [("ohk_private_", c_char)]


# ---- value types

class ohk_store_options(Structure):
    _fields_ = [("version", c_uint32), ("map_size", c_uint64), ("tombstone_retention", c_double), ("durable", c_bool),
                ("read_only", c_bool)]


class ohk_anchor(Structure):
    _fields_ = [("data", c_uint8 * ANCHOR_SIZE)]


class ohk_value(Structure):
    pass


ohk_value._fields_ = [
    ("kind", c_int32), ("number", c_double), ("string", c_char_p), ("uuid", c_uint8 * 16),
    ("items", POINTER(ohk_value)), ("count", c_uint64),
]


class ohk_metadata_entry(Structure):
    _fields_ = [("key", c_char_p), ("value", ohk_value)]


class ohk_source(Structure):
    _fields_ = [("bundle_identifier", c_char_p), ("name", c_char_p), ("version", c_char_p)]


DEVICE_FIELDS = (
    "name", "manufacturer", "model", "hardware_version", "firmware_version",
    "software_version", "local_identifier", "udi_device_identifier",
)


class ohk_device(Structure):
    _fields_ = [(field, c_char_p) for field in DEVICE_FIELDS]


class ohk_sample_input(Structure):
    _fields_ = [
        ("type", c_char_p), ("start", c_double), ("end", c_double), ("value", c_double),
        ("unit", c_char_p), ("uuid", c_uint8 * 16), ("source", ohk_source),
        ("device", POINTER(ohk_device)), ("metadata", POINTER(ohk_metadata_entry)),
        ("metadata_count", c_uint64), ("has_creation_date", c_bool), ("has_utc_offset", c_bool),
        ("utc_offset", c_int32), ("creation_date", c_double),
    ]


class ohk_save_outcome(Structure):
    _fields_ = [("uuid", c_uint8 * 16), ("outcome", c_int32), ("other_uuid", c_uint8 * 16)]


class ohk_descriptor(Structure):
    _fields_ = [("type", c_char_p), ("predicate", POINTER(ohk_predicate))]


class ohk_sample_record(Structure):
    _fields_ = [
        ("uuid", c_uint8 * 16), ("start", c_double), ("end", c_double), ("value", c_double),
        ("type_index", c_uint32), ("source_index", c_uint32), ("flags", c_uint32),
        ("utc_offset", c_int32), ("creation_date", c_double),
    ]


class ohk_sample_columns(Structure):
    # The C fields are typed pointers; addresses as integers are what the
    # NumPy path has, and converting each to a typed pointer cost more
    # than the fill itself for a batch of 1,000.
    _fields_ = [
        ("uuid", c_void_p), ("start_us", c_void_p), ("end_us", c_void_p), ("value", c_void_p),
        ("type_index", c_void_p), ("source_index", c_void_p), ("flags", c_void_p),
        ("creation_us", c_void_p), ("utc_offset", c_void_p),
    ]


class ohk_deleted_record(Structure):
    _fields_ = [
        ("uuid", c_uint8 * 16), ("start", c_double), ("end", c_double),
        ("deletion_date", c_double), ("type_index", c_uint32), ("source_index", c_uint32),
        ("sync_identifier", c_char_p), ("sync_version", c_double),
    ]


class ohk_type_info(Structure):
    _fields_ = [
        ("identifier", c_char_p), ("kind", c_int32), ("aggregation", c_int32),
        ("canonical_unit", c_char_p), ("is_custom", c_bool), ("display_unit", c_char_p),
    ]


class ohk_statistics_values(Structure):
    _fields_ = [(name, c_double) for name in ("sum", "average", "minimum", "maximum", "most_recent",
                                              "most_recent_start", "most_recent_end", "duration")] + [("count", c_uint64)]


class ohk_statistics_source(Structure):
    _fields_ = [("bundle_identifier", c_char_p), ("name", c_char_p), ("values", ohk_statistics_values)]


class ohk_statistics_interval(Structure):
    _fields_ = [("start", c_double), ("end", c_double), ("values", ohk_statistics_values),
                ("first_source", c_uint64), ("source_count", c_uint64)]


class ohk_statistics_result(Structure):
    _fields_ = [("intervals", POINTER(ohk_statistics_interval)), ("interval_count", c_uint64),
                ("sources", POINTER(ohk_statistics_source)), ("source_count", c_uint64)]


class ohk_store_type_count(Structure):
    _fields_ = [("type", c_char_p), ("samples", c_uint64), ("deleted_objects", c_uint64)]


class ohk_category_duration(Structure):
    _fields_ = [("value", c_int64), ("seconds", c_double)]


class ohk_category_interval(Structure):
    _fields_ = [("start", c_double), ("end", c_double), ("total", c_double), ("first_value", c_uint64),
                ("value_count", c_uint64)]


class ohk_category_durations_result(Structure):
    _fields_ = [("intervals", POINTER(ohk_category_interval)), ("interval_count", c_uint64),
                ("values", POINTER(ohk_category_duration)), ("value_count", c_uint64)]


class ohk_workout_statistics(Structure):
    _fields_ = [("type", c_char_p)] + [(name, c_double) for name in ("start", "end", "sum", "average", "minimum", "maximum")]


class ohk_workout_event(Structure):
    _fields_ = [("type", c_int32), ("start", c_double), ("end", c_double),
                ("metadata", POINTER(ohk_metadata_entry)), ("metadata_count", c_uint64)]


class ohk_workout_activity(Structure):
    _fields_ = [("uuid", c_uint8 * 16), ("activity_type", c_uint64), ("start", c_double), ("end", c_double),
                ("duration", c_double), ("metadata", POINTER(ohk_metadata_entry)), ("metadata_count", c_uint64),
                ("statistics", POINTER(ohk_workout_statistics)), ("statistics_count", c_uint64)]


class ohk_workout(Structure):
    _fields_ = [("activity_type", c_uint64), ("duration", c_double), ("total_energy_burned", c_double),
                ("total_distance", c_double), ("total_swimming_stroke_count", c_double),
                ("total_flights_climbed", c_double),
                ("events", POINTER(ohk_workout_event)), ("event_count", c_uint64),
                ("activities", POINTER(ohk_workout_activity)), ("activity_count", c_uint64),
                ("statistics", POINTER(ohk_workout_statistics)), ("statistics_count", c_uint64)]


# A route's locations: eight doubles each, read as NumPy columns in place.
LOCATION_FIELDS = ("timestamp", "latitude", "longitude", "altitude", "horizontal_accuracy",
                   "vertical_accuracy", "course", "speed")


class ohk_location(Structure):
    _fields_ = [(name, c_double) for name in LOCATION_FIELDS]


class ohk_route(Structure):
    _fields_ = [("locations", POINTER(ohk_location)), ("location_count", c_uint64), ("has_workout", c_bool),
                ("workout", c_uint8 * 16)]


# A heartbeat series' beats: a float64 and a bool each, 16 bytes with the
# padding, read as NumPy columns through a structured dtype of this layout.
class ohk_heartbeat(Structure):
    _fields_ = [("time_since_start", c_double), ("preceded_by_gap", c_bool)]


# An audiogram's sensitivity point: NaN for an ear not tested; masked 1, 0,
# or -1 where the source does not say.
class ohk_audiogram_point(Structure):
    _fields_ = [("frequency_hz", c_double), ("left_ear_db_hl", c_double), ("right_ear_db_hl", c_double),
                ("left_ear_masked", c_int8), ("right_ear_masked", c_int8)]


# An audiogram point's clamping ranges, beside the points: dBHL, NaN for an
# open bound, all four NaN for a point without a range.
class ohk_audiogram_clamping(Structure):
    _fields_ = [("left_ear_lower_db_hl", c_double), ("left_ear_upper_db_hl", c_double),
                ("right_ear_lower_db_hl", c_double), ("right_ear_upper_db_hl", c_double)]


class ohk_audiogram(Structure):
    _fields_ = [("points", POINTER(ohk_audiogram_point)), ("clamping", POINTER(ohk_audiogram_clamping)),
                ("point_count", c_uint64)]


# An electrocardiogram: its enums (OHK_ECG_...), NaN for an absent heart
# rate or frequency, and its voltages (microvolts) as one contiguous array,
# the k-th at k / sampling_frequency_hz seconds from the sample's start.
class ohk_electrocardiogram(Structure):
    _fields_ = [("classification", c_int32), ("symptoms_status", c_int32), ("lead", c_int32),
                ("average_heart_rate", c_double), ("sampling_frequency_hz", c_double),
                ("voltages", POINTER(c_double)), ("voltage_count", c_uint64)]


# A clinical record: NUL-terminated strings (source_url NULL when unknown)
# and the FHIR resource's JSON, data_length bytes that are not
# NUL-terminated (so a byte pointer here, not c_char_p).
class ohk_clinical_record(Structure):
    _fields_ = [("display_name", c_char_p), ("resource_type", c_char_p), ("identifier", c_char_p),
                ("fhir_version", c_char_p), ("source_url", c_char_p), ("data", POINTER(c_uint8)),
                ("data_length", c_uint64)]


# One day's activity rings (rule 43): the Gregorian day, eight values (NaN:
# the day has none), the move mode (OHK_MOVE_MODE_*; 0 is read as active
# energy) and the paused flag.
class ohk_activity_summary(Structure):
    _fields_ = [
        ("year", c_int32), ("month", c_int32), ("day", c_int32),
        ("active_energy_burned", c_double), ("active_energy_burned_goal", c_double),
        ("apple_move_time", c_double), ("apple_move_time_goal", c_double),
        ("apple_exercise_time", c_double), ("exercise_time_goal", c_double),
        ("apple_stand_hours", c_double), ("stand_hours_goal", c_double),
        ("move_mode", c_int32), ("paused", c_bool),
    ]


class ohk_characteristics(Structure):
    _fields_ = [(name, c_int32) for name in ("birth_year", "birth_month", "birth_day", "biological_sex", "blood_type",
                                             "fitzpatrick_skin_type", "wheelchair_use")]


class ohk_import_row(Structure):
    _fields_ = [("kind", c_char_p), ("count", c_uint64), ("imported", c_uint64), ("note", c_char_p)]


class ohk_import_skip(Structure):
    _fields_ = [("reason", c_char_p), ("count", c_uint64), ("first_line", c_uint64)]


class ohk_import_report(Structure):
    _fields_ = [
        ("records", c_uint64), ("added", c_uint64), ("already_stored", c_uint64), ("replaced", c_uint64),
        ("older_versions", c_uint64), ("skipped", c_uint64), ("bytes_read", c_uint64), ("xml_bytes", c_uint64),
        ("export_xml", c_char_p), ("failure", c_int32), ("failure_message", c_char_p),
        ("contents", POINTER(ohk_import_row)), ("content_count", c_uint64),
        ("skips", POINTER(ohk_import_skip)), ("skip_count", c_uint64),
        ("warnings", POINTER(c_char_p)), ("warning_count", c_uint64),
    ]



class ohk_sink_progress(Structure):
    _fields_ = [("saves", c_uint64), ("deletions", c_uint64), ("batches", c_uint64), ("position", c_uint64),
                ("head", c_uint64), ("start_position", c_uint64)]


class ohk_apply_outcome(Structure):
    _fields_ = [("added", c_uint64), ("replaced", c_uint64), ("already_stored", c_uint64),
                ("older_versions", c_uint64), ("deleted_before", c_uint64), ("deleted", c_uint64),
                ("already_deleted", c_uint64), ("deleted_before_arrival", c_uint64), ("anchor", ohk_anchor)]


class ohk_sync_options(Structure):
    _fields_ = [("version", c_uint32), ("name", c_char_p), ("types", POINTER(c_char_p)), ("type_count", c_uint64),
                ("from_scratch", c_bool), ("batch_size", c_uint64)]


class ohk_statistics_options(Structure):
    _fields_ = [("version", c_uint32), ("type", c_char_p), ("predicate", POINTER(ohk_predicate)), ("flags", c_uint32),
                ("anchor", c_double), ("interval_count", c_uint32), ("interval_unit", c_int32), ("from_", c_double),
                ("to", c_double), ("utc_offset", c_int32), ("time_zone", c_char_p)]


class ohk_query_options(Structure):
    _fields_ = [("version", c_uint32), ("descriptors", POINTER(ohk_descriptor)), ("descriptor_count", c_uint64),
                ("anchor", POINTER(ohk_anchor)), ("max_batch_size", c_uint64), ("subscription_name", c_char_p),
                ("frequency", c_int32), ("start_day", c_int32), ("end_day", c_int32),
                ("statistics", POINTER(ohk_statistics_options))]


class ohk_live_digest(Structure):
    _fields_ = [("count", c_int64), ("low", c_uint64), ("high", c_uint64)]


class ohk_sync_report(Structure):
    _fields_ = [("applied", ohk_apply_outcome), ("changes_read", c_uint64), ("position", c_uint64),
                ("new_conflicts", c_uint64), ("verified", c_bool), ("converged", c_bool),
                ("source_digest", ohk_live_digest), ("received_digest", ohk_live_digest)]


class ohk_subscription_status(Structure):
    _fields_ = [("name", c_char_p), ("types", POINTER(c_char_p)), ("type_count", c_uint64), ("frequency", c_int32),
                ("acknowledged", ohk_anchor), ("position", c_uint64), ("head", c_uint64),
                ("pending_changes", c_uint64), ("last_acknowledged", c_double), ("lag_seconds", c_double)]

# struct.Struct formats of the records, for reading whole arrays at once.
SAMPLE_RECORD_FORMAT = "<16sdddIIIid"
DELETED_RECORD_FORMAT = "<16sdddIIQd"  # Q: the sync_identifier pointer

# ---- callbacks (user_data last)

ohk_destroy_fn = CFUNCTYPE(None, c_void_p)
ohk_results_fn = CFUNCTYPE(None, POINTER(ohk_query), c_int32, POINTER(ohk_batch), c_void_p)
ohk_observer_fn = CFUNCTYPE(None, POINTER(ohk_query), c_int32, POINTER(c_char_p), c_uint64, c_void_p)
ohk_statistics_fn = CFUNCTYPE(None, POINTER(ohk_query), c_int32, POINTER(ohk_statistics_result), POINTER(c_uint64),
                              c_uint64, c_void_p)
ohk_activity_summaries_fn = CFUNCTYPE(None, POINTER(ohk_query), c_int32, POINTER(ohk_activity_summary), c_uint64,
                                      c_bool, c_void_p)
ohk_import_progress_fn = CFUNCTYPE(c_int32, c_uint64, c_uint64, c_uint64, c_uint64, c_void_p)
ohk_sink_progress_fn = CFUNCTYPE(c_int32, POINTER(ohk_sink_progress), c_void_p)
ohk_commit_fn = CFUNCTYPE(None, POINTER(ohk_store), POINTER(c_char_p), c_uint64, POINTER(ohk_anchor), c_void_p)

P = POINTER
# Owned strings (to free with ohk_string_free) stay raw pointers: char * and char **.
OWNED_STRING = P(c_char)

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
