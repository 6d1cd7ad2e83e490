"""Workouts, routes, correlations, heartbeat series, audiograms,
electrocardiograms and clinical records: their own fields (rules 31-33,
36 and 39-42 of docs/semantics.md).

A workout, a route, a correlation or a heartbeat series is a sample like
any other (a UUID, an interval, a source, metadata, a place in the change
feed) with fields of its own, which these frozen dataclasses hold:
``Workout`` (with its ``WorkoutEvent``s, ``WorkoutActivity``s and
``WorkoutStatistics``), ``Route``, ``Correlation`` and ``HeartbeatSeries``
(its ``Heartbeat``s). Read from a store, such samples are
``WorkoutSample``, ``WorkoutRouteSample``, ``CorrelationSample`` and
``HeartbeatSeriesSample``, whose ``workout``, ``route``, ``correlation``
and ``heartbeats`` give these fields, decoded the first time they are
asked for. They are saved with ``HealthStore.save_workout``,
``save_route``, ``save_correlation`` and ``save_heartbeat_series``.
Audiograms (``Audiogram``, ``AudiogramSample``), electrocardiograms
(``Electrocardiogram``, ``ElectrocardiogramSample``) and clinical records
(``ClinicalRecord``, ``ClinicalRecordSample``) follow the same pattern,
saved with ``save_audiogram``, ``save_electrocardiogram`` and
``save_clinical_record``.

Numbers are in the canonical units of the C library: seconds, kcal,
metres, counts; a statistics' figures in its quantity type's canonical
unit. None is an absent number (NaN in C).
"""

from __future__ import annotations

import array
import ctypes
import json
import math
import numbers
import struct
import uuid as uuid_module
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import IntEnum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, Union

from ._enums import ECGClassification as ECGClassification, ECGLead as ECGLead, ECGSymptomsStatus as ECGSymptomsStatus  # defined once, in api/enums.toml
from . import _native as n
from ._convert import ValueArena, finite, make_uuid, python_value, unix_time, utc_datetime, uuid_bytes
from .catalogue import SampleType, sample_type, sample_types
from .errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError, NotFoundError
from .samples import Sample, _metadata_arg

if TYPE_CHECKING:
    import numpy as np

    from .batch import BatchContext
    from .columns import HeartbeatColumns, LocationColumns
    from .predicate import Predicate

WORKOUT = "HKWorkoutTypeIdentifier"
ROUTE = "HKWorkoutRouteTypeIdentifier"
BLOOD_PRESSURE = "HKCorrelationTypeIdentifierBloodPressure"
FOOD = "HKCorrelationTypeIdentifierFood"
HEARTBEAT_SERIES = "HKDataTypeIdentifierHeartbeatSeries"
AUDIOGRAM = "HKDataTypeIdentifierAudiogram"
ELECTROCARDIOGRAM = "HKDataTypeIdentifierElectrocardiogram"
_SYSTOLIC = "HKQuantityTypeIdentifierBloodPressureSystolic"
_DIASTOLIC = "HKQuantityTypeIdentifierBloodPressureDiastolic"

_E = TypeVar("_E", bound=IntEnum)


def _healthkit_name(member: IntEnum) -> str:
    """``MIXED_CARDIO`` -> ``MixedCardio``: HealthKit's case name without
    its prefix (each word of HealthKit's names is one capital and lower
    case letters; tests/test_drift.py checks the names against the Swift
    core's tables)."""
    return "".join(word.capitalize() for word in member.name.split("_"))


def _from_name(cls: type[_E], name: str, prefix: str) -> _E:
    if isinstance(name, cls):
        return name
    if not isinstance(name, str):
        raise ArgumentTypeError(f"a {cls.__name__} name is a str, not {type(name).__name__}")
    key = (name[len(prefix):] if name.startswith(prefix) else name).replace("_", "").lower()
    for member in cls:
        if member.name.replace("_", "").lower() == key:
            return member
    raise NotFoundError(f"{name!r} is not a {prefix}")


def _known(cls: type[_E], value: int) -> int:
    """`value` as a member of `cls` when it is one, else the int as is."""
    try:
        return cls(value)
    except ValueError:
        return value


class WorkoutActivityType(IntEnum):
    """HealthKit's workout activity types (``HKWorkoutActivityType``), by
    their raw values (HKWorkoutActivityType.h: there is no 81; 2998 and
    2999 are in data but not in Apple's API). ``healthkit_name`` is
    HealthKit's name without its prefix (``Running``), what ``ohk`` prints
    and predicate text takes (``workoutType == "Running"``);
    ``from_name`` reads it back."""

    AMERICAN_FOOTBALL = 1
    ARCHERY = 2
    AUSTRALIAN_FOOTBALL = 3
    BADMINTON = 4
    BASEBALL = 5
    BASKETBALL = 6
    BOWLING = 7
    BOXING = 8
    CLIMBING = 9
    CRICKET = 10
    CROSS_TRAINING = 11
    CURLING = 12
    CYCLING = 13
    DANCE = 14
    DANCE_INSPIRED_TRAINING = 15
    ELLIPTICAL = 16
    EQUESTRIAN_SPORTS = 17
    FENCING = 18
    FISHING = 19
    FUNCTIONAL_STRENGTH_TRAINING = 20
    GOLF = 21
    GYMNASTICS = 22
    HANDBALL = 23
    HIKING = 24
    HOCKEY = 25
    HUNTING = 26
    LACROSSE = 27
    MARTIAL_ARTS = 28
    MIND_AND_BODY = 29
    MIXED_METABOLIC_CARDIO_TRAINING = 30
    PADDLE_SPORTS = 31
    PLAY = 32
    PREPARATION_AND_RECOVERY = 33
    RACQUETBALL = 34
    ROWING = 35
    RUGBY = 36
    RUNNING = 37
    SAILING = 38
    SKATING_SPORTS = 39
    SNOW_SPORTS = 40
    SOCCER = 41
    SOFTBALL = 42
    SQUASH = 43
    STAIR_CLIMBING = 44
    SURFING_SPORTS = 45
    SWIMMING = 46
    TABLE_TENNIS = 47
    TENNIS = 48
    TRACK_AND_FIELD = 49
    TRADITIONAL_STRENGTH_TRAINING = 50
    VOLLEYBALL = 51
    WALKING = 52
    WATER_FITNESS = 53
    WATER_POLO = 54
    WATER_SPORTS = 55
    WRESTLING = 56
    YOGA = 57
    BARRE = 58
    CORE_TRAINING = 59
    CROSS_COUNTRY_SKIING = 60
    DOWNHILL_SKIING = 61
    FLEXIBILITY = 62
    HIGH_INTENSITY_INTERVAL_TRAINING = 63
    JUMP_ROPE = 64
    KICKBOXING = 65
    PILATES = 66
    SNOWBOARDING = 67
    STAIRS = 68
    STEP_TRAINING = 69
    WHEELCHAIR_WALK_PACE = 70
    WHEELCHAIR_RUN_PACE = 71
    TAI_CHI = 72
    MIXED_CARDIO = 73
    HAND_CYCLING = 74
    DISC_SPORTS = 75
    FITNESS_GAMING = 76
    CARDIO_DANCE = 77
    SOCIAL_DANCE = 78
    PICKLEBALL = 79
    COOLDOWN = 80
    SWIM_BIKE_RUN = 82
    TRANSITION = 83
    UNDERWATER_DIVING = 84
    REST = 2998
    GROUP = 2999
    OTHER = 3000

    @property
    def healthkit_name(self) -> str:
        """``Running`` for ``HKWorkoutActivityTypeRunning``."""
        return _healthkit_name(self)

    @classmethod
    def from_name(cls, name: str) -> "WorkoutActivityType":
        """The type named ``Running``, ``HKWorkoutActivityTypeRunning``,
        ``running`` (Swift's case) or ``RUNNING`` (case and underscores do
        not matter); NotFoundError for another name."""
        return _from_name(cls, name, "HKWorkoutActivityType")


