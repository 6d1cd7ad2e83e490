"""Rules 44 to 46, 48 and 49 of docs/semantics.md from Python: converted
values rounded to 15 significant digits, to_pandas in the display unit from
samples and columns alike, category values by name both ways, queries of
at least one type, and metadata integers the store keeps exactly."""

from __future__ import annotations

import math
import random
import struct
from datetime import timedelta

import pytest

import openhealthkit as ohk
from openhealthkit.catalogue import significant
from conftest import HEART, SLEEP, STEPS, T0, Inbox, heart, steps

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

#: Heart rates saved in count/min; the store keeps them in count/s (62 / 60...).
BPM = [62, 101.3]
BOTH = ohk.StatisticsOptions.DISCRETE_MIN | ohk.StatisticsOptions.DISCRETE_MAX


def bits(value: float) -> bytes:
    """A double's bytes: equal only when bit for bit equal (0.0 is not -0.0)."""
    return struct.pack("<d", value)


def saved_heart_rates(store) -> list[float]:
    store.save([heart(i, bpm) for i, bpm in enumerate(BPM)])
    return [s.value for s in store.query(HEART).samples]


def test_rule_44_heart_rates_saved_in_count_per_minute_read_back_as_saved_through_every_path(store):
    stored = saved_heart_rates(store)
    # What the conversion alone gives: the reason for the rule.
    assert ohk.convert(stored[0], "count/s", "count/min") == 61.99999999999999
    samples = store.query(HEART).samples
    assert [s.value_in("count/min") for s in samples] == BPM
    assert samples.to_numpy("count/min").value.tolist() == BPM
    assert samples.to_pandas()["value"].tolist() == BPM  # the display unit by default
    assert samples.to_pandas("count/min")["value"].tolist() == BPM
    assert store.query_columns(HEART, unit="count/min").samples.value.tolist() == BPM
    assert store.query_columns(HEART).samples.to_pandas()["value"].tolist() == BPM
    assert store.query_columns(HEART).samples.to_pandas("count/min")["value"].tolist() == BPM
    # Statistics: by default in the display unit, and in a unit asked for.
    for unit in (None, "count/min"):
        figures = store.statistics(HEART, BOTH, unit=unit)
        assert (figures.minimum, figures.maximum) == (62, 101.3) and figures.unit == "count/min"
    daily = store.statistics_collection(HEART, BOTH, start=T0, end=T0 + timedelta(days=1))
    assert daily[0].minimum == 62 and daily.to_pandas()["maximum"].tolist() == [101.3]
    # A batch lent to a callback is read from its copied records.
    inbox = Inbox()
    with store.watch(HEART, inbox.put):
        [result] = inbox.wait(1)
    assert result.samples.to_numpy("count/min").value.tolist() == BPM
    assert [s.value_in("count/min") for s in result.samples] == BPM


def test_rule_44_values_in_the_canonical_unit_stay_bit_exact(store):
    # Seventeen significant digits: rounding to fifteen would change them.
    exact = [0.30000000000000004, 1 / 3]
    store.save([ohk.QuantitySample(HEART, T0 + timedelta(minutes=i), T0 + timedelta(minutes=i), v, "count/s")
                for i, v in enumerate(exact)])
    store.save([steps(i, value=v) for i, v in enumerate(exact)])
    for kind, canonical in ((HEART, "count/s"), (STEPS, "count")):
        samples = store.query(kind).samples
        reads = [
            [s.value for s in samples],
            [s.value_in(canonical) for s in samples],
            samples.to_numpy().value.tolist(),
            samples.to_numpy(canonical).value.tolist(),
            samples.to_pandas(canonical)["value"].tolist(),
            store.query_columns(kind).samples.value.tolist(),
            store.query_columns(kind, unit=canonical).samples.to_pandas()["value"].tolist(),
        ]
        for read in reads:
            assert [bits(v) for v in read] == [bits(v) for v in exact], (kind, read)
    # The same unit however spelt is the identity: exact too.
    assert bits(store.query(HEART).samples[0].value_in("s^-1")) == bits(exact[0])
    figures = store.statistics(HEART, BOTH, unit="count/s")
    assert bits(figures.minimum) == bits(exact[0]) and bits(figures.maximum) == bits(exact[1])
    # StepCount's display unit is its canonical one: to_pandas leaves it exact.
    assert [bits(v) for v in store.query(STEPS).samples.to_pandas()["value"]] == [bits(v) for v in exact]


def test_rule_44_convert_is_the_librarys_unrounded_conversion():
    assert ohk.convert(1, "mi", "km") == 1.609344
    assert ohk.convert(62 / 60, "count/s", "count/min") == 62.00000000000001  # not rounded
    assert significant(ohk.convert(62 / 60, "count/s", "count/min")) == 62.0


