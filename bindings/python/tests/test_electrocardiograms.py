"""Electrocardiograms from Python (rule 41 of docs/semantics.md): saved from
voltages in any numeric form, read back as one read-only float64 NumPy
array copied from the batch in one go, refused as the library refuses
them, and change-tracked like any sample."""

from __future__ import annotations

import array
import gc
import math
import sys
import uuid
from datetime import datetime, timedelta

import pytest

np = pytest.importorskip("numpy")

import openhealthkit as ohk  # noqa: E402
from openhealthkit import _native as n  # noqa: E402
from openhealthkit._marshal import electrocardiograms  # noqa: E402
from conftest import STEPS, T0, Inbox, steps  # noqa: E402

ECG = "HKDataTypeIdentifierElectrocardiogram"
WATCH = ohk.Source("com.apple.NanoHeartRhythm", "ECG", "1.90")


def recording(count: int = 15360, frequency: float | None = 512.0, **fields) -> ohk.Electrocardiogram:
    """`count` voltages (µV) of a made-up trace at `frequency` Hz."""
    k = np.arange(count)
    voltages = 900 * np.exp(-((k % 400) - 200) ** 2 / 30.0) - 60 * np.sin(k / 40.0)
    return ohk.Electrocardiogram(sampling_frequency=frequency, voltages=voltages, **fields)


def the_ecgs(store: ohk.HealthStore) -> list[ohk.ElectrocardiogramSample]:
    samples = list(store.query(ECG).samples)
    assert all(isinstance(s, ohk.ElectrocardiogramSample) for s in samples)
    return samples


def test_rule_41_voltages_round_trip_as_one_array(store):
    ecg = recording(classification=ohk.ECGClassification.SINUS_RHYTHM,
                    symptoms_status=ohk.ECGSymptomsStatus.NONE, average_heart_rate=71.5)
    device = ohk.Device(name="Apple Watch", model="Watch6,2")
    chosen = uuid.uuid4()
    [outcome] = store.save_electrocardiogram(ecg, T0, source=WATCH, device=device,
                                             metadata={"HKMetadataKeyAppleECGAlgorithmVersion": 2}, uuid=chosen,
                                             creation_date=T0 + timedelta(minutes=1),
                                             utc_offset=timedelta(hours=-5))
    assert outcome == ohk.SaveOutcome(chosen, ohk.SaveResult.SAVED, None)
    [sample] = store.query(ECG).samples
    assert isinstance(sample, ohk.ElectrocardiogramSample) and sample.uuid == chosen
    assert (sample.source, sample.device) == (WATCH, device)
    assert sample.metadata == {"HKMetadataKeyAppleECGAlgorithmVersion": 2}
    assert sample.creation_date == T0 + timedelta(minutes=1) and sample.utc_offset == timedelta(hours=-5)
    assert sample.value == 15360  # the record's number: the voltages
    # The end defaults to the recording's length: 15,360 voltages at 512 Hz are 30 s.
    assert sample.start_date == T0 and sample.end_date == T0 + timedelta(seconds=30)
    read = sample.electrocardiogram
    assert read == ecg
    assert read.classification is ohk.ECGClassification.SINUS_RHYTHM
    assert read.symptoms_status is ohk.ECGSymptomsStatus.NONE
    assert read.lead is ohk.ECGLead.APPLE_WATCH_SIMILAR_TO_LEAD_I
    assert read.average_heart_rate == 71.5 and read.sampling_frequency == 512.0 and len(read) == 15360
    voltages = sample.voltages
    assert isinstance(voltages, np.ndarray) and voltages.dtype == np.float64 and voltages.ndim == 1
    assert voltages.flags.c_contiguous and not voltages.flags.writeable
    assert np.array_equal(voltages, ecg.voltages)  # bit for bit: no unit conversion on the way
    # Times: the k-th voltage k / frequency seconds after the start.
    times = sample.times
    assert times.shape == (15360,) and times[0] == 0 and times[1] == 1 / 512 and times[-1] == 15359 / 512
    # One copy out of the batch: the array outlives the query's batch.
    del sample
    gc.collect()
    assert np.array_equal(read.voltages, ecg.voltages)


