"""Samples, metadata, devices, types, units and predicates as Python values."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import openhealthkit as ohk
from conftest import HEART, SLEEP, STEPS, T0, Inbox, steps


def test_a_sample_round_trips_every_field(store):
    device = ohk.Device(name="Watch", manufacturer="Apple", model="S9", local_identifier="x1")
    source = ohk.Source("com.example.app", "Example", "2.1")
    when = datetime(2024, 2, 29, 23, 59, 59, 250000, tzinfo=timezone(timedelta(hours=2)))
    metadata = {"HKWasUserEntered": True, "note": "after lunch", "level": 3.5, "at": when}
    made = ohk.QuantitySample(HEART, T0, T0 + timedelta(seconds=90), 72, "count/min", source=source,
                              device=device, metadata=metadata)
    [outcome] = store.save(made)
    assert outcome.result is ohk.SaveResult.SAVED and outcome.uuid == made.uuid
    [read] = store.query(HEART).samples
    assert read == made and hash(read) == hash(made) and read.uuid == made.uuid
    assert read.start_date == T0 and read.end_date == T0 + timedelta(seconds=90)
    assert read.start_date.tzinfo is not None and read.start_timestamp == T0.timestamp()
    assert read.value_in("count/min") == pytest.approx(72)
    assert read.unit == read.sample_type.canonical_unit
    assert read.source == source and read.device == device
    assert read.metadata == {**metadata, "at": when.astimezone(timezone.utc)}
    assert isinstance(read.metadata["HKWasUserEntered"], bool)
    assert read.sample_type.aggregation is ohk.Aggregation.DISCRETE_ARITHMETIC or read.sample_type.aggregation


def test_a_delivered_sample_with_metadata_and_no_device_has_no_device(store):
    """A lent batch is read whole; the library's ERR_NOT_FOUND for the
    device means none, not an error."""
    store.save(steps(0, metadata={"note": "n"}))
    inbox = Inbox()
    with store.watch(STEPS, inbox.put, on_error=inbox.put):
        [result] = inbox.wait(1)
    [read] = result.samples
    assert read.device is None and read.metadata == {"note": "n"}


def test_samples_are_immutable_and_equal_by_uuid(store):
    sample = steps(0)
    with pytest.raises(AttributeError):
        sample.value = 3
    twin = ohk.QuantitySample(STEPS, T0, T0, 99, uuid=sample.uuid)
    assert twin == sample and twin.uuid.version == sample.uuid.version == 4
    assert "HKQuantityTypeIdentifierStepCount" in repr(sample)


def test_category_samples_and_named_values(store):
    core = ohk.category_value(SLEEP, "AsleepCore")
    assert ohk.category_value(SLEEP, "HKCategoryValueSleepAnalysisAsleepCore") == core
    with pytest.raises(ohk.NotFoundError):
        ohk.category_value(SLEEP, "Dreaming")
    store.save(ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=7), core))
    [night] = store.query(SLEEP).samples
    assert isinstance(night, ohk.CategorySample) and night.value == core and isinstance(night.value, int)


def test_catalogue_units_and_custom_types(store):
    types = ohk.sample_types()
    assert len(types) > 100 and all(isinstance(t, ohk.SampleType) for t in types)
    steps_type = ohk.sample_type(STEPS)
    assert steps_type.canonical_unit == "count" and steps_type.aggregation is ohk.Aggregation.CUMULATIVE
    assert ohk.convert(1, "mi", "km") == pytest.approx(1.609344)
    assert ohk.units_compatible("kg", "lb") and not ohk.units_compatible("kg", "m")
    assert ohk.convert(1, ohk.canonical_unit("kg*m/s^2"), "g*m/s^2") == pytest.approx(1000)
    mood = store.register_category_type("com.example.mood", {"low": 0, "high": 1})
    focus = store.register_quantity_type("com.example.focus", "min", ohk.Aggregation.CUMULATIVE)
    assert mood.is_custom and focus.canonical_unit == "min"
    store.save([ohk.CategorySample(mood, T0, T0, 1), ohk.QuantitySample(focus, T0, T0, 2, "hr")])
    assert store.query(focus).samples[0].value == pytest.approx(120)
    assert store.sample_type("com.example.mood") == mood


def test_predicates_from_text_with_parameters_and_built(store):
    store.save([steps(i, value=10 * i, source=ohk.Source(f"com.example.s{i % 2}", "S")) for i in range(10)])
    since = T0 + timedelta(minutes=5)
    text = ohk.Predicate("startDate >= $1 AND source == $2", since, "com.example.s1")
    assert [s.value for s in store.query(STEPS, predicate=text).samples] == [50, 70, 90]
    built = ohk.Predicate.date_range(since, None, strict_start=True) & ohk.Predicate.sources(["com.example.s1"])
    assert [s.value for s in store.query(STEPS, predicate=built).samples] == [50, 70, 90]
    either = ohk.Predicate.quantity("<", 15, "count") | ohk.Predicate("quantity IN $1", [ohk.Quantity(90, "count")])
    assert [s.value for s in store.query(STEPS, predicate=either).samples] == [0, 10, 90]
    first = store.query(STEPS).samples[0]
    by_uuid = ohk.Predicate("UUID == $1", first.uuid)
    assert store.query(STEPS, predicate=by_uuid).samples[0] == first
    assert ohk.Predicate(str(text)) == text  # canonical text parses back


def test_metadata_predicates(store):
    store.save([steps(0, metadata={"HKWasUserEntered": True, "n": 4}), steps(1)])
    assert len(store.query(STEPS, predicate=ohk.Predicate.metadata_exists("n")).samples) == 1
    assert len(store.query(STEPS, predicate=ohk.Predicate.metadata("n", ">", 3)).samples) == 1
    assert len(store.query(STEPS, predicate=ohk.Predicate("metadata.HKWasUserEntered == $1", True)).samples) == 1
    assert len(store.query(STEPS, predicate=~ohk.Predicate.metadata_exists("n")).samples) == 1


def test_anchors_accept_bytes_and_text_everywhere(store):
    store.save(steps(0))
    anchor = store.current_anchor()
    store.save(steps(1))
    for form in (anchor, bytes(anchor), str(anchor)):
        assert len(store.query(STEPS, form).samples) == 1
    assert hash(ohk.Anchor.from_bytes(bytes(anchor))) == hash(anchor)
    assert repr(ohk.Anchor.NONE) == "Anchor.NONE"


def test_query_results_are_sequences(store):
    store.save([steps(i, value=i) for i in range(5)])
    samples = store.query(STEPS).samples
    assert len(samples) == 5 and samples[-1].value == 4 and [s.value for s in samples[1:3]] == [1, 2]
    assert samples.index(samples[3]) == 3 and samples[2] in samples
    with pytest.raises(IndexError):
        samples[5]


def test_a_result_of_several_chunks_reads_in_order_and_by_index(store):
    """Records come from the batch a chunk (4,096) at a time: iteration and
    indexing across chunks, backwards too, see every sample once."""
    store.save([steps(i, value=i, metadata={"i": i} if i % 1000 == 0 else None) for i in range(9000)])
    samples = store.query(STEPS).samples
    assert [s.value for s in samples] == list(map(float, range(9000)))
    for i in (4095, 4096, 0, 8999, 4097, -1, -4096):
        assert samples[i].value == float(i % 9000)
    assert samples[8000].metadata == {"i": 8000} and samples[8001].metadata == {}


def test_chunks_with_and_without_creation_dates_read_alike(store):
    """A chunk of which no record has a creation date or UTC offset is
    unpacked without them: both kinds of chunk read every field."""
    from datetime import timedelta
    created = T0 - timedelta(hours=1)
    store.save([steps(i, value=i) for i in range(5000)]
               + [steps(5000, value=5000, creation_date=created, utc_offset=timedelta(hours=-8))])
    samples = list(store.query(STEPS).samples)
    assert samples[10].creation_date is None and samples[10].utc_offset is None
    assert samples[4200].creation_date is None and samples[4200].start_timestamp > samples[10].start_timestamp
    assert samples[5000].creation_date == created and samples[5000].utc_offset == timedelta(hours=-8)
    assert samples[10] == store.query(STEPS).samples[10] and samples[5000].value == 5000
    assert store.query(STEPS).samples[5000].creation_date == created  # by index, through the full layout


def test_results_stay_readable_after_the_store_closes(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        store.save(steps(0, metadata={"k": "v"}))
        result = store.query(STEPS)
    assert result.samples[0].metadata == {"k": "v"} and result.samples[0].value == 10


def test_samples_read_from_one_store_save_into_another(store, tmp_path):
    store.save(steps(0, metadata={"k": 1.0}))
    copy = list(store.query(STEPS).samples)
    with ohk.HealthStore(tmp_path / "copy", durable=False) as other:
        other.save(copy)
        [again] = other.query(STEPS).samples
        assert again == copy[0] and again.metadata == {"k": 1.0} and again.source == copy[0].source


def test_a_batch_mixing_quantity_and_category_samples_iterates_each_as_its_class(store):
    store.save([steps(0), ohk.CategorySample(SLEEP, T0, T0, ohk.category_value(SLEEP, "InBed")), steps(1)])
    result = store.query([STEPS, SLEEP])
    kinds = [type(s) for s in result.samples]
    assert kinds == [ohk.QuantitySample, ohk.CategorySample, ohk.QuantitySample]
    assert kinds == [type(result.samples[i]) for i in range(3)]


def test_rule18_a_predicate_deeper_than_128_levels_is_refused():
    """NOT, AND and OR nest at most 128 levels (a term is one): a predicate
    built up in a loop is refused, not a stack overflow later."""
    p = ohk.Predicate.quantity(">", 1, "count")
    for _ in range(127):
        p = ~p
    assert ohk.Predicate(str(p)) is not None  # the deepest prints back
    with pytest.raises(ohk.InvalidPredicateError, match="deeper than 128"):
        ~p
    with pytest.raises(ohk.InvalidPredicateError):
        ohk.Predicate("!" * 200 + "quantity > 1 count")


def test_short_type_names_work_everywhere(store):
    """`HeartRate` is HKQuantityTypeIdentifierHeartRate in every call that
    takes a type, as in `ohk` (issue: one vocabulary everywhere)."""
    heart = ohk.sample_type("HeartRate")
    assert heart.identifier == "HKQuantityTypeIdentifierHeartRate"
    assert ohk.sample_type("SleepAnalysis").identifier == "HKCategoryTypeIdentifierSleepAnalysis"
    store.save(ohk.QuantitySample("HeartRate", T0, T0, 60, "count/min"))
    assert [s.sample_type.identifier for s in store.query("HeartRate").samples] == [heart.identifier]
    with pytest.raises(ohk.UnknownTypeError):
        store.query("Nope")


def test_a_path_with_a_tilde_is_the_home_directory(tmp_path, monkeypatch):
    """HealthStore("~/x") opens $HOME/x, not a directory named "~"."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with ohk.HealthStore("~/health", durable=False) as store:
        assert store.path == str(tmp_path / "health")
    assert (tmp_path / "health" / "data.mdb").exists()
    assert not (tmp_path / "~").exists()