def test_rule_44_columns_round_each_value_as_the_scalar_rounding_does():
    from openhealthkit.columns import _significant
    rng = random.Random(44)
    values = [rng.uniform(-1, 1) * 10 ** rng.uniform(-12, 18) for _ in range(50_000)]
    for power in range(-12, 18):  # next to powers of ten, where log10 may miss by one
        p = 10.0 ** power
        values += [p + k * math.ulp(p) for k in range(-20, 21)]
    values += [float(f"1.23456789012345{d}5") for d in range(10)]  # half-way at the 16th digit
    values += [bpm / 60 * 60 for bpm in range(20, 250)] + [tenths / 10 / 60 * 60 for tenths in range(200, 2500)]
    values += [0.0, -0.0, math.inf, -math.inf, 5e-324, 1e-300, 1.7e308]
    array = np.array(values)
    rounded = _significant(np, array)
    assert [bits(v) for v in rounded] == [bits(significant(v)) for v in values]
    assert all(significant(v) == float(f"{v:.15g}") for v in values)  # the %.15g ohk prints with
    assert math.isnan(_significant(np, np.array([math.nan]))[0])
    assert [significant(bpm / 60 * 60) for bpm in range(20, 250)] == list(range(20, 250))


def test_rule_45_columns_and_samples_frames_agree_on_the_display_unit(store):
    saved_heart_rates(store)
    from_samples = store.query(HEART).samples.to_pandas()
    columns = store.query_columns(HEART).samples
    assert columns.unit is None  # canonical, as read
    pd.testing.assert_frame_equal(columns.to_pandas(), from_samples)
    assert from_samples["value"].tolist() == BPM  # count/min, heart rate's display unit
    # A unit asked for wins, from either side.
    pd.testing.assert_frame_equal(columns.to_pandas("count/s"), store.query(HEART).samples.to_pandas("count/s"))
    # Columns already in a unit stay in it.
    per_minute = store.query_columns(HEART, unit="count/min").samples
    assert per_minute.unit == "count/min" and per_minute.to_pandas()["value"].tolist() == BPM
    assert per_minute.to_pandas("count/s")["value"].tolist() == [significant(b / 60) for b in BPM]
    # Several types: each in its own display unit, from either side, and the unit column says which.
    store.save(steps(0, value=5))
    mixed = store.query_columns([HEART, STEPS]).samples.to_pandas()
    pd.testing.assert_frame_equal(mixed, store.query([HEART, STEPS]).samples.to_pandas())
    assert mixed["value"].tolist() == [BPM[0], 5] + BPM[1:]  # sorted by start: the steps start with the second
    assert mixed["unit"].tolist() == ["count/min", "count"] + ["count/min"] * (len(BPM) - 1)
    assert from_samples["unit"].tolist() == ["count/min"] * len(BPM)
    assert columns.to_pandas("count/s")["unit"].tolist() == ["count/s"] * len(BPM)
    # Category rows have no unit (the sleep at T0 comes after the heart rate at T0, in change order).
    store.save(ohk.CategorySample(SLEEP, T0, T0, "AsleepDeep"))
    with_sleep = store.query([HEART, SLEEP]).samples.to_pandas()
    assert with_sleep["unit"].isna().tolist() == [False, True] + [False] * (len(BPM) - 1)


def test_rule_46_category_values_convert_by_name_both_ways():
    names = {"InBed": 0, "AsleepUnspecified": 1, "Awake": 2, "AsleepCore": 3, "AsleepDeep": 4, "AsleepREM": 5}
    for name, value in names.items():
        assert ohk.category_value(SLEEP, name) == value
        assert ohk.category_value_name(SLEEP, value) == name
        assert ohk.category_value_name("SleepAnalysis", value) == name  # short names and SampleTypes too
        assert ohk.category_value(ohk.sample_type(SLEEP), f"HKCategoryValueSleepAnalysis{name}") == value
    with pytest.raises(ohk.NotFoundError, match=r"AsleepDeep \(4\)"):  # the message lists the names
        ohk.category_value(SLEEP, "Dreaming")
    with pytest.raises(ohk.NotFoundError, match=r"no value 9.*InBed \(0\)"):
        ohk.category_value_name(SLEEP, 9)
    with pytest.raises(ohk.InvalidArgumentError, match="not a category type"):
        ohk.category_value_name(HEART, 1)
    with pytest.raises(ohk.ArgumentTypeError):
        ohk.category_value_name(SLEEP, "4")
    with pytest.raises(ohk.UnknownTypeError):
        ohk.category_value("HKCategoryTypeIdentifierNope", "InBed")


def test_rule_46_a_category_sample_takes_its_value_by_name(store):
    night = ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=1), "AsleepDeep")
    assert night.value == 4 and night.value_name == "AsleepDeep"
    store.save(night)
    [read] = store.query(SLEEP).samples
    assert read.value == 4 and read.value_name == "AsleepDeep"
    with pytest.raises(ohk.InvalidArgumentError) as caught:
        ohk.CategorySample(SLEEP, T0, T0, "Dreaming")
    message = str(caught.value)
    assert isinstance(caught.value, ValueError) and SLEEP in message and "AsleepDeep (4)" in message
    mood = store.register_category_type("org.example.Mood", {"Low": 1, "High": 2})
    with pytest.raises(ohk.InvalidArgumentError, match="store"):  # its names are the store's
        ohk.CategorySample(mood, T0, T0, "Low")


