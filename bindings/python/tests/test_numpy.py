"""Columnar reads: a batch as NumPy arrays."""

from __future__ import annotations

from datetime import timedelta

import pytest

import openhealthkit as ohk
from conftest import HEART, STEPS, T0, heart, steps

np = pytest.importorskip("numpy")


def test_columns_match_the_samples(store):
    store.save([steps(i, value=i) for i in range(50)] + [heart(i, 60 + i) for i in range(5)])
    result = store.query([STEPS, HEART])
    columns = result.samples.to_numpy()
    samples = list(result.samples)
    assert len(columns) == len(samples) == 55
    assert columns.value.dtype == np.float64 and list(columns.value) == [s.value for s in samples]
    assert columns.start.dtype == np.dtype("datetime64[us]")
    assert columns.start[3] == np.datetime64((T0 + timedelta(minutes=3)).replace(tzinfo=None))
    assert list(columns.end - columns.start)[0] == np.timedelta64(60, "s")
    assert [columns.types[i].identifier for i in columns.type] == [s.sample_type.identifier for s in samples]
    assert [columns.revisions[i] for i in columns.revision] == [s.source for s in samples]
    assert [columns.sources[i].bundle_identifier for i in columns.source] == [s.source.bundle_identifier for s in samples]
    assert bytes(columns.uuid[7]) == samples[7].uuid.bytes


def test_columns_are_copies_that_outlive_the_batch(store):
    store.save([steps(i, value=i) for i in range(10)])
    columns = store.query(STEPS).samples.to_numpy()
    import gc
    gc.collect()
    assert columns.value.sum() == 45
    base = columns.value
    while base.base is not None:  # a view of the one block the library filled
        base = base.base
    assert base.flags.owndata  # NumPy's memory, not the batch's


def test_columns_of_a_batch_lent_to_a_callback_match_its_samples(store):
    # The library frees a lent batch when the callback returns: its columns
    # come from the records copied during the call.
    import queue
    store.save([steps(i, value=i) for i in range(20)])
    inbox: queue.Queue = queue.Queue()
    with store.watch(STEPS, lambda query, result: inbox.put((result.samples.to_numpy(), list(result.samples)))):
        columns, samples = inbox.get(timeout=20)
    assert list(columns.value) == [s.value for s in samples] == [float(i) for i in range(20)]
    assert [bytes(u) for u in columns.uuid] == [s.uuid.bytes for s in samples]
    assert columns.start[5] == np.datetime64((T0 + timedelta(minutes=5)).replace(tzinfo=None))


def test_columns_and_records_of_one_batch_agree_in_either_order(store):
    store.save([steps(i, value=i) for i in range(30)] + [heart(i, 60 + i) for i in range(3)])
    first = store.query([STEPS, HEART])
    samples = list(first.samples)  # records laid out first
    columns_after = first.samples.to_numpy()
    second = store.query([STEPS, HEART])
    columns_before = second.samples.to_numpy()  # columns from a batch without records
    assert [s.value for s in second.samples] == [s.value for s in samples]
    for columns in (columns_after, columns_before):
        assert list(columns.value) == [s.value for s in samples]
        assert [bytes(u) for u in columns.uuid] == [s.uuid.bytes for s in samples]
        assert [columns.revisions[i] for i in columns.revision] == [s.source for s in samples]
    assert [columns.sources[i].bundle_identifier for i in columns.source] == [s.source.bundle_identifier for s in samples]


def test_an_empty_batch_gives_empty_columns(store):
    columns = store.query(STEPS).samples.to_numpy()
    assert len(columns) == 0 and columns.start.shape == (0,) and columns.uuid.shape == (0, 16)


def test_sources_and_their_revisions_are_kept_apart(store):
    """Issue 32: one code per app, one per version of it; pandas takes both."""
    v1 = ohk.Source("com.example.app", "App", "1.0")
    v2 = ohk.Source("com.example.app", "App", "2.0")
    other = ohk.Source("com.example.other", "Other")
    store.save([steps(0, source=v1), steps(1, source=v2), steps(2, source=other), steps(3, source=v1)])
    samples = store.query(STEPS).samples
    columns = samples.to_numpy()
    assert [s.bundle_identifier for s in columns.sources] == ["com.example.app", "com.example.other"]
    assert list(columns.source) == [0, 0, 1, 0]
    assert [columns.revisions[i] for i in columns.revision] == [s.source for s in samples]
    pd = pytest.importorskip("pandas")
    categorical = pd.Categorical.from_codes(columns.source, [s.bundle_identifier for s in columns.sources])
    assert list(categorical) == ["com.example.app", "com.example.app", "com.example.other", "com.example.app"]


def test_to_numpy_and_to_pandas_in_a_unit(store):
    """Issue 32: values in any unit asked for; pandas in the display unit."""
    store.save([heart(i, 60 + i) for i in range(3)])
    samples = store.query(HEART).samples
    assert list(samples.to_numpy().value) == pytest.approx([1.0, 61 / 60, 62 / 60])  # count/s, canonical
    assert list(samples.to_numpy(unit="count/min").value) == pytest.approx([60, 61, 62])
    with pytest.raises(ohk.OpenHealthKitError):
        samples.to_numpy(unit="kg")
    pd = pytest.importorskip("pandas")
    frame = samples.to_pandas()
    assert list(frame["value"]) == pytest.approx([60, 61, 62]) and list(frame["type"]) == ["HeartRate"] * 3
    assert frame.index.name == "start" and str(frame.index.tz) == "UTC"
    assert frame.index[1] == pd.Timestamp(T0 + timedelta(minutes=1))
    assert list(samples.to_pandas("count/s")["value"]) == pytest.approx([1.0, 61 / 60, 62 / 60])
    assert frame["source"].dtype == "category" and "uuid" not in frame
    assert str(samples[0].uuid) == samples.to_pandas(uuids=True)["uuid"].iloc[0]