class WorkoutEventType(IntEnum):
    """HealthKit's workout event types (``HKWorkoutEventType``), by raw
    value; ``healthkit_name`` is ``Lap`` for ``HKWorkoutEventTypeLap``."""

    PAUSE = 1
    RESUME = 2
    LAP = 3
    MARKER = 4
    MOTION_PAUSED = 5
    MOTION_RESUMED = 6
    SEGMENT = 7
    PAUSE_OR_RESUME_REQUEST = 8

    @property
    def healthkit_name(self) -> str:
        """``MotionPaused`` for ``HKWorkoutEventTypeMotionPaused``."""
        return _healthkit_name(self)

    @classmethod
    def from_name(cls, name: str) -> "WorkoutEventType":
        """The type named ``Lap``, ``HKWorkoutEventTypeLap``, ``lap`` or
        ``LAP``; NotFoundError for another name."""
        return _from_name(cls, name, "HKWorkoutEventType")


# ---- checks shared by the dataclasses (made from C's values too, which pass)

def _raw_type(value: int, what: str, limit: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < limit:
        raise InvalidValueError(f"{what} {value} is out of range")


def _optional(value: float | None, what: str) -> None:
    """None (absent) or a finite number: NaN would read as absent in C."""
    if value is not None:
        finite(value, what)


def _sequence(values: Iterable[Any], cls: type, what: str) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ArgumentTypeError(f"{what} must be a sequence of {cls.__name__}, not {type(values).__name__}")
    items = tuple(values)
    for index, item in enumerate(items):
        if not isinstance(item, cls):
            raise ArgumentTypeError(f"{what}[{index}] is a {type(item).__name__}, not a {cls.__name__}")
    return items


def _set(instance: object, name: str, value: Any) -> None:
    object.__setattr__(instance, name, value)  # a frozen dataclass normalising its own fields


@dataclass(frozen=True, slots=True)
class WorkoutStatistics:
    """A quantity type's figures over a workout or one of its activities
    (HealthKit's ``HKStatistics`` of a workout, ``statistics(for:)``), in
    the type's canonical unit (``unit``): ``sum`` for cumulative types,
    ``average``, ``minimum`` and ``maximum`` for discrete ones; None where
    absent. ``quantity_type`` is HealthKit's identifier (a short name such
    as ``HeartRate`` or a SampleType is read as its identifier)."""

    quantity_type: str
    start_date: datetime
    end_date: datetime
    sum: float | None = None
    average: float | None = None
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        kind = sample_type(self.quantity_type) if isinstance(self.quantity_type, str) else self.quantity_type
        if not isinstance(kind, SampleType):
            raise ArgumentTypeError(f"quantity_type must be a type identifier, not {type(kind).__name__}")
        if kind.canonical_unit is None:
            raise InvalidArgumentError(f"workout statistics are of quantity types, not {kind.identifier}")
        _set(self, "quantity_type", kind.identifier)
        unix_time(self.start_date, "statistics start_date")
        unix_time(self.end_date, "statistics end_date")
        for name in ("sum", "average", "minimum", "maximum"):
            _optional(getattr(self, name), f"statistics {name}")

    @property
    def unit(self) -> str:
        """The unit of the figures: the type's canonical unit."""
        return sample_type(self.quantity_type).canonical_unit or ""


@dataclass(frozen=True, slots=True)
class WorkoutEvent:
    """A workout event (``HKWorkoutEvent``): its ``type`` (a
    ``WorkoutEventType``: pause, lap, segment...), its date interval (an
    instant when ``end_date`` is ``start_date``) and its metadata."""

    type: int
    start_date: datetime
    end_date: datetime
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        _raw_type(self.type, "event type", 2**31)
        _set(self, "type", _known(WorkoutEventType, self.type))
        unix_time(self.start_date, "event start_date")
        unix_time(self.end_date, "event end_date")
        _set(self, "metadata", _metadata_arg(self.metadata))

    @property
    def type_name(self) -> str | None:
        """HealthKit's name of the type (``Lap``); None for a number it
        does not name."""
        return self.type.healthkit_name if isinstance(self.type, WorkoutEventType) else None


@dataclass(frozen=True, slots=True)
class WorkoutActivity:
    """A part of a workout with its own activity type
    (``HKWorkoutActivity``): ``end_date`` None while it is in progress,
    ``duration`` in seconds (None when not given), its metadata and its
    statistics. ``uuid`` is made here when not given, so it is known
    before the save."""

    activity_type: int
    start_date: datetime
    end_date: datetime | None = None
    duration: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    statistics: Sequence[WorkoutStatistics] = ()
    uuid: uuid_module.UUID = field(default_factory=uuid_module.uuid4)

    def __post_init__(self) -> None:
        _raw_type(self.activity_type, "activity_type", 2**64)
        _set(self, "activity_type", _known(WorkoutActivityType, self.activity_type))
        unix_time(self.start_date, "activity start_date")
        if self.end_date is not None:
            unix_time(self.end_date, "activity end_date")
        _optional(self.duration, "activity duration")
        _set(self, "metadata", _metadata_arg(self.metadata))
        _set(self, "statistics", _sequence(self.statistics, WorkoutStatistics, "activity statistics"))
        if not isinstance(self.uuid, uuid_module.UUID):
            _set(self, "uuid", make_uuid(uuid_bytes(self.uuid, "activity uuid")))

    @property
    def activity_type_name(self) -> str | None:
        """HealthKit's name of the activity type (``Running``)."""
        return _activity_name(self.activity_type)


def _activity_name(value: int) -> str | None:
    return value.healthkit_name if isinstance(value, WorkoutActivityType) else None


@dataclass(frozen=True, slots=True)
class Workout:
    """A workout's own fields (``HKWorkout``), beyond what every sample has.

    ``activity_type`` is a ``WorkoutActivityType`` (an int: 37 is
    running) and ``activity_type_name`` HealthKit's name for it
    (``Running``). ``duration`` is seconds of activity, kept as given
    (it may differ from the sample's interval: pauses shorten it). The
    totals are in kcal, metres and counts, None when absent. ``events``
    are kept ordered by date, as the store keeps them; ``statistics`` are
    per quantity type over the whole workout.

        ohk.Workout(ohk.WorkoutActivityType.RUNNING, duration=1740,
                    total_energy_burned=250, total_distance=5000)
    """

    activity_type: int
    duration: float
    total_energy_burned: float | None = None
    total_distance: float | None = None
    total_swimming_stroke_count: float | None = None
    total_flights_climbed: float | None = None
    events: Sequence[WorkoutEvent] = ()
    activities: Sequence[WorkoutActivity] = ()
    statistics: Sequence[WorkoutStatistics] = ()

    def __post_init__(self) -> None:
        _raw_type(self.activity_type, "activity_type", 2**64)
        _set(self, "activity_type", _known(WorkoutActivityType, self.activity_type))
        finite(self.duration, "duration")
        for name in ("total_energy_burned", "total_distance", "total_swimming_stroke_count",
                     "total_flights_climbed"):
            _optional(getattr(self, name), name)
        events = _sequence(self.events, WorkoutEvent, "events")
        # The store's order (rule 31): by start, then end, then type.
        _set(self, "events", tuple(sorted(events, key=lambda e: (e.start_date.timestamp(), e.end_date.timestamp(),
                                                                 e.type))))
        _set(self, "activities", _sequence(self.activities, WorkoutActivity, "activities"))
        _set(self, "statistics", _sequence(self.statistics, WorkoutStatistics, "statistics"))

    @property
    def activity_type_name(self) -> str | None:
        """HealthKit's name of the activity type (``Running``); None for a
        number this package does not name."""
        return _activity_name(self.activity_type)


class Location(NamedTuple):
    """One point of a route (what HealthKit keeps of a ``CLLocation``):
    degrees (WGS 84), metres above sea level, accuracies in metres, the
    course in degrees from true north, the speed in m/s; None where
    unknown. ``Route.locations`` gives these; a save takes them too (and
    plain tuples in this order, the timestamp an aware datetime or Unix
    seconds)."""

    timestamp: datetime
    latitude: float
    longitude: float
    altitude: float | None = None
    horizontal_accuracy: float | None = None
    vertical_accuracy: float | None = None
    course: float | None = None
    speed: float | None = None


_LOCATION_SIZE = ctypes.sizeof(n.ohk_location)
_FIELDS = n.LOCATION_FIELDS
_REQUIRED = 3  # timestamp, latitude, longitude


@dataclass(frozen=True, slots=True, repr=False)
class Route:
    """A workout route's own fields (``HKWorkoutRoute``): its locations in
    time order and the UUID of its workout (None for a route of no
    workout). ``raw`` holds the locations as the C library lays them out
    (``ohk_location``: eight float64 each, NaN where unknown), copied once
    from the batch; ``to_numpy()`` reads them as columns, ``to_pandas()``
    as a DataFrame, ``locations`` as ``Location`` tuples."""

    workout_uuid: uuid_module.UUID | None
    raw: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.raw, bytes) or len(self.raw) % _LOCATION_SIZE:
            raise InvalidArgumentError(f"raw must be bytes of ohk_location records ({_LOCATION_SIZE} each)")

    def __len__(self) -> int:
        """The number of locations."""
        return len(self.raw) // _LOCATION_SIZE

    def __repr__(self) -> str:
        return f"Route({len(self)} locations, workout_uuid={self.workout_uuid})"

    @property
    def locations(self) -> list[Location]:
        """The locations as ``Location`` tuples (a Python object each: use
        ``to_numpy()`` for long routes)."""
        values = array.array("d")
        values.frombytes(self.raw)
        return [Location(utc_datetime(values[i]), values[i + 1], values[i + 2],
                         *(None if v != v else v for v in values[i + 3:i + 8]))
                for i in range(0, len(values), len(_FIELDS))]

    def to_numpy(self) -> "LocationColumns":
        """The locations as NumPy columns (needs NumPy): see
        ``LocationColumns``."""
        from .columns import location_columns
        return location_columns(self.raw)

    def to_pandas(self) -> Any:
        """The locations as a pandas DataFrame indexed by ``timestamp``
        (UTC), one float column per field, NaN where unknown. Needs NumPy
        and pandas."""
        return self.to_numpy().to_pandas()


