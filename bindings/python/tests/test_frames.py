"""Frames for analysis (issue 48 item 8): sorted, with optional times,
devices and metadata, start as a column, deleted objects, the latest N."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

import openhealthkit as ohk
from conftest import STEPS

T0 = datetime(2020, 11, 1, 23, 30, tzinfo=timezone.utc)
WATCH = ohk.Device(name="Watch")


def walk(minutes, value, offset_hours=None, **kwargs):
    start = T0 + timedelta(minutes=minutes)
    return ohk.QuantitySample(STEPS, start, start + timedelta(minutes=1), value,
                              utc_offset=None if offset_hours is None else timedelta(hours=offset_hours), **kwargs)


def saved_out_of_order(store):
    # Saved late first: change order is not time order.
    store.save([walk(60 * 24 * 31, 5, 1)])
    store.save([walk(10, 20, 1, device=WATCH, metadata={"HKWasUserEntered": True}),
                walk(0, 10, -5, creation_date=T0 + timedelta(days=1))])


def test_frames_are_sorted_by_start_so_that_dates_select(store):
    saved_out_of_order(store)
    for frame in (store.query(STEPS).samples.to_pandas(), store.query_columns(STEPS).samples.to_pandas()):
        assert frame.index.is_monotonic_increasing
        assert frame.loc["2020-11"]["value"].tolist() == [10, 20] and len(frame.loc["2020-12"]) == 1


def test_times_devices_and_metadata_are_optional_columns(store):
    saved_out_of_order(store)
    frame = store.query(STEPS).samples.to_pandas(times=True, devices=True, metadata=True)
    assert frame["utc_offset"].tolist() == [pd.Timedelta(hours=-5), pd.Timedelta(hours=1), pd.Timedelta(hours=1)]
    assert frame["creation_date"].isna().tolist() == [False, True, True]
    assert frame["creation_date"].iloc[0] == pd.Timestamp(T0 + timedelta(days=1))
    assert pd.isna(frame["device"].iloc[0])
    assert frame["device"].iloc[1] == "Watch" and frame["metadata"].iloc[1] == {"HKWasUserEntered": True}
    # Local days from columns: start + the sample's own offset.
    local = (frame.index.tz_localize(None) + frame["utc_offset"]).dt.normalize()
    assert local.tolist()[:2] == [pd.Timestamp("2020-11-01"), pd.Timestamp("2020-11-02")]
    columns = store.query_columns(STEPS, times=True).samples.to_pandas(times=True)
    pd.testing.assert_series_equal(columns["utc_offset"], frame["utc_offset"])
    with pytest.raises(ohk.InvalidArgumentError, match="times=True"):
        store.query_columns(STEPS).samples.to_pandas(times=True)


def test_start_can_be_a_column_for_sql_engines(store):
    saved_out_of_order(store)
    flat = store.query(STEPS).samples.to_pandas(index=False)
    assert list(flat.columns)[:3] == ["start", "end", "value"] and flat.index.tolist() == [0, 1, 2]
    assert flat["start"].is_monotonic_increasing


def test_deleted_objects_have_a_frame(store):
    saved_out_of_order(store)
    first, _, anchor = store.query(STEPS)
    store.delete([first[0]])
    _, deleted, _ = store.query(STEPS, anchor)
    frame = deleted.to_pandas()
    assert list(frame.columns) == ["uuid", "start", "end", "deletion_date", "type", "source"]
    assert frame["uuid"].tolist() == [str(first[0].uuid)] and frame["type"].tolist() == ["StepCount"]


def test_the_latest_n_samples(store):
    saved_out_of_order(store)
    latest = store.sample_query(STEPS, descending=True, limit=2)
    assert [s.value for s in latest] == [5, 20]
    assert [s.value for s in store.sample_query(STEPS)] == [10, 20, 5]
    with pytest.raises(ohk.InvalidArgumentError, match="sort"):
        store.sample_query(STEPS, sort="value")


def test_a_summary_is_what_ohk_stats_prints(store):
    saved_out_of_order(store)
    first, _, _ = store.query(STEPS)
    store.delete([first[0]])
    summary = store.summary()
    assert [(t.type, t.samples, t.deleted_objects) for t in summary] == [("HKQuantityTypeIdentifierStepCount", 2, 1)]
    steps = summary[0]
    # The late sample was saved first, so it was deleted: the span is the two left.
    assert steps.first == T0 and steps.last == T0 + timedelta(minutes=11)
    assert steps.sources == [ohk.DEFAULT_SOURCE.name]
    assert summary.samples == 2 and summary.deleted_objects == 1
    # The anchor is now: a query from it sees only later changes.
    store.save([walk(5, 1)])
    assert len(store.query(STEPS, summary.anchor).samples) == 1
    frame = summary.to_pandas()
    assert frame.loc["StepCount", "samples"] == 2 and frame.loc["StepCount", "deleted_objects"] == 1
    assert store.summary(spans=False)[0].first is None