def test_python_errors_carry_a_status_and_the_builtin_base(store):
    """Issue 32: bad arguments are the package's errors with a status, and
    still ValueError / TypeError for code that catches those."""
    with pytest.raises(ohk.InvalidArgumentError) as bad_uuid:
        store.delete("not-a-uuid")
    assert isinstance(bad_uuid.value, ValueError) and bad_uuid.value.status == ohk.errors.Status.ERR_INVALID_ARGUMENT
    with pytest.raises(ohk.ArgumentTypeError) as wrong_type:
        ohk.QuantitySample(STEPS, "yesterday", T0, 1)
    assert isinstance(wrong_type.value, TypeError) and isinstance(wrong_type.value, ohk.OpenHealthKitError)
    with pytest.raises(ohk.InvalidArgumentError):
        store.query(STEPS, limit=-1)


def test_whole_numbers_come_back_as_ints_and_deletes_count(store):
    sample = steps(0, metadata={"HKMetadataKeySyncIdentifier": "s", "HKMetadataKeySyncVersion": 3, "ratio": 0.5})
    store.save(sample)
    [read] = store.query(STEPS).samples
    assert read.metadata == {"HKMetadataKeySyncIdentifier": "s", "HKMetadataKeySyncVersion": 3, "ratio": 0.5}
    assert type(read.metadata["HKMetadataKeySyncVersion"]) is int
    other = steps(1)
    store.save(other)
    assert store.delete([read, other, read]) == 2  # listed twice, deleted once (rule 15)
    deleted = store.query(STEPS).deleted
    version = {d.uuid: d.sync_version for d in deleted}[read.uuid]
    assert version == 3 and type(version) is int


def test_category_values_have_names(store):
    sleep = ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=1), ohk.category_value(SLEEP, "AsleepREM"))
    store.save(sleep)
    [read] = store.query(SLEEP).samples
    assert read.value_name == "AsleepREM" and "AsleepREM" in repr(read)
    assert ohk.CategorySample(SLEEP, T0, T0, 1).value_name == "AsleepUnspecified"
