"""HealthStore.save takes every sample class, what a read returned too: a
sample of each kind read from one store saves into another as it is, and
reads back equal there (its UUID, interval, source, device, metadata,
creation date, UTC offset and own fields)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

import openhealthkit as ohk
from conftest import SLEEP, STEPS, T0, steps
from test_clinical_records import HOSPITAL, IMMUNIZATION, flu
from test_workouts import DIASTOLIC, PRESSURE, ROUTE, SYSTOLIC, WATCH, WORKOUT, minutes, pressure, run

HEARTBEATS = "HKDataTypeIdentifierHeartbeatSeries"
AUDIOGRAM = "HKDataTypeIdentifierAudiogram"
ECG = "HKDataTypeIdentifierElectrocardiogram"
DEVICE = ohk.Device(name="Apple Watch", model="Watch6,2")
#: What every sample has beyond its interval, given to each save below.
COMMON = dict(source=WATCH, device=DEVICE, metadata={"HKWasUserEntered": False},
              creation_date=T0 + timedelta(days=1), utc_offset=timedelta(hours=-5))
#: The attribute with each kind's own fields.
OWN = {ohk.WorkoutSample: "workout", ohk.WorkoutRouteSample: "route", ohk.CorrelationSample: "correlation",
       ohk.HeartbeatSeriesSample: "heartbeats", ohk.AudiogramSample: "audiogram",
       ohk.ElectrocardiogramSample: "electrocardiogram", ohk.ClinicalRecordSample: "clinical_record"}


def every_kind(store: ohk.HealthStore) -> list[str]:
    """Saves a sample of every kind (with the tests' own fixtures) and
    returns the types to read them back by, members before correlations
    and workouts before routes."""
    types = [STEPS, SLEEP, WORKOUT, ROUTE, SYSTOLIC, DIASTOLIC, PRESSURE, HEARTBEATS, AUDIOGRAM, IMMUNIZATION]
    store.save([steps(0, **COMMON),
                ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=7), "AsleepCore", **COMMON)])
    [workout] = store.save_workout(run(), minutes(0), minutes(30), **COMMON)
    store.save_route(workout.uuid, [(minutes(0), 47.0, 8.5, 400), (minutes(1), 47.1, 8.6, None, 5.0)], **COMMON)
    store.save_correlation("BloodPressure", pressure(), **COMMON)
    store.save_heartbeat_series([0.5, (1.25, True), 2.0], T0, **COMMON)
    store.save_audiogram([ohk.SensitivityPoint(1000, 20.5, None, True, None, ohk.ClampingRange(-10, 90)),
                          (250, 35, 20), (8000, None, -5.0, None, False)], T0, **COMMON)
    store.save_clinical_record(IMMUNIZATION, flu(), T0, T0 + timedelta(hours=1), **{**COMMON, "source": HOSPITAL})
    try:
        import numpy as np
    except ImportError:
        return types
    voltages = 900 * np.sin(np.arange(7) / 3.0)
    store.save_electrocardiogram(ohk.Electrocardiogram(ohk.ECGClassification.SINUS_RHYTHM, sampling_frequency=500.0,
                                                       average_heart_rate=71.5, voltages=voltages), T0, **COMMON)
    return types + [ECG]


def described(sample: ohk.Sample) -> tuple:
    """Everything a sample holds, to compare across stores."""
    own = OWN.get(type(sample))
    return (type(sample), sample.uuid, sample.sample_type.identifier, sample.start_date, sample.end_date,
            sample.start_timestamp, sample.end_timestamp, sample.source, sample.device, sample.metadata,
            sample.creation_date, sample.utc_offset, sample.value, None if own is None else getattr(sample, own))


def test_save_takes_each_kind_read_back_into_another_store(tmp_path):
    with ohk.HealthStore(tmp_path / "a", durable=False) as source, \
            ohk.HealthStore(tmp_path / "b", durable=False) as copy:
        types = every_kind(source)
        for kind in types:  # one kind at a time, one sample at a time
            for sample in source.query(kind).samples:
                [outcome] = copy.save(sample)
                assert outcome == ohk.SaveOutcome(sample.uuid, ohk.SaveResult.SAVED, None)
        for kind in types:
            read = [described(s) for s in source.query(kind).samples]
            assert read and [described(s) for s in copy.query(kind).samples] == read, kind
        classes = {type(s) for s in copy.query(types).samples}
        assert classes >= set(OWN) - ({ohk.ElectrocardiogramSample} if ECG not in types else set())
        assert classes >= {ohk.QuantitySample, ohk.CategorySample}
        # The correlation saved alone found its members in the store it went to.
        [correlation] = copy.query(PRESSURE).samples
        assert sorted(s.uuid for s in copy.correlation_objects(correlation)) == sorted(
            correlation.correlation.members)


def test_save_takes_a_whole_read_in_one_call(tmp_path):
    with ohk.HealthStore(tmp_path / "a", durable=False) as source, \
            ohk.HealthStore(tmp_path / "b", durable=False) as copy:
        types = every_kind(source)
        everything = list(source.query(types).samples)
        # Routes before their workout, the correlation before its members: save orders what it must.
        everything.sort(key=lambda s: s.sample_type.identifier not in (ROUTE, PRESSURE))
        outcomes = copy.save(everything)
        assert [o.uuid for o in outcomes] == [s.uuid for s in everything]
        assert all(o.result is ohk.SaveResult.SAVED for o in outcomes)
        assert sorted(map(described, copy.query(types).samples), key=str) == sorted(map(described, everything),
                                                                                    key=str)
        # Saved again, each is already there: the plain samples are refused as one transaction.
        with pytest.raises(ohk.DuplicateUUIDError):
            copy.save(everything)


def test_a_correlation_read_back_needs_its_members_in_the_save_or_the_store(tmp_path):
    with ohk.HealthStore(tmp_path / "a", durable=False) as source, \
            ohk.HealthStore(tmp_path / "b", durable=False) as copy:
        outcomes = source.save_correlation("BloodPressure", pressure(), **COMMON)
        [correlation] = source.query(PRESSURE).samples
        systolic, diastolic = source.query(SYSTOLIC).samples[0], source.query(DIASTOLIC).samples[0]
        with pytest.raises(ohk.NotFoundError, match="member"):
            copy.save([steps(0), correlation, systolic])  # the diastolic member is missing
        assert len(copy.query([STEPS, SYSTOLIC, PRESSURE]).samples) == 0  # checked before the first write
        # With its members in the same call, they are saved in the correlation's transaction.
        saved = copy.save([systolic, correlation, diastolic])
        assert [o.uuid for o in saved] == [systolic.uuid, correlation.uuid, diastolic.uuid]
        assert [o.result for o in saved] == [ohk.SaveResult.SAVED] * 3
        assert [o.uuid for o in outcomes] == [systolic.uuid, diastolic.uuid, correlation.uuid]
        [copied] = copy.query(PRESSURE).samples
        assert described(copied) == described(correlation)


def test_a_route_read_back_needs_its_workout(tmp_path):
    with ohk.HealthStore(tmp_path / "a", durable=False) as source, \
            ohk.HealthStore(tmp_path / "b", durable=False) as copy:
        [workout] = source.save_workout(run(), minutes(0), minutes(30))
        source.save_route(workout.uuid, [(minutes(0), 47.0, 8.5)])
        [route] = source.query(ROUTE).samples
        with pytest.raises(ohk.NotFoundError):
            copy.save(route)
        copy.save(source.query(WORKOUT).samples[0])
        [outcome] = copy.save(route)
        assert outcome.uuid == route.uuid and copy.query(ROUTE).samples[0].route == route.route


def test_the_save_methods_make_a_sample_and_save_it_as_save_does(store):
    # What every sample has, checked in one place for every kind: the same errors as a QuantitySample's.
    for bad, error in ((dict(source="com.example"), ohk.ArgumentTypeError),
                       (dict(device="iPhone"), ohk.ArgumentTypeError),
                       (dict(metadata={"k": object()}), ohk.ArgumentTypeError),
                       (dict(uuid="not a uuid"), ohk.InvalidArgumentError),
                       (dict(utc_offset=timedelta(hours=19)), ohk.InvalidArgumentError)):
        with pytest.raises(error):
            steps(0, **bad)
        with pytest.raises(error):
            store.save_workout(run(), minutes(0), minutes(30), **bad)
        with pytest.raises(error):
            store.save_heartbeat_series([0.5], T0, **bad)
        with pytest.raises(error):
            store.save_clinical_record(IMMUNIZATION, flu(), T0, **bad)
    assert len(store.query([STEPS, WORKOUT, HEARTBEATS, IMMUNIZATION]).samples) == 0
    chosen = uuid.uuid4()
    [outcome] = store.save_workout(run(), minutes(0), minutes(30), uuid=chosen)
    [sample] = store.query(WORKOUT).samples
    assert outcome.uuid == sample.uuid == chosen and sample.source == store.default_source