def test_rule_46_to_pandas_has_a_value_name_column_for_category_samples(store):
    mood = store.register_category_type("org.example.Mood", {"Low": 1, "High": 2})
    store.save([ohk.CategorySample(SLEEP, T0, T0, "AsleepDeep"), heart(1), ohk.CategorySample(SLEEP, T0, T0, 0),
                ohk.CategorySample(mood, T0, T0, 2)])
    frames = [store.query([SLEEP, HEART, mood]).samples.to_pandas(),
              store.query_columns([SLEEP, HEART, mood]).samples.to_pandas()]
    for frame in frames:
        column = frame["value_name"]
        assert isinstance(column.dtype, pd.CategoricalDtype)
        # NaN for the heart rate and for the store's own type, whose names only the store knows; sorted by
        # start (ties in change order): the two sleeps, the mood, then the heart rate a minute later.
        assert column.isna().tolist() == [False, False, True, True]
        assert column.dropna().tolist() == ["AsleepDeep", "InBed"]
        assert list(frame.columns[:3]) == ["end", "value", "value_name"]
    sleep_only = store.query(SLEEP).samples.to_pandas()
    assert sleep_only["value_name"].tolist() == ["AsleepDeep", "InBed"] and sleep_only["value"].tolist() == [4, 0]
    assert "value_name" not in store.query(HEART).samples.to_pandas().columns


def test_rule_48_a_query_needs_at_least_one_type(store):
    calls = [lambda: store.query([]), lambda: store.query_columns([]), lambda: store.batches([]),
             lambda: store.watch([], print), lambda: store.observe([], print),
             lambda: store.subscribe("name", [], print)]
    for call in calls:
        with pytest.raises(ohk.InvalidArgumentError, match=r"at least one type.*ohk\.sample_types\(\)"):
            call()
    # What the message says reads every type.
    store.save([steps(0), ohk.CategorySample(SLEEP, T0, T0, "Awake")])
    assert {s.sample_type.identifier for s in store.query(ohk.sample_types()).samples} == {STEPS, SLEEP}


def test_rule_49_metadata_integers_beyond_2_53_are_refused(store):
    limit = 2**53 - 1
    for value in (limit + 1, -limit - 1, 10**20):
        with pytest.raises(ohk.InvalidArgumentError, match=r"metadata 'count'.*2\*\*53 - 1"):
            steps(0, metadata={"count": value})
        with pytest.raises(ohk.InvalidArgumentError, match="2\\*\\*53 - 1"):
            ohk.Predicate.metadata("count", "==", value)
        with pytest.raises(ohk.InvalidArgumentError, match="2\\*\\*53 - 1"):
            ohk.Predicate("metadata.count == $1", value)
    store.save([steps(0, metadata={"count": limit}), steps(1, metadata={"count": -limit}),
                steps(2, metadata={"count": 1e20})])
    read = [s.metadata["count"] for s in store.query(STEPS).samples]
    assert read == [limit, -limit, 1e20] and [type(v) for v in read] == [int, int, float]


def test_rule_55_a_bare_number_needs_a_unit_where_display_and_canonical_differ(store):
    """Rule 55: HealthKit has no unitless quantity. A bare 60 for a heart
    rate (shown in count/min, kept in count/s) is refused with both
    spellings named; where the two units agree (steps), a bare number is
    in that unit."""
    with pytest.raises(ohk.InvalidArgumentError, match=r"HeartRate needs a unit.*'count/min'.*'count/s'"):
        ohk.QuantitySample("HeartRate", T0, T0, 60)
    with pytest.raises(ohk.InvalidArgumentError, match="DistanceWalkingRunning needs a unit.*'km'"):
        ohk.QuantitySample("DistanceWalkingRunning", T0, T0, 5)
    store.save([ohk.QuantitySample("HeartRate", T0, T0, 60, "count/min"), ohk.QuantitySample(STEPS, T0, T0, 5)])
    assert store.query(HEART).samples[0].value_in("count/min") == 60
    assert store.query(STEPS).samples[0].value == 5 and store.query(STEPS).samples[0].unit == "count"


def test_rule_56_implausible_values_are_refused_in_every_api(store):
    """Rule 56: what no measurement can be is refused at save, with the
    range in the type's display unit; the edges pass."""
    for sample, message in [(ohk.QuantitySample(STEPS, T0, T0, -5), "StepCount is never negative"),
                            (ohk.QuantitySample(HEART, T0, T0, -3, "count/min"), "from 0 to 600 count/min"),
                            (ohk.QuantitySample("BodyMass", T0, T0, 5000, "kg"), "from 0 to 1000 kg")]:
        with pytest.raises(ohk.InvalidValueError, match=message):
            store.save(sample)
    store.save([ohk.QuantitySample(STEPS, T0, T0, 0), ohk.QuantitySample("BodyMass", T0, T0, 1000, "kg")])
    assert len(store.query([STEPS, "BodyMass"]).samples) == 2
