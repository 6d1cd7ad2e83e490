"""Columnar reads: a batch as NumPy arrays."""

from __future__ import annotations

from datetime import timedelta

import pytest

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
    assert [columns.sources[i] for i in columns.source] == [s.source for s in samples]
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
        assert [columns.sources[i] for i in columns.source] == [s.source for s in samples]


def test_an_empty_batch_gives_empty_columns(store):
    columns = store.query(STEPS).samples.to_numpy()
    assert len(columns) == 0 and columns.start.shape == (0,) and columns.uuid.shape == (0, 16)