@dataclass(frozen=True, slots=True)
class Correlation:
    """A correlation's own field (``HKCorrelation``): the UUIDs of its
    members, which are samples of their own types (a systolic and a
    diastolic blood pressure; dietary samples). ``predicate()`` finds
    them; ``HealthStore.correlation_objects`` fetches them."""

    members: Sequence[uuid_module.UUID]

    def __post_init__(self) -> None:
        _set(self, "members", _sequence(self.members, uuid_module.UUID, "members"))

    def predicate(self) -> "Predicate":
        """A predicate of the members' UUIDs (``Predicate.uuids``)."""
        from .predicate import Predicate
        return Predicate.uuids(self.members)


class Heartbeat(NamedTuple):
    """One beat of a heartbeat series (what ``HKHeartbeatSeriesQuery``
    gives per beat): seconds since the series' start, and whether a gap in
    the data came just before it (one or more beats may be missing).
    ``HeartbeatSeries.beats`` gives these; a save takes them too, plain
    ``(time, gap)`` tuples, or plain numbers (no gap)."""

    time_since_start: float
    preceded_by_gap: bool = False


# ohk_heartbeat: a float64, a bool, padding to 16 bytes (tests/test_drift.py
# checks the ctypes layout against the C compiler).
_BEAT_SIZE = ctypes.sizeof(n.ohk_heartbeat)
_GAP_OFFSET = n.ohk_heartbeat.preceded_by_gap.offset
_BEAT = struct.Struct(f"=d{_GAP_OFFSET - 8}x?{_BEAT_SIZE - _GAP_OFFSET - 1}x")
assert _BEAT.size == _BEAT_SIZE and n.ohk_heartbeat.time_since_start.offset == 0
_AS_FLAG = bytes([0] + [1] * 255)  # bytes.translate: any non-zero byte reads as true


def _normalised_beats(raw: bytes | bytearray) -> bytes:
    """Packed ohk_heartbeat records with their padding zeroed and each gap
    flag 0 or 1, so that equal series have equal bytes: a few C-speed
    slice assignments, not a loop over the beats."""
    count = len(raw) // _BEAT_SIZE
    if not count:
        return b""
    out = bytearray(raw)
    out[_GAP_OFFSET::_BEAT_SIZE] = bytes(out[_GAP_OFFSET::_BEAT_SIZE]).translate(_AS_FLAG)
    for offset in (*range(8, _GAP_OFFSET), *range(_GAP_OFFSET + 1, _BEAT_SIZE)):
        out[offset::_BEAT_SIZE] = bytes(count)
    return bytes(out)


@dataclass(frozen=True, slots=True, repr=False)
class HeartbeatSeries:
    """A heartbeat series' own field (``HKHeartbeatSeriesSample``): its
    beats in time order. ``raw`` holds them as the C library lays them out
    (``ohk_heartbeat``: a float64 and a bool, 16 bytes with the padding,
    which is zeroed), copied once from the batch; ``to_numpy()`` reads them
    as columns, ``to_pandas()`` as a DataFrame, ``beats`` as ``Heartbeat``
    tuples."""

    raw: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.raw, (bytes, bytearray)) or len(self.raw) % _BEAT_SIZE:
            raise InvalidArgumentError(f"raw must be bytes of ohk_heartbeat records ({_BEAT_SIZE} each)")
        _set(self, "raw", _normalised_beats(self.raw))

    def __len__(self) -> int:
        """The number of beats."""
        return len(self.raw) // _BEAT_SIZE

    def __repr__(self) -> str:
        return f"HeartbeatSeries({len(self)} beats)"

    @property
    def beats(self) -> list[Heartbeat]:
        """The beats as ``Heartbeat`` tuples (a Python object each: use
        ``to_numpy()`` for long series)."""
        return [Heartbeat(time, gap) for time, gap in _BEAT.iter_unpack(self.raw)]

    def to_numpy(self) -> "HeartbeatColumns":
        """The beats as NumPy columns (needs NumPy): ``time_since_start``
        float64 and ``preceded_by_gap`` bool, read through a structured
        dtype of the C layout; see ``HeartbeatColumns``."""
        from .columns import heartbeat_columns
        return heartbeat_columns(self.raw)

    def to_pandas(self) -> Any:
        """The beats as a pandas DataFrame indexed by ``time_since_start``
        (seconds) with a bool ``preceded_by_gap`` column. Needs NumPy and
        pandas."""
        return self.to_numpy().to_pandas()


# ---- samples with their own fields, as read from a store

class _OwnFieldsSample(Sample):
    """A sample read from a store whose type has its own fields (a
    workout, a route, a correlation, a heartbeat series), decoded from the
    batch when first asked for."""

    __slots__ = ()
    _c: BatchContext  # read from a store: never an _Unsaved
    _saved_by = "save"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentTypeError(f"a {type(self).__name__} is read from a store; save one with "
                                f"HealthStore.{self._saved_by}")

    @property
    def value(self) -> float:
        """The number a batch's record holds for it (the C API's ``value``)."""
        return float(self._r[3])

    def _fields(self) -> Any:
        return self._c.part(self._r[0])


class WorkoutSample(_OwnFieldsSample):
    """A workout read from a store (``HKWorkout``): a sample whose
    ``workout`` has its own fields. ``value`` is its duration in seconds."""

    __slots__ = ()
    _saved_by = "save_workout"

    @property
    def workout(self) -> Workout:
        """The workout's own fields (activity type, duration, totals,
        events, activities, statistics)."""
        found: Workout = self._fields()
        return found

    def _value_text(self) -> str:
        workout = self.workout
        return f"{workout.activity_type_name or workout.activity_type}, {workout.duration!r} s"


class WorkoutRouteSample(_OwnFieldsSample):
    """A workout route read from a store (``HKWorkoutRoute``): a sample
    whose ``route`` has its locations. Its interval is its first and last
    locations' times; ``value`` is its number of locations."""

    __slots__ = ()
    _saved_by = "save_route"

    @property
    def route(self) -> Route:
        """The route's locations and workout."""
        found: Route = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} locations"


class CorrelationSample(_OwnFieldsSample):
    """A correlation read from a store (``HKCorrelation``: blood pressure,
    food): a sample whose ``correlation`` has its members' UUIDs.
    ``value`` is its number of members."""

    __slots__ = ()
    _saved_by = "save_correlation"

    @property
    def correlation(self) -> Correlation:
        """The correlation's members."""
        found: Correlation = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} members"


