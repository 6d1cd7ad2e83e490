"""Statistics from Python (rules 25-29 of docs/semantics.md)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import openhealthkit as ohk
from conftest import HEART, STEPS, WAIT

MIDNIGHT = datetime(2024, 3, 1, tzinfo=timezone.utc)
WATCH = ohk.Source("com.apple.health.watch", "Ann's Apple Watch")
PHONE = ohk.Source("com.apple.health.phone", "Ann's iPhone")
S = ohk.StatisticsOptions


def walk(value, from_h, to_h, source, **kwargs):
    return ohk.QuantitySample(STEPS, MIDNIGHT + timedelta(hours=from_h), MIDNIGHT + timedelta(hours=to_h), value,
                              source=source, **kwargs)


def test_rule_26_the_walk_both_devices_recorded_counts_once(store):
    store.save([walk(1000, 8, 9, WATCH), walk(1200, 8.5, 9.5, PHONE)])
    merged = store.statistics(STEPS, S.CUMULATIVE_SUM | S.SEPARATE_BY_SOURCE)
    assert merged.sum == 1600  # the watch's 1,000 and the phone's uncovered half hour
    assert merged.by_source == {WATCH.bundle_identifier: ohk.StatisticsValues(sum=1000, count=1),
                                PHONE.bundle_identifier: ohk.StatisticsValues(sum=1200, count=1)}
    assert [s.name for s in merged.sources] == ["Ann's iPhone", "Ann's Apple Watch"]
    assert (merged.start, merged.end) == (MIDNIGHT + timedelta(hours=8), MIDNIGHT + timedelta(hours=9.5))
    # The order in force is visible while the default holds (rule 27): the watch, then the phone.
    assert store.source_priority(STEPS) == [WATCH.bundle_identifier, PHONE.bundle_identifier]
    assert store.source_priority(STEPS, set_only=True) == []
    store.set_source_priority("StepCount", [PHONE.bundle_identifier])
    assert store.source_priority(STEPS) == [PHONE.bundle_identifier, WATCH.bundle_identifier]
    assert store.source_priority(STEPS, set_only=True) == [PHONE.bundle_identifier]
    assert store.statistics("StepCount").sum == 1700  # the default option for steps is a sum
    store.set_source_priority(STEPS, [])
    assert store.source_priority(STEPS, set_only=True) == []
    assert store.source_priority("HeartRate") == []  # no samples, nothing set


def test_rule_28_intervals_are_instants_of_one_zone(store):
    store.save([walk(120, -1, 1, WATCH),                                      # 23:00-01:00 UTC: half each day
                walk(30, 15, 16, PHONE, utc_offset=timedelta(hours=-8)),      # 07:00 in San Francisco
                walk(5, 23.5, 23.75, PHONE, utc_offset=timedelta(hours=2))])  # 23:30 UTC, 01:30 at UTC+2
    days = store.statistics_collection("StepCount", start=MIDNIGHT - timedelta(days=1),
                                       end=MIDNIGHT + timedelta(days=2), anchor=MIDNIGHT)
    assert [d.start for d in days] == [MIDNIGHT + timedelta(days=k) for k in (-1, 0, 1)]
    assert [d.sum for d in days] == [60, 95, None]
    hours = store.statistics_collection(STEPS, start=MIDNIGHT - timedelta(hours=1), end=MIDNIGHT + timedelta(hours=1),
                                        interval="hour")
    assert [h.sum for h in hours] == [60, 60]
    # A fixed offset: the dates are aware, in that offset, and name the instants counted.
    plus_one = timezone(timedelta(hours=1))
    days = store.statistics_collection(STEPS, start=datetime(2024, 3, 1, tzinfo=plus_one),
                                       end=MIDNIGHT + timedelta(hours=20), utc_offset=timedelta(hours=1))
    day = days[0]
    assert day.start.utcoffset() == timedelta(hours=1) and day.start.isoformat() == "2024-03-01T00:00:00+01:00"
    assert day.start == MIDNIGHT - timedelta(hours=1) and day.sum == 120 + 30  # 23:30 UTC is the next day
    # In Paris the night of March 31 is an hour short: a day of 23 hours.
    paris = store.statistics_collection(STEPS, start=datetime(2024, 3, 30, 23, tzinfo=timezone.utc),
                                        end=datetime(2024, 3, 31, 21, tzinfo=timezone.utc), time_zone="Europe/Paris")
    assert [(d.start, d.end - d.start) for d in paris] == [(datetime(2024, 3, 30, 23, tzinfo=timezone.utc),
                                                             timedelta(hours=23))]
    assert paris[0].start.isoformat() == "2024-03-31T00:00:00+01:00"
    assert paris[0].end.isoformat() == "2024-04-01T00:00:00+02:00"
    with pytest.raises(ohk.InvalidArgumentError, match="time zone"):
        store.statistics_collection(STEPS, start=MIDNIGHT, end=MIDNIGHT, time_zone="Mars/Olympus_Mons")
    march = store.statistics_collection(STEPS, start=MIDNIGHT, end=MIDNIGHT, interval=(1, "month"))
    assert [(m.start, m.end, m.sum) for m in march] == [(MIDNIGHT, datetime(2024, 4, 1, tzinfo=timezone.utc), 95)]


def test_rule_28_local_time_counts_each_sample_in_its_own_day(store):
    store.save([walk(120, -1, 1, WATCH),
                walk(30, 15, 16, PHONE, utc_offset=timedelta(hours=-8)),      # 07:00 in San Francisco: its own day
                walk(5, 23.5, 23.75, PHONE, utc_offset=timedelta(hours=2))])  # 01:30 the next day at UTC+2
    days = store.statistics_collection(STEPS, start=datetime(2024, 2, 29), end=datetime(2024, 3, 3), local_time=True)
    # Wall-clock intervals: naive datetimes, the samples' own local days.
    assert [d.start for d in days] == [datetime(2024, 2, 29), datetime(2024, 3, 1), datetime(2024, 3, 2)]
    assert all(d.start.tzinfo is None for d in days) and days.zone is None
    assert [d.sum for d in days] == [60, 90, 5]
    frame = days.to_pandas()  # make test installs pandas
    assert frame.index.tz is None and str(frame.index[1]) == "2024-03-01 00:00:00"
    with pytest.raises(ohk.InvalidArgumentError, match="time zone"):
        store.statistics_collection(STEPS, start=MIDNIGHT, end=MIDNIGHT, local_time=True, time_zone="Europe/Paris")
    with pytest.raises(ohk.InvalidArgumentError, match="naive"):
        store.statistics_collection(STEPS, start=datetime(2024, 3, 1), end=datetime(2024, 3, 2))


def test_rule_25_29_discrete_figures_units_and_errors(store):
    store.save([ohk.QuantitySample(HEART, MIDNIGHT, MIDNIGHT + timedelta(minutes=10), 60, "count/min"),
                ohk.QuantitySample(HEART, MIDNIGHT + timedelta(hours=1), MIDNIGHT + timedelta(hours=1, minutes=20), 90,
                                   "count/min")])
    hr = store.statistics("HeartRate", S.DISCRETE_AVERAGE | S.DISCRETE_MIN | S.DISCRETE_MAX | S.MOST_RECENT | S.DURATION,
                          unit="count/min")
    assert hr.average == pytest.approx(80)  # time-weighted
    assert (hr.minimum, hr.maximum, hr.most_recent) == (pytest.approx(60), pytest.approx(90), pytest.approx(90))
    assert hr.duration == timedelta(minutes=30) and hr.sum is None and hr.unit == "count/min"
    by_default = store.statistics("HeartRate", S.DISCRETE_MAX)  # the display unit: count/min
    assert by_default.unit == "count/min" and by_default.maximum == pytest.approx(90)
    assert store.sample_type("HeartRate").display_unit == "count/min"
    with pytest.raises(ohk.InvalidArgumentError, match="cumulativeSum"):
        store.statistics(HEART, S.CUMULATIVE_SUM)
    with pytest.raises(ohk.IncompatibleUnitError):
        store.statistics(HEART, unit="kg")
    assert store.statistics("SleepAnalysis") is None  # a duration (rule 59), of no samples
    with pytest.raises(ohk.InvalidArgumentError, match="durations"):
        store.statistics("SleepAnalysis", S.CUMULATIVE_SUM)
    with pytest.raises(ValueError, match="interval"):
        store.statistics_collection(STEPS, start=MIDNIGHT, end=MIDNIGHT, interval="fortnight")
    assert store.statistics("BodyMass") is None  # no data, as HealthKit's errorNoData


def test_a_collection_as_numpy_columns_and_a_pandas_frame(store):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    store.save([walk(1000, 8, 9, WATCH), walk(1200, 8.5, 9.5, PHONE), walk(30, 30, 31, WATCH)])
    days = store.statistics_collection(STEPS, S.CUMULATIVE_SUM | S.SEPARATE_BY_SOURCE, start=MIDNIGHT,
                                       end=MIDNIGHT + timedelta(days=2, hours=1))
    columns = days.to_numpy()
    assert columns["start"].tolist() == [np.datetime64("2024-03-01T00:00:00", "us").item(),
                                         np.datetime64("2024-03-02T00:00:00", "us").item(),
                                         np.datetime64("2024-03-03T00:00:00", "us").item()]
    assert columns["sum"][:2].tolist() == [1600, 30] and np.isnan(columns["sum"][2])
    assert columns["count"].tolist() == [2, 1, 0] and np.isnan(columns["average"]).all()
    frame = days.to_pandas()
    assert list(frame.columns) == ["sum", "count", "unit"] and set(frame["unit"]) == {"count"}
    assert frame.index[0] == pd.Timestamp("2024-03-01", tz="UTC") and frame["sum"].iloc[0] == 1600
    per_source = days.to_pandas(by_source=True)
    assert per_source.loc[(pd.Timestamp("2024-03-01", tz="UTC"), PHONE.bundle_identifier), "sum"] == 1200
    # Each source's figures need SEPARATE_BY_SOURCE: asked without it, an error, not an empty frame.
    merged = store.statistics_collection(STEPS, start=MIDNIGHT, end=MIDNIGHT + timedelta(days=2))
    with pytest.raises(ohk.InvalidArgumentError, match="SEPARATE_BY_SOURCE"):
        merged.to_pandas(by_source=True)
    # Sorted, so that a month's rows select by label.
    assert len(merged.to_pandas().loc["2024-03"]) == 2


def test_rule_34_a_live_collection_gets_the_intervals_that_changed(store):
    """Rule 34: watch_statistics delivers the collection, then after each
    commit that changes it, which intervals changed."""
    import threading
    seen: list[ohk.StatisticsUpdate] = []
    arrived = threading.Condition()

    def on_update(query, update):
        with arrived:
            seen.append(update)
            arrived.notify_all()

    with store.watch_statistics("StepCount", on_update, start=MIDNIGHT, end=MIDNIGHT + timedelta(days=3)) as q:
        with arrived:
            assert arrived.wait_for(lambda: len(seen) == 1, WAIT)
        assert seen[0].initial and seen[0].changed == [0, 1, 2] and all(d.sum is None for d in seen[0].statistics)
        store.save([walk(500, 30, 31, WATCH)])  # the second day
        with arrived:
            assert arrived.wait_for(lambda: len(seen) == 2, WAIT)
        assert not seen[1].initial and seen[1].changed == [1]
        assert [d.sum for d in seen[1].statistics] == [None, 500, None]
        assert q.running


def test_rule_34_statistics_updates_in_asyncio(store):
    import asyncio

    async def consume():
        sums = []
        async for update in store.statistics_updates(STEPS, start=MIDNIGHT, end=MIDNIGHT + timedelta(days=1),
                                                     interval="hour"):
            sums.append(sum(h.sum or 0 for h in update.statistics))
            if update.initial:
                await asyncio.to_thread(store.save, [walk(20, 1, 2, PHONE), walk(30, 5, 6, PHONE)])
            else:
                break
        return sums, update.changed

    assert asyncio.run(asyncio.wait_for(consume(), WAIT)) == ([0, 50], [1, 5])
    assert not any(q._store is store for q in store._queries)
    with pytest.raises(ohk.InvalidArgumentError):
        store.watch_statistics(HEART, lambda q, u: None, ohk.StatisticsOptions.CUMULATIVE_SUM, start=MIDNIGHT,
                               end=MIDNIGHT)
