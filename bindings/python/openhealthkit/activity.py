"""Activity summaries (rule 43 of docs/semantics.md): one day's activity
rings, HealthKit's ``HKActivitySummary``. Values of the store, one per
Gregorian day, not samples: saving a day's summary replaces it whole, and
saving one equal to the stored one changes nothing. Each save that
changes a summary takes the next number of the store's summary change
sequence, so a reader can ask for the ones changed since it last looked."""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ._enums import ActivityMoveMode as ActivityMoveMode  # defined once, in api/enums.toml
from . import _native as n
from ._checks import numpy_module, pandas_module
from .errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError


#: The eight values of a summary, in the C struct's order.
VALUE_FIELDS = ("active_energy_burned", "active_energy_burned_goal", "apple_move_time", "apple_move_time_goal",
                "apple_exercise_time", "exercise_time_goal", "apple_stand_hours", "stand_hours_goal")


@dataclass(frozen=True)
class ActivitySummary:
    """One day's activity rings (``HKActivitySummary``): what
    ``HealthStore.save_activity_summaries`` takes and ``activity_summaries``
    returns. ``day`` is a calendar date (no time, no zone: the user's own
    day). Energy is in kilocalories, move and exercise time in minutes,
    stand hours a count; each value None where the day has none, and
    never negative. ``move_mode`` says which of energy and move time
    fills the move ring; ``paused``, that the user paused their rings."""
    day: datetime.date
    active_energy_burned: float | None = None
    active_energy_burned_goal: float | None = None
    apple_move_time: float | None = None
    apple_move_time_goal: float | None = None
    apple_exercise_time: float | None = None
    exercise_time_goal: float | None = None
    apple_stand_hours: float | None = None
    stand_hours_goal: float | None = None
    move_mode: ActivityMoveMode = ActivityMoveMode.ACTIVE_ENERGY
    paused: bool = False

    @staticmethod
    def _from_struct(c: n.ohk_activity_summary) -> ActivitySummary:
        values: dict[str, float | None] = {}
        for name in VALUE_FIELDS:
            value: float = getattr(c, name)
            values[name] = None if math.isnan(value) else value
        return ActivitySummary(datetime.date(c.year, c.month, c.day), **values,
                               move_mode=ActivityMoveMode(c.move_mode), paused=bool(c.paused))

    def _fill(self, target: n.ohk_activity_summary, what: str) -> None:
        """Writes the summary into ``target``, refusing in Python what C
        would misread: NaN (C's "absent") and a move mode of 0 (C's
        default)."""
        day = self.day
        if not isinstance(day, datetime.date) or isinstance(day, datetime.datetime):
            raise ArgumentTypeError(f"{what}.day must be a datetime.date (a calendar day, not a datetime), "
                                    f"not {type(day).__name__}")
        target.year, target.month, target.day = day.year, day.month, day.day
        for name in VALUE_FIELDS:
            value = getattr(self, name)
            if value is None:
                setattr(target, name, math.nan)
                continue
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise ArgumentTypeError(f"{what}.{name} must be a number or None, not {type(value).__name__}")
            number = float(value)
            if not math.isfinite(number):
                raise InvalidValueError(f"{what}.{name} must be finite (None for no value), not {number}")
            setattr(target, name, number)  # a negative value: C refuses it, InvalidValueError
        try:
            mode = ActivityMoveMode(self.move_mode)
        except ValueError:
            raise InvalidValueError(f"{what}.move_mode {self.move_mode!r} is not an ActivityMoveMode") from None
        target.move_mode = int(mode)
        target.paused = bool(self.paused)


class ActivitySummaryList(list[ActivitySummary]):
    """Activity summaries in calendar order (a list of ``ActivitySummary``),
    with ``to_pandas()`` for analysis code."""

    def to_pandas(self) -> Any:
        """A DataFrame indexed by ``day`` (a DatetimeIndex of midnights, no
        zone), a float column per value (NaN where absent), ``move_mode``
        (a categorical of ``ActivityMoveMode`` names) and ``paused``
        (bool). Needs pandas."""
        pd = pandas_module()
        np = numpy_module("to_pandas()")
        # datetime64[s] (pandas 2 keeps it) reaches years 1-9999, which [ns] does not.
        days = np.array([s.day.isoformat() for s in self], dtype="datetime64[D]").astype("datetime64[s]")
        columns: dict[str, Any] = {
            name: np.array([math.nan if getattr(s, name) is None else getattr(s, name) for s in self],
                           dtype=np.float64)
            for name in VALUE_FIELDS
        }
        columns["move_mode"] = pd.Categorical([ActivityMoveMode(s.move_mode).name for s in self],
                                              categories=[m.name for m in ActivityMoveMode])
        columns["paused"] = np.array([bool(s.paused) for s in self], dtype=bool)
        return pd.DataFrame(columns, index=pd.DatetimeIndex(days, name="day"))


@dataclass(frozen=True)
class ActivitySummaryUpdate:
    """What ``watch_activity_summaries`` delivers: every summary of its
    days first (``initial``), then the days a commit saved or changed."""

    summaries: ActivitySummaryList
    initial: bool


def summaries_to_c(summaries: ActivitySummary | Iterable[ActivitySummary]) -> tuple[Any, int]:
    """The C array of ``summaries`` (at least one element, so never NULL)
    and how many it holds."""
    if isinstance(summaries, ActivitySummary):
        summaries = [summaries]
    elif isinstance(summaries, (str, bytes)) or not isinstance(summaries, Iterable):
        raise ArgumentTypeError("summaries must be ActivitySummary objects, not "
                                f"{type(summaries).__name__}")
    rows = list(summaries)
    array = (n.ohk_activity_summary * max(1, len(rows)))()
    for index, summary in enumerate(rows):
        if not isinstance(summary, ActivitySummary):
            raise ArgumentTypeError(f"summaries[{index}] must be an ActivitySummary, not {type(summary).__name__}")
        summary._fill(array[index], f"summaries[{index}]")
    return array, len(rows)


def day_number(day: datetime.date | None, what: str) -> int:
    """A day as C takes it: YYYYMMDD, 0 for None (unbounded)."""
    if day is None:
        return 0
    if not isinstance(day, datetime.date) or isinstance(day, datetime.datetime):
        raise ArgumentTypeError(f"{what} must be a datetime.date or None (a calendar day, not a datetime), "
                                f"not {type(day).__name__}")
    return day.year * 10_000 + day.month * 100 + day.day


def day_range(start: datetime.date | None, end: datetime.date | None) -> tuple[int, int]:
    """``start`` and ``end`` as C's YYYYMMDD; an end before the start is
    refused (the C call would answer nothing; HealthKit's query refuses)."""
    first, last = day_number(start, "start"), day_number(end, "end")
    if first and last and last < first:
        raise InvalidArgumentError(f"the day range ends ({end}) before it starts ({start})")
    return first, last


__all__ = ["ActivityMoveMode", "ActivitySummary", "ActivitySummaryList"]
