/*
 * openhealthkit_types.h - the plain C types of the OpenHealthKit C API.
 *
 * Written by hand; the functions are declared in openhealthkit.h, which is
 * generated from the Swift sources and includes this file. Everything here
 * is part of the ABI: status codes and enum values never change once
 * released, and structs only change with OHK_ABI_VERSION.
 *
 * Conventions (see docs/c-api.md):
 *  - Times are seconds since 1970-01-01T00:00:00Z as double (Unix time),
 *    between year 1 and year 9999.
 *  - Strings are NUL-terminated UTF-8; invalid UTF-8 is refused.
 *  - UUIDs are 16 bytes in RFC 4122 order.
 *  - Handles (ohk_store, ohk_batch, ohk_predicate, ohk_query) are opaque:
 *    they are declared as structs only so that the generated prototypes keep
 *    their names. Never read or write their member.
 */
#ifndef OPENHEALTHKIT_TYPES_H
#define OPENHEALTHKIT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes; ohk_abi_version() returns the
 * library's. Bindings refuse a library whose version differs. */
#define OHK_ABI_VERSION 3
/* The library version this header belongs to; ohk_version_string() returns it. */
#define OHK_VERSION_STRING "0.22.0"

/* ---- status codes: 0 is success, failures are negative and stable. */
enum {
    OHK_OK = 0,
    OHK_ERR_INVALID_ARGUMENT = -1,    /* a NULL, a bad length, bad UTF-8, an unknown enum value, a wrong handle */
    OHK_ERR_UNKNOWN_TYPE = -2,        /* not a HealthKit identifier nor a registered custom type */
    OHK_ERR_INVALID_UNIT = -3,        /* unit text does not parse */
    OHK_ERR_INCOMPATIBLE_UNIT = -4,   /* units of different dimensions */
    OHK_ERR_INVALID_VALUE = -5,       /* NaN, infinity, a category value outside the type's set */
    OHK_ERR_INVALID_DATE_RANGE = -6,  /* end before start, or a time outside years 1-9999 */
    OHK_ERR_DUPLICATE_UUID = -7,      /* a UUID already used in this store */
    OHK_ERR_NOT_FOUND = -8,           /* no such object or optional field */
    OHK_ERR_ANCHOR_WRONG_STORE = -9,  /* an anchor handed out by another store */
    OHK_ERR_ANCHOR_CORRUPT = -10,     /* anchor bytes or text that do not decode */
    OHK_ERR_ANCHOR_FROM_FUTURE = -11, /* an anchor past the store's head */
    OHK_ERR_ANCHOR_EXPIRED = -12,     /* deleted objects after the anchor were pruned: re-read from no anchor */
    OHK_ERR_STORE_FORMAT_TOO_NEW = -13,
    OHK_ERR_STORAGE = -14,            /* LMDB or the file system failed */
    OHK_ERR_CLOSED = -15,             /* the store is closed, or the handle was closed or freed */
    OHK_ERR_INVALID_PREDICATE = -16,  /* predicate text that does not parse, or a term that does not apply */
    OHK_ERR_INVALID_METADATA = -17,
    OHK_ERR_STORE_FORMAT_TOO_OLD = -18,
    OHK_ERR_BUFFER_TOO_SMALL = -19,   /* the caller's buffer is too small; the needed size was written */
    OHK_ERR_STORE_CORRUPT = -20,      /* the store's file is damaged (ohk_store_verify tells what) */
    OHK_ERR_IMPORT_INPUT = -21,       /* the file cannot be opened, or is not an Apple Health export */
    OHK_ERR_IMPORT_DAMAGED = -22,     /* the export is cut short or damaged past some point; what came before was imported */
    OHK_ERR_UNAVAILABLE = -23,        /* a library the call needs is not installed (the message names it) */
    OHK_ERR_CANCELLED = -24,          /* the caller's callback asked to stop */
    OHK_ERR_SINK_CONNECT = -25,       /* the sink's server is unreachable, refused the credentials, or has no such database */
    OHK_ERR_SINK_CONNECTION_LOST = -26, /* the sink's connection broke; what was committed stays */
    OHK_ERR_SINK_FENCED = -27,        /* a newer sink of the same name and person took over */
    OHK_ERR_SINK_REFUSED = -28,       /* the sink's server refused a statement or a row; the batch was rolled back */
    OHK_ERR_SINK_CHECKPOINT = -29,    /* the sink's checkpoint does not fit this store (another store, pruned past, ahead) */
    OHK_ERR_READ_ONLY = -30,          /* a write through a store opened read-only (ohk_store_options.read_only) */
    OHK_ERR_SYNC_CHECKPOINT = -31,    /* a sync's checkpoint does not fit its source (another store, pruned past, ahead, other types): sync from scratch */
    OHK_ERR_SYNC_BUSY = -32           /* another sync of the same name moved the checkpoint; nothing of the batch was written */
};

/* ---- enums (int32_t fields and parameters) */

