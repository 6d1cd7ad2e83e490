"""Activity summaries from Python (rule 43 of docs/semantics.md): one per
Gregorian day, values of the store and not samples, replaced whole when
saved again, with a change sequence to read only what changed since."""

from __future__ import annotations

import math
import os
from datetime import date, datetime, timedelta, timezone

import pytest

import openhealthkit as ohk

from conftest import Inbox, steps

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures")

Summary = ohk.ActivitySummary
MARCH_2 = Summary(date(2024, 3, 2), active_energy_burned=410.5, active_energy_burned_goal=500,
                  apple_exercise_time=31, exercise_time_goal=30, apple_stand_hours=10, stand_hours_goal=12)
LEAP_DAY = Summary(date(2024, 2, 29), apple_move_time=40, apple_move_time_goal=30,
                   move_mode=ohk.ActivityMoveMode.APPLE_MOVE_TIME, paused=True)
EVERY_VALUE = Summary(date(2023, 12, 31), 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7, 8,
                      ohk.ActivityMoveMode.APPLE_MOVE_TIME, True)


def test_rule_43_summaries_round_trip_in_calendar_order(store):
    assert store.activity_summaries() == []
    assert store.save_activity_summaries([MARCH_2, LEAP_DAY, EVERY_VALUE]) == 3
    read = store.activity_summaries()
    assert read == [EVERY_VALUE, LEAP_DAY, MARCH_2]
    assert isinstance(read, ohk.ActivitySummaryList)
    assert read[1].move_mode is ohk.ActivityMoveMode.APPLE_MOVE_TIME and read[1].paused is True
    assert read[2].apple_move_time is None and read[2].move_mode is ohk.ActivityMoveMode.ACTIVE_ENERGY
    assert int(ohk.ActivityMoveMode.ACTIVE_ENERGY) == 1 and int(ohk.ActivityMoveMode.APPLE_MOVE_TIME) == 2


def test_rule_43_a_summary_is_a_value_of_the_store_not_a_sample(store):
    commits = []
    store.set_commit_hook(lambda types, anchor: commits.append(types))
    anchor = store.current_anchor()
    store.save_activity_summaries(MARCH_2)  # one summary alone is a list of one
    assert store.current_anchor() == anchor
    assert commits == []
    assert len(store.query("HKQuantityTypeIdentifierActiveEnergyBurned").samples) == 0
    assert store.activity_summaries() == [MARCH_2]


def test_rule_43_one_summary_per_day_replaced_whole(store):
    store.save_activity_summaries([MARCH_2, LEAP_DAY])
    # Saved again with only a stand count: the other values are gone, not kept.
    again = Summary(date(2024, 3, 2), apple_stand_hours=11, paused=True)
    assert store.save_activity_summaries([again]) == 1
    assert store.activity_summaries() == [LEAP_DAY, again]
    assert store.activity_summaries()[1].active_energy_burned is None


def test_rule_43_a_summary_saved_again_unchanged_is_not_a_change(store):
    assert store.save_activity_summaries([MARCH_2, LEAP_DAY]) == 2
    _, sequence = store.activity_summary_changes()
    assert store.save_activity_summaries([MARCH_2, LEAP_DAY]) == 0
    assert store.save_activity_summaries([]) == 0
    assert store.activity_summary_changes(sequence) == ([], sequence)
    # A batch with one changed day writes that day only.
    changed = Summary(date(2024, 2, 29), apple_move_time=41, apple_move_time_goal=30,
                      move_mode=ohk.ActivityMoveMode.APPLE_MOVE_TIME, paused=True)
    assert store.save_activity_summaries([MARCH_2, changed]) == 1
    assert store.activity_summary_changes(sequence)[0] == [changed]


