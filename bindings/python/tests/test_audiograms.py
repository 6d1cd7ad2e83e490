"""Audiograms from Python (rule 40 of docs/semantics.md)."""

from __future__ import annotations

import math
import os
from datetime import datetime, timezone

import pytest

import openhealthkit as ohk

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures")
T = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_rule_40_an_audiogram_round_trips_its_points(store):
    [outcome] = store.save_audiogram([(1000, 20.5, None, True), (250, 35, 20), (8000, None, -5.0, None, False)], T)
    assert outcome.result is ohk.SaveResult.SAVED
    [sample] = store.query("HKDataTypeIdentifierAudiogram").samples
    assert isinstance(sample, ohk.AudiogramSample) and sample.value == 3
    points = sample.audiogram.points
    assert [p.frequency for p in points] == [250, 1000, 8000]
    assert points[0] == ohk.SensitivityPoint(250, 35, 20, None, None)
    assert points[1].left_ear == 20.5 and points[1].right_ear is None and points[1].left_ear_masked is True
    assert points[2].right_ear_masked is False


def test_rule_40_a_save_refuses_what_no_audiogram_can_draw(store):
    for bad in ([], [(500, None, None)], [(500, 10, None), (500, None, 12)], [(0, 10, None)]):
        with pytest.raises(ohk.InvalidValueError):
            store.save_audiogram(bad, T)
    with pytest.raises(ohk.InvalidValueError):
        store.save_audiogram([(500, math.nan, None)], T)  # NaN would read as "not tested" in C
    with pytest.raises(ohk.InvalidArgumentError):
        store.save_audiogram([(500,)], T)
    assert len(store.query("HKDataTypeIdentifierAudiogram").samples) == 0


def test_rule_40_an_import_keeps_the_exports_audiogram(store):
    ohk.import_export(os.path.join(FIXTURES, "export-small-b.xml"), store)
    [sample] = store.query("HKDataTypeIdentifierAudiogram").samples
    assert [(p.frequency, p.left_ear, p.right_ear) for p in sample.audiogram.points] == [
        (250, 35.0459, 20.0452), (500, 29.6554, 17.6095)]


def test_rule_40_clamping_ranges_round_trip_beside_their_ear(store):
    store.save_audiogram([
        ohk.SensitivityPoint(1000, 20, 25, True, False, ohk.ClampingRange(-10, 90), (None, 80)),
        (250, 35, None),
    ], T)
    [sample] = store.query("HKDataTypeIdentifierAudiogram").samples
    low, high = sample.audiogram.points
    assert low.left_ear_clamping is None and low.right_ear_clamping is None
    assert high.left_ear_clamping == ohk.ClampingRange(-10, 90)
    assert high.right_ear_clamping == ohk.ClampingRange(None, 80)
    assert high.right_ear_masked is False


def test_rule_40_a_save_refuses_a_clamping_range_that_is_not_one(store):
    for bad in ((None, None), (50, 40), (math.nan, 40)):
        with pytest.raises(ohk.InvalidValueError):
            store.save_audiogram([(500, 20, None, None, None, bad)], T)
    with pytest.raises(ohk.InvalidValueError):  # a range for an ear not tested
        store.save_audiogram([(500, 20, None, None, None, None, (0, 10))], T)
    with pytest.raises(ohk.ArgumentTypeError):
        store.save_audiogram([(500, 20, None, None, None, 5)], T)
    assert len(store.query("HKDataTypeIdentifierAudiogram").samples) == 0