/* ohk_type_info.kind. In a batch's records a workout
 * (HKWorkoutTypeIdentifier) reads as its duration in seconds, a route
 * (HKWorkoutRouteTypeIdentifier) as its number of locations, a correlation
 * (blood pressure, food) as its number of members, each a quantity without
 * a unit; ohk_batch_workout, ohk_batch_route and ohk_batch_correlation give
 * their own fields. */
enum { OHK_KIND_QUANTITY = 0, OHK_KIND_CATEGORY = 1, OHK_KIND_WORKOUT = 2, OHK_KIND_WORKOUT_ROUTE = 3, OHK_KIND_CORRELATION = 4,
       OHK_KIND_HEARTBEAT_SERIES = 5, OHK_KIND_AUDIOGRAM = 6, OHK_KIND_ELECTROCARDIOGRAM = 7,
       OHK_KIND_CLINICAL_RECORD = 8 };

/* ohk_type_info.aggregation (HKQuantityAggregationStyle); -1 for categories */
enum {
    OHK_AGGREGATION_CUMULATIVE = 0,
    OHK_AGGREGATION_DISCRETE_ARITHMETIC = 1,
    OHK_AGGREGATION_DISCRETE_TEMPORALLY_WEIGHTED = 2,
    OHK_AGGREGATION_DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL = 3
};

/* ohk_value.kind */
enum {
    OHK_VALUE_NULL = 0,     /* nil: no device, no such field */
    OHK_VALUE_STRING = 1,   /* string */
    OHK_VALUE_NUMBER = 2,   /* number */
    OHK_VALUE_DATE = 3,     /* number: Unix seconds */
    OHK_VALUE_BOOL = 4,     /* number: 0 or 1 */
    OHK_VALUE_UUID = 5,     /* uuid */
    OHK_VALUE_QUANTITY = 6, /* number in unit `string` */
    OHK_VALUE_LIST = 7      /* items[0..count) (IN, BETWEEN) */
};

/* Comparison operators of the built predicates. */
enum {
    OHK_CMP_EQUAL = 0, OHK_CMP_NOT_EQUAL = 1,
    OHK_CMP_LESS = 2, OHK_CMP_LESS_EQUAL = 3,
    OHK_CMP_GREATER = 4, OHK_CMP_GREATER_EQUAL = 5
};

/* Options of ohk_predicate_date_range (HKQueryOptions). */
enum { OHK_DATE_STRICT_START = 1, OHK_DATE_STRICT_END = 2 };

/* ohk_save_outcome.outcome (HealthKit's sync-identifier rules) */
enum {
    OHK_SAVED = 0,                 /* saved */
    OHK_SAVE_REPLACED = 1,         /* saved; other_uuid, an older version, became a deleted object */
    OHK_SAVE_KEPT_EXISTING = 2,    /* not saved: other_uuid has the same sync identifier and a version >= */
    OHK_SAVE_ALREADY_STORED = 3    /* add to workout, save correlation: stored before, only linked */
};

/* ohk_sample_record.flags */
enum {
    OHK_SAMPLE_CATEGORY = 1,       /* value is a category integer, not a quantity */
    OHK_SAMPLE_HAS_DEVICE = 2,     /* ohk_batch_device gives its device */
    OHK_SAMPLE_HAS_METADATA = 4,   /* ohk_batch_metadata gives its metadata */
    OHK_SAMPLE_HAS_CREATION_DATE = 8, /* creation_date is set */
    OHK_SAMPLE_HAS_UTC_OFFSET = 16 /* utc_offset is set */
};

/* Statistics options (HKStatisticsOptions, same values): a sum for
 * cumulative types; average, minimum, maximum for discrete ones; the most
 * recent value and the duration for either; each source's own figures.
 * OHK_STATISTICS_SAMPLE_LOCAL_TIME is not HealthKit's: a collection counts
 * each sample in its own UTC offset, and its intervals' start and end are
 * wall-clock times written as UTC, not instants (rule 28). */
enum {
    OHK_STATISTICS_SEPARATE_BY_SOURCE = 1,
    OHK_STATISTICS_AVERAGE = 2,
    OHK_STATISTICS_MIN = 4,
    OHK_STATISTICS_MAX = 8,
    OHK_STATISTICS_SUM = 16,
    OHK_STATISTICS_MOST_RECENT = 32,
    OHK_STATISTICS_DURATION = 64,
    OHK_STATISTICS_SAMPLE_LOCAL_TIME = 65536
};

/* A category type's durations per interval (ohk_store_category_durations,
 * rule 59): each interval's bounds (Unix seconds; wall-clock with
 * OHK_STATISTICS_SAMPLE_LOCAL_TIME), the seconds any value covers, and
 * values[first_value .. first_value + value_count) of the result. */
typedef struct ohk_category_duration {
    int64_t value;                /* the category value (HKCategoryValueSleepAnalysis...) */
    double seconds;               /* the time it covers in the interval, sources merged */
} ohk_category_duration;

typedef struct ohk_category_interval {
    double start;
    double end;
    double total;                 /* seconds any value covers */
    uint64_t first_value;
    uint64_t value_count;
} ohk_category_interval;

