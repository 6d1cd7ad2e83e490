"""Heartbeat series from Python (rule 39 of docs/semantics.md): saved
from beats in any form, read back as Heartbeat tuples or NumPy columns,
refused as the library refuses them, and made by an import of an HRV
record's beat list."""

from __future__ import annotations

import ctypes
import math
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import openhealthkit as ohk
from openhealthkit import _native as n
from conftest import STEPS, T0, Inbox, steps

HEARTBEATS = "HKDataTypeIdentifierHeartbeatSeries"
HRV = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "Fixtures"
EXPORT_A = FIXTURES / "export-small-a.xml"
WATCH = ohk.Source("com.example.watch", "Watch", "10.1")


def the_series(store: ohk.HealthStore) -> list[ohk.HeartbeatSeriesSample]:
    samples = list(store.query(HEARTBEATS).samples)
    assert all(isinstance(s, ohk.HeartbeatSeriesSample) for s in samples)
    return samples


def test_rule_39_a_heartbeat_series_round_trips_as_numpy_columns(store):
    np = pytest.importorskip("numpy")
    kind = ohk.sample_type(HEARTBEATS)
    assert kind.is_heartbeat_series and not (kind.is_workout or kind.is_route or kind.is_correlation)
    assert kind.short_name == "HeartbeatSeries" and ohk.sample_type("HeartbeatSeries") == kind
    assert kind.canonical_unit is None and not kind.is_category
    # 1,200 beats about 0.8 s apart, newest first, a gap before every 100th.
    count = 1200
    k = np.arange(count)[::-1]
    times = 0.25 + k * 0.8 + (k % 3) * 0.01
    gaps = k % 100 == 50
    data = np.zeros(count, dtype=[("time_since_start", "<f8"), ("preceded_by_gap", "?")])
    data["time_since_start"], data["preceded_by_gap"] = times, gaps
    device = ohk.Device(name="Apple Watch", model="Watch7,1")
    chosen = uuid.uuid4()
    [outcome] = store.save_heartbeat_series(data, T0, source=WATCH, device=device,
                                            metadata={"HKAlgorithmVersion": 2}, uuid=chosen,
                                            creation_date=T0 + timedelta(hours=1), utc_offset=timedelta(hours=2))
    assert outcome == ohk.SaveOutcome(chosen, ohk.SaveResult.SAVED, None)
    [sample] = the_series(store)
    assert sample.uuid == chosen and sample.source == WATCH and sample.device == device
    assert sample.metadata == {"HKAlgorithmVersion": 2}
    assert sample.creation_date == T0 + timedelta(hours=1) and sample.utc_offset == timedelta(hours=2)
    assert sample.value == count  # the record's number: the beats
    # The end defaults to the last beat: start plus its time.
    last = float(times.max())
    assert sample.start_date == T0
    assert abs(sample.end_timestamp - (T0.timestamp() + last)) < 1e-6
    series = sample.heartbeats
    assert len(series) == count and "1200 beats" in repr(sample)
    columns = series.to_numpy()
    assert len(columns) == count
    assert columns.time_since_start.dtype == np.float64 and columns.preceded_by_gap.dtype == np.bool_
    order = np.argsort(times)
    assert np.array_equal(columns.time_since_start, times[order])  # sorted, bit for bit
    assert np.array_equal(columns.preceded_by_gap, gaps[order])
    for column in (columns.time_since_start, columns.preceded_by_gap):
        assert column.flags.c_contiguous and column.flags.owndata and column.flags.writeable
    # The same beats as Python objects.
    first = series.beats[0]
    assert first == ohk.Heartbeat(0.25, False) and first.time_since_start == 0.25
    assert sum(b.preceded_by_gap for b in series.beats) == int(gaps.sum())
    # Decoded once per batch; equal and hashable by their beats.
    assert sample.heartbeats is series and hash(series) == hash(ohk.HeartbeatSeries(series.raw))
    assert len(series.raw) == count * 16 == count * ctypes.sizeof(n.ohk_heartbeat)
    # What was read back saves again, in each of its forms, and reads back equal.
    store.save_heartbeat_series(series, T0)
    store.save_heartbeat_series(columns, T0)
    store.save_heartbeat_series({"time_since_start": times, "preceded_by_gap": gaps}, T0)
    store.save_heartbeat_series(np.column_stack([times, gaps]), T0)  # 2-D: (time, gap) rows
    store.save_heartbeat_series(times, T0)  # 1-D: times only, no gap
    read = [s.heartbeats for s in the_series(store)]
    assert len(read) == 6 and all(r == series for r in read[:5])
    assert np.array_equal(read[5].to_numpy().time_since_start, times[order])
    assert not read[5].to_numpy().preceded_by_gap.any()