def test_rule_43_summaries_of_a_day_range(store):
    days = [Summary(date(2024, 1, 30) + timedelta(days=k), apple_stand_hours=k) for k in range(5)]  # to Feb 3
    store.save_activity_summaries(days)
    assert store.activity_summaries(date(2024, 2, 1)) == days[2:]
    assert store.activity_summaries(end=date(2024, 1, 31)) == days[:2]
    assert store.activity_summaries(date(2024, 1, 31), date(2024, 2, 2)) == days[1:4]
    assert store.activity_summaries(date(2024, 2, 1), date(2024, 2, 1)) == [days[2]]
    assert store.activity_summaries(date(2023, 1, 1), date(2023, 12, 31)) == []
    with pytest.raises(ohk.InvalidArgumentError, match="before it starts"):
        store.activity_summaries(date(2024, 2, 2), date(2024, 2, 1))
    with pytest.raises(ohk.ArgumentTypeError):
        store.activity_summaries(datetime(2024, 2, 1, tzinfo=timezone.utc))  # which day depends on the zone
    with pytest.raises(ohk.ArgumentTypeError):
        store.activity_summaries(end="2024-02-01")  # type: ignore[arg-type]


def test_rule_43_changes_since_a_sequence_are_only_the_changed_ones(store):
    assert store.activity_summary_changes() == ([], 0)
    store.save_activity_summaries([MARCH_2, LEAP_DAY])
    everything, seen = store.activity_summary_changes()
    assert everything == [LEAP_DAY, MARCH_2] and seen > 0
    assert store.activity_summary_changes(seen) == ([], seen)

    store.save(steps(1))  # a sample saved changes no summary
    assert store.activity_summary_changes(seen) == ([], seen)

    march_3 = Summary(date(2024, 3, 3), apple_stand_hours=2)
    march_2 = Summary(date(2024, 3, 2), active_energy_burned=600)
    store.save_activity_summaries([march_3, march_2])
    changed, later = store.activity_summary_changes(seen)
    assert changed == [march_2, march_3] and later > seen
    # Within a range; the sequence is the store's, whatever the range.
    assert store.activity_summary_changes(seen, end=date(2024, 3, 2)) == ([march_2], later)
    assert store.activity_summary_changes(seen, start=date(2024, 3, 3)) == ([march_3], later)
    # From 0 again: every day, the unchanged one too.
    assert store.activity_summary_changes(0)[0] == [LEAP_DAY, march_2, march_3]
    with pytest.raises(ohk.InvalidArgumentError):
        store.activity_summary_changes(-1)


def test_rule_43_a_sequence_past_the_stores_comes_from_another_store(store):
    store.save_activity_summaries([MARCH_2])
    _, seen = store.activity_summary_changes()
    with pytest.raises(ohk.InvalidArgumentError):
        store.activity_summary_changes(seen + 1)
    assert store.activity_summary_changes(seen) == ([], seen)


def test_rule_43_a_save_refuses_what_no_summary_can_hold(store):
    day = date(2024, 1, 1)
    refused = [
        (ohk.InvalidValueError, [Summary(day, apple_stand_hours=-1)]),
        (ohk.InvalidValueError, [MARCH_2, Summary(day, active_energy_burned=math.nan)]),  # C would read it as absent
        (ohk.InvalidValueError, [Summary(day, exercise_time_goal=math.inf)]),
        (ohk.InvalidValueError, [Summary(day, move_mode=0)]),  # type: ignore[arg-type] # C would read it as energy
        (ohk.InvalidValueError, [Summary(day, move_mode=3)]),  # type: ignore[arg-type]
        (ohk.InvalidArgumentError, [MARCH_2, Summary(day), Summary(day, apple_stand_hours=1)]),  # a day twice
        (ohk.ArgumentTypeError, [Summary(datetime(2024, 1, 1, tzinfo=timezone.utc))]),
        (ohk.ArgumentTypeError, [Summary("2024-01-01")]),  # type: ignore[arg-type]
        (ohk.ArgumentTypeError, [Summary(day, apple_stand_hours="3")]),  # type: ignore[arg-type]
        (ohk.ArgumentTypeError, [{"day": day}]),
        (ohk.ArgumentTypeError, "2024-01-01"),
    ]
    for error, summaries in refused:
        with pytest.raises(error):
            store.save_activity_summaries(summaries)  # type: ignore[arg-type]
    # All or nothing: MARCH_2 beside a refused summary was not saved.
    assert store.activity_summary_changes() == ([], 0)
    with pytest.raises(ohk.InvalidValueError, match=r"summaries\[1\]\.active_energy_burned"):
        store.save_activity_summaries([MARCH_2, Summary(day, active_energy_burned=math.nan)])