typedef struct ohk_category_durations_result {
    const ohk_category_interval *intervals;
    uint64_t interval_count;
    const ohk_category_duration *values;
    uint64_t value_count;
} ohk_category_durations_result;

/* Units of a statistics collection's intervals. */
enum {
    OHK_INTERVAL_SECOND = 0, OHK_INTERVAL_MINUTE = 1, OHK_INTERVAL_HOUR = 2, OHK_INTERVAL_DAY = 3,
    OHK_INTERVAL_WEEK = 4, OHK_INTERVAL_MONTH = 5, OHK_INTERVAL_YEAR = 6
};

/* Durable subscription frequencies (HKUpdateFrequency). */
enum {
    OHK_FREQUENCY_IMMEDIATE = 0, OHK_FREQUENCY_HOURLY = 1,
    OHK_FREQUENCY_DAILY = 2, OHK_FREQUENCY_WEEKLY = 3
};

/* Results of ohk_anchor_compare. */
enum { OHK_ORDER_BEFORE = -1, OHK_ORDER_SAME = 0, OHK_ORDER_AFTER = 1 };

/* ---- handles (opaque) */
typedef struct ohk_store { char ohk_private_; } ohk_store;
typedef struct ohk_batch { char ohk_private_; } ohk_batch;
typedef struct ohk_predicate { char ohk_private_; } ohk_predicate;
typedef struct ohk_query { char ohk_private_; } ohk_query;
typedef struct ohk_sink { char ohk_private_; } ohk_sink;

/* ---- value types */

/* How a store is opened. Fill it with ohk_store_options_init, or declare it
 * with OHK_STORE_OPTIONS_INIT, then change what you need: `version` says
 * which fields the caller knows, so that fields added later (at the end,
 * with a new version) leave older callers working: version 1 had no
 * read_only, which the library then takes as false. */
#define OHK_STORE_OPTIONS_VERSION 2
typedef struct ohk_store_options {
    uint32_t version;             /* OHK_STORE_OPTIONS_VERSION */
    uint64_t map_size;            /* initial map size in bytes (default 256 MiB); the map grows by itself */
    double tombstone_retention;   /* seconds deleted objects are kept (default 90 days); < 0: until pruned */
    bool durable;                 /* fsync each commit (default true); false only for scratch stores */
    bool read_only;               /* version 2: open for reading only, writes get OHK_ERR_READ_ONLY (rule 64; default false) */
} ohk_store_options;

/* What a store holds of one type (ohk_store_type_counts): its live samples
 * and the deleted objects it still retains (rule 8). */
typedef struct ohk_store_type_count {
    const char *type;             /* the type's identifier */
    uint64_t samples;
    uint64_t deleted_objects;
} ohk_store_type_count;
/* The defaults, as ohk_store_options_init gives them. */
#define OHK_STORE_OPTIONS_INIT { OHK_STORE_OPTIONS_VERSION, 268435456u, 7776000.0, true, false }

/* An anchor: a position in a store's change order, as a value. All zero
 * bytes is "no anchor" (everything from the beginning). Copy it freely;
 * ohk_anchor_to_bytes / ohk_anchor_to_text give its persistent form. */
#define OHK_ANCHOR_SIZE 40
#define OHK_ANCHOR_TEXT_SIZE 64  /* enough for ohk_anchor_to_text with the NUL */
typedef struct ohk_anchor { uint8_t data[OHK_ANCHOR_SIZE]; } ohk_anchor;

/* A typed value: predicate parameters ($1...$n) and metadata values. */
typedef struct ohk_value {
    int32_t kind;                 /* OHK_VALUE_... */
    double number;                /* NUMBER, DATE, BOOL, QUANTITY */
    const char *string;           /* STRING; the unit of a QUANTITY */
    uint8_t uuid[16];             /* UUID */
    const struct ohk_value *items;/* LIST */
    uint64_t count;               /* LIST */
} ohk_value;

/* One metadata entry; the value is STRING, NUMBER, DATE or BOOL. */
typedef struct ohk_metadata_entry {
    const char *key;
    ohk_value value;
} ohk_metadata_entry;

/* A sample's source (HKSourceRevision): version may be NULL. */
typedef struct ohk_source {
    const char *bundle_identifier;
    const char *name;
    const char *version;
} ohk_source;

/* HealthKit's eight device fields; NULL is an absent field. */
typedef struct ohk_device {
    const char *name;
    const char *manufacturer;
    const char *model;
    const char *hardware_version;
    const char *firmware_version;
    const char *software_version;
    const char *local_identifier;
    const char *udi_device_identifier;
} ohk_device;