def test_rule_39_a_heartbeat_series_as_a_pandas_frame(store):
    pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    store.save_heartbeat_series([0.8, ohk.Heartbeat(1.6, True), 0.05], T0)
    frame = the_series(store)[0].heartbeats.to_pandas()
    assert frame.index.name == "time_since_start" and list(frame.columns) == ["preceded_by_gap"]
    assert list(frame.index) == [0.05, 0.8, 1.6] and list(frame["preceded_by_gap"]) == [False, False, True]
    assert frame["preceded_by_gap"].dtype == bool
    # A frame saves back (its index is the time), as does one with the time as a column.
    store.save_heartbeat_series(frame, T0)
    store.save_heartbeat_series(frame.reset_index(), T0)
    first, *again = (s.heartbeats for s in the_series(store))
    assert again == [first, first]
    assert isinstance(frame, pd.DataFrame) and frame.index.dtype == "float64"


def test_rule_39_beats_from_tuples_numbers_and_mappings_keep_their_gaps(store):
    wanted = [ohk.Heartbeat(0.05, False), ohk.Heartbeat(0.8, False), ohk.Heartbeat(1.6, True)]
    forms = [
        wanted,                                                            # Heartbeat tuples
        [(1.6, True), (0.05, False), (0.8,)],                              # plain tuples, any order
        [0.8, [1.6, True], 0.05],                                          # numbers (no gap) and lists
        [{"time_since_start": 1.6, "preceded_by_gap": True}, {"time_since_start": 0.05},
         {"time_since_start": 0.8}],                                       # mappings
        {"time_since_start": [0.05, 0.8, 1.6], "preceded_by_gap": [False, False, True]},  # columns
        (beat for beat in reversed(wanted)),                               # any iterable
        [(0.05, 0), (0.8, 0), (1.6, 1)],                                   # gaps as 0 and 1
    ]
    for form in forms:
        store.save_heartbeat_series(form, T0, T0 + timedelta(seconds=2))
    series = [s.heartbeats for s in the_series(store)]
    assert [s.beats for s in series] == [wanted] * len(forms)
    assert all(s.end_date == T0 + timedelta(seconds=2) for s in the_series(store))


