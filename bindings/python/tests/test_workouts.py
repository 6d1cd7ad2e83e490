"""Workouts, routes and correlations from Python (rules 31-33 and 36 of
docs/semantics.md): saved with their own fields, read back as dataclasses,
a route's locations as NumPy columns."""

from __future__ import annotations

import math
import sys
import uuid
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

import openhealthkit as ohk
from conftest import HEART, STEPS, T0, Inbox, heart, steps

SYSTOLIC = "HKQuantityTypeIdentifierBloodPressureSystolic"
DIASTOLIC = "HKQuantityTypeIdentifierBloodPressureDiastolic"
PRESSURE = "HKCorrelationTypeIdentifierBloodPressure"
FOOD = "HKCorrelationTypeIdentifierFood"
WORKOUT = "HKWorkoutTypeIdentifier"
ROUTE = "HKWorkoutRouteTypeIdentifier"
WATCH = ohk.Source("com.example.watch", "Watch", "10.1")


def minutes(m: float) -> datetime:
    return T0 + timedelta(minutes=m)


def run() -> ohk.Workout:
    """A 30-minute run: a pause and a lap (out of order), an activity in
    progress and a finished one, statistics of both kinds."""
    return ohk.Workout(
        ohk.WorkoutActivityType.RUNNING, duration=1740, total_energy_burned=250, total_distance=5000,
        events=[
            ohk.WorkoutEvent(ohk.WorkoutEventType.LAP, minutes(10), minutes(10), {"HKLapLength": 400.5}),
            ohk.WorkoutEvent(ohk.WorkoutEventType.PAUSE, minutes(5), minutes(6)),
        ],
        activities=[
            ohk.WorkoutActivity(ohk.WorkoutActivityType.RUNNING, minutes(0), minutes(15), duration=870,
                                metadata={"HKIndoorWorkout": False},
                                statistics=[ohk.WorkoutStatistics("ActiveEnergyBurned", minutes(0), minutes(15),
                                                                  sum=120)],
                                uuid=uuid.UUID(int=1)),
            ohk.WorkoutActivity(ohk.WorkoutActivityType.COOLDOWN, minutes(15),  # in progress: no end
                                uuid=uuid.UUID(int=2)),
        ],
        statistics=[ohk.WorkoutStatistics(HEART, minutes(0), minutes(30), average=150, minimum=120, maximum=180),
                    ohk.WorkoutStatistics("DistanceWalkingRunning", minutes(0), minutes(30), sum=5000)],
    )


def cooldown_uuid(workout: ohk.Workout) -> uuid.UUID:
    return workout.activities[1].uuid


def save_run(store: ohk.HealthStore, **kwargs) -> uuid.UUID:
    [outcome] = store.save_workout(run(), minutes(0), minutes(30), **kwargs)
    assert outcome.result is ohk.SaveResult.SAVED
    return outcome.uuid


def the_workout(store: ohk.HealthStore) -> ohk.WorkoutSample:
    [sample] = store.query(WORKOUT).samples
    assert isinstance(sample, ohk.WorkoutSample)
    return sample


def pressure(systolic: float = 120, diastolic: float = 80) -> list[ohk.QuantitySample]:
    return [ohk.QuantitySample(SYSTOLIC, T0, T0, systolic, "mmHg"),
            ohk.QuantitySample(DIASTOLIC, T0, T0, diastolic, "mmHg")]


# ---- rule 31: workouts