/* A sample to save. The library copies what it needs during the call. */
typedef struct ohk_sample_input {
    const char *type;             /* identifier: "HKQuantityTypeIdentifierStepCount" */
    double start;                 /* Unix seconds */
    double end;                   /* Unix seconds, >= start */
    double value;                 /* quantity in `unit`, or the category value (an integer) */
    const char *unit;             /* NULL: the type's canonical unit; NULL for category types */
    uint8_t uuid[16];             /* all zero: the library makes a random one */
    ohk_source source;            /* bundle_identifier and name required */
    const ohk_device *device;     /* NULL: no device */
    const ohk_metadata_entry *metadata;
    uint64_t metadata_count;
    /* Optional; a zeroed struct gives neither (ABI 3). */
    bool has_creation_date;       /* creation_date is given */
    bool has_utc_offset;          /* utc_offset is given */
    int32_t utc_offset;           /* seconds east of UTC of the sample's local time, within +-18 h */
    double creation_date;         /* Unix seconds: when the sample was made, as its source says */
} ohk_sample_input;

/* What a save did with one sample (in input order). */
typedef struct ohk_save_outcome {
    uint8_t uuid[16];             /* the sample's UUID (the generated one when the input's was zero) */
    int32_t outcome;              /* OHK_SAVED, OHK_SAVE_REPLACED, OHK_SAVE_KEPT_EXISTING, OHK_SAVE_ALREADY_STORED */
    uint8_t other_uuid[16];       /* REPLACED: the replaced sample; KEPT_EXISTING: the stored one */
} ohk_save_outcome;

/* One type and an optional predicate; several make one query. */
typedef struct ohk_descriptor {
    const char *type;             /* identifier */
    const ohk_predicate *predicate; /* NULL: every sample of the type */
} ohk_descriptor;

/* A sample of a batch, every fixed-size field in place. */
typedef struct ohk_sample_record {
    uint8_t uuid[16];
    double start;                 /* Unix seconds */
    double end;                   /* Unix seconds */
    double value;                 /* quantity in the type's canonical unit, or the category value */
    uint32_t type_index;          /* ohk_batch_type(batch, type_index, ...) */
    uint32_t source_index;        /* ohk_batch_source(batch, source_index, ...) */
    uint32_t flags;               /* OHK_SAMPLE_... */
    int32_t utc_offset;           /* seconds east of UTC, with OHK_SAMPLE_HAS_UTC_OFFSET; else 0 */
    double creation_date;         /* Unix seconds, with OHK_SAMPLE_HAS_CREATION_DATE; else NaN */
} ohk_sample_record;

/* Caller-owned arrays that ohk_batch_sample_columns fills, one element
 * per sample (any may be NULL to skip that column): the columnar form of
 * ohk_sample_record, for NumPy and other analysis code. */
typedef struct ohk_sample_columns {
    uint8_t *uuid;                /* 16 bytes per sample */
    int64_t *start_us;            /* Unix microseconds, rounded to the nearest */
    int64_t *end_us;              /* Unix microseconds, rounded to the nearest */
    double *value;                /* as ohk_sample_record.value */
    uint32_t *type_index;         /* as ohk_sample_record.type_index */
    uint32_t *source_index;       /* as ohk_sample_record.source_index */
    uint32_t *flags;              /* as ohk_sample_record.flags */
    int64_t *creation_us;         /* Unix microseconds; INT64_MIN when the sample has none */
    int32_t *utc_offset;          /* seconds east of UTC; INT32_MIN when the sample has none */
} ohk_sample_columns;

/* A deleted object of a batch (HKDeletedObject). */
typedef struct ohk_deleted_record {
    uint8_t uuid[16];
    double start;                 /* the deleted sample's start, Unix seconds */
    double end;
    double deletion_date;         /* Unix seconds */
    uint32_t type_index;
    uint32_t source_index;
    const char *sync_identifier;  /* HKMetadataKeySyncIdentifier or NULL; owned by the batch */
    double sync_version;          /* HKMetadataKeySyncVersion, NaN when absent */
} ohk_deleted_record;

/* A sample type as the catalogue or a store knows it. Strings live as long
 * as the process. */
typedef struct ohk_type_info {
    const char *identifier;
    int32_t kind;                 /* OHK_KIND_... */
    int32_t aggregation;          /* OHK_AGGREGATION_..., -1 for category types */
    const char *canonical_unit;   /* NULL for category types */
    bool is_custom;
    const char *display_unit;     /* the unit people read it in (count/min for heart rate); NULL for category types */
} ohk_type_info;

/* The figures of one interval, in the type's canonical unit; NaN when the
 * option was not asked for or no sample fed it. */
typedef struct ohk_statistics_values {
    double sum;
    double average;
    double minimum;
    double maximum;
    double most_recent;           /* the value of the sample that ends last */
    double most_recent_start;     /* that sample's own interval, Unix seconds */
    double most_recent_end;
    double duration;              /* seconds the samples cover */
    uint64_t count;               /* samples that fed the interval once sources were merged (0: no data) */
} ohk_statistics_values;

/* One source's own figures in one interval (OHK_STATISTICS_SEPARATE_BY_SOURCE). */
typedef struct ohk_statistics_source {
    const char *bundle_identifier;
    const char *name;
    ohk_statistics_values values;
} ohk_statistics_source;

/* One interval: its bounds, its figures with sources merged by priority,
 * and sources[first_source .. first_source + source_count) of the result. */
