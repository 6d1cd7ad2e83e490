"""Workouts (``HKWorkout``, rule 31 of docs/semantics.md): a workout's own
fields (``Workout``, with its ``WorkoutEvent``s, ``WorkoutActivity``s and
``WorkoutStatistics``), the activity and event types, and
``WorkoutSample``, a workout read from a store.

Numbers are in the canonical units of the C library: seconds, kcal,
metres, counts; a statistics' figures in its quantity type's canonical
unit. None is an absent number (NaN in C).
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from typing import Any

from ._checks import from_name, healthkit_name, known, metadata_arg, optional, raw_type, sequence, set_field
from ._convert import finite, make_uuid, unix_time, uuid_bytes
from ._marshal.workouts import read_workout, workout_to_c
from ._own_fields import OwnFieldsSample, SaveCall
from .catalogue import SampleType, sample_type
from .errors import ArgumentTypeError, InvalidArgumentError

WORKOUT = "HKWorkoutTypeIdentifier"


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
        return healthkit_name(self)

    @classmethod
    def from_name(cls, name: str) -> "WorkoutActivityType":
        """The type named ``Running``, ``HKWorkoutActivityTypeRunning``,
        ``running`` (Swift's case) or ``RUNNING`` (case and underscores do
        not matter); NotFoundError for another name."""
        return from_name(cls, name, "HKWorkoutActivityType")


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
        return healthkit_name(self)

    @classmethod
    def from_name(cls, name: str) -> "WorkoutEventType":
        """The type named ``Lap``, ``HKWorkoutEventTypeLap``, ``lap`` or
        ``LAP``; NotFoundError for another name."""
        return from_name(cls, name, "HKWorkoutEventType")


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
        set_field(self, "quantity_type", kind.identifier)
        unix_time(self.start_date, "statistics start_date")
        unix_time(self.end_date, "statistics end_date")
        for name in ("sum", "average", "minimum", "maximum"):
            optional(getattr(self, name), f"statistics {name}")

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
        raw_type(self.type, "event type", 2**31)
        set_field(self, "type", known(WorkoutEventType, self.type))
        unix_time(self.start_date, "event start_date")
        unix_time(self.end_date, "event end_date")
        set_field(self, "metadata", metadata_arg(self.metadata))

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
        raw_type(self.activity_type, "activity_type", 2**64)
        set_field(self, "activity_type", known(WorkoutActivityType, self.activity_type))
        unix_time(self.start_date, "activity start_date")
        if self.end_date is not None:
            unix_time(self.end_date, "activity end_date")
        optional(self.duration, "activity duration")
        set_field(self, "metadata", metadata_arg(self.metadata))
        set_field(self, "statistics", sequence(self.statistics, WorkoutStatistics, "activity statistics"))
        if not isinstance(self.uuid, uuid_module.UUID):
            set_field(self, "uuid", make_uuid(uuid_bytes(self.uuid, "activity uuid")))

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
        raw_type(self.activity_type, "activity_type", 2**64)
        set_field(self, "activity_type", known(WorkoutActivityType, self.activity_type))
        finite(self.duration, "duration")
        for name in ("total_energy_burned", "total_distance", "total_swimming_stroke_count",
                     "total_flights_climbed"):
            optional(getattr(self, name), name)
        events = sequence(self.events, WorkoutEvent, "events")
        # The store's order (rule 31): by start, then end, then type.
        set_field(self, "events", tuple(sorted(events, key=lambda e: (e.start_date.timestamp(),
                                                                      e.end_date.timestamp(), e.type))))
        set_field(self, "activities", sequence(self.activities, WorkoutActivity, "activities"))
        set_field(self, "statistics", sequence(self.statistics, WorkoutStatistics, "statistics"))

    @property
    def activity_type_name(self) -> str | None:
        """HealthKit's name of the activity type (``Running``); None for a
        number this package does not name."""
        return _activity_name(self.activity_type)


class WorkoutSample(OwnFieldsSample):
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

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> Workout:
        w = read_workout(handle, index)
        return Workout(w.activity_type, w.duration, w.total_energy_burned, w.total_distance,
                       w.total_swimming_stroke_count, w.total_flights_climbed,
                       [WorkoutEvent(*e) for e in w.events],
                       [WorkoutActivity(*a[:5], tuple(WorkoutStatistics(*s) for s in a.statistics), a.uuid)
                        for a in w.activities],
                       tuple(WorkoutStatistics(*s) for s in w.statistics))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        return SaveCall("ohk_store_save_workout", (workout_to_c(self.workout, keep),))


__all__ = ["Workout", "WorkoutActivity", "WorkoutActivityType", "WorkoutEvent", "WorkoutEventType", "WorkoutSample",
           "WorkoutStatistics"]
