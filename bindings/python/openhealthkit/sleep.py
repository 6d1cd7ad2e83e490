"""Sleep per night: what sleep apps compute from SleepAnalysis (rule 59 of
docs/semantics.md).

The library merges sources by priority before it tells values apart, in
two layers as the Health app shows them (time in bed; the stages), so a
night two sources logged counts once. A night is the day it ends on: the
night of 2 November runs from noon on the 1st to noon on the 2nd, in the
query's zone (or in each sample's own offset with ``local_time=True``).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from . import _native as n
from ._checks import pandas_module
from ._convert import display_zone
from .errors import ArgumentTypeError, InvalidArgumentError
from .predicate import Predicate
from .statistics import StatisticsOptions, statistics_options

SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
#: HKCategoryValueSleepAnalysis.
IN_BED, ASLEEP_UNSPECIFIED, AWAKE, ASLEEP_CORE, ASLEEP_DEEP, ASLEEP_REM = 0, 1, 2, 3, 4, 5


@dataclass(frozen=True, slots=True)
class SleepNight:
    """One night's sleep, sources merged: ``in_bed`` (InBed records),
    ``asleep`` (the time the stages cover, less the time awake),
    ``awake``, and each stage (``unspecified`` is ``AsleepUnspecified``,
    what sources without stages write)."""

    night: date
    in_bed: timedelta
    asleep: timedelta
    awake: timedelta
    core: timedelta
    deep: timedelta
    rem: timedelta
    unspecified: timedelta


class SleepNights(list[SleepNight]):
    """Nights in order (``HealthStore.sleep_nights``)."""

    def to_pandas(self) -> Any:
        """A DataFrame indexed by ``night`` (a date), one timedelta column
        per figure, and ``hours_asleep`` and ``hours_in_bed`` as floats
        for plotting. Needs pandas."""
        pd = pandas_module()
        names = ["in_bed", "asleep", "awake", "core", "deep", "rem", "unspecified"]
        frame = pd.DataFrame({name: [getattr(s, name) for s in self] for name in names},
                             index=pd.Index([s.night for s in self], name="night"))
        frame["hours_asleep"] = frame["asleep"].dt.total_seconds() / 3600
        frame["hours_in_bed"] = frame["in_bed"].dt.total_seconds() / 3600
        return frame


def durations(handle: Any, kind_identifier: str, *, start: float, end: float, anchor: float,
              interval: tuple[int, int], utc_offset: int, time_zone: str | None, local_time: bool,
              predicate: Predicate | None) -> list[tuple[float, float, float, dict[int, float]]]:
    """(start, end, total seconds, {value: seconds}) per interval, from
    ohk_store_category_durations."""
    result = ctypes.POINTER(n.ohk_category_durations_result)()
    flags = int(StatisticsOptions.SAMPLE_LOCAL_TIME) if local_time else 0
    options = statistics_options(kind_identifier, predicate, flags, anchor, interval[0], interval[1], start, end,
                                 utc_offset, time_zone)
    n.lib.ohk_store_category_durations(ctypes.byref(result), handle, options)
    try:
        r = result.contents
        out = []
        for i in r.intervals[:r.interval_count]:
            values = {int(v.value): float(v.seconds) for v in r.values[i.first_value:i.first_value + i.value_count]}
            out.append((i.start, i.end, i.total, values))
        return out
    finally:
        n.lib.ohk_category_durations_free(result)


def sleep_nights(handle: Any, first: date, last: date, *, utc_offset: timedelta, time_zone: str | None,
                 local_time: bool, predicate: Predicate | None) -> SleepNights:
    for value, what in ((first, "first"), (last, "last")):
        if not isinstance(value, date) or isinstance(value, datetime):
            raise ArgumentTypeError(f"{what} must be a datetime.date (the night's last day), not {type(value).__name__}")
    if last < first:
        raise InvalidArgumentError(f"last ({last}) is before first ({first})")
    if not isinstance(utc_offset, timedelta):
        raise ArgumentTypeError(f"utc_offset must be a timedelta, not {type(utc_offset).__name__}")
    if local_time and time_zone is not None:
        raise InvalidArgumentError("local_time counts each sample in its own offset; it takes no time zone")
    offset = int(utc_offset.total_seconds())

    def noon(day: date) -> float:
        """Unix seconds of noon on `day` in the query's time."""
        wall = datetime.combine(day, time(12))
        if local_time:  # the library reads it in utc_offset, as a wall clock
            return wall.replace(tzinfo=timezone.utc).timestamp() - offset
        return wall.replace(tzinfo=display_zone(utc_offset, time_zone)).timestamp()

    begin, end = noon(first - timedelta(days=1)), noon(last)
    day = (1, 3)  # one OHK_INTERVAL_DAY
    everything = durations(handle, SLEEP, start=begin, end=end, anchor=begin, interval=day, utc_offset=offset,
                           time_zone=time_zone, local_time=local_time, predicate=predicate)
    stages_only = Predicate.category_value("!=", IN_BED)
    stages = durations(handle, SLEEP, start=begin, end=end, anchor=begin, interval=day, utc_offset=offset,
                       time_zone=time_zone, local_time=local_time,
                       predicate=stages_only if predicate is None else predicate & stages_only)
    nights = SleepNights()
    for k, ((_, _, _, values), (_, _, stage_total, _)) in enumerate(zip(everything, stages)):
        def of(value: int) -> timedelta:
            return timedelta(seconds=values.get(value, 0.0))
        nights.append(SleepNight(night=first + timedelta(days=k), in_bed=of(IN_BED),
                                 asleep=timedelta(seconds=stage_total) - of(AWAKE), awake=of(AWAKE),
                                 core=of(ASLEEP_CORE), deep=of(ASLEEP_DEEP), rem=of(ASLEEP_REM),
                                 unspecified=of(ASLEEP_UNSPECIFIED)))
    return nights
