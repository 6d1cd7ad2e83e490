"""Workouts for analysis (rule 57, issue 48 items 6 and 10): each counted
once, and a frame with activity, duration, distance, energy and source."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

import openhealthkit as ohk

CONNECT = ohk.Source("com.garmin.connect", "Connect")
T0 = datetime(2020, 11, 2, 6, tzinfo=timezone.utc)


def run(store, day, km, kcal, created_days, activity=ohk.WorkoutActivityType.RUNNING):
    start = T0 + timedelta(days=day)
    store.save_workout(ohk.Workout(activity, duration=1800, total_distance=km * 1000, total_energy_burned=kcal),
                       start, start + timedelta(minutes=30), source=CONNECT,
                       creation_date=start + timedelta(days=created_days), utc_offset=timedelta(hours=1))


def test_rule_57_likely_duplicate_workouts_count_once(store):
    run(store, 0, 5, 300, 30)   # written again 30 days later...
    run(store, 0, 5, 300, 0)    # ...than this one, which counts
    run(store, 0, 5, 300, 60)
    run(store, 7, 8, 450, 0)
    run(store, 7, 8, 450, 29)
    run(store, 0, 6, 300, 1)    # the same start, another distance: not a copy
    run(store, 18, 20, 500, 0, ohk.WorkoutActivityType.CYCLING)
    once = store.workouts()
    assert len(once) == 4 and len(once.copies) == 3
    frame = once.to_pandas()
    assert frame["distance_km"].sum() == pytest.approx(39) and frame["energy_kcal"].sum() == 1550
    assert frame["duplicate_of"].isna().all()
    # The copy created first is the one that counts.
    counted = [w for w in once if w.start_date == T0 and w.workout.total_distance == 5000]
    assert [w.creation_date for w in counted] == [T0]
    everything = store.workouts(include_duplicates=True).to_pandas()
    assert len(everything) == 7 and everything["duplicate_of"].notna().sum() == 3
    assert set(everything["duplicate_of"].dropna()) <= set(everything["uuid"])
    # A date range selects by start.
    assert len(store.workouts(start=T0 + timedelta(days=1), end=T0 + timedelta(days=8))) == 1
    with pytest.raises(ohk.ArgumentTypeError):
        store.workouts(include_duplicates="yes")


def test_workouts_frame_has_activity_duration_distance_energy_and_source(store):
    run(store, 3, 10, 600, 0)
    run(store, 1, 5, 300, 0)
    frame = store.workouts().to_pandas()
    assert list(frame.columns) == ["end", "activity", "duration", "distance_km", "energy_kcal", "source", "utc_offset",
                                   "uuid", "duplicate_of"]
    assert frame.index.is_monotonic_increasing and str(frame.index.tz) == "UTC"
    assert frame["activity"].tolist() == ["Running", "Running"]
    assert frame["duration"].tolist() == [pd.Timedelta(minutes=30)] * 2
    assert frame["distance_km"].tolist() == [5, 10] and frame["source"].tolist() == ["Connect", "Connect"]
    assert frame["utc_offset"].tolist() == [pd.Timedelta(hours=1)] * 2
    # Local days for a groupby: the index plus each workout's own offset.
    local = (frame.index.tz_localize(None) + frame["utc_offset"]).dt.normalize()
    assert local.tolist() == [pd.Timestamp("2020-11-03"), pd.Timestamp("2020-11-05")]