def test_rule_39_beats_without_numpy_are_read_as_rows(store, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` fails
    store.save_heartbeat_series({"time_since_start": [1.0, 0.5], "preceded_by_gap": [True, False]}, T0)
    series = the_series(store)[0].heartbeats
    assert series.beats == [(0.5, False), (1.0, True)]
    with pytest.raises(ImportError, match="NumPy"):
        series.to_numpy()


def test_rule_39_a_save_refuses_a_series_without_beats_or_with_beats_outside_it(store, monkeypatch):
    end = T0 + timedelta(seconds=60)

    def refused(error, beats, start=T0, stop=end):
        with pytest.raises(error) as raised:
            store.save_heartbeat_series(beats, start, stop)
        assert isinstance(raised.value, ohk.OpenHealthKitError) and raised.value.status == error.status
        return str(raised.value)

    assert "no beat" in refused(ohk.InvalidValueError, [])
    assert "no beat" in refused(ohk.InvalidValueError, [], stop=None)
    refused(ohk.InvalidValueError, [0.5, -0.1])  # a time before the start
    refused(ohk.InvalidValueError, [-0.1], stop=None)  # named as the beat, not as an end before the start
    assert "after its end" in refused(ohk.InvalidValueError, [0.5, 61.0])
    refused(ohk.InvalidDateRangeError, [0.5], stop=T0 - timedelta(seconds=1))
    refused(ohk.InvalidArgumentError, [0.5], start=datetime(2024, 3, 1))  # naive
    refused(ohk.ArgumentTypeError, ["0.5"])
    refused(ohk.ArgumentTypeError, [(0.5, "yes")])
    refused(ohk.ArgumentTypeError, [(0.5, 2)])
    refused(ohk.ArgumentTypeError, [True])
    refused(ohk.ArgumentTypeError, 0.5)
    refused(ohk.InvalidArgumentError, [(0.5, False, 1)])
    refused(ohk.InvalidArgumentError, {"time": [0.5]})
    refused(ohk.InvalidArgumentError, [{"time_since_start": 0.5, "gap": True}])
    # 0 is a time since the start (decision); the end may be the start then.
    store.save_heartbeat_series([0.0], T0, T0)
    # NaN and infinite times never reach the library.
    def not_called(*args):
        raise AssertionError("the library was called")

    monkeypatch.setattr(n.lib, "ohk_store_save_heartbeat_series", not_called)
    assert "beats[1]" in refused(ohk.InvalidValueError, [0.5, math.nan])
    refused(ohk.InvalidValueError, [(math.inf, True)])
    refused(ohk.InvalidValueError, {"time_since_start": [0.5, math.nan]})
    np = pytest.importorskip("numpy")
    assert "beats[2]" in refused(ohk.InvalidValueError, np.array([0.5, 1.0, np.nan]))
    refused(ohk.InvalidValueError, np.column_stack([[0.5, 1.0], [0, 2]]))  # a gap of 2
    refused(ohk.ArgumentTypeError, np.array(["0.5"]))
    refused(ohk.InvalidArgumentError, np.zeros((2, 3)))
    monkeypatch.undo()
    assert [s.heartbeats.beats for s in the_series(store)] == [[(0.0, False)]]  # only the one at 0


def test_rule_39_save_takes_a_series_read_back_and_the_constructors_name_the_call(store):
    store.save_heartbeat_series([0.5, 1.0], T0)
    [series] = the_series(store)
    with pytest.raises(ohk.DuplicateUUIDError):
        store.save(series)  # saved as it is: here, its UUID is taken (test_save_read_back.py: another store)
    with pytest.raises(ohk.ArgumentTypeError, match="save_heartbeat_series"):
        ohk.QuantitySample(HEARTBEATS, T0, T0, 2)
    with pytest.raises(ohk.ArgumentTypeError, match="save_heartbeat_series"):
        ohk.HeartbeatSeriesSample()
    with pytest.raises(ohk.InvalidArgumentError):
        ohk.HeartbeatSeries(b"\0" * 15)  # not whole ohk_heartbeat records
    assert len(store.query(STEPS).samples) == 0
    # A series built from its bytes is equal to the one read back; the padding is not compared.
    raw = bytearray(series.heartbeats.raw)
    raw[12] = 0xAB  # a padding byte
    assert ohk.HeartbeatSeries(bytes(raw)) == series.heartbeats


def test_rule_39_a_series_is_change_tracked_like_any_sample(store):
    inbox = Inbox()

    def delivered() -> list:
        return [sample for result in inbox.items for sample in result.samples]

    with store.watch(HEARTBEATS, inbox.put):
        inbox.wait(1)  # the empty snapshot
        [outcome] = store.save_heartbeat_series([(0.5, False), (1.3, True)], T0, source=WATCH)
        inbox.wait_until(lambda results: delivered(), "the series")
        store.delete(outcome.uuid)
        results = inbox.wait_until(lambda results: any(r.deleted for r in results), "its deletion")
    # A lent batch's beats are copied during the callback: readable after it.
    import gc
    gc.collect()
    [sample] = delivered()
    assert isinstance(sample, ohk.HeartbeatSeriesSample) and sample.uuid == outcome.uuid
    assert sample.heartbeats.beats == [(0.5, False), (1.3, True)] and sample.source == WATCH
    assert [d.uuid for result in results for d in result.deleted] == [outcome.uuid]
    assert the_series(store) == []


def test_rule_39_an_import_makes_a_series_of_an_hrv_beat_list(store):
    report = ohk.import_export(EXPORT_A, store)
    rows = {row.kind: row for row in report.contents}
    assert rows["HeartRateVariabilityMetadataList"].imported == 1
    [series] = the_series(store)
    assert [s.uuid for s in store.query("HeartbeatSeries").samples] == [series.uuid]  # the short name
    # The record: 2020-12-06 11:26:00 -0800 to 11:27:05, beats at 11:26:02.34 ... 11:26:11.52.
    pacific = timezone(timedelta(hours=-8))
    assert series.start_date == datetime(2020, 12, 6, 11, 26, tzinfo=pacific)
    assert series.end_date == datetime(2020, 12, 6, 11, 27, 5, tzinfo=pacific)
    beats = series.heartbeats.beats
    assert [b.time_since_start for b in beats] == pytest.approx(
        [2.34, 3.37, 4.41, 5.42, 6.44, 7.44, 8.46, 9.49, 10.48, 11.52], abs=1e-6)
    assert not any(b.preceded_by_gap for b in beats)  # exports do not say
    assert series.value == 10
    # Beside the HRV record it came with: the record's source, device, creation date and offset.
    [hrv] = store.query(HRV).samples
    assert hrv.start_date == series.start_date and hrv.value == pytest.approx(26.467)
    assert (series.source, series.device) == (hrv.source, hrv.device) and series.device.name == "Apple Watch"
    assert series.creation_date == hrv.creation_date == datetime(2020, 12, 6, 11, 27, 5, tzinfo=pacific)
    assert series.utc_offset == hrv.utc_offset == timedelta(hours=-8)
    # Imported again: already stored.
    again = ohk.import_export(EXPORT_A, store)
    assert again.added == 0 and len(the_series(store)) == 1