def test_rule_31_a_workout_keeps_every_field_through_a_save(store):
    device = ohk.Device(name="Apple Watch", model="Watch7,1")
    chosen = uuid.uuid4()
    [outcome] = store.save_workout(run(), minutes(0), minutes(30), source=WATCH, device=device,
                                   metadata={"HKAverageMETs": 9.5, "HKWeatherTemperature": "20 degC"},
                                   uuid=chosen, creation_date=minutes(31), utc_offset=timedelta(hours=2))
    assert outcome == ohk.SaveOutcome(chosen, ohk.SaveResult.SAVED, None)
    sample = the_workout(store)
    assert sample.uuid == chosen and sample.source == WATCH and sample.device == device
    assert (sample.start_date, sample.end_date) == (minutes(0), minutes(30))
    assert sample.metadata == {"HKAverageMETs": 9.5, "HKWeatherTemperature": "20 degC"}
    assert sample.creation_date == minutes(31) and sample.utc_offset == timedelta(hours=2)
    assert sample.value == 1740  # the record's number: the duration
    workout = sample.workout
    assert workout == run()  # every field, the events in date order
    assert workout.activity_type == 37 and workout.activity_type is ohk.WorkoutActivityType.RUNNING
    assert workout.activity_type_name == "Running"
    assert (workout.duration, workout.total_energy_burned, workout.total_distance) == (1740, 250, 5000)
    assert workout.total_swimming_stroke_count is None and workout.total_flights_climbed is None
    pause, lap = workout.events
    assert (pause.type_name, lap.type_name) == ("Pause", "Lap")
    assert lap.metadata == {"HKLapLength": 400.5} and pause.metadata == {}
    assert (pause.start_date, pause.end_date) == (minutes(5), minutes(6))
    running, cooldown = workout.activities
    assert (running.uuid, cooldown_uuid(workout)) == (uuid.UUID(int=1), uuid.UUID(int=2))
    assert running.duration == 870 and running.metadata == {"HKIndoorWorkout": False}
    assert running.statistics[0].sum == 120 and running.statistics[0].average is None
    assert running.statistics[0].quantity_type == "HKQuantityTypeIdentifierActiveEnergyBurned"
    assert cooldown.activity_type_name == "Cooldown" and cooldown.end_date is None and cooldown.duration is None
    heart_rate, distance = workout.statistics
    assert (heart_rate.average, heart_rate.minimum, heart_rate.maximum, heart_rate.sum) == (150, 120, 180, None)
    assert heart_rate.unit == "count/s" and distance.unit == "m" and distance.sum == 5000
    # Decoded once per batch, the same value each time; equal and hashable.
    assert sample.workout is sample.workout and hash(sample.workout) == hash(run())
    assert "Running, 1740.0 s" in repr(sample)


def test_rule_31_an_activity_keeps_the_uuid_it_was_given(store):
    activity = ohk.WorkoutActivity(52, minutes(0), minutes(20), uuid=uuid.UUID(int=7))
    store.save_workout(ohk.Workout(52, 1200, activities=[activity]), minutes(0), minutes(20))
    [read] = the_workout(store).workout.activities
    assert read.uuid == uuid.UUID(int=7) and read == activity and read.activity_type_name == "Walking"


def test_rule_31_activity_and_event_types_by_healthkit_name(store):
    kinds = ohk.WorkoutActivityType
    assert len(kinds) == 86 and 81 not in set(kinds)
    assert kinds.HIGH_INTENSITY_INTERVAL_TRAINING.healthkit_name == "HighIntensityIntervalTraining"
    for name in ("Running", "HKWorkoutActivityTypeRunning", "running", "RUNNING"):
        assert kinds.from_name(name) is kinds.RUNNING
    assert kinds.from_name("americanFootball") is kinds.AMERICAN_FOOTBALL  # Swift's case name
    assert ohk.WorkoutEventType.from_name("HKWorkoutEventTypeMotionPaused") is ohk.WorkoutEventType.MOTION_PAUSED
    with pytest.raises(ohk.NotFoundError):
        kinds.from_name("Jogging")
    # The name is what predicate text takes (rule 35).
    save_run(store)
    store.save_workout(ohk.Workout(kinds.YOGA, 600), minutes(40), minutes(50))
    found = store.query(WORKOUT, predicate=ohk.Predicate("workoutType == $1", run().activity_type_name)).samples
    assert [s.workout.activity_type for s in found] == [kinds.RUNNING]