class HeartbeatSeriesSample(_OwnFieldsSample):
    """A heartbeat series read from a store (``HKHeartbeatSeriesSample``,
    rule 39): a sample whose ``heartbeats`` has its beats, each a time
    since the sample's start. ``value`` is its number of beats."""

    __slots__ = ()
    _saved_by = "save_heartbeat_series"

    @property
    def heartbeats(self) -> HeartbeatSeries:
        """The series' beats, in time order."""
        found: HeartbeatSeries = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} beats"


class ClampingRange(NamedTuple):
    """The range an ear's hearing level may have been clamped to
    (HealthKit's ``HKAudiogramSensitivityPointClampingRange``, rule 40):
    dBHL, None for an open bound; not both None."""
    lower_bound: float | None
    upper_bound: float | None


class SensitivityPoint(NamedTuple):
    """One frequency of an audiogram (rule 40): Hz, and each ear's hearing
    level in dBHL (None: not tested), whether it was masked (None: not
    said) and the range it was clamped to (None: none given)."""
    frequency: float
    left_ear: float | None
    right_ear: float | None
    left_ear_masked: bool | None
    right_ear_masked: bool | None
    left_ear_clamping: ClampingRange | None = None
    right_ear_clamping: ClampingRange | None = None


def clamping_bounds(given: Any, what: str) -> tuple[float, float]:
    """A clamping range as C takes it: (lower, upper) in dBHL, NaN for an
    open bound, (NaN, NaN) for none. ``given`` is None, a ClampingRange or
    a (lower, upper) pair."""
    if given is None:
        return math.nan, math.nan
    pair = tuple(given) if isinstance(given, (tuple, list)) else None
    if pair is None or len(pair) != 2:
        raise ArgumentTypeError(f"{what} must be a ClampingRange, a (lower, upper) pair or None, not {given!r}")
    if pair[0] is None and pair[1] is None:
        raise InvalidValueError(f"{what} has no bound: give at least one, or None for no range")
    bounds = []
    for name, v in zip(("lower", "upper"), pair):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)):
            raise InvalidValueError(f"{what}: the {name} bound must be a finite number or None, not {v!r}")
        bounds.append(math.nan if v is None else float(v))
    return bounds[0], bounds[1]


@dataclass(frozen=True)
class Audiogram:
    """An audiogram's sensitivity points, in order of frequency."""
    points: tuple[SensitivityPoint, ...]

    def __len__(self) -> int:
        return len(self.points)


class AudiogramSample(_OwnFieldsSample):
    """An audiogram read from a store (``HKAudiogramSample``, rule 40): a
    sample whose ``audiogram`` has its sensitivity points. ``value`` is
    its number of points."""

    __slots__ = ()
    _saved_by = "save_audiogram"

    @property
    def audiogram(self) -> Audiogram:
        """The audiogram's points, in order of frequency."""
        found: Audiogram = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} points"


def _audiogram_from_c(points: Any, ranges: Any, count: int) -> Audiogram:
    def masked(flag: int) -> bool | None:
        return None if flag < 0 else flag == 1

    def level(x: float) -> float | None:
        return None if math.isnan(x) else x

    def clamping(lower: float, upper: float) -> ClampingRange | None:
        return None if math.isnan(lower) and math.isnan(upper) else ClampingRange(level(lower), level(upper))

    return Audiogram(tuple(SensitivityPoint(p.frequency_hz, level(p.left_ear_db_hl), level(p.right_ear_db_hl),
                                            masked(p.left_ear_masked), masked(p.right_ear_masked),
                                            clamping(r.left_ear_lower_db_hl, r.left_ear_upper_db_hl),
                                            clamping(r.right_ear_lower_db_hl, r.right_ear_upper_db_hl))
                           for p, r in ((points[i], ranges[i]) for i in range(count))))


# ---- electrocardiograms (rule 41)

def _numpy(what: str) -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError(f"{what} needs NumPy: pip install 'openhealthkit[numpy]'") from None
    return numpy


def _scalar(value: Any, what: str) -> float | None:
    """None, or a finite real number (NumPy's too) as a float: NaN would
    read as absent in C."""
    if value is None:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be a number or None, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidValueError(f"{what} must be finite or None, not {number}")
    return number


def _voltage_array(numpy: Any, voltages: Any) -> Any:
    """`voltages` as a new read-only, contiguous 1-D float64 array: a NumPy
    array (or anything with a numeric dtype, a pandas Series) is converted
    in one C-level copy; a sequence of Python numbers through NumPy too,
    each item checked only when NumPy sees objects."""
    if isinstance(voltages, (str, bytes, bytearray)) or not (isinstance(voltages, Iterable)
                                                            or hasattr(voltages, "__array__")):
        raise ArgumentTypeError(f"voltages must be a sequence or an array of numbers, not {type(voltages).__name__}")
    values = numpy.asarray(voltages if hasattr(voltages, "__array__") or isinstance(voltages, Sequence)
                           else list(voltages))
    if values.ndim != 1:
        raise InvalidArgumentError(f"voltages: one number per measurement (a 1-D array), not shape {values.shape}")
    if values.dtype.kind == "O":  # Python objects (None, Decimal...): each checked
        values = numpy.array([_real(v, f"voltages[{i}]", unknown=False) for i, v in enumerate(values)],
                             dtype=numpy.float64)
    elif values.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"voltages: numbers expected, not {values.dtype}")
    out = numpy.array(values, dtype=numpy.float64, order="C", copy=True)
    bad = ~numpy.isfinite(out)
    if bad.any():
        row = int(numpy.argmax(bad))
        raise InvalidValueError(f"voltages[{row}] must be finite, not {out[row]}")
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False, repr=False, init=False)
class Electrocardiogram:
    """An electrocardiogram's own fields (``HKElectrocardiogram``, rule
    41): the algorithm's ``classification``, the ``symptoms_status``, the
    ``average_heart_rate`` in beats per minute and the
    ``sampling_frequency`` in Hz (None where absent; a recording with
    voltages has a frequency), and its ``voltages`` in microvolts, the
    k-th measured k / ``sampling_frequency`` seconds after the sample's
    start (``times``). ``lead`` is Apple Watch's one.

    ``voltages`` is a read-only contiguous float64 NumPy array (NumPy is
    needed for electrocardiograms); given a sequence or any NumPy array,
    the constructor copies it once, without a Python loop for numeric
    arrays. Two recordings are equal when every field and voltage is.

        ohk.Electrocardiogram(ohk.ECGClassification.SINUS_RHYTHM, sampling_frequency=512.0,
                              average_heart_rate=71, voltages=microvolts)
    """

    classification: int
    symptoms_status: int
    average_heart_rate: float | None
    sampling_frequency: float | None
    voltages: "np.ndarray"
    lead: int

    def __init__(self, classification: int = ECGClassification.NOT_SET,
                 symptoms_status: int = ECGSymptomsStatus.NOT_SET, average_heart_rate: float | None = None,
                 sampling_frequency: float | None = None, voltages: "np.ndarray | Iterable[float]" = (),
                 lead: int = ECGLead.APPLE_WATCH_SIMILAR_TO_LEAD_I) -> None:
        numpy = _numpy("an Electrocardiogram")
        _raw_type(classification, "classification", 2**31)
        _raw_type(symptoms_status, "symptoms_status", 2**31)
        _raw_type(lead, "lead", 2**31)
        _set(self, "classification", _known(ECGClassification, classification))
        _set(self, "symptoms_status", _known(ECGSymptomsStatus, symptoms_status))
        _set(self, "average_heart_rate", _scalar(average_heart_rate, "average_heart_rate"))
        _set(self, "sampling_frequency", _scalar(sampling_frequency, "sampling_frequency"))
        _set(self, "voltages", _voltage_array(numpy, voltages))
        _set(self, "lead", _known(ECGLead, lead))

    @classmethod
    def _adopt(cls, classification: int, symptoms_status: int, lead: int, average_heart_rate: float | None,
               sampling_frequency: float | None, voltages: Any) -> "Electrocardiogram":
        """One read from a batch: its array taken as it is (read-only)."""
        made = object.__new__(cls)
        for name, value in (("classification", _known(ECGClassification, classification)),
                            ("symptoms_status", _known(ECGSymptomsStatus, symptoms_status)),
                            ("lead", _known(ECGLead, lead)), ("average_heart_rate", average_heart_rate),
                            ("sampling_frequency", sampling_frequency), ("voltages", voltages)):
            _set(made, name, value)
        return made

    def __len__(self) -> int:
        """The number of voltages."""
        return len(self.voltages)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Electrocardiogram):
            return NotImplemented
        return ((self.classification, self.symptoms_status, self.lead, self.average_heart_rate,
                 self.sampling_frequency) == (other.classification, other.symptoms_status, other.lead,
                                              other.average_heart_rate, other.sampling_frequency)
                and self.voltages.shape == other.voltages.shape
                and bool((self.voltages == other.voltages).all()))

    __hash__ = None  # type: ignore[assignment]  # equal by its voltages, an array

    def __repr__(self) -> str:
        classification = getattr(self.classification, "name", self.classification)
        return (f"Electrocardiogram({classification}, {len(self)} voltages at {self.sampling_frequency} Hz, "
                f"average_heart_rate={self.average_heart_rate})")

    @property
    def duration(self) -> float:
        """Seconds the voltages span at the sampling frequency: their number
        over the frequency (0 without voltages or a positive frequency)."""
        frequency = self.sampling_frequency
        return len(self) / frequency if len(self) and frequency is not None and frequency > 0 else 0.0

    @property
    def times(self) -> "np.ndarray":
        """Each voltage's time in seconds since the sample's start, k /
        ``sampling_frequency`` (float64, one per voltage; NaN without a
        frequency, which only a recording that cannot be saved lacks)."""
        numpy = _numpy("Electrocardiogram.times")
        times: np.ndarray = numpy.arange(len(self), dtype=numpy.float64)
        times /= math.nan if self.sampling_frequency is None else self.sampling_frequency
        return times

    def to_pandas(self) -> Any:
        """The voltages as a pandas DataFrame indexed by
        ``time_since_start`` (seconds), one float ``voltage`` column in
        microvolts. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas: pip install 'openhealthkit[pandas]'") from None
        return pd.DataFrame({"voltage": self.voltages}, index=pd.Index(self.times, name="time_since_start"))


class ElectrocardiogramSample(_OwnFieldsSample):
    """An electrocardiogram read from a store (``HKElectrocardiogram``,
    rule 41): a sample whose ``electrocardiogram`` has its classification,
    heart rate, frequency and voltages, copied from the batch's contiguous
    array in one go. ``voltages``, ``times`` and ``to_pandas()`` are the
    recording's. ``value`` is its number of voltages."""

    __slots__ = ()
    _saved_by = "save_electrocardiogram"

    @property
    def electrocardiogram(self) -> Electrocardiogram:
        """The recording (needs NumPy: ImportError without it), its
        voltages a read-only view of the one copy taken from the batch."""
        record: _ECGRecord = self._fields()
        return record.electrocardiogram()

    @property
    def voltages(self) -> "np.ndarray":
        """The voltages in microvolts, a read-only float64 array."""
        return self.electrocardiogram.voltages

    @property
    def times(self) -> "np.ndarray":
        """Each voltage's time in seconds since the sample's start."""
        return self.electrocardiogram.times

    def to_pandas(self) -> Any:
        """The voltages as a DataFrame indexed by ``time_since_start``
        (seconds): see ``Electrocardiogram.to_pandas``."""
        return self.electrocardiogram.to_pandas()

    def _value_text(self) -> str:
        return f"{int(self._r[3])} voltages"