typedef struct ohk_statistics_interval {
    double start;                 /* Unix seconds (wall-clock with OHK_STATISTICS_SAMPLE_LOCAL_TIME) */
    double end;
    ohk_statistics_values values;
    uint64_t first_source;
    uint64_t source_count;
} ohk_statistics_interval;

/* What a statistics call computed; free with ohk_statistics_result_free. */
typedef struct ohk_statistics_result {
    const ohk_statistics_interval *intervals;
    uint64_t interval_count;
    const ohk_statistics_source *sources;
    uint64_t source_count;
} ohk_statistics_result;

/* ---- workouts, routes and correlations (rules 31-33). Read from a batch
 * (ohk_batch_workout, ohk_batch_route, ohk_batch_correlation), their
 * arrays and strings belong to the batch; given to a save, the caller's
 * are copied during the call. NaN is an absent number throughout. */

/* A quantity type's figures over a workout or one of its activities
 * (HKStatistics of a workout), in the type's canonical unit. */
typedef struct ohk_workout_statistics {
    const char *type;             /* a quantity type identifier */
    double start;                 /* Unix seconds */
    double end;
    double sum;                   /* cumulative types; NaN when absent */
    double average;               /* discrete types; NaN when absent */
    double minimum;
    double maximum;
} ohk_workout_statistics;

/* A workout event (HKWorkoutEvent). */
typedef struct ohk_workout_event {
    int32_t type;                 /* HKWorkoutEventType: 1 pause, 2 resume, 3 lap, 4 marker, 5 motion paused,
                                     6 motion resumed, 7 segment, 8 pause or resume request */
    double start;                 /* Unix seconds */
    double end;                   /* the start for an instant */
    const ohk_metadata_entry *metadata;
    uint64_t metadata_count;
} ohk_workout_event;

/* A part of a workout with its own activity type (HKWorkoutActivity). */
typedef struct ohk_workout_activity {
    uint8_t uuid[16];             /* all zero in a save: the library makes a random one */
    uint64_t activity_type;       /* HKWorkoutActivityType's raw value */
    double start;                 /* Unix seconds */
    double end;                   /* NaN while the activity is in progress */
    double duration;              /* seconds; NaN when not given */
    const ohk_metadata_entry *metadata;
    uint64_t metadata_count;
    const ohk_workout_statistics *statistics;
    uint64_t statistics_count;
} ohk_workout_activity;

/* A workout's own fields (HKWorkout), beyond what every sample has. */
typedef struct ohk_workout {
    uint64_t activity_type;       /* HKWorkoutActivityType's raw value (37 running, 52 walking) */
    double duration;              /* seconds of activity, pauses left out */
    double total_energy_burned;   /* kcal; NaN when absent */
    double total_distance;        /* m; NaN when absent */
    double total_swimming_stroke_count; /* count; NaN when absent */
    double total_flights_climbed; /* count; NaN when absent */
    const ohk_workout_event *events;          /* ordered by start */
    uint64_t event_count;
    const ohk_workout_activity *activities;
    uint64_t activity_count;
    const ohk_workout_statistics *statistics; /* over the whole workout */
    uint64_t statistics_count;
} ohk_workout;

/* One point of a route (what HealthKit keeps of a CLLocation). */
typedef struct ohk_location {
    double timestamp;             /* Unix seconds */
    double latitude;              /* degrees, WGS 84, -90 to 90 */
    double longitude;             /* degrees, -180 to 180 */
    double altitude;              /* metres above sea level; NaN when absent */
    double horizontal_accuracy;   /* metres; NaN when absent */
    double vertical_accuracy;     /* metres; NaN when absent */
    double course;                /* degrees from true north; NaN when absent */
    double speed;                 /* metres per second; NaN when absent */
} ohk_location;

/* A workout route (HKWorkoutRoute): its locations in time order, one
 * contiguous array, and the workout it belongs to. */
typedef struct ohk_route {
    const ohk_location *locations;
    uint64_t location_count;
    bool has_workout;             /* false for a route of no workout */
    uint8_t workout[16];          /* the workout's UUID, with has_workout */
} ohk_route;

/* One beat of a heartbeat series (HKHeartbeatSeriesSample, rule 39). */
typedef struct ohk_heartbeat {
    double time_since_start;      /* seconds since the series' start */
    bool preceded_by_gap;         /* beats may be missing just before it */
} ohk_heartbeat;

/* One sensitivity point of an audiogram (HKAudiogramSample, rule 40): a
 * frequency and each ear's hearing level, NaN for an ear not tested. */
typedef struct ohk_audiogram_point {
    double frequency_hz;
    double left_ear_db_hl;        /* NaN: not tested */
    double right_ear_db_hl;       /* NaN: not tested */
    int8_t left_ear_masked;       /* 1 masked, 0 not, -1 not said */
    int8_t right_ear_masked;
} ohk_audiogram_point;

/* The ranges one sensitivity point's hearing levels may have been clamped
 * to (HKAudiogramSensitivityPointClampingRange, rule 40), in dBHL: NaN for
 * an open bound; all four NaN for a point without a range. An array of
 * these runs beside an array of ohk_audiogram_point, point for point. */