def test_rule_41_voltages_are_copied_from_the_batch_without_a_python_loop(store, monkeypatch):
    store.save_electrocardiogram(recording(40_000), T0)

    def per_voltage(*args):
        raise AssertionError("a voltage went through Python")

    monkeypatch.setattr(electrocardiograms, "real", per_voltage)
    monkeypatch.setattr(ohk.Electrocardiogram, "__init__", per_voltage)  # nor through the checks of a save
    [sample] = the_ecgs(store)
    assert len(sample.voltages) == 40_000 and sample.voltages.base is not None  # a view of the one copy


def test_rule_41_a_save_takes_voltages_in_any_numeric_form(store, monkeypatch):
    # 4 voltages at 4 Hz: the end defaults to 1 s after the start.
    wanted = np.array([-12.0, 0.5, 310.25, 7.0])
    forms = [
        [-12.0, 0.5, 310.25, 7.0],                                 # a list
        (-12, 0.5, 310.25, 7),                                     # a tuple with ints
        array.array("d", wanted),                                  # a buffer
        wanted.astype(np.float32),                                 # another float dtype (these values are exact)
        np.array([-12.0, 99.0, 0.5, 99.0, 310.25, 99.0, 7.0, 99.0])[::2],  # a strided view
        (v for v in wanted),                                       # an iterator
    ]
    pd = None
    try:
        import pandas as pd
        forms.append(pd.Series(wanted))
    except ImportError:
        pass
    for form in forms:
        store.save_electrocardiogram(ohk.Electrocardiogram(sampling_frequency=4, voltages=form), T0)
    read = the_ecgs(store)
    assert len(read) == len(forms)
    for sample in read:
        assert np.array_equal(sample.voltages, wanted) and sample.end_date == T0 + timedelta(seconds=1)
    # Integer arrays (an ADC's counts) are taken as they are, converted in C, not one by one in Python.
    def per_voltage(*args):
        raise AssertionError("a voltage went through Python")

    monkeypatch.setattr(electrocardiograms, "real", per_voltage)
    counts = np.arange(-1000, 1000, dtype=np.int16)
    ecg = ohk.Electrocardiogram(sampling_frequency=500, voltages=counts)
    assert ecg.voltages.dtype == np.float64 and np.array_equal(ecg.voltages, counts)
    # The caller's array is copied: still theirs, writeable, and changing it changes nothing here.
    mine = wanted.copy()
    ecg = ohk.Electrocardiogram(sampling_frequency=4, voltages=mine)
    mine[0] = 1e6
    assert mine.flags.writeable and ecg.voltages[0] == -12.0
    with pytest.raises(ValueError):
        ecg.voltages[0] = 3.0  # read-only: the recording is a value


def test_rule_41_a_recording_without_voltages_has_no_frequency(store):
    ecg = ohk.Electrocardiogram(ohk.ECGClassification.INCONCLUSIVE_POOR_READING, ohk.ECGSymptomsStatus.PRESENT)
    store.save_electrocardiogram(ecg, T0, T0 + timedelta(seconds=30))
    [sample] = the_ecgs(store)
    read = sample.electrocardiogram
    assert read == ecg and read.sampling_frequency is None and read.average_heart_rate is None
    assert sample.value == 0 and len(sample.voltages) == 0 and len(sample.times) == 0
    assert read.classification is ohk.ECGClassification.INCONCLUSIVE_POOR_READING
    assert read.symptoms_status is ohk.ECGSymptomsStatus.PRESENT


def test_rule_41_each_classification_and_symptoms_status_round_trips(store):
    pairs = [(c, s) for c in ohk.ECGClassification for s in ohk.ECGSymptomsStatus]
    for c, s in pairs:
        store.save_electrocardiogram(recording(8, 512.0, classification=c, symptoms_status=s), T0)
    read = {(e.electrocardiogram.classification, e.electrocardiogram.symptoms_status) for e in the_ecgs(store)}
    assert read == set(pairs)
    assert ohk.ECGClassification.UNRECOGNIZED == 100  # HealthKit's raw values
    # Plain ints are read as the enum's members.
    assert ohk.Electrocardiogram(2, 1).classification is ohk.ECGClassification.ATRIAL_FIBRILLATION


