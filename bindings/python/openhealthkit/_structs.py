"""The C library's structs, opaque handles and callback prototypes, as
ctypes declares them: include/openhealthkit_types.h and the generated
include/openhealthkit.h, which tests/test_drift.py compares them with.
``_native`` re-exports every name, so the package reads them as
``n.ohk_...``."""

from __future__ import annotations

from ctypes import (
    CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int8, c_int32, c_int64,
    c_uint8, c_uint32, c_uint64, c_void_p,
)

ANCHOR_SIZE = 40
ANCHOR_TEXT_SIZE = 64

# ohk_value.kind, ohk_sample_record.flags, ohk_type_info.kind (generated)
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

# Owned strings (to free with ohk_string_free) stay raw pointers: char * and char **.
OWNED_STRING = POINTER(c_char)
