"""Workouts to and from C (``ohk_workout`` with its events, activities and
statistics, rule 31)."""

from __future__ import annotations

import ctypes
import math
import uuid as uuid_module
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import _native as n
from .._convert import ValueArena, make_uuid, unix_time, utc_datetime
from .samples import absent, metadata_from_c, metadata_to_c, nan

if TYPE_CHECKING:
    from ..workout import Workout, WorkoutStatistics


class StatisticsParts(NamedTuple):
    """A WorkoutStatistics' fields as C holds them (None where absent)."""
    quantity_type: str
    start_date: datetime
    end_date: datetime
    sum: float | None
    average: float | None
    minimum: float | None
    maximum: float | None


class EventParts(NamedTuple):
    type: int
    start_date: datetime
    end_date: datetime
    metadata: dict[str, Any]


class ActivityParts(NamedTuple):
    activity_type: int
    start_date: datetime
    end_date: datetime | None
    duration: float | None
    metadata: dict[str, Any]
    statistics: tuple[StatisticsParts, ...]
    uuid: uuid_module.UUID


class WorkoutParts(NamedTuple):
    """A workout's fields as a batch holds them, in Workout's order."""
    activity_type: int
    duration: float
    total_energy_burned: float | None
    total_distance: float | None
    total_swimming_stroke_count: float | None
    total_flights_climbed: float | None
    events: list[EventParts]
    activities: list[ActivityParts]
    statistics: tuple[StatisticsParts, ...]


def read_workout(handle: Any, index: int) -> WorkoutParts:
    """Sample `index`'s workout fields, copied out of the batch."""
    w = n.ohk_workout()
    n.lib.ohk_batch_workout(w, handle, index)
    events = [EventParts(e.type, utc_datetime(e.start), utc_datetime(e.end), metadata_from_c(e.metadata, e.metadata_count))
              for e in (w.events[i] for i in range(w.event_count))]
    activities = [ActivityParts(a.activity_type, utc_datetime(a.start), _maybe_date(a.end), absent(a.duration),
                                metadata_from_c(a.metadata, a.metadata_count),
                                _statistics_from_c(a.statistics, a.statistics_count), make_uuid(bytes(a.uuid)))
                  for a in (w.activities[i] for i in range(w.activity_count))]
    return WorkoutParts(w.activity_type, w.duration, absent(w.total_energy_burned), absent(w.total_distance),
                        absent(w.total_swimming_stroke_count), absent(w.total_flights_climbed), events, activities,
                        _statistics_from_c(w.statistics, w.statistics_count))


def _statistics_from_c(entries: Any, count: int) -> tuple[StatisticsParts, ...]:
    return tuple(StatisticsParts(s.type.decode("utf-8"), utc_datetime(s.start), utc_datetime(s.end),
                                 absent(s.sum), absent(s.average), absent(s.minimum), absent(s.maximum))
                 for s in (entries[i] for i in range(count)))


def _maybe_date(seconds: float) -> datetime | None:
    return None if seconds != seconds else utc_datetime(seconds)


def _statistics_to_c(all_statistics: Sequence[WorkoutStatistics], arena: ValueArena,
                     keep: list[Any]) -> tuple[Any, int]:
    if not all_statistics:
        return None, 0
    out = (n.ohk_workout_statistics * len(all_statistics))()
    for slot, s in zip(out, all_statistics):
        slot.type = arena.text(s.quantity_type, "statistics quantity_type")
        slot.start, slot.end = unix_time(s.start_date, "start_date"), unix_time(s.end_date, "end_date")
        slot.sum, slot.average = nan(s.sum), nan(s.average)
        slot.minimum, slot.maximum = nan(s.minimum), nan(s.maximum)
    keep.append(out)
    return out, len(all_statistics)


def workout_to_c(workout: Workout, keep: list[Any]) -> n.ohk_workout:
    """The C form of `workout`; its arrays and strings stay in `keep`
    until the call returns."""
    arena = ValueArena()
    keep.append(arena)
    c = n.ohk_workout()
    c.activity_type, c.duration = int(workout.activity_type), float(workout.duration)
    c.total_energy_burned = nan(workout.total_energy_burned)
    c.total_distance = nan(workout.total_distance)
    c.total_swimming_stroke_count = nan(workout.total_swimming_stroke_count)
    c.total_flights_climbed = nan(workout.total_flights_climbed)
    if workout.events:
        events = (n.ohk_workout_event * len(workout.events))()
        for index, (slot, e) in enumerate(zip(events, workout.events)):
            slot.type = int(e.type)
            slot.start, slot.end = unix_time(e.start_date, "start_date"), unix_time(e.end_date, "end_date")
            slot.metadata, slot.metadata_count = metadata_to_c(e.metadata, arena, keep, f"events[{index}]")
        keep.append(events)
        c.events, c.event_count = events, len(workout.events)
    if workout.activities:
        activities = (n.ohk_workout_activity * len(workout.activities))()
        for index, (slot, a) in enumerate(zip(activities, workout.activities)):
            ctypes.memmove(slot.uuid, a.uuid.bytes, 16)
            slot.activity_type = int(a.activity_type)
            slot.start = unix_time(a.start_date, "start_date")
            slot.end = math.nan if a.end_date is None else unix_time(a.end_date, "end_date")
            slot.duration = nan(a.duration)
            slot.metadata, slot.metadata_count = metadata_to_c(a.metadata, arena, keep, f"activities[{index}]")
            slot.statistics, slot.statistics_count = _statistics_to_c(a.statistics, arena, keep)
        keep.append(activities)
        c.activities, c.activity_count = activities, len(workout.activities)
    c.statistics, c.statistics_count = _statistics_to_c(workout.statistics, arena, keep)
    return c
