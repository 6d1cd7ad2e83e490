"""Workouts for analysis: each counted once, and as a frame.

Apps sometimes write a workout again (Garmin Connect does): the copies
share the activity, start, end, duration and totals and differ only in
their creation date. HealthKit keeps them, and so does the store; totals
count each once (rule 57 of docs/semantics.md, the rule ``ohk stats
Workout`` and the import report use too).
"""

from __future__ import annotations

import math
from typing import Any

from ._checks import pandas_module
from .workout import WorkoutSample


def _nearest(x: float) -> int:
    """Halves up, as the library's copy of the rule rounds."""
    return math.floor(x + 0.5)


def _key(sample: WorkoutSample) -> tuple[Any, ...]:
    w = sample.workout
    return (int(w.activity_type), _nearest(sample.start_timestamp), _nearest(sample.end_timestamp),
            _nearest(w.duration * 1e3),
            None if w.total_energy_burned is None else _nearest(w.total_energy_burned * 1e6),
            None if w.total_distance is None else _nearest(w.total_distance * 1e6))


def likely_copies(samples: list[WorkoutSample]) -> list[int | None]:
    """For each workout, the index of the one it likely copies, None for
    one that counts: of each group sharing an activity, start and end (to
    the second), duration and totals, the one created first counts, then
    the first given; one without a creation date counts as created last."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, sample in enumerate(samples):
        groups.setdefault(_key(sample), []).append(i)
    out: list[int | None] = [None] * len(samples)
    for members in groups.values():
        if len(members) < 2:
            continue

        def created(i: int) -> tuple[float, int]:
            date = samples[i].creation_date
            return (math.inf if date is None else date.timestamp(), i)
        first = min(members, key=created)
        for i in members:
            if i != first:
                out[i] = first
    return out


class WorkoutList(list[WorkoutSample]):
    """Workouts by start (``HealthStore.workouts``): each counted once
    unless asked otherwise; ``copies`` are the likely duplicates left out
    (or, with ``include_duplicates=True``, marked in ``duplicate_of``)."""

    copies: list[WorkoutSample]
    duplicate_of: dict[int, WorkoutSample]

    def __init__(self, samples: list[WorkoutSample], include_duplicates: bool) -> None:
        ordered = sorted(samples, key=lambda s: (s.start_timestamp, s.end_timestamp))
        originals = likely_copies(ordered)
        kept = ordered if include_duplicates else [s for s, o in zip(ordered, originals) if o is None]
        super().__init__(kept)
        self.copies = [s for s, o in zip(ordered, originals) if o is not None]
        self.duplicate_of = {id(s): ordered[o] for s, o in zip(ordered, originals) if o is not None}

    def to_pandas(self) -> Any:
        """A DataFrame indexed by ``start`` (UTC, sorted), one row per
        workout: ``end``, ``activity`` (HealthKit's name: ``Running``),
        ``duration`` (a timedelta: time active), ``distance_km``,
        ``energy_kcal`` (NaN when the workout has no total), ``source``
        (its name), ``utc_offset`` (its own, NaT without), ``uuid``, and
        ``duplicate_of`` (the UUID of the workout a likely copy repeats;
        None for one that counts). Needs pandas."""
        pd = pandas_module()

        def total(value: float | None, scale: float) -> float:
            return math.nan if value is None else value * scale

        rows = []
        for s in self:
            w = s.workout
            source = s.source
            original = self.duplicate_of.get(id(s))
            rows.append({
                "start": s.start_date, "end": s.end_date,
                "activity": w.activity_type_name or str(int(w.activity_type)),
                "duration": pd.Timedelta(seconds=w.duration),
                "distance_km": total(w.total_distance, 1e-3), "energy_kcal": total(w.total_energy_burned, 1.0),
                "source": None if source is None else source.name,
                "utc_offset": pd.NaT if s.utc_offset is None else pd.Timedelta(s.utc_offset),
                "uuid": str(s.uuid), "duplicate_of": None if original is None else str(original.uuid),
            })
        columns = ["start", "end", "activity", "duration", "distance_km", "energy_kcal", "source", "utc_offset",
                   "uuid", "duplicate_of"]
        frame = pd.DataFrame(rows, columns=columns)
        frame["start"] = pd.to_datetime(frame["start"], utc=True)
        frame["end"] = pd.to_datetime(frame["end"], utc=True)
        frame["activity"] = frame["activity"].astype("category")
        frame["duration"] = pd.to_timedelta(frame["duration"])
        frame["utc_offset"] = pd.to_timedelta(frame["utc_offset"])
        return frame.set_index("start").sort_index()