class _ECGRecord(NamedTuple):
    """An electrocardiogram as copied from a batch: its fields and its
    voltages' bytes (native float64), made an Electrocardiogram when asked
    for, so that a batch read without NumPy still reads."""

    classification: int
    symptoms_status: int
    lead: int
    average_heart_rate: float | None
    sampling_frequency: float | None
    raw: bytes

    def electrocardiogram(self) -> Electrocardiogram:
        numpy = _numpy("an Electrocardiogram")
        voltages = numpy.frombuffer(self.raw, dtype=numpy.float64)  # a view of the bytes: read-only, no copy
        return Electrocardiogram._adopt(self.classification, self.symptoms_status, self.lead,
                                        self.average_heart_rate, self.sampling_frequency, voltages)


def _electrocardiogram_from_c(e: n.ohk_electrocardiogram) -> _ECGRecord:
    count = e.voltage_count
    address = ctypes.cast(e.voltages, ctypes.c_void_p).value
    raw = ctypes.string_at(address, count * 8) if count and address else b""  # one copy of the whole array
    return _ECGRecord(e.classification, e.symptoms_status, e.lead, _absent(e.average_heart_rate),
                      _absent(e.sampling_frequency_hz), raw)


def electrocardiogram_to_c(ecg: Electrocardiogram, keep: list[Any]) -> n.ohk_electrocardiogram:
    """The C form of `ecg`, its voltages the array's own memory (kept in `keep`)."""
    c = n.ohk_electrocardiogram()
    c.classification, c.symptoms_status, c.lead = int(ecg.classification), int(ecg.symptoms_status), int(ecg.lead)
    c.average_heart_rate = _nan(ecg.average_heart_rate)
    c.sampling_frequency_hz = _nan(ecg.sampling_frequency)
    voltages = ecg.voltages
    if len(voltages):
        if not (voltages.dtype == "float64" and voltages.flags.c_contiguous):  # an Electrocardiogram's always are
            raise InvalidArgumentError("voltages must be a contiguous float64 array")
        keep.append(voltages)
        c.voltages = voltages.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    c.voltage_count = len(voltages)
    return c


# ---- clinical records (rule 42)

def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True, repr=False)
class ClinicalRecord:
    """A clinical record's own fields (``HKClinicalRecord``, rule 42): the
    ``display_name`` a person reads, and its FHIR resource
    (``HKFHIRResource``): ``resource_type`` ("Immunization",
    "Observation"...), the resource's ``identifier`` at its source, the
    ``fhir_version`` ("1.0.2" is DSTU2, "4.0.1" R4), the ``source_url``
    (None where unknown) and ``data``, the resource's JSON, kept byte for
    byte (a str is taken as UTF-8). ``json()`` parses it;
    ``from_resource`` makes a record of a resource given as a dict.

        ohk.ClinicalRecord("Influenza vaccine", "Immunization", "imm-1", "4.0.1", None,
                           b'{"resourceType": "Immunization", "id": "imm-1"}')
    """

    display_name: str
    resource_type: str
    identifier: str
    fhir_version: str
    source_url: str | None
    data: bytes

    def __post_init__(self) -> None:
        for name in ("display_name", "resource_type", "identifier", "fhir_version"):
            _text(getattr(self, name), name)
        if self.source_url is not None:
            _text(self.source_url, "source_url")
        data: Any = self.data
        if isinstance(data, str):
            _set(self, "data", data.encode("utf-8"))
        elif isinstance(data, (bytearray, memoryview)):
            _set(self, "data", bytes(data))
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

    def json(self) -> Any:
        """The resource's JSON parsed (a dict for every record a store
        accepts). ``json.JSONDecodeError`` (a ValueError) if it does not
        parse."""
        return json.loads(self.data)

    def __repr__(self) -> str:
        return (f"ClinicalRecord({self.display_name!r}, {self.resource_type}, identifier={self.identifier!r}, "
                f"fhir_version={self.fhir_version!r}, {len(self.data)} bytes of JSON)")


class ClinicalRecordSample(_OwnFieldsSample):
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
        return f"{record.display_name!r} ({record.resource_type})"


def _clinical_record_from_c(r: n.ohk_clinical_record) -> ClinicalRecord:
    length = r.data_length
    address = ctypes.cast(r.data, ctypes.c_void_p).value
    data = ctypes.string_at(address, length) if length and address else b""
    return ClinicalRecord(r.display_name.decode("utf-8"), r.resource_type.decode("utf-8"),
                          r.identifier.decode("utf-8"), r.fhir_version.decode("utf-8"),
                          None if r.source_url is None else r.source_url.decode("utf-8"), data)


def clinical_record_to_c(record: ClinicalRecord, keep: list[Any]) -> n.ohk_clinical_record:
    """The C form of `record`; its strings stay in `keep`. The JSON is
    passed in place (bytes are immutable), not copied."""
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