def test_rule_41_a_save_refuses_what_no_recording_can_be(store, monkeypatch):
    def refused(error, ecg, start=T0, end=None):
        with pytest.raises(error) as raised:
            store.save_electrocardiogram(ecg, start, end)
        assert isinstance(raised.value, ohk.OpenHealthKitError) and raised.value.status == error.status
        return str(raised.value)

    # Refused by the library.
    assert "sampling frequency" in refused(ohk.InvalidValueError, recording(512, None))
    assert "past its end" in refused(ohk.InvalidValueError, recording(1024, 512.0), end=T0 + timedelta(seconds=1))
    assert "Classification" in refused(ohk.InvalidValueError, recording(8, classification=7))
    assert "SymptomsStatus" in refused(ohk.InvalidValueError, recording(8, symptoms_status=3))
    assert "Lead" in refused(ohk.InvalidValueError, recording(8, lead=2))
    refused(ohk.InvalidValueError, recording(8, 0.0))              # a frequency that is not positive
    refused(ohk.InvalidValueError, recording(8, -512.0))
    refused(ohk.InvalidValueError, recording(8, average_heart_rate=-1))
    refused(ohk.InvalidDateRangeError, recording(8), end=T0 - timedelta(seconds=1))
    refused(ohk.InvalidArgumentError, recording(8), start=datetime(2024, 3, 1))  # naive
    refused(ohk.ArgumentTypeError, [1.0, 2.0])                    # voltages, not an Electrocardiogram
    # The last voltage may be at the end itself: 513 voltages at 512 Hz in 1 s.
    store.save_electrocardiogram(recording(513, 512.0), T0, T0 + timedelta(seconds=1))

    # Refused before the library: NaN would read as "absent" in C, and a
    # value out of int32 would wrap.
    def not_called(*args):
        raise AssertionError("the library was called")

    monkeypatch.setattr(n.lib, "ohk_store_save_electrocardiogram", not_called)
    for error, fields in [
        (ohk.InvalidValueError, dict(sampling_frequency=math.nan)),
        (ohk.InvalidValueError, dict(sampling_frequency=math.inf)),
        (ohk.InvalidValueError, dict(average_heart_rate=math.nan)),
        (ohk.InvalidValueError, dict(voltages=[1.0, math.nan])),
        (ohk.InvalidValueError, dict(voltages=np.array([1.0, 2.0, -np.inf]))),
        (ohk.InvalidValueError, dict(classification=-1)),
        (ohk.InvalidValueError, dict(classification=2**32 + 1)),
        (ohk.ArgumentTypeError, dict(classification=True)),
        (ohk.ArgumentTypeError, dict(classification="SinusRhythm")),
        (ohk.ArgumentTypeError, dict(average_heart_rate="71")),
        (ohk.ArgumentTypeError, dict(voltages="1,2,3")),
        (ohk.ArgumentTypeError, dict(voltages=np.array(["1.5"]))),
        (ohk.ArgumentTypeError, dict(voltages=np.array([True, False]))),
        (ohk.ArgumentTypeError, dict(voltages=[1.0, None])),
        (ohk.ArgumentTypeError, dict(voltages=3.0)),
        (ohk.InvalidArgumentError, dict(voltages=np.zeros((2, 3)))),
    ]:
        with pytest.raises(error):
            ohk.Electrocardiogram(**{"sampling_frequency": 512.0, **fields})
    with pytest.raises(ohk.InvalidValueError, match=r"voltages\[1\]"):
        ohk.Electrocardiogram(sampling_frequency=512.0, voltages=[1.0, math.nan])
    monkeypatch.undo()
    assert [len(s.voltages) for s in the_ecgs(store)] == [513]  # only the one that fits


