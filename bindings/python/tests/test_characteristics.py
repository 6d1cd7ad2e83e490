"""The person's characteristics from Python (rule 38 of docs/semantics.md)."""

from __future__ import annotations

import datetime
import os

import pytest

import openhealthkit as ohk

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures")


def test_rule_38_characteristics_are_not_set_until_set_and_read_back(store):
    assert store.characteristics() == ohk.Characteristics()
    me = ohk.Characteristics(datetime.date(1992, 2, 29), ohk.BiologicalSex.FEMALE, ohk.BloodType.A_NEGATIVE,
                             ohk.FitzpatrickSkinType.III, ohk.WheelchairUse.NO)
    anchor = store.current_anchor()
    store.set_characteristics(me)
    assert store.characteristics() == me
    assert store.current_anchor() == anchor  # not a change of samples
    assert int(ohk.BloodType.O_NEGATIVE) == 8 and int(ohk.BiologicalSex.OTHER) == 3


def test_rule_38_values_healthkit_does_not_have_are_refused(store):
    with pytest.raises(ohk.InvalidValueError):
        store.set_characteristics(ohk.Characteristics(blood_type=9))  # type: ignore[arg-type]
    with pytest.raises(ohk.ArgumentTypeError):
        store.set_characteristics(ohk.Characteristics(date_of_birth="1990-01-01"))  # type: ignore[arg-type]
    with pytest.raises(ohk.ArgumentTypeError):
        store.set_characteristics({"blood_type": 1})  # type: ignore[arg-type]
    assert store.characteristics() == ohk.Characteristics()


def test_rule_38_an_import_sets_what_the_exports_me_gives(store):
    report = ohk.import_export(os.path.join(FIXTURES, "export-small-b.xml"), store)
    assert store.characteristics() == ohk.Characteristics(datetime.date(1971, 7, 9), ohk.BiologicalSex.MALE)
    row = next(r for r in report.contents if r.kind == "Me")
    assert row.imported == 1 and "biological sex" in row.note