def sample_class(kind: SampleType) -> type[Sample] | None:
    """The class of a type's samples when it has its own fields, else None."""
    if kind.is_workout:
        return WorkoutSample
    if kind.is_route:
        return WorkoutRouteSample
    if kind.is_correlation:
        return CorrelationSample
    if kind.is_heartbeat_series:
        return HeartbeatSeriesSample
    if kind.is_audiogram:
        return AudiogramSample
    if kind.is_electrocardiogram:
        return ElectrocardiogramSample
    if kind.is_clinical_record:
        return ClinicalRecordSample
    return None


# ---- from a batch

def read_fields(handle: Any, index: int, kind: SampleType) -> (
        Workout | Route | Correlation | HeartbeatSeries | Audiogram | _ECGRecord | ClinicalRecord):
    """Sample `index` of the batch's own fields, copied out of the batch."""
    if kind.is_electrocardiogram:
        ecg = n.ohk_electrocardiogram()
        n.lib.ohk_batch_electrocardiogram(ecg, handle, index)
        return _electrocardiogram_from_c(ecg)
    if kind.is_clinical_record:
        record = n.ohk_clinical_record()
        n.lib.ohk_batch_clinical_record(record, handle, index)
        return _clinical_record_from_c(record)
    if kind.is_audiogram:
        points = ctypes.POINTER(n.ohk_audiogram_point)()
        ranges = ctypes.POINTER(n.ohk_audiogram_clamping)()
        point_count = ctypes.c_uint64()
        n.lib.ohk_batch_audiogram(points, point_count, handle, index)
        n.lib.ohk_batch_audiogram_clamping(ranges, point_count, handle, index)
        return _audiogram_from_c(points, ranges, point_count.value)
    if kind.is_heartbeat_series:
        beats = ctypes.POINTER(n.ohk_heartbeat)()
        beat_count = ctypes.c_uint64()
        n.lib.ohk_batch_heartbeats(beats, beat_count, handle, index)
        address = ctypes.cast(beats, ctypes.c_void_p).value
        size = beat_count.value * _BEAT_SIZE
        return HeartbeatSeries(ctypes.string_at(address, size) if size and address else b"")
    if kind.is_workout:
        workout = n.ohk_workout()
        n.lib.ohk_batch_workout(workout, handle, index)
        return _workout_from_c(workout)
    if kind.is_route:
        route = n.ohk_route()
        n.lib.ohk_batch_route(route, handle, index)
        count = route.location_count
        raw = ctypes.string_at(ctypes.cast(route.locations, ctypes.c_void_p).value or 0,
                               count * _LOCATION_SIZE) if count else b""
        return Route(make_uuid(bytes(route.workout)) if route.has_workout else None, raw)
    members = ctypes.c_char_p()
    count_out = ctypes.c_uint64()
    n.lib.ohk_batch_correlation(members, count_out, handle, index)
    address = ctypes.cast(members, ctypes.c_void_p).value
    raw = ctypes.string_at(address, 16 * count_out.value) if count_out.value and address else b""
    return Correlation(tuple(make_uuid(raw[i:i + 16]) for i in range(0, len(raw), 16)))


def _absent(value: float) -> float | None:
    return None if value != value else value


def _metadata_from_c(entries: Any, count: int) -> dict[str, Any]:
    return {entries[i].key.decode("utf-8"): python_value(entries[i].value) for i in range(count)}


def _statistics_from_c(entries: Any, count: int) -> tuple[WorkoutStatistics, ...]:
    return tuple(WorkoutStatistics(s.type.decode("utf-8"), utc_datetime(s.start), utc_datetime(s.end),
                                   _absent(s.sum), _absent(s.average), _absent(s.minimum), _absent(s.maximum))
                 for s in (entries[i] for i in range(count)))


def _workout_from_c(w: n.ohk_workout) -> Workout:
    events = [WorkoutEvent(e.type, utc_datetime(e.start), utc_datetime(e.end),
                           _metadata_from_c(e.metadata, e.metadata_count))
              for e in (w.events[i] for i in range(w.event_count))]
    activities = [WorkoutActivity(a.activity_type, utc_datetime(a.start), _maybe_date(a.end), _absent(a.duration),
                                  _metadata_from_c(a.metadata, a.metadata_count),
                                  _statistics_from_c(a.statistics, a.statistics_count), make_uuid(bytes(a.uuid)))
                  for a in (w.activities[i] for i in range(w.activity_count))]
    return Workout(w.activity_type, w.duration, _absent(w.total_energy_burned), _absent(w.total_distance),
                   _absent(w.total_swimming_stroke_count), _absent(w.total_flights_climbed), events, activities,
                   _statistics_from_c(w.statistics, w.statistics_count))


def _maybe_date(seconds: float) -> datetime | None:
    return None if seconds != seconds else utc_datetime(seconds)


# ---- to the C library (arrays kept alive in `keep` until the call returns)

def _metadata_to_c(metadata: Mapping[str, Any], arena: ValueArena, keep: list[Any], what: str) -> tuple[Any, int]:
    if not metadata:
        return None, 0
    entries = (n.ohk_metadata_entry * len(metadata))()
    for slot, (key, value) in zip(entries, metadata.items()):
        slot.key = arena.text(key, f"{what} metadata key")
        arena.fill(slot.value, value, f"{what} metadata {key!r}")
    keep.append(entries)
    return entries, len(metadata)