def test_rule_41_save_takes_a_recording_read_back_and_the_constructors_name_the_call(store):
    store.save_electrocardiogram(recording(16), T0)
    [ecg] = the_ecgs(store)
    with pytest.raises(ohk.DuplicateUUIDError):
        store.save(ecg)  # saved as it is: here, its UUID is taken (test_save_read_back.py: another store)
    with pytest.raises(ohk.ArgumentTypeError, match="save_electrocardiogram"):
        ohk.QuantitySample(ECG, T0, T0, 2)
    with pytest.raises(ohk.ArgumentTypeError, match="save_electrocardiogram"):
        ohk.ElectrocardiogramSample()
    assert len(store.query(STEPS).samples) == 0
    # A recording read back saves again as a new sample, equal to the first.
    store.save_electrocardiogram(ecg.electrocardiogram, T0)
    first, second = the_ecgs(store)
    assert first.electrocardiogram == second.electrocardiogram and first.uuid != second.uuid
    assert first.end_date == second.end_date
    # Equality is by every field and voltage; a recording is not hashable (its voltages are an array).
    assert ecg.electrocardiogram != recording(16, 256.0) and ecg.electrocardiogram != recording(17)
    with pytest.raises(TypeError):
        hash(ecg.electrocardiogram)


def test_rule_41_the_short_name_finds_the_type(store):
    kind = ohk.sample_type(ECG)
    assert kind.is_electrocardiogram and kind.short_name == "Electrocardiogram"
    assert ohk.sample_type("Electrocardiogram") == kind and store.sample_type("Electrocardiogram") == kind
    assert not (kind.is_category or kind.is_workout or kind.is_audiogram or kind.is_clinical_record)
    assert kind.canonical_unit is None
    [outcome] = store.save_electrocardiogram(recording(16), T0)
    assert [s.uuid for s in store.query("Electrocardiogram").samples] == [outcome.uuid]


def test_rule_41_a_deletion_shows_in_the_anchored_query(store):
    [kept] = store.save_electrocardiogram(recording(16), T0)
    [gone] = store.save_electrocardiogram(recording(32), T0 + timedelta(minutes=5))
    samples, deleted, anchor = store.query("Electrocardiogram")
    assert {s.uuid for s in samples} == {kept.uuid, gone.uuid} and not deleted
    assert store.delete(gone.uuid) == 1
    samples, deleted, _ = store.query("Electrocardiogram", anchor)
    assert len(samples) == 0
    assert [(d.uuid, d.sample_type.identifier) for d in deleted] == [(gone.uuid, ECG)]
    assert [s.uuid for s in the_ecgs(store)] == [kept.uuid]


def test_rule_41_a_recording_is_change_tracked_like_any_sample(store):
    inbox = Inbox()

    def delivered() -> list:
        return [sample for result in inbox.items for sample in result.samples]

    ecg = recording(2048, average_heart_rate=64)
    with store.watch(ECG, inbox.put):
        inbox.wait(1)  # the empty snapshot
        [outcome] = store.save_electrocardiogram(ecg, T0, source=WATCH)
        inbox.wait_until(lambda results: delivered(), "the recording")
        store.delete(outcome.uuid)
        results = inbox.wait_until(lambda results: any(r.deleted for r in results), "its deletion")
    # A lent batch's voltages are copied during the callback: readable after it.
    gc.collect()
    [sample] = delivered()
    assert isinstance(sample, ohk.ElectrocardiogramSample) and sample.uuid == outcome.uuid
    assert sample.electrocardiogram == ecg and sample.source == WATCH
    assert [d.uuid for result in results for d in result.deleted] == [outcome.uuid]
    assert the_ecgs(store) == []


def test_rule_41_a_recording_as_a_pandas_frame(store):
    pd = pytest.importorskip("pandas")
    store.save_electrocardiogram(recording(1024, 512.0), T0)
    [sample] = the_ecgs(store)
    frame = sample.to_pandas()
    assert list(frame.columns) == ["voltage"] and frame.index.name == "time_since_start"
    assert len(frame) == 1024 and frame.index[1] == 1 / 512
    assert np.array_equal(frame["voltage"].to_numpy(), sample.voltages)
    pd.testing.assert_frame_equal(frame, sample.electrocardiogram.to_pandas())


def test_rule_41_without_numpy_the_samples_read_and_the_voltages_say_why_not(store, monkeypatch):
    store.save_electrocardiogram(recording(64), T0)
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` fails
    [sample] = the_ecgs(store)
    assert sample.value == 64 and sample.start_date == T0
    with pytest.raises(ImportError, match="NumPy"):
        sample.voltages
    with pytest.raises(ImportError, match="NumPy"):
        ohk.Electrocardiogram(sampling_frequency=512, voltages=[1.0])