def test_rule_43_a_closed_store_refuses_summaries(tmp_path):
    opened = ohk.HealthStore(tmp_path / "store", durable=False)
    opened.close()
    with pytest.raises(ohk.ClosedError):
        opened.save_activity_summaries([MARCH_2])
    with pytest.raises(ohk.ClosedError):
        opened.activity_summaries()


def test_rule_43_summaries_as_a_pandas_frame(store):
    pd = pytest.importorskip("pandas")
    store.save_activity_summaries([MARCH_2, LEAP_DAY])
    frame = store.activity_summaries().to_pandas()
    assert list(frame.index) == [pd.Timestamp("2024-02-29"), pd.Timestamp("2024-03-02")]
    assert frame.index.name == "day"
    assert frame.loc["2024-03-02", "active_energy_burned"] == 410.5
    assert math.isnan(frame.loc["2024-03-02", "apple_move_time"])
    assert list(frame["move_mode"]) == ["APPLE_MOVE_TIME", "ACTIVE_ENERGY"]
    assert list(frame["paused"]) == [True, False]
    assert list(frame.columns) == ["active_energy_burned", "active_energy_burned_goal", "apple_move_time",
                                   "apple_move_time_goal", "apple_exercise_time", "exercise_time_goal",
                                   "apple_stand_hours", "stand_hours_goal", "move_mode", "paused"]
    empty = ohk.ActivitySummaryList().to_pandas()
    assert len(empty) == 0 and list(empty.columns) == list(frame.columns)
    # The calendar's whole range, which nanosecond timestamps do not reach.
    ends = ohk.ActivitySummaryList([Summary(date(1, 1, 1)), Summary(date(9999, 12, 31))]).to_pandas()
    assert [str(d.date()) for d in ends.index] == ["0001-01-01", "9999-12-31"]


def test_rule_43_an_import_keeps_the_exports_summaries(store):
    report = ohk.import_export(os.path.join(FIXTURES, "export-small-a.xml"), store)
    row = next(r for r in report.contents if r.kind == "ActivitySummary")
    summaries, seen = store.activity_summary_changes()
    assert row.imported == len(summaries) == 17
    assert summaries[0] == Summary(date(2020, 11, 20), 487.231, 300, 0, 0, 74, 30, 16, 11)
    assert [s.day for s in summaries] == sorted(s.day for s in summaries)
    # Imported again: already stored, not a change.
    ohk.import_export(os.path.join(FIXTURES, "export-small-a.xml"), store)
    assert store.activity_summary_changes(seen) == ([], seen)


def test_rule_43_a_watch_gets_the_days_then_only_what_a_commit_changed(store):
    store.save_activity_summaries([MARCH_2])
    inbox = Inbox()
    query = store.watch_activity_summaries(inbox.put, date(2024, 3, 1), date(2024, 3, 31))
    first = inbox.wait(1)[0]
    assert first.initial and first.summaries == [MARCH_2]
    store.save(steps(1))  # a commit that changes no summary calls nothing
    changed = Summary(date(2024, 3, 2), apple_stand_hours=11)
    store.save_activity_summaries([changed, Summary(date(2024, 4, 1), apple_stand_hours=1)])
    second = inbox.wait(2)[1]
    assert not second.initial and second.summaries == [changed]  # April is outside the days
    query.close()
    assert len(inbox.items) == 2 and query.error is None
    with pytest.raises(ohk.InvalidArgumentError):
        store.watch_activity_summaries(inbox.put, date(2024, 3, 31), date(2024, 3, 1))