def _nan(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _statistics_to_c(all_statistics: Sequence[WorkoutStatistics], arena: ValueArena,
                     keep: list[Any]) -> tuple[Any, int]:
    if not all_statistics:
        return None, 0
    out = (n.ohk_workout_statistics * len(all_statistics))()
    for slot, s in zip(out, all_statistics):
        slot.type = arena.text(s.quantity_type, "statistics quantity_type")
        slot.start, slot.end = unix_time(s.start_date, "start_date"), unix_time(s.end_date, "end_date")
        slot.sum, slot.average = _nan(s.sum), _nan(s.average)
        slot.minimum, slot.maximum = _nan(s.minimum), _nan(s.maximum)
    keep.append(out)
    return out, len(all_statistics)


def workout_to_c(workout: Workout, keep: list[Any]) -> n.ohk_workout:
    """The C form of `workout`; its arrays and strings stay in `keep`."""
    arena = ValueArena()
    keep.append(arena)
    c = n.ohk_workout()
    c.activity_type, c.duration = int(workout.activity_type), float(workout.duration)
    c.total_energy_burned = _nan(workout.total_energy_burned)
    c.total_distance = _nan(workout.total_distance)
    c.total_swimming_stroke_count = _nan(workout.total_swimming_stroke_count)
    c.total_flights_climbed = _nan(workout.total_flights_climbed)
    if workout.events:
        events = (n.ohk_workout_event * len(workout.events))()
        for index, (slot, e) in enumerate(zip(events, workout.events)):
            slot.type = int(e.type)
            slot.start, slot.end = unix_time(e.start_date, "start_date"), unix_time(e.end_date, "end_date")
            slot.metadata, slot.metadata_count = _metadata_to_c(e.metadata, arena, keep, f"events[{index}]")
        keep.append(events)
        c.events, c.event_count = events, len(workout.events)
    if workout.activities:
        activities = (n.ohk_workout_activity * len(workout.activities))()
        for index, (slot, a) in enumerate(zip(activities, workout.activities)):
            ctypes.memmove(slot.uuid, a.uuid.bytes, 16)
            slot.activity_type = int(a.activity_type)
            slot.start = unix_time(a.start_date, "start_date")
            slot.end = math.nan if a.end_date is None else unix_time(a.end_date, "end_date")
            slot.duration = _nan(a.duration)
            slot.metadata, slot.metadata_count = _metadata_to_c(a.metadata, arena, keep, f"activities[{index}]")
            slot.statistics, slot.statistics_count = _statistics_to_c(a.statistics, arena, keep)
        keep.append(activities)
        c.activities, c.activity_count = activities, len(workout.activities)
    c.statistics, c.statistics_count = _statistics_to_c(workout.statistics, arena, keep)
    return c


# ---- locations given to a save: rows, columns or a Route, packed as ohk_location records

#: What ``HealthStore.save_route`` takes as locations: a ``Route``,
#: ``LocationColumns``, a NumPy structured array or a pandas DataFrame with
#: named fields, a 2-D NumPy array of Unix seconds, latitude, longitude...
#: (``Location``'s order), a mapping of field names to columns, or a sequence of rows
#: (``Location``s, tuples in ``Location``'s order, mappings, or objects with
#: ``timestamp``, ``latitude`` and ``longitude`` attributes).
LocationsLike = Union[Route, "LocationColumns", Mapping[str, Any], Iterable[Any]]


def pack_locations(locations: Any) -> bytes:
    """`locations` as packed ohk_location records, checked: a timestamp,
    latitude and longitude that are finite numbers; other fields None or
    NaN (unknown) or finite."""
    if isinstance(locations, Route):
        return locations.raw
    columns = _columns_of(locations)
    if columns is not None:
        return _pack_columns(columns)
    if isinstance(locations, (str, bytes)) or not isinstance(locations, Iterable):
        raise ArgumentTypeError(f"locations must be rows, columns or a Route, not {type(locations).__name__}")
    return _pack_rows(locations)


def _columns_of(locations: Any) -> dict[str, Any] | None:
    """Columns by field name when `locations` is columnar, else None."""
    from .columns import LocationColumns
    if isinstance(locations, LocationColumns):
        return {name: getattr(locations, name) for name in _FIELDS}
    if isinstance(locations, Mapping):
        columns = dict(locations)
    elif getattr(getattr(locations, "dtype", None), "names", None):  # a NumPy structured array
        columns = {name: locations[name] for name in locations.dtype.names}
    elif hasattr(locations, "columns") and hasattr(locations, "index") and not isinstance(locations, Sequence):
        columns = {name: locations[name] for name in locations.columns}  # a pandas DataFrame
        index = locations.index
        if "timestamp" not in columns and getattr(index, "name", None) == "timestamp":
            columns["timestamp"] = index  # to_pandas()'s frame
    elif getattr(locations, "ndim", None) == 2 and hasattr(locations, "shape"):  # a 2-D array: columns in order
        width = locations.shape[1]
        if not _REQUIRED <= width <= len(_FIELDS):
            raise InvalidArgumentError(f"locations: {width} columns; a location is ({', '.join(_FIELDS)}), "
                                       "the first three required")
        columns = {name: locations[:, k] for k, name in enumerate(_FIELDS[:width])}
    else:
        return None
    unknown = [str(name) for name in columns if name not in _FIELDS]
    if unknown:
        raise InvalidArgumentError(f"locations: unknown field {', '.join(unknown)} (fields: {', '.join(_FIELDS)})")
    missing = [name for name in _FIELDS[:_REQUIRED] if name not in columns]
    if missing:
        raise InvalidArgumentError(f"locations need {', '.join(missing)}")
    return columns


def _pack_columns(columns: dict[str, Any]) -> bytes:
    try:
        import numpy as np
    except ImportError:  # columns of Python sequences: read as rows
        names = list(columns)
        lengths = {len(columns[name]) for name in names}
        if len(lengths) > 1:
            raise InvalidArgumentError("locations: the columns differ in length")
        return _pack_rows(dict(zip(names, values)) for values in zip(*(columns[name] for name in names)))
    timestamps = _seconds_column(np, columns["timestamp"])
    count = len(timestamps)
    out = np.empty((count, len(_FIELDS)), dtype="<f8")
    out[:, 0] = timestamps
    for k, name in enumerate(_FIELDS[1:], 1):
        column = columns.get(name)
        if column is None:
            out[:, k] = math.nan
            continue
        try:
            values = np.asarray(column, dtype=np.float64)  # None reads as NaN: unknown
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"locations {name}: numbers expected") from None
        if values.shape != (count,):
            raise InvalidArgumentError(f"locations {name}: {values.shape[0] if values.ndim else 1} values "
                                       f"for {count} timestamps")
        out[:, k] = values
    required = ~np.isfinite(out[:, :_REQUIRED])
    if required.any():
        row, column_index = (int(i) for i in np.argwhere(required)[0])
        raise InvalidValueError(f"locations[{row}].{_FIELDS[column_index]} must be finite, "
                                f"not {out[row, column_index]}")
    if np.isinf(out[:, _REQUIRED:]).any():
        row, column_index = (int(i) for i in np.argwhere(np.isinf(out[:, _REQUIRED:]))[0])
        raise InvalidValueError(f"locations[{row}].{_FIELDS[_REQUIRED + column_index]} must be finite or "
                                f"unknown (NaN or None), not {out[row, _REQUIRED + column_index]}")
    return bytes(out.tobytes())


def _seconds_column(np: Any, column: Any) -> Any:
    """A timestamp column as float64 Unix seconds (NaN where missing):
    datetime64 (UTC), numbers (Unix seconds), aware datetimes, or a pandas
    column or index in any time zone."""
    accessor = getattr(column, "dt", column)
    if getattr(accessor, "tz", None) is not None:
        column = accessor.tz_convert("UTC").tz_localize(None)
    values = np.asarray(column)
    if values.ndim != 1:
        raise InvalidArgumentError("locations timestamp: one value per location")
    if values.dtype.kind == "M":
        micros = values.astype("datetime64[us]")
        return np.where(np.isnat(micros), math.nan, micros.astype(np.int64) / 1e6)
    if values.dtype.kind in "iuf":
        return values.astype(np.float64)
    if values.dtype.kind == "O":
        return np.array([_seconds(value, f"locations[{i}].timestamp") for i, value in enumerate(values)],
                        dtype=np.float64)
    raise ArgumentTypeError(f"locations timestamp: datetimes or Unix seconds expected, not {values.dtype}")


def _seconds(value: Any, what: str) -> float:
    """A timestamp as Unix seconds: an aware datetime, a number, a NumPy datetime64 (UTC)."""
    if isinstance(value, datetime):
        return unix_time(value, what)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if type(value).__name__ == "datetime64":
        return float(value.astype("datetime64[us]").astype("int64")) / 1e6
    raise ArgumentTypeError(f"{what} must be an aware datetime or Unix seconds, not {type(value).__name__}")


def _pack_rows(rows: Iterable[Any]) -> bytes:
    out = array.array("d")
    for index, row in enumerate(rows):
        if isinstance(row, Mapping):
            unknown = [str(key) for key in row if key not in _FIELDS]
            if unknown:
                raise InvalidArgumentError(f"locations[{index}]: unknown field {', '.join(unknown)}")
            values = [row.get(name) for name in _FIELDS]
        elif isinstance(row, (tuple, list)):
            if not _REQUIRED <= len(row) <= len(_FIELDS):
                raise InvalidArgumentError(f"locations[{index}] has {len(row)} values: a location is "
                                           f"({', '.join(_FIELDS)}), the first three required")
            values = [*row, *([None] * (len(_FIELDS) - len(row)))]
        else:
            values = [getattr(row, name, None) for name in _FIELDS]
        if any(value is None for value in values[:_REQUIRED]):
            raise InvalidArgumentError(f"locations[{index}] lacks a timestamp, latitude or longitude")
        out.append(_seconds(values[0], f"locations[{index}].timestamp"))
        if not math.isfinite(out[-1]):
            raise InvalidValueError(f"locations[{index}].timestamp must be finite, not {out[-1]}")
        for name, value in zip(_FIELDS[1:_REQUIRED], values[1:_REQUIRED]):
            out.append(_real(value, f"locations[{index}].{name}", unknown=False))
        for name, value in zip(_FIELDS[_REQUIRED:], values[_REQUIRED:]):
            out.append(math.nan if value is None else _real(value, f"locations[{index}].{name}", unknown=True))
    return out.tobytes()