def test_rule_31_a_save_refuses_what_healthkit_refuses_in_a_workout(store):
    def refused(error, workout=None, start=minutes(0), end=minutes(30), **kwargs):
        with pytest.raises(error) as raised:
            store.save_workout(workout if workout is not None else ohk.Workout(37, 60), start, end, **kwargs)
        assert isinstance(raised.value, ohk.OpenHealthKitError) and raised.value.status == error.status
        return raised.value

    assert "81" in str(refused(ohk.InvalidValueError, ohk.Workout(81, 60)))  # there is no 81
    refused(ohk.InvalidValueError, ohk.Workout(37, -1))
    refused(ohk.InvalidValueError, ohk.Workout(37, 60, total_distance=-5))
    refused(ohk.InvalidValueError, ohk.Workout(37, 60, events=[ohk.WorkoutEvent(9, T0, T0)]))
    refused(ohk.InvalidDateRangeError, start=minutes(30), end=minutes(0))
    refused(ohk.InvalidDateRangeError, ohk.Workout(37, 60, events=[ohk.WorkoutEvent(3, minutes(2), minutes(1))]))
    refused(ohk.InvalidDateRangeError,
            ohk.Workout(37, 60, statistics=[ohk.WorkoutStatistics(HEART, minutes(2), minutes(1), average=1)]))
    refused(ohk.InvalidValueError,
            ohk.Workout(37, 60, activities=[ohk.WorkoutActivity(9999, minutes(0), minutes(1))]))
    refused(ohk.InvalidArgumentError, start=datetime(2024, 3, 1))  # naive
    refused(ohk.ArgumentTypeError, workout=run().events[0])  # not a Workout
    # Refused before the library: NaN (an absent number in C), wrong types.
    with pytest.raises(ohk.InvalidValueError):
        ohk.Workout(37, float("nan"))
    with pytest.raises(ohk.InvalidValueError):
        ohk.Workout(37, 60, total_energy_burned=math.inf)
    with pytest.raises(ohk.ArgumentTypeError):
        ohk.Workout("Running", 60)  # a name goes through WorkoutActivityType.from_name
    with pytest.raises(ohk.InvalidValueError):
        ohk.Workout(-1, 60)
    with pytest.raises(ohk.ArgumentTypeError):
        ohk.Workout(37, 60, events=[ohk.WorkoutStatistics(HEART, T0, T0)])
    with pytest.raises(ohk.InvalidArgumentError):
        ohk.WorkoutStatistics("HKCategoryTypeIdentifierSleepAnalysis", T0, T0)  # not a quantity type
    with pytest.raises(ohk.UnknownTypeError):
        ohk.WorkoutStatistics("NoSuchType", T0, T0)
    with pytest.raises(ohk.ArgumentTypeError):
        ohk.WorkoutEvent(3, T0, T0, metadata={"k": object()})
    assert len(store.query(WORKOUT).samples) == 0  # nothing was saved
    # A workout is made by save_workout (or read back and saved as it is), not as a QuantitySample.
    with pytest.raises(ohk.ArgumentTypeError, match="save_workout"):
        ohk.QuantitySample(WORKOUT, T0, T0, 60)
    save_run(store)
    with pytest.raises(ohk.DuplicateUUIDError):
        store.save(the_workout(store))  # here, its UUID is taken (test_save_read_back.py: another store)
    with pytest.raises(ohk.ArgumentTypeError, match="save_workout"):
        ohk.WorkoutSample()
    assert len(store.query(STEPS).samples) == 0


def test_rule_31_workouts_are_change_tracked_replaced_by_sync_identifier_and_watched(store):
    inbox = Inbox()

    def delivered() -> list:
        return [sample for result in inbox.items for sample in result.samples]

    sync = {"HKMetadataKeySyncIdentifier": "run-1", "HKMetadataKeySyncVersion": 1}
    with store.watch([WORKOUT, HEART], inbox.put):
        inbox.wait(1)  # the empty snapshot
        first = save_run(store, metadata=sync)
        inbox.wait_until(lambda results: delivered(), "the workout")
        store.save(heart(1))
        [outcome] = store.save_workout(ohk.Workout(37, 1800), minutes(0), minutes(30),
                                       metadata={**sync, "HKMetadataKeySyncVersion": 2})
        # Commits that come together may come in one delivery: wait for what they changed.
        results = inbox.wait_until(lambda results: any(r.deleted for r in results) and len(delivered()) == 3,
                                   "the heart rate, the new version and the old one deleted")
    assert outcome.result is ohk.SaveResult.REPLACED and outcome.other_uuid == first
    # A lent batch's fields are copied during the callback: readable after it.
    import gc
    gc.collect()
    samples = delivered()
    assert [type(sample) for sample in samples] == [ohk.WorkoutSample, ohk.QuantitySample, ohk.WorkoutSample]
    assert samples[0].workout == run() and samples[2].workout == ohk.Workout(37, 1800)
    assert samples[2].metadata == {**sync, "HKMetadataKeySyncVersion": 2}
    assert [d.uuid for result in results for d in result.deleted] == [first]
    assert [s.uuid for s in store.query(WORKOUT).samples] == [outcome.uuid]
    # A batch of several kinds gives each sample its class.
    mixed = store.query([WORKOUT, HEART, STEPS]).samples
    assert {type(s).__name__: s.sample_type.short_name for s in mixed} == {
        "QuantitySample": "HeartRate", "WorkoutSample": "Workout"}
    assert {type(mixed[i]) for i in range(len(mixed))} == {ohk.QuantitySample, ohk.WorkoutSample}