typedef struct ohk_audiogram_clamping {
    double left_ear_lower_db_hl;
    double left_ear_upper_db_hl;
    double right_ear_lower_db_hl;
    double right_ear_upper_db_hl;
} ohk_audiogram_clamping;

/* ohk_electrocardiogram.classification: HealthKit's
 * HKElectrocardiogram.Classification, with its raw values. */
enum {
    OHK_ECG_NOT_SET = 0,
    OHK_ECG_SINUS_RHYTHM = 1,
    OHK_ECG_ATRIAL_FIBRILLATION = 2,
    OHK_ECG_INCONCLUSIVE_LOW_HEART_RATE = 3,
    OHK_ECG_INCONCLUSIVE_HIGH_HEART_RATE = 4,
    OHK_ECG_INCONCLUSIVE_POOR_READING = 5,
    OHK_ECG_INCONCLUSIVE_OTHER = 6,
    OHK_ECG_UNRECOGNIZED = 100
};

/* ohk_electrocardiogram.symptoms_status (HKElectrocardiogram.SymptomsStatus). */
enum { OHK_ECG_SYMPTOMS_NOT_SET = 0, OHK_ECG_SYMPTOMS_NONE = 1, OHK_ECG_SYMPTOMS_PRESENT = 2 };

/* ohk_electrocardiogram.lead (HKElectrocardiogram.Lead): Apple Watch's one. */
enum { OHK_ECG_LEAD_APPLE_WATCH_SIMILAR_TO_LEAD_I = 1 };

/* An electrocardiogram (HKElectrocardiogram, rule 41): its classification
 * and heart rate, and its voltages as one contiguous array, the k-th
 * measured k / sampling_frequency_hz seconds after the sample's start. */
typedef struct ohk_electrocardiogram {
    int32_t classification;       /* OHK_ECG_... */
    int32_t symptoms_status;      /* OHK_ECG_SYMPTOMS_... */
    int32_t lead;                 /* OHK_ECG_LEAD_...; 0 is taken as lead I */
    double average_heart_rate;    /* beats per minute; NaN when absent */
    double sampling_frequency_hz; /* NaN only for a recording without voltages */
    const double *voltages;       /* microvolts */
    uint64_t voltage_count;
} ohk_electrocardiogram;

/* A clinical record (HKClinicalRecord, rule 42): its display name and its
 * FHIR resource, whose JSON is kept byte for byte. The sample's type is
 * the record's clinical type (HKClinicalTypeIdentifierImmunizationRecord…). */
typedef struct ohk_clinical_record {
    const char *display_name;
    const char *resource_type;    /* "Immunization", "Observation"… (HKFHIRResourceType) */
    const char *identifier;       /* the resource's id at its source */
    const char *fhir_version;     /* "1.0.2" (DSTU2), "4.0.1" (R4) */
    const char *source_url;       /* NULL when unknown */
    const uint8_t *data;          /* the resource's JSON (not NUL-terminated) */
    uint64_t data_length;
} ohk_clinical_record;

/* ohk_activity_summary.move_mode (HKActivityMoveMode). */
enum { OHK_MOVE_MODE_ACTIVE_ENERGY = 1, OHK_MOVE_MODE_APPLE_MOVE_TIME = 2 };

/* One day's activity rings (HKActivitySummary, rule 43): a value of the
 * store per day, not a sample. NaN: the day has no such value. */
typedef struct ohk_activity_summary {
    int32_t year, month, day;     /* the Gregorian day */
    double active_energy_burned;  /* kilocalories */
    double active_energy_burned_goal;
    double apple_move_time;       /* minutes */
    double apple_move_time_goal;
    double apple_exercise_time;   /* minutes */
    double exercise_time_goal;
    double apple_stand_hours;     /* a count of hours */
    double stand_hours_goal;
    int32_t move_mode;            /* OHK_MOVE_MODE_...; 0 is taken as active energy */
    bool paused;
} ohk_activity_summary;

/* The person's characteristics (HealthKit's characteristic types, rule 38
 * of docs/semantics.md): values of the store, not samples. Each enum's
 * numbers are HealthKit's; 0 is "not set". */
enum {
    OHK_BIOLOGICAL_SEX_NOT_SET = 0, OHK_BIOLOGICAL_SEX_FEMALE = 1, OHK_BIOLOGICAL_SEX_MALE = 2,
    OHK_BIOLOGICAL_SEX_OTHER = 3
};
enum {
    OHK_BLOOD_TYPE_NOT_SET = 0, OHK_BLOOD_TYPE_A_POSITIVE = 1, OHK_BLOOD_TYPE_A_NEGATIVE = 2,
    OHK_BLOOD_TYPE_B_POSITIVE = 3, OHK_BLOOD_TYPE_B_NEGATIVE = 4, OHK_BLOOD_TYPE_AB_POSITIVE = 5,
    OHK_BLOOD_TYPE_AB_NEGATIVE = 6, OHK_BLOOD_TYPE_O_POSITIVE = 7, OHK_BLOOD_TYPE_O_NEGATIVE = 8
};
enum {
    OHK_SKIN_TYPE_NOT_SET = 0, OHK_SKIN_TYPE_I = 1, OHK_SKIN_TYPE_II = 2, OHK_SKIN_TYPE_III = 3,
    OHK_SKIN_TYPE_IV = 4, OHK_SKIN_TYPE_V = 5, OHK_SKIN_TYPE_VI = 6
};
enum { OHK_WHEELCHAIR_USE_NOT_SET = 0, OHK_WHEELCHAIR_USE_NO = 1, OHK_WHEELCHAIR_USE_YES = 2 };