def _real(value: Any, what: str, unknown: bool) -> float:
    """A location's number (NumPy's too): finite, or NaN when `unknown` may be."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be a number, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) and not (unknown and math.isnan(number)):
        raise InvalidValueError(f"{what} must be finite{' or unknown (None or NaN)' if unknown else ''}, not {number}")
    return number


# ---- beats given to a save: rows, columns or a HeartbeatSeries, packed as ohk_heartbeat records

#: What ``HealthStore.save_heartbeat_series`` takes as beats: a
#: ``HeartbeatSeries`` or ``HeartbeatColumns`` read back, a 1-D NumPy array
#: of times (no gap), a NumPy structured array, a pandas DataFrame or a
#: mapping with ``time_since_start`` (and ``preceded_by_gap``) columns, a 2-D
#: array of (time, gap) rows, or a sequence of ``Heartbeat``s,
#: ``(time, gap)`` tuples or plain numbers (no gap). Times are seconds since
#: the series' start.
HeartbeatsLike = Union[HeartbeatSeries, "HeartbeatColumns", Mapping[str, Any], Iterable[Any]]

_BEAT_FIELDS = Heartbeat._fields


def pack_heartbeats(beats: Any) -> bytes:
    """`beats` as packed ohk_heartbeat records, checked here: each time a
    finite number (NaN never reaches the library), each gap a bool. The
    library refuses the rest (no beat, a negative time, a beat after the
    end)."""
    if isinstance(beats, HeartbeatSeries):
        return beats.raw
    columns = _beat_columns_of(beats)
    if columns is not None:
        return _pack_beat_columns(*columns)
    if isinstance(beats, (str, bytes, bytearray)) or not isinstance(beats, Iterable):
        raise ArgumentTypeError(f"beats must be times, rows or columns of beats, not {type(beats).__name__}")
    return _pack_beat_rows(beats)


def _beat_columns_of(beats: Any) -> tuple[Any, Any] | None:
    """(times, gaps or None) when `beats` is columnar, else None."""
    from .columns import HeartbeatColumns
    if isinstance(beats, HeartbeatColumns):
        return beats.time_since_start, beats.preceded_by_gap
    if isinstance(beats, Mapping):
        columns = dict(beats)
    elif getattr(getattr(beats, "dtype", None), "names", None):  # a NumPy structured array
        columns = {name: beats[name] for name in beats.dtype.names}
    elif hasattr(beats, "columns") and hasattr(beats, "index") and not isinstance(beats, Sequence):
        columns = {name: beats[name] for name in beats.columns}  # a pandas DataFrame
        if "time_since_start" not in columns and getattr(beats.index, "name", None) == "time_since_start":
            columns["time_since_start"] = beats.index  # to_pandas()'s frame
    elif getattr(beats, "ndim", None) == 1 and hasattr(beats, "dtype"):
        return beats, None  # a NumPy array (or a pandas Series) of times
    elif getattr(beats, "ndim", None) == 2 and hasattr(beats, "shape"):  # (time, gap) rows
        if beats.shape[1] not in (1, 2):
            raise InvalidArgumentError(f"beats: {beats.shape[1]} columns; a beat is (time_since_start, "
                                       "preceded_by_gap), the gap optional")
        return beats[:, 0], beats[:, 1] if beats.shape[1] == 2 else None
    else:
        return None
    unknown = [str(name) for name in columns if name not in _BEAT_FIELDS]
    if unknown:
        raise InvalidArgumentError(f"beats: unknown field {', '.join(unknown)} (fields: {', '.join(_BEAT_FIELDS)})")
    if "time_since_start" not in columns:
        raise InvalidArgumentError("beats need time_since_start")
    return columns["time_since_start"], columns.get("preceded_by_gap")


def _pack_beat_columns(times: Any, gaps: Any) -> bytes:
    try:
        import numpy as np
    except ImportError:  # columns of Python sequences: read as rows
        if gaps is None:
            return _pack_beat_rows(times)
        if len(times) != len(gaps):
            raise InvalidArgumentError("beats: the columns differ in length") from None
        return _pack_beat_rows(zip(times, gaps))
    from .columns import heartbeat_dtype
    values = np.asarray(times)
    if values.ndim != 1:
        raise InvalidArgumentError("beats time_since_start: one value per beat")
    if values.dtype.kind == "O":  # Python objects: each checked
        values = np.array([_real(v, f"beats[{i}].time_since_start", unknown=False) for i, v in enumerate(values)],
                          dtype=np.float64)
    elif values.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"beats time_since_start: numbers expected, not {values.dtype}")
    count = len(values)
    out = np.zeros(count, dtype=heartbeat_dtype(np))  # the padding zeroed
    out["time_since_start"] = values
    bad = ~np.isfinite(out["time_since_start"])
    if bad.any():
        row = int(np.argmax(bad))
        raise InvalidValueError(f"beats[{row}].time_since_start must be finite, not {out['time_since_start'][row]}")
    if gaps is not None:
        flags = np.asarray(gaps)
        if flags.shape != (count,):
            raise InvalidArgumentError(f"beats preceded_by_gap: {flags.shape[0] if flags.ndim else 1} values "
                                       f"for {count} times")
        if flags.dtype.kind == "O":
            flags = np.array([_gap(g, f"beats[{i}].preceded_by_gap") for i, g in enumerate(flags)], dtype=bool)
        elif flags.dtype.kind in "iuf":
            if not np.isin(flags, (0, 1)).all():
                raise InvalidValueError("beats preceded_by_gap: booleans (or 0 and 1) expected")
        elif flags.dtype.kind != "b":
            raise ArgumentTypeError(f"beats preceded_by_gap: booleans expected, not {flags.dtype}")
        out["preceded_by_gap"] = flags.astype(bool)
    return bytes(out.tobytes())


def _pack_beat_rows(rows: Iterable[Any]) -> bytes:
    out = bytearray()
    for index, row in enumerate(rows):
        if isinstance(row, (tuple, list)):  # a Heartbeat, or (time, gap)
            if not 1 <= len(row) <= 2:
                raise InvalidArgumentError(f"beats[{index}] has {len(row)} values: a beat is "
                                           "(time_since_start, preceded_by_gap), the gap optional")
            time, gap = row[0], (row[1] if len(row) == 2 else False)
        elif isinstance(row, Mapping):
            unknown = [str(key) for key in row if key not in _BEAT_FIELDS]
            if unknown or "time_since_start" not in row:
                raise InvalidArgumentError(f"beats[{index}]: a beat has time_since_start and, optionally, "
                                           "preceded_by_gap")
            time, gap = row["time_since_start"], row.get("preceded_by_gap", False)
        else:
            time, gap = row, False
        out += _BEAT.pack(_real(time, f"beats[{index}].time_since_start", unknown=False),
                          _gap(gap, f"beats[{index}].preceded_by_gap"))
    return bytes(out)


def _gap(value: Any, what: str) -> bool:
    """A gap flag: a bool (NumPy's too), or 0 or 1."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ArgumentTypeError(f"{what} must be a bool, not {value!r}")


#: Date's reference date (2001-01-01) in Unix seconds: the library works in
#: seconds since it, so an end is checked as (end - R) - (start - R).
_REFERENCE_DATE = 978307200.0


def heartbeat_series_end(start: float, raw: bytes) -> float:
    """The default end of a series starting at `start` (Unix seconds):
    its start plus its last beat's time, nudged up by the last bits that
    floating point rounding takes, so the library's check (no beat after
    the end) holds for the beat that set it."""
    times = array.array("d")
    times.frombytes(raw)
    # Not below 0: for a negative time the library names the beat, not an end before the start.
    last = max(times[::_BEAT_SIZE // 8], default=0.0)
    last = max(last, 0.0)
    end = start + last
    while (end - _REFERENCE_DATE) - (start - _REFERENCE_DATE) < last:
        end = math.nextafter(end, math.inf)
    return end


def correlation_member_types(kind: SampleType) -> list[str]:
    """The member types a correlation type holds (rule 33): blood pressure,
    a systolic and a diastolic sample; food, dietary samples."""
    if kind.identifier == BLOOD_PRESSURE:
        return [_SYSTOLIC, _DIASTOLIC]
    return [t.identifier for t in sample_types()
            if t.canonical_unit is not None and t.identifier.startswith("HKQuantityTypeIdentifierDietary")]


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

__all__ = [
    "Audiogram", "AudiogramSample", "ClinicalRecord", "ClinicalRecordSample", "ECGClassification", "ECGLead",
    "ECGSymptomsStatus", "Electrocardiogram", "ElectrocardiogramSample", "SensitivityPoint", "ClampingRange",
    "Correlation", "CorrelationSample", "Heartbeat", "HeartbeatSeries", "HeartbeatSeriesSample", "HeartbeatsLike",
    "Location", "LocationsLike", "Route", "Workout", "WorkoutActivity", "WorkoutActivityType", "WorkoutEvent",
    "WorkoutEventType", "WorkoutRouteSample", "WorkoutSample", "WorkoutStatistics",
]
