"""Arrow tables from the library (the Arrow C Data Interface): what each
column holds, units, the memory the table owns, and DuckDB reading it."""

from __future__ import annotations

import gc
import json
from datetime import datetime, timedelta, timezone

import pytest

import openhealthkit as ohk
from conftest import HEART, SLEEP, STEPS, T0, heart, steps

import pyarrow as pa  # noqa: E402 - test dependencies (make py-deps): a missing one fails, never skips
import pyarrow.compute  # noqa: E402,F401
import duckdb  # noqa: E402

PHONE = ohk.Source("com.apple.health.phone", "Alice's iPhone", "17.1")
WATCH = ohk.Source("com.apple.health.watch", "Alice's Watch", "10.1")
WATCH_DEVICE = ohk.Device(name="Apple Watch", manufacturer="Apple Inc.", model="Watch6,2")


def _mixed(store):
    store.save([steps(i, value=i + 1, source=PHONE if i % 2 else WATCH, device=None if i % 2 else WATCH_DEVICE,
                      metadata={"HKWasUserEntered": True, "note": f"n{i}"} if i % 3 == 0 else None,
                      utc_offset=timedelta(hours=-8) if i % 4 == 0 else None)
                for i in range(40)])
    store.save([heart(i, 55 + i) for i in range(10)])


def test_rule_71_arrow_columns_are_the_samples_and_absent_is_null(store):
    _mixed(store)
    table, deleted, anchor = store.query_arrow([STEPS, HEART])
    samples = list(store.query([STEPS, HEART]).samples)
    assert table.num_rows == len(samples) == 50 and deleted.num_rows == 0 and anchor
    assert table.column_names == ["uuid", "start_date", "end_date", "value", "unit", "type", "source",
                                  "source_bundle", "device", "metadata", "utc_offset", "creation_date"]
    schema = table.schema
    assert schema.field("uuid").type == pa.binary(16)
    assert schema.field("start_date").type == pa.timestamp("us", tz="UTC")
    assert schema.field("value").type == pa.float64()
    for name in ("unit", "type", "source", "source_bundle", "device"):
        assert pa.types.is_dictionary(schema.field(name).type), name
    assert schema.field("metadata").type == pa.large_string()
    rows = table.to_pylist()
    for row, s in zip(rows, samples):
        assert row["uuid"] == s.uuid.bytes
        assert row["start_date"] == s.start_date and row["end_date"] == s.end_date
        assert row["value"] == s.value  # canonical units, exactly as stored
        assert row["type"] == s.sample_type.identifier
        assert row["unit"] == s.sample_type.canonical_unit
        assert row["source"] == s.source.name and row["source_bundle"] == s.source.bundle_identifier
        assert row["device"] == (s.device.name if s.device else None)
        assert (json.loads(row["metadata"]) if row["metadata"] is not None else {}) == s.metadata
        offset = s.utc_offset
        assert row["utc_offset"] == (None if offset is None else int(offset.total_seconds()))
        assert row["creation_date"] == s.creation_date


def test_batch_to_arrow_is_the_same_table(store):
    _mixed(store)
    result = store.query([STEPS, HEART])
    assert result.samples.to_arrow().equals(store.query_arrow([STEPS, HEART]).samples)


def test_columns_keeps_only_those_named(store):
    _mixed(store)
    table = store.query_arrow(STEPS, columns=["value", "start_date"]).samples
    assert table.column_names == ["start_date", "value"]  # the table's order, not the argument's
    with pytest.raises(ohk.InvalidArgumentError, match="'colour' is not a column"):
        store.query_arrow(STEPS, columns=["colour"])


def test_rule_44_values_in_another_unit_agree_with_value_in(store):
    store.save([heart(i, bpm) for i, bpm in enumerate([62, 61.5, 180, 33.3333])])
    table = store.query_arrow(HEART, unit="count/min").samples
    samples = list(store.query(HEART).samples)
    assert table.column("value").to_pylist() == [s.value_in("count/min") for s in samples] == [62, 61.5, 180, 33.3333]
    assert set(table.column("unit").to_pylist()) == {"count/min"}
    assert table.schema.field("value").metadata == {b"unit": b"count/min"}


def test_rule_71_a_bad_unit_or_type_is_refused(store):
    store.save([heart(0), ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=1), 1)])
    with pytest.raises(ohk.IncompatibleUnitError, match="different dimensions"):
        store.query_arrow(HEART, unit="kg")
    with pytest.raises(ohk.IncompatibleUnitError, match="category type"):
        store.query_arrow(SLEEP, unit="min")
    with pytest.raises(ohk.InvalidUnitError):
        store.query_arrow(HEART, unit="parsec/fortnight^")
    with pytest.raises(ohk.UnknownTypeError):
        store.query_arrow("HKQuantityTypeIdentifierNoSuchThing")


def test_category_rows_have_no_unit(store):
    store.save([ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=1), 3), heart(0)])
    rows = store.query_arrow([SLEEP, HEART]).samples.to_pylist()
    assert [(r["value"], r["unit"]) for r in rows] == [(3.0, None), (1.0, "count/s")]


def test_query_arrow_from_an_anchor_has_only_the_changes(store):
    store.save([steps(i) for i in range(5)])
    first, _, anchor = store.query_arrow(STEPS)
    gone = list(store.query(STEPS).samples)[1]
    store.delete([gone])
    store.save([steps(10, value=99)])
    table, deleted, _ = store.query_arrow(STEPS, anchor)
    assert table.column("value").to_pylist() == [99] and first.num_rows == 5
    assert deleted.column("uuid").to_pylist() == [gone.uuid.bytes]
    assert deleted.column("type").to_pylist() == [STEPS]


