"""`ohk export`: CSV, NDJSON and Parquet folders, read back by DuckDB and
checked against `ohk stats` (rule 72)."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import time

import duckdb
import pytest

from conftest import OHK, ROOT, STEPS, WAIT, environment, ohk


def one(sql: str):
    """The single value a query answers."""
    [(value,)] = duckdb.sql(sql).fetchall()
    return value


def stats_counts(store) -> dict[str, int]:
    summary = json.loads(ohk("stats", "--store", str(store), "--format", "json").stdout)
    return {t: v["samples"] for t, v in summary["types"].items()}


def daily_sums_by_source(store) -> dict[tuple[str, str], float]:
    """`ohk stats StepCount --by day --by-source`, in UTC: each source's own sum per day."""
    text = ohk("stats", "--store", str(store), "StepCount", "--by", "day", "--by-source", "--utc-offset", "0",
               "--format", "csv").stdout
    return {(row["start"][:10], row["source"]): float(row["sum"]) for row in csv.DictReader(io.StringIO(text))
            if row["source"] != "all" and row["sum"]}


def duck_daily_sums(relation: str) -> dict[tuple[str, str], float]:
    rows = duckdb.sql(f"select strftime(cast(start_date as timestamptz) at time zone 'UTC', '%Y-%m-%d') d, source, "
                      f"sum(cast(value as double)) from {relation} group by d, source").fetchall()
    return {(d, s): v for d, s, v in rows}


def test_rule_72_ohk_export_parquet_is_what_ohk_stats_counts(store, tmp_path):
    out = tmp_path / "parquet"
    done = ohk("export", "--store", str(store), "--format", "parquet", "--out", str(out))
    assert "wrote" in done.stdout
    every = f"read_parquet('{out}/samples/*.parquet', union_by_name=true)"
    counts = dict(duckdb.sql(f"select type, count(*) from {every} group by type").fetchall())
    assert counts == stats_counts(store)
    assert duck_daily_sums(f"read_parquet('{out}/samples/{STEPS}.parquet')") == pytest.approx(daily_sums_by_source(store))
    described = {r[0]: r[1] for r in duckdb.sql(f"describe select * from read_parquet('{out}/samples/{STEPS}.parquet')")
                 .fetchall()}
    assert described["value"] == "DOUBLE" and described["start_date"] == "TIMESTAMP WITH TIME ZONE"
    assert described["utc_offset"] == "INTEGER"  # typed columns: no numbers as text


@pytest.mark.parametrize("fmt", ["csv", "ndjson"])
def test_rule_72_text_exports_are_typed_and_kept_current(store, tmp_path, fmt):
    out = tmp_path / fmt
    since = tmp_path / "since.anchor"
    ohk("export", "--store", str(store), "--format", fmt, "--out", str(out), "--since", str(since))
    reader = "read_csv" if fmt == "csv" else "read_json"
    steps = f"{reader}('{out}/samples/{STEPS}.{fmt}')"
    assert one(f"select count(*) from {steps}") == stats_counts(store)[STEPS]
    value_type = dict((r[0], r[1]) for r in duckdb.sql(f"describe select * from {steps}").fetchall())["value"]
    assert value_type in ("DOUBLE", "BIGINT")  # numbers, not text
    if fmt == "csv":
        assert duck_daily_sums(steps) == pytest.approx(daily_sums_by_source(store))
    assert since.read_text() == (out / "anchor").read_text()

    # A change, then the same command: the folder follows the store.
    first = str(one(f"select uuid from {steps} limit 1")).upper()
    ohk("delete", "--store", str(store), first)
    ohk("add", "--store", str(store), "StepCount", "12345", "--start", "2024-03-01T08:00:00Z",
        "--end", "2024-03-01T08:01:00Z")
    done = ohk("export", "--store", str(store), "--format", fmt, "--out", str(out), "--since", str(since))
    assert "updated 1 file" in done.stdout
    assert one(f"select count(*) from {steps}") == stats_counts(store)[STEPS]
    assert one(f"select count(*) from {steps} where value = 12345") == 1
    assert one(f"select count(*) from {steps} where upper(cast(uuid as varchar)) = '{first}'") == 0
    deletions = f"{reader}('{out}/deletions.{fmt}')"
    assert one(f"select count(*) from {deletions}") == 1
    assert not list(out.rglob("*.partial")) and not list(out.rglob("*.new"))


def test_parquet_without_the_python_extra_says_what_to_install(store, tmp_path):
    done = ohk("export", "--store", str(store), "--format", "parquet", "--out", str(tmp_path / "p"), check=False,
               OHK_PYTHON=str(tmp_path / "no-python-here"))
    assert done.returncode == 69
    assert "pip install 'openhealthkit[arrow]'" in done.stderr and not (tmp_path / "p").exists()


def test_bad_input_is_a_clear_error_and_writes_nothing(store, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = ohk("export", "--store", str(store), "--format", "csv", "--out", str(blocker / "out"), check=False)
    assert done.returncode != 0 and "cannot write the export" in done.stderr
    done = ohk("export", "--store", str(store), "--format", "csv", "--out", str(tmp_path / "o"), "NoSuchType",
               check=False)
    assert done.returncode != 0 and "NoSuchType" in done.stderr
    assert not (tmp_path / "o" / "anchor").exists()
    done = ohk("export", "--store", str(store), "--format", "xml", "--out", str(tmp_path / "o"), check=False)
    assert done.returncode != 0 and "csv" in done.stderr


def test_an_export_killed_midway_leaves_only_whole_files(tmp_path):
    # A generated export large enough that the kill lands while rows are written.
    store = tmp_path / "big"
    source = tmp_path / "export.xml"
    subprocess.run(["python3", str(ROOT / "scripts" / "gen_export.py"), "--size", "30M", str(source)],
                   check=True, timeout=300)
    ohk("import", "--store", str(store), str(source))
    out = tmp_path / "csv"
    ohk("export", "--store", str(store), "--format", "csv", "--out", str(out))
    before = {p.name: p.read_bytes() for p in (out / "samples").iterdir()}
    (out / "anchor").unlink()  # the next run rewrites every file
    run = subprocess.Popen([OHK, "export", "--store", str(store), "--format", "csv", "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment())
    deadline = time.monotonic() + WAIT
    while not list((out / "samples").glob(".*.new")):  # rows being written: the moment to kill it
        assert run.poll() is None, "the export ended before it was seen writing"
        assert time.monotonic() < deadline, "the export was never seen writing"
        time.sleep(0.001)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=WAIT)
    # Every file under its final name is whole: the last complete run's.
    assert {p.name: p.read_bytes() for p in (out / "samples").iterdir() if not p.name.startswith(".")} == before
    ohk("export", "--store", str(store), "--format", "csv", "--out", str(out))  # the next run completes it
    assert {p.name: p.read_bytes() for p in (out / "samples").iterdir()} == before
    assert one(f"select count(*) from read_csv('{out}/samples/{STEPS}.csv')") == stats_counts(store)[STEPS]