# ---- rule 32: routes

N = 3600


def route_array(np, count: int = N):
    """`count` locations half a second apart, newest first, as a NumPy
    structured array; vertical accuracy unknown."""
    k = np.arange(count)[::-1]
    data = np.zeros(count, dtype=[(name, "<f8") for name in ohk.Location._fields])
    data["timestamp"] = T0.timestamp() + k * 0.5
    data["latitude"] = 47.0 + k * 1e-5
    data["longitude"] = 8.5 - k * 1e-5
    data["altitude"] = 400 + k % 7
    data["horizontal_accuracy"] = 5
    data["vertical_accuracy"] = np.nan
    data["course"] = 90
    data["speed"] = 3.1
    return data


def test_rule_32_a_route_of_3600_points_reads_back_as_numpy_columns(store):
    np = pytest.importorskip("numpy")
    workout = save_run(store)
    [outcome] = store.save_route(workout, route_array(np), source=WATCH, metadata={"HKWasUserEntered": True})
    [sample] = store.query(ROUTE, predicate=ohk.Predicate.workout(workout)).samples
    assert isinstance(sample, ohk.WorkoutRouteSample) and sample.uuid == outcome.uuid
    # Sorted by time; the interval is the first and last locations'.
    assert sample.start_date == T0 and sample.end_date == T0 + timedelta(seconds=(N - 1) * 0.5)
    assert sample.value == N and sample.source == WATCH and sample.metadata == {"HKWasUserEntered": True}
    route = sample.route
    assert len(route) == N and route.workout_uuid == workout
    columns = route.to_numpy()
    assert len(columns) == N and columns.timestamp.dtype == np.dtype("datetime64[us]")
    k = np.arange(N)
    assert (columns.timestamp - np.datetime64(T0.replace(tzinfo=None), "us") == (k * 500_000).astype("m8[us]")).all()
    assert np.allclose(columns.latitude, 47.0 + k * 1e-5, rtol=0, atol=1e-12)
    assert np.allclose(columns.longitude, 8.5 - k * 1e-5, rtol=0, atol=1e-12)
    assert (columns.altitude == 400 + k % 7).all() and (columns.horizontal_accuracy == 5).all()
    assert np.isnan(columns.vertical_accuracy).all()
    assert (columns.course == 90).all() and (columns.speed == 3.1).all()
    for name in ohk.Location._fields:
        column = getattr(columns, name)
        assert column.flags.c_contiguous and column.shape == (N,)
    # The same locations as Python objects: unknowns are None.
    first = route.locations[0]
    assert first == ohk.Location(T0, 47.0, 8.5, 400.0, 5.0, None, 90.0, 3.1)
    # A route read back saves again, as a Route or as its columns.
    store.save_route(None, route)
    store.save_route(None, columns)
    routes = [s.route for s in store.query(ROUTE).samples]
    assert len(routes) == 3 and routes[1].raw == routes[2].raw == route.raw
    assert routes[1].workout_uuid is None


def test_rule_32_a_route_as_a_pandas_frame(store):
    pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    workout = save_run(store)
    store.save_route(workout, [(minutes(0), 47.0, 8.5, 400), (minutes(1), 47.1, 8.6)])
    frame = store.query(ROUTE).samples[0].route.to_pandas()
    assert list(frame.columns) == list(ohk.Location._fields[1:]) and frame.index.name == "timestamp"
    assert frame.index[1] == pd.Timestamp(minutes(1)) and str(frame.index.tz) == "UTC"
    assert frame["altitude"].iloc[0] == 400 and math.isnan(frame["altitude"].iloc[1])
    # A frame saves back (its index is the timestamp), in any time zone.
    store.save_route(workout, frame.tz_convert("Europe/Paris"))
    first, again = (s.route for s in store.query(ROUTE).samples)
    assert again.raw == first.raw