def test_deleted_objects_as_columns(store):
    """Issue 32: columns for deleted objects too."""
    saved = [steps(i) for i in range(4)]
    store.save(saved)
    anchor = store.query(STEPS).anchor
    store.delete([saved[1].uuid, saved[3].uuid])
    deleted = store.query(STEPS, anchor).deleted
    columns = deleted.to_numpy()
    assert len(columns) == 2 and [bytes(u) for u in columns.uuid] == [saved[1].uuid.bytes, saved[3].uuid.bytes]
    assert columns.start[0] == np.datetime64((T0 + timedelta(minutes=1)).replace(tzinfo=None))
    assert list(columns.end - columns.start) == [np.timedelta64(60, "s")] * 2
    assert [columns.types[i].identifier for i in columns.type] == [d.sample_type.identifier for d in deleted]
    assert [columns.sources[i].bundle_identifier for i in columns.source] == [d.source.bundle_identifier for d in deleted]
    # Deletion dates are taken at the deletion, to the microsecond (either rounding).
    gap = columns.deletion_date[0] - np.datetime64(deleted[0].deletion_date.replace(tzinfo=None), "us")
    assert abs(gap) <= np.timedelta64(1, "us")
    later = store.query(STEPS, store.query(STEPS).anchor)
    assert len(later.deleted.to_numpy()) == 0 and later.deleted.to_numpy().uuid.shape == (0, 16)


def _same_columns(a, b) -> None:
    assert len(a) == len(b)
    for field in ("uuid", "start", "end", "value", "type", "source", "revision"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.types == b.types and a.sources == b.sources and a.revisions == b.revisions


def test_query_columns_reads_what_query_reads(store):
    """Issue 32: the columns written as the query reads equal the batch's."""
    other = ohk.Source("com.example.other", "Other", "2.0")
    store.save([steps(i, value=i, source=other if i % 3 == 0 else ohk.DEFAULT_SOURCE) for i in range(40)]
               + [heart(i, 60 + i) for i in range(6)])
    for types, predicate in ((STEPS, None), ([STEPS, HEART], None),
                             ([STEPS, HEART], ohk.Predicate("startDate >= $1", T0 + timedelta(minutes=3)))):
        result = store.query_columns(types, predicate=predicate)
        expected = store.query(types, predicate=predicate)
        _same_columns(result.samples, expected.samples.to_numpy())
        assert result.anchor == expected.anchor and len(result.deleted) == 0
    samples, deleted, anchor = store.query_columns(HEART, unit="count/min")
    assert list(samples.value) == pytest.approx([60, 61, 62, 63, 64, 65])


def test_query_columns_limit_anchor_and_deleted_objects(store):
    saved = [steps(i, value=i) for i in range(10)]
    store.save(saved)
    first = store.query_columns(STEPS, limit=4)
    assert list(first.samples.value) == [0, 1, 2, 3]
    rest = store.query_columns(STEPS, first.anchor)
    assert list(rest.samples.value) == [4, 5, 6, 7, 8, 9]
    store.delete([saved[2].uuid])
    store.save(steps(20, value=20))
    delta = store.query_columns(STEPS, rest.anchor)
    assert list(delta.samples.value) == [20]
    assert [bytes(u) for u in delta.deleted.uuid] == [saved[2].uuid.bytes]
    assert len(store.query_columns(STEPS, delta.anchor).samples) == 0
    assert len(store.query_columns(HEART).samples) == 0  # a type never saved


def test_query_columns_runs_again_when_a_save_outgrew_its_bound(store, monkeypatch):
    """A save between the bound and the read leaves the columns full: the
    query runs again with a new bound rather than return part."""
    from openhealthkit import _native as n
    store.save([steps(i, value=i) for i in range(12)])
    real, calls = n.lib.ohk_store_fetch_bound, []

    def stale(out, *args):  # the first bound as it was before 10 of the samples
        status = real(out, *args)
        calls.append(out.value)
        if len(calls) == 1:
            out.value = 2
        return status

    monkeypatch.setattr(n.lib, "ohk_store_fetch_bound", stale)
    result = store.query_columns(STEPS)
    assert len(calls) == 2 and list(result.samples.value) == list(map(float, range(12)))


def test_query_columns_outlive_the_query_and_the_store(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        store.save([steps(i, value=i) for i in range(10)])
        samples = store.query_columns(STEPS).samples
    import gc
    gc.collect()
    assert samples.value.sum() == 45 and samples.value.flags.writeable
    assert bytes(samples.uuid[9]) != bytes(16)


def test_to_pandas_without_pandas_says_how_to_get_it(store, monkeypatch):
    """Issue 32: pandas is optional. Without it, each to_pandas() raises
    ImportError naming the extra to install; the rest still works."""
    import sys
    store.save([steps(i, value=i) for i in range(3)])
    result = store.query(STEPS)
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` fails
    for call in (result.samples.to_pandas, result.samples.to_numpy().to_pandas,
                 store.query_columns(STEPS).samples.to_pandas,
                 store.statistics_collection(STEPS, start=T0, end=T0 + timedelta(days=1)).to_pandas):
        with pytest.raises(ImportError, match=r"pip install 'openhealthkit\[pandas\]'"):
            call()
    assert list(result.samples.to_numpy().value) == [0, 1, 2]