def test_rule_71_the_columns_are_not_copied_and_outlive_everything(store):
    store.save([steps(i, value=i) for i in range(20_000)])
    before = pa.total_allocated_bytes()
    table = store.query_arrow(STEPS).samples
    # pyarrow allocated none of the columns: they are the library's memory.
    assert pa.total_allocated_bytes() - before < 20_000 * 8
    value = table.column("value")
    del table
    gc.collect()
    assert value.to_numpy().sum() == sum(range(20_000))  # a child kept alone keeps its memory


def test_duckdb_reads_the_table_with_typed_columns(store):
    store.save([steps(i, value=10, source=PHONE) for i in range(3 * 24 * 6)])  # 10-minute steps, 3 days
    store.save([steps(i * 10, value=10, source=PHONE) for i in range(3 * 24 * 6)])
    samples = store.query_arrow(STEPS).samples  # noqa: F841 - read by DuckDB by name
    rows = duckdb.sql("select cast(date_trunc('day', start_date) as date) d, sum(value) s, typeof(value) t "
                      "from samples group by d, t order by d").fetchall()
    counted = {}
    for s in store.query(STEPS).samples:
        day = s.start_date.astimezone(timezone.utc).date()
        counted[day] = counted.get(day, 0) + s.value
    assert [(d, s) for d, s, _ in rows] == sorted(counted.items())
    assert {t for *_, t in rows} == {"DOUBLE"}


def test_rule_71_statistics_to_arrow_has_nulls_not_nan(store):
    store.save([steps(i * 60, value=100, source=PHONE) for i in range(48)])
    store.save([steps(i * 60 + 1, value=5, source=WATCH) for i in range(48)])
    collection = store.statistics_collection(STEPS, ohk.StatisticsOptions.CUMULATIVE_SUM
                                             | ohk.StatisticsOptions.SEPARATE_BY_SOURCE,
                                             start=T0, end=T0 + timedelta(days=2), interval="day")
    table = collection.to_arrow()
    merged = table.filter(pa.compute.is_null(table.column("source")))
    assert merged.column("sum").to_pylist() == [s.sum for s in collection]
    assert merged.column("start_date").to_pylist() == [s.start for s in collection]
    assert merged.column("count").to_pylist() == [s.count for s in collection]
    assert merged.column("average").null_count == merged.num_rows  # not asked for: nulls, not NaN
    per_source = table.filter(pa.compute.is_valid(table.column("source")))
    expected = [(s.start, b, v.sum) for s in collection for b, v in s.by_source.items()]
    got = list(zip(per_source.column("start_date").to_pylist(), per_source.column("source_bundle").to_pylist(),
                   per_source.column("sum").to_pylist()))
    assert sorted(got) == sorted(expected)
    assert table.schema.field("sum").metadata == {b"unit": b"count"}


def test_statistics_to_arrow_in_a_unit(store):
    store.save([heart(i, 60 + i) for i in range(10)])
    collection = store.statistics_collection(HEART, ohk.StatisticsOptions.DISCRETE_AVERAGE,
                                             start=T0, end=T0 + timedelta(hours=1), interval="hour")
    table = collection.to_arrow()  # the list's own unit: count/min for heart rate
    assert table.column("average").to_pylist() == [s.average for s in collection]
    assert table.schema.field("average").metadata == {b"unit": b"count/min"}
    with pytest.raises(ohk.IncompatibleUnitError):
        collection.to_arrow("kg")


def test_to_arrow_without_pyarrow_says_what_to_install(store, monkeypatch):
    import builtins
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "pyarrow":
            raise ImportError("no pyarrow here")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(ImportError, match=r"openhealthkit\[arrow\]"):
        store.query_arrow(STEPS)


def test_rule_44_arrow_rounding_agrees_with_value_in_on_random_values(store):
    import random
    rng = random.Random(44)
    mass = "HKQuantityTypeIdentifierBodyMass"
    temperature = "HKQuantityTypeIdentifierBodyTemperature"
    saved = [ohk.QuantitySample(mass, T0 + timedelta(minutes=i), T0 + timedelta(minutes=i),
                                round(rng.uniform(1, 300), rng.randrange(0, 12)), "kg") for i in range(1500)]
    saved += [ohk.QuantitySample(temperature, T0 + timedelta(minutes=i), T0 + timedelta(minutes=i),
                                 round(rng.uniform(30, 45), rng.randrange(0, 12)), "degC") for i in range(1500)]
    store.save(saved)
    for kind, unit in ((mass, "lb"), (mass, "g"), (temperature, "degF"), (temperature, "K")):
        samples = list(store.query(kind).samples)
        table = store.query_arrow(kind, unit=unit).samples
        assert table.column("value").to_pylist() == [s.value_in(unit) for s in samples], unit


def test_arrow_reader_streams_the_samples_in_batches(store):
    store.save([steps(i, value=i) for i in range(2_500)])
    store.delete(list(store.query(STEPS).samples)[:10])
    reader = store.arrow_reader(STEPS, batch_size=1_000)
    assert isinstance(reader, pa.RecordBatchReader)
    batches = list(reader)
    assert [b.num_rows for b in batches] == [1_000, 1_000, 490]
    values = [v for b in batches for v in b.column("value").to_pylist()]
    assert values == store.query_arrow(STEPS).samples.column("value").to_pylist()
    streamed = store.arrow_reader(STEPS, batch_size=700)  # noqa: F841 - read by DuckDB by name
    assert duckdb.sql("select count(*), sum(value) from streamed").fetchall() == [(2_490, sum(values))]
    with pytest.raises(ohk.InvalidArgumentError):
        store.arrow_reader(STEPS, batch_size=0)