def test_rule_32_locations_from_dicts_tuples_and_objects(store):
    workout = save_run(store)
    wanted = [ohk.Location(minutes(0), 47.0, 8.5, 400.0, None, None, None, 2.5),
              ohk.Location(minutes(1), 47.001, 8.501, None, 4.0, 3.0, 180.0, None)]
    forms = [
        wanted,                                                               # Location tuples
        [tuple(location) for location in reversed(wanted)],                   # plain tuples, any order
        [(minutes(0).timestamp(), 47.0, 8.5, 400.0, None, None, None, 2.5),   # Unix seconds, NaN unknown
         (minutes(1).timestamp(), 47.001, 8.501, math.nan, 4, 3, 180, math.nan)],
        [location._asdict() for location in wanted],                          # mappings
        [SimpleNamespace(**location._asdict()) for location in wanted],       # objects with attributes
        {name: [getattr(location, name) for location in wanted] for name in ohk.Location._fields},  # columns
    ]
    for form in forms:
        store.save_route(workout, form)
    routes = [s.route.locations for s in store.query(ROUTE).samples]
    assert routes == [wanted] * len(forms)


def test_rule_32_columns_without_numpy_are_read_as_rows(store, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` fails
    workout = save_run(store)
    store.save_route(workout, {"timestamp": [minutes(1), minutes(0)], "latitude": [1.0, 2.0], "longitude": [3.0, 4.0]})
    route = store.query(ROUTE).samples[0].route
    assert [(p.timestamp, p.latitude, p.altitude) for p in route.locations] == [(minutes(0), 2.0, None),
                                                                                  (minutes(1), 1.0, None)]
    with pytest.raises(ImportError, match="NumPy"):
        route.to_numpy()


def test_rule_32_numpy_columns_in_other_forms(store):
    np = pytest.importorskip("numpy")
    workout = save_run(store)
    seconds = T0.timestamp() + np.arange(4.0)
    store.save_route(workout, {"timestamp": (seconds * 1e6).astype("int64").astype("datetime64[us]"),
                               "latitude": np.float32([1, 2, 3, 4]), "longitude": [5, 6, 7, 8],
                               "speed": [None, 1.5, None, 2]})
    store.save_route(workout, {"timestamp": list(seconds), "latitude": np.int64([1, 2, 3, 4]),
                               "longitude": np.arange(5, 9), "speed": np.array([np.nan, 1.5, np.nan, 2])})
    store.save_route(workout, np.column_stack([seconds, np.arange(1.0, 5.0), np.arange(5.0, 9.0),  # 2-D: in order
                                               np.full(4, np.nan), np.full(4, np.nan), np.full(4, np.nan),
                                               np.full(4, np.nan), [np.nan, 1.5, np.nan, 2]]))
    first, second, third = (s.route.to_numpy() for s in store.query(ROUTE).samples)
    for name in ohk.Location._fields:
        assert np.array_equal(getattr(first, name), getattr(second, name), equal_nan=True)
        assert np.array_equal(getattr(first, name), getattr(third, name), equal_nan=True)
    with pytest.raises(ohk.InvalidArgumentError):
        store.save_route(workout, np.zeros((4, 2)))
    assert list(first.latitude) == [1, 2, 3, 4] and np.isnan(first.speed[0]) and first.speed[3] == 2


def test_rule_32_a_save_refuses_a_route_off_the_earth_empty_or_of_an_unsaved_workout(store):
    workout = save_run(store)
    good = [(minutes(0), 47.0, 8.5), (minutes(1), 47.1, 8.6)]

    def refused(error, locations, target=workout):
        with pytest.raises(error) as raised:
            store.save_route(target, locations)
        assert raised.value.status == error.status
        return str(raised.value)

    assert "latitude" in refused(ohk.InvalidValueError, [good[0], (minutes(1), math.nan, 8.6)])
    refused(ohk.InvalidValueError, [good[0], (minutes(1), 91.0, 8.6)])
    refused(ohk.InvalidValueError, [(minutes(0), 47.0, -180.5)])
    refused(ohk.InvalidValueError, [(minutes(0), 47.0, 8.5, math.inf)])
    refused(ohk.InvalidValueError, [(math.nan, 47.0, 8.5)])
    refused(ohk.InvalidValueError, [])  # a route has a location
    refused(ohk.InvalidArgumentError, [(minutes(0), 47.0)])  # no longitude
    refused(ohk.InvalidArgumentError, {"timestamp": [minutes(0)], "lat": [1.0], "longitude": [2.0]})
    refused(ohk.InvalidArgumentError, [(datetime(2024, 3, 1), 47.0, 8.5)])  # naive
    refused(ohk.ArgumentTypeError, [(minutes(0), "47", 8.5)])
    refused(ohk.ArgumentTypeError, 47.0)
    # The workout must be stored and live (rule 36), and be a workout.
    assert "no workout" in refused(ohk.NotFoundError, good, uuid.uuid4())  # never saved
    beat = heart(0)
    store.save(beat)
    refused(ohk.InvalidArgumentError, good, store.query(HEART).samples[0])
    assert "not a workout" in refused(ohk.InvalidArgumentError, good, beat.uuid)
    store.delete(workout)
    refused(ohk.NotFoundError, good)
    assert len(store.query(ROUTE).samples) == 0


def test_rule_32_deleting_a_workout_leaves_its_routes(store):
    workout = save_run(store)
    [outcome] = store.save_route(workout, [(minutes(0), 47.0, 8.5)])
    store.delete(workout)
    [route] = store.query(ROUTE).samples
    assert route.uuid == outcome.uuid and route.route.workout_uuid == workout


# ---- rule 33: correlations

def test_rule_33_a_blood_pressure_correlation_and_its_members(store):
    members = pressure()
    outcomes = store.save_correlation("BloodPressure", members, source=WATCH, metadata={"HKWasUserEntered": True})
    assert [o.uuid for o in outcomes[:2]] == [m.uuid for m in members]
    assert all(o.result is ohk.SaveResult.SAVED for o in outcomes)
    [sample] = store.query(PRESSURE).samples
    assert isinstance(sample, ohk.CorrelationSample) and sample.uuid == outcomes[2].uuid
    assert sample.value == 2 and sample.source == WATCH and sample.metadata == {"HKWasUserEntered": True}
    assert sample.start_date == sample.end_date == T0  # the members' interval by default
    assert sorted(sample.correlation.members) == sorted(m.uuid for m in members)
    # The members are samples of their own types, in their own feeds.
    assert [s.uuid for s in store.query(SYSTOLIC).samples] == [members[0].uuid]
    assert [s.value for s in store.query(DIASTOLIC).samples] == [80]
    # And the correlation fetches them.
    objects = store.correlation_objects(sample)
    assert sorted(s.uuid for s in objects) == sorted(m.uuid for m in members)
    assert [s.value for s in store.correlation_objects(sample, "BloodPressureSystolic")] == [120]
    found = store.query([SYSTOLIC, DIASTOLIC], predicate=sample.correlation.predicate()).samples
    assert len(found) == 2
    assert "2 members" in repr(sample)


def test_rule_33_a_food_correlation_holds_dietary_samples(store):
    meal = [ohk.QuantitySample("DietaryEnergyConsumed", minutes(0), minutes(20), 650, "kcal"),
            ohk.QuantitySample("DietaryProtein", minutes(0), minutes(20), 32, "g")]
    store.save_correlation(FOOD, meal, minutes(-5), minutes(25), metadata={"HKFoodType": "Lunch"})
    [sample] = store.query(FOOD).samples
    assert (sample.start_date, sample.end_date) == (minutes(-5), minutes(25))
    objects = store.correlation_objects(sample)
    assert sorted(s.value for s in objects) == [32, 650]


def test_rule_33_a_save_refuses_members_it_does_not_allow(store):
    def refused(error, members, kind="BloodPressure"):
        with pytest.raises(error) as raised:
            store.save_correlation(kind, members)
        assert raised.value.status == error.status
        return str(raised.value)

    assert "StepCount" in refused(ohk.InvalidArgumentError, [pressure()[0], steps(0)])
    refused(ohk.InvalidArgumentError, [pressure()[0], pressure(121)[0]])  # two systolic samples
    refused(ohk.InvalidArgumentError, [pressure()[0]])  # no diastolic one
    refused(ohk.InvalidArgumentError, pressure(), kind=STEPS)  # not a correlation type
    refused(ohk.UnknownTypeError, pressure(), kind="NoSuchCorrelation")
    refused(ohk.InvalidArgumentError, [ohk.QuantitySample(SYSTOLIC, T0, T0, 120, "mmHg"),
                                       ohk.QuantitySample("DietaryProtein", T0, T0, 1, "g")])
    refused(ohk.InvalidValueError, [])
    refused(ohk.IncompatibleUnitError, [ohk.QuantitySample(SYSTOLIC, T0, T0, 120, "mmHg"),
                                        ohk.QuantitySample(DIASTOLIC, T0, T0, 80, "kg")])
    save_run(store)
    refused(ohk.ArgumentTypeError, [*pressure(), the_workout(store)])
    # Nothing of a refused correlation is saved: neither it nor its members.
    assert len(store.query([PRESSURE, SYSTOLIC, DIASTOLIC, STEPS]).samples) == 0
    # Members stored before are grouped, not saved again; a deleted one is not there.
    members = pressure()
    store.save(members)
    outcomes = store.save_correlation(PRESSURE, members)
    assert [o.result for o in outcomes] == [ohk.SaveResult.ALREADY_STORED] * 2 + [ohk.SaveResult.SAVED]
    assert len(store.query([SYSTOLIC, DIASTOLIC]).samples) == 2
    store.delete(members[0].uuid)
    refused(ohk.NotFoundError, members)


def test_rule_33_deleting_a_correlation_leaves_its_members(store):
    members = pressure()
    outcomes = store.save_correlation(PRESSURE, members)
    store.delete(outcomes[-1].uuid)
    assert len(store.query(PRESSURE).samples) == 0
    assert sorted(s.uuid for s in store.query([SYSTOLIC, DIASTOLIC]).samples) == sorted(m.uuid for m in members)


# ---- rule 36: samples added to a workout

def test_rule_36_add_to_workout_saves_unsaved_samples_and_associates_them(store):
    workout = save_run(store)
    stored = heart(0)
    store.save(stored)
    new = [heart(1, 130), heart(2, 140)]
    outcomes = store.add_to_workout(the_workout(store), [new[0], stored, new[1]])
    assert [o.result for o in outcomes] == [ohk.SaveResult.SAVED, ohk.SaveResult.ALREADY_STORED,
                                            ohk.SaveResult.SAVED]
    assert [o.uuid for o in outcomes] == [new[0].uuid, stored.uuid, new[1].uuid]
    assert all(o.other_uuid is None for o in outcomes)
    theirs = store.query(HEART, predicate=ohk.Predicate.workout(workout)).samples
    assert sorted(s.value_in("count/min") for s in theirs) == [60, 130, 140]
    # Again: already stored, nothing changes; the workout keeps its fields.
    again = store.add_to_workout(workout, new)
    assert {o.result for o in again} == {ohk.SaveResult.ALREADY_STORED}
    assert the_workout(store).workout == run()
    # All or nothing: an unsaved workout saves none of the samples.
    lost = heart(9)
    with pytest.raises(ohk.NotFoundError):
        store.add_to_workout(uuid.uuid4(), [lost])
    with pytest.raises(ohk.ArgumentTypeError):
        store.add_to_workout(workout, [the_workout(store)])
    with pytest.raises(ohk.InvalidArgumentError):
        store.add_to_workout(store.query(HEART).samples[0], [lost])
    assert lost.uuid not in {s.uuid for s in store.query(HEART).samples}
    # `associate` still takes stored samples by UUID; a route belongs to its workout.
    store.save(steps(0))
    store.associate(workout, [store.query(STEPS).samples[0].uuid])
    store.save_route(workout, [(minutes(0), 47.0, 8.5)])
    assert len(store.query([STEPS, ROUTE], predicate=ohk.Predicate.workout(workout)).samples) == 2