typedef struct ohk_characteristics {
    int32_t birth_year;           /* date of birth (Gregorian); all three 0: not set */
    int32_t birth_month;          /* 1-12 */
    int32_t birth_day;            /* 1-31 */
    int32_t biological_sex;       /* OHK_BIOLOGICAL_SEX_* */
    int32_t blood_type;           /* OHK_BLOOD_TYPE_* */
    int32_t fitzpatrick_skin_type; /* OHK_SKIN_TYPE_* */
    int32_t wheelchair_use;       /* OHK_WHEELCHAIR_USE_* */
} ohk_characteristics;

/* One row of an import report: a kind of element or file of the export,
 * how many it holds, how many were imported, and why the rest were not. */
typedef struct ohk_import_row {
    const char *kind;             /* an element ("Record", "Workout") or a kind of file (the routes GPX files) */
    uint64_t count;
    uint64_t imported;            /* imported by this run or an earlier one */
    const char *note;             /* "" when there is nothing to say */
} ohk_import_row;

/* Records that were not imported for one reason. */
typedef struct ohk_import_skip {
    const char *reason;           /* "unknown type: HKQuantityTypeIdentifierFoo" */
    uint64_t count;
    uint64_t first_line;          /* the first line of the XML where it was met */
} ohk_import_skip;

/* What ohk_import_export did. The report owns its strings and arrays;
 * free it with ohk_import_report_free. */
typedef struct ohk_import_report {
    uint64_t records;             /* <Record> elements read */
    uint64_t added;               /* samples saved by this run from <Record>s (workouts: the "Workout" row) */
    uint64_t already_stored;      /* records stored before (an import is idempotent) */
    uint64_t replaced;            /* added samples that replaced an older sync version (counted in added) */
    uint64_t older_versions;      /* records not saved: the store holds a newer sync version */
    uint64_t skipped;             /* records that are not samples (skips: why, for every kind) */
    uint64_t bytes_read;          /* of the file (compressed bytes for a zip) */
    uint64_t xml_bytes;           /* of XML parsed */
    const char *export_xml;       /* the XML's name inside the zip or folder; NULL for an XML file */
    int32_t failure;              /* OHK_OK, or why the import stopped early (OHK_ERR_IMPORT_DAMAGED, OHK_ERR_CANCELLED) */
    const char *failure_message;  /* with its advice; NULL when failure is OHK_OK */
    const ohk_import_row *contents;
    uint64_t content_count;
    const ohk_import_skip *skips;
    uint64_t skip_count;
    const char *const *warnings;  /* what the import worked around, e.g. a broken internal DTD */
    uint64_t warning_count;
} ohk_import_report;

/* What ohk_store_apply did with a receiver's batch (rule 63). */
typedef struct ohk_apply_outcome {
    uint64_t added;               /* samples saved (replaced of them took an older sync version's place) */
    uint64_t replaced;
    uint64_t already_stored;      /* samples held already with the same content: skipped */
    uint64_t older_versions;      /* samples not saved: a newer sync version is stored (rule 14) */
    uint64_t deleted_before;      /* samples not saved: their UUID was deleted, here or before they came */
    uint64_t deleted;             /* stored samples deleted */
    uint64_t already_deleted;     /* deletions of samples deleted already */
    uint64_t deleted_before_arrival; /* deletions of UUIDs never held: kept, so a late upload is skipped */
    ohk_anchor anchor;            /* the store's anchor after the call */
} ohk_apply_outcome;

/* A durable subscription and how far behind it is (ohk_store_subscriptions). */
typedef struct ohk_subscription_status {
    const char *name;
    const char *const *types;     /* its type identifiers */
    uint64_t type_count;
    int32_t frequency;            /* OHK_FREQUENCY_* */
    ohk_anchor acknowledged;      /* everything up to here was acknowledged */
    uint64_t position;            /* the same, as a position */
    uint64_t head;                /* the store's head when read */
    uint64_t pending_changes;     /* changes of its types after its position (its predicates not applied) */
    double last_acknowledged;     /* Unix seconds of the delivery it last acknowledged; NaN: none yet */
    double lag_seconds;           /* 0 when nothing is pending, else seconds since last_acknowledged; NaN: never acknowledged */
} ohk_subscription_status;

/* Where a PostgreSQL sink stands (ohk_sink_get_progress, ohk_sink_progress_fn). */
typedef struct ohk_sink_progress {
    uint64_t saves;               /* samples this sink delivered since it opened */
    uint64_t deletions;           /* deletions it delivered */
    uint64_t batches;             /* PostgreSQL transactions it committed */
    uint64_t position;            /* the store position committed in PostgreSQL */
    uint64_t head;                /* the store's head when last read */
    uint64_t start_position;      /* the position it started from */
} ohk_sink_progress;

