"""A Parquet folder kept current from a store, read back with DuckDB."""

from __future__ import annotations

import os
from datetime import timedelta, timezone

import duckdb
import pyarrow.parquet as pq
import pytest

import openhealthkit as ohk
from conftest import HEART, SLEEP, STEPS, T0, heart, steps


def _day_sums(store):
    midnight = T0.replace(hour=0)
    collection = store.statistics_collection(STEPS, start=midnight, end=midnight + timedelta(days=8), interval="day")
    return {s.start.astimezone(timezone.utc).date(): s.sum for s in collection if s.sum is not None}


def _duck_day_sums(folder):
    rows = duckdb.sql(f"select cast(date_trunc('day', start_date at time zone 'UTC') as date) d, sum(value) "
                      f"from read_parquet('{folder}/samples/{STEPS}.parquet') group by d order by d").fetchall()
    return dict(rows)


def _fill(store):
    store.save([steps(i * 30, value=7 + i % 5) for i in range(3 * 48)])  # every 30 minutes for 3 days
    store.save([heart(i, 50 + i % 40) for i in range(200)])
    store.save([ohk.CategorySample(SLEEP, T0 + timedelta(hours=h), T0 + timedelta(hours=h + 1), 3) for h in range(5)])


def test_rule_72_a_parquet_folder_has_the_stores_samples_typed(store, tmp_path):
    _fill(store)
    folder = tmp_path / "export"
    report = store.export_parquet(folder)
    assert not report.incremental and report.rows == {STEPS: 144, HEART: 200, SLEEP: 5}
    counts = dict(duckdb.sql(f"select type, count(*) from read_parquet('{folder}/samples/*.parquet', "
                             f"union_by_name=true) group by type").fetchall())
    assert counts == {t.type: t.samples for t in store.summary(spans=False)}
    assert _duck_day_sums(folder) == _day_sums(store)
    described = duckdb.sql(f"describe select * from read_parquet('{folder}/samples/{HEART}.parquet')").fetchall()
    columns = {row[0]: row[1] for row in described}
    assert columns["value"] == "DOUBLE" and columns["utc_offset"] == "INTEGER"  # no numbers as text
    assert columns["start_date"] == "TIMESTAMP WITH TIME ZONE" and columns["uuid"] == "BLOB"
    assert (folder / "anchor").read_text().strip() == str(report.anchor) == str(store.current_anchor())


def test_rule_72_a_later_export_brings_the_folder_up_to_date(store, tmp_path):
    _fill(store)
    folder = tmp_path / "export"
    store.export_parquet(folder)
    heart_file = folder / "samples" / f"{HEART}.parquet"
    untouched = heart_file.stat().st_mtime_ns
    gone = list(store.query(STEPS).samples)[:3]
    store.delete(gone)
    store.save([steps(10_000, value=1000)])
    report = store.export_parquet(folder)
    assert report.incremental and set(report.rows) == {STEPS} and report.deleted == 3
    assert heart_file.stat().st_mtime_ns == untouched  # only the types that changed are rewritten
    assert pq.read_table(folder / "samples" / f"{STEPS}.parquet").num_rows == 144 - 3 + 1
    assert _duck_day_sums(folder) == _day_sums(store) | {(T0 + timedelta(minutes=10_000)).date(): 1000}
    deletions = pq.read_table(folder / "deletions.parquet")
    assert sorted(deletions.column("uuid").to_pylist()) == sorted(s.uuid.bytes for s in gone)
    # Nothing changed: nothing rewritten, the anchor stays.
    again = store.export_parquet(folder)
    assert again.rows == {} and again.anchor == report.anchor


def test_rule_72_an_interrupted_export_leaves_whole_files_and_repeats(store, tmp_path, monkeypatch):
    _fill(store)
    folder = tmp_path / "export"
    first = store.export_parquet(folder)
    store.save([steps(5000 + i, value=1) for i in range(10)] + [heart(5000, 99)])
    real = pq.write_table
    calls = []

    def fail_second(table, where, *args, **kwargs):
        calls.append(where)
        if len(calls) == 2:
            real(table.slice(0, 1), where)  # half written, then the machine stops
            raise OSError("disk full")
        return real(table, where, *args, **kwargs)

    monkeypatch.setattr(pq, "write_table", fail_second)
    with pytest.raises(OSError, match="disk full"):
        store.export_parquet(folder)
    monkeypatch.setattr(pq, "write_table", real)
    assert not [p for p in folder.rglob("*") if p.name.endswith(".partial")]
    assert (folder / "anchor").read_text().strip() == str(first.anchor)  # not moved on
    for path in (folder / "samples").iterdir():
        pq.read_table(path)  # every file whole
    store.export_parquet(folder)  # repeats the changes: a row per UUID, never two
    for kind in (STEPS, HEART):
        table = pq.read_table(folder / "samples" / f"{kind}.parquet")
        assert table.num_rows == len(set(table.column("uuid").to_pylist())) == len(list(store.query(kind).samples))


def test_bad_input_is_a_clear_error_and_writes_nothing(store, tmp_path):
    _fill(store)
    with pytest.raises(ohk.UnknownTypeError):
        store.export_parquet(tmp_path / "a", ["HKQuantityTypeIdentifierNoSuchThing"])
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ohk.InvalidArgumentError, match="cannot write the export"):
        store.export_parquet(blocker / "export")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "anchor").write_text("")
    with pytest.raises(ohk.InvalidArgumentError, match="empty"):
        store.export_parquet(tmp_path / "b")


def test_an_export_of_some_types_and_of_an_empty_store(store, tmp_path):
    report = store.export_parquet(tmp_path / "empty")
    assert report.rows == {} and pq.read_table(tmp_path / "empty" / "deletions.parquet").num_rows == 0
    _fill(store)
    report = store.export_parquet(tmp_path / "some", ["StepCount"])
    assert report.rows == {STEPS: 144}
    assert os.listdir(tmp_path / "some" / "samples") == [f"{STEPS}.parquet"]
