"""Sleep per night (rule 59, issue 48 item 9): time in bed and asleep by
stage, sources merged by priority, a night on the day it ends."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

import openhealthkit as ohk

SLEEP = "SleepAnalysis"
WATCH = ohk.Source("com.apple.health.watch", "Ann's Apple Watch")
PHONE = ohk.Source("com.apple.health.phone", "Ann's iPhone")
APP = ohk.Source("com.example.sleep", "A sleep app")
PARIS = timedelta(hours=1)  # November


def at(day, hour, minute=0):
    """A wall-clock time in Paris in November 2020, as an aware datetime."""
    return datetime(2020, 11, day, hour, minute, tzinfo=timezone(PARIS))


def night(store, day):
    """The night ending on `day`: in bed 22:00-07:00 from the phone and
    22:30-07:30 from an app, the watch's stages inside."""
    store.save([ohk.CategorySample(SLEEP, at(day - 1, 22), at(day, 7), "InBed", source=PHONE, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day - 1, 22, 30), at(day, 7, 30), "InBed", source=APP, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day - 1, 23), at(day, 1), "AsleepCore", source=WATCH, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day, 1), at(day, 2), "AsleepDeep", source=WATCH, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day, 2), at(day, 3), "AsleepREM", source=WATCH, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day, 3), at(day, 3, 30), "Awake", source=WATCH, utc_offset=PARIS),
                ohk.CategorySample(SLEEP, at(day, 3, 30), at(day, 6), "AsleepCore", source=WATCH, utc_offset=PARIS)])


def test_rule_59_sleep_per_night_merges_sources_and_ends_on_its_day(store):
    night(store, 2)
    night(store, 4)
    nights = store.sleep_nights(date(2020, 11, 2), date(2020, 11, 4), time_zone="Europe/Paris")
    assert [n.night for n in nights] == [date(2020, 11, 2), date(2020, 11, 3), date(2020, 11, 4)]
    first = nights[0]
    # Two sources' time in bed count once: 22:00 to 07:30, not their 18 hours together.
    assert first.in_bed == timedelta(hours=9, minutes=30)
    assert (first.core, first.deep, first.rem, first.awake) == (timedelta(hours=4.5), timedelta(hours=1),
                                                                timedelta(hours=1), timedelta(minutes=30))
    assert first.asleep == timedelta(hours=6.5) and first.unspecified == timedelta(0)
    assert nights[1].in_bed == timedelta(0) and nights[1].asleep == timedelta(0)
    assert nights[2].asleep == first.asleep and nights[2].in_bed == first.in_bed
    frame = nights.to_pandas()
    assert list(frame.index) == [date(2020, 11, 2), date(2020, 11, 3), date(2020, 11, 4)]
    assert frame["hours_asleep"].tolist() == [6.5, 0, 6.5] and frame["hours_in_bed"].iloc[0] == 9.5
    # In each sample's own offset, the same nights (the samples carry +01:00).
    local = store.sleep_nights(date(2020, 11, 2), date(2020, 11, 2), local_time=True)
    assert local[0].asleep == first.asleep and local[0].in_bed == first.in_bed
    # In UTC the night starts at 13:00 Paris time: the same sleep, still on the 2nd.
    assert store.sleep_nights(date(2020, 11, 2), date(2020, 11, 2))[0].asleep == first.asleep
    with pytest.raises(ohk.ArgumentTypeError):
        store.sleep_nights(datetime(2020, 11, 2), date(2020, 11, 3))
    with pytest.raises(ohk.InvalidArgumentError):
        store.sleep_nights(date(2020, 11, 3), date(2020, 11, 2))
