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
    assert columns.value.sum() == 45 and columns.value.flags.owndata


def test_an_empty_batch_gives_empty_columns(store):
    columns = store.query(STEPS).samples.to_numpy()
    assert len(columns) == 0 and columns.start.shape == (0,) and columns.uuid.shape == (0, 16)