/* How ohk_store_sync runs (rule 69). Fill it with ohk_sync_options_init. */
#define OHK_SYNC_OPTIONS_VERSION 1
typedef struct ohk_sync_options {
    uint32_t version;             /* OHK_SYNC_OPTIONS_VERSION */
    const char *name;             /* the replication's name; NULL: "default" */
    const char *const *types;     /* type identifiers or short names to copy; NULL (with type_count 0): every type */
    uint64_t type_count;
    bool from_scratch;            /* forget the checkpoint and copy every change the source retains */
    uint64_t batch_size;          /* changes per transaction of the destination; 0: 20,000 */
} ohk_sync_options;

/* A store's live digest (rule 68): how many live samples, and the 128-bit
 * sum of a hash of each one's UUID and sync version. Equal digests: the
 * same live samples (ohk_store_live_digest). */
typedef struct ohk_live_digest {
    int64_t count;
    uint64_t low;
    uint64_t high;
} ohk_live_digest;

/* What one ohk_store_sync did (rules 69 and 70). */
typedef struct ohk_sync_report {
    ohk_apply_outcome applied;    /* what the destination did with the changes, summed; anchor: its anchor after */
    uint64_t changes_read;        /* changes read from the source in this run */
    uint64_t position;            /* the source position the checkpoint now stands at */
    uint64_t new_conflicts;       /* UUIDs found with other content in the destination (ohk_store_sync_conflicts) */
    bool verified;                /* the changes received rebuild the source's live digest at position */
    bool converged;               /* the destination's live digests equal the source's, and no conflict stands */
    ohk_live_digest source_digest;   /* the source's, over the types synced, at position */
    ohk_live_digest received_digest; /* the one the received changes rebuild */
} ohk_sync_report;

/* ---- callbacks. user_data is what the caller registered. */

/* An import's progress, after each chunk of XML, on the calling thread:
 * bytes of the file read out of bytes_total, records read, samples added.
 * Return 0 to go on; anything else stops the import after what was read
 * so far is saved (ohk_import_export then returns OHK_ERR_CANCELLED). */
typedef int32_t (*ohk_import_progress_fn)(uint64_t bytes_read, uint64_t bytes_total, uint64_t records,
                                          uint64_t added, void *user_data);

/* A sink's progress, on the delivering thread: after each commit, and
 * (ohk_sink_follow) at least every quarter second while idle. `progress`
 * is borrowed for the call. Return 0 to go on; anything else stops. */
typedef int32_t (*ohk_sink_progress_fn)(const ohk_sink_progress *progress, void *user_data);

/* Frees a callback's user_data; runs exactly once, after the last call. */
typedef void (*ohk_destroy_fn)(void *user_data);

/* A long-running anchored query's results: first the snapshot, then each
 * change set. `batch` is borrowed: valid until the callback returns (do not
 * free it). On failure status < 0, batch is NULL and the query has stopped. */
typedef void (*ohk_results_fn)(ohk_query *query, int32_t status, const ohk_batch *batch, void *user_data);

/* An observer query's notice: `types` (type_count identifiers, borrowed for
 * the call) changed. On failure status < 0, types is NULL and the query has
 * stopped. Returning from the callback is HealthKit's completion handler. */
typedef void (*ohk_observer_fn)(ohk_query *query, int32_t status, const char *const *types,
                                uint64_t type_count, void *user_data);

/* A live statistics collection's delivery (ohk_query_statistics_collection):
 * every interval in `result`, and the indexes in result->intervals of those
 * whose figures changed (all of them in the first delivery). Both are
 * borrowed for the call (do not free them). On failure status < 0, result
 * and changed are NULL and the query has stopped. */
typedef void (*ohk_statistics_fn)(ohk_query *query, int32_t status, const ohk_statistics_result *result,
                                  const uint64_t *changed, uint64_t changed_count, void *user_data);

/* An activity summary query's delivery (ohk_query_activity_summaries, rule
 * 43): first every summary of its days (is_update false, possibly none),
 * then after each commit that changed some of them, those (is_update
 * true). `summaries` is borrowed for the call (do not free it). On failure
 * status < 0, summaries is NULL and the query has stopped. */
typedef void (*ohk_activity_summaries_fn)(ohk_query *query, int32_t status, const ohk_activity_summary *summaries,
                                          uint64_t count, bool is_update, void *user_data);

/* A commit hook's notice (ohk_store_set_commit_hook): a commit made through
 * `store` saved or deleted samples of `types` (type_count identifiers, in
 * the order the commit first wrote each); `anchor` is the store's anchor
 * right after it. Both are borrowed for the call. */
typedef void (*ohk_commit_fn)(ohk_store *store, const char *const *types, uint64_t type_count,
                              const ohk_anchor *anchor, void *user_data);

#ifdef __cplusplus
}
#endif

#endif /* OPENHEALTHKIT_TYPES_H */
