"""Every exception class is reachable, with the library's message; bad input
from Python gets a specific exception, never a crash."""

from __future__ import annotations

import ctypes
import os
import ctypes.util
import uuid
from datetime import datetime, timedelta

import pytest

import openhealthkit as ohk
from openhealthkit import _native as n
from openhealthkit import errors, queries
from conftest import SLEEP, STEPS, T0, steps


def test_every_status_has_its_class_and_name():
    for status, cls in errors._BY_STATUS.items():
        assert n.lib.ohk_status_name(status).decode() == cls.status_name
        error = errors.error_for(status, "message")
        assert type(error) is cls and str(error) == "message" and error.status == status
    assert set(errors._BY_STATUS) == set(errors.Status) - {errors.Status.OK}


def reach(store, tmp_path):
    """One real call per status, through the public API where one exists."""
    store.save(steps(0))
    anchor = store.current_anchor()
    other = ohk.HealthStore(tmp_path / "other", durable=False)
    other.save(steps(0))
    closed = ohk.HealthStore(tmp_path / "closed", durable=False)
    closed.close()
    reader = ohk.HealthStore(tmp_path / "closed", read_only=True)
    small = ctypes.create_string_buffer(4)
    length = ctypes.c_uint64()
    yield ohk.InvalidArgumentError, lambda: store.register_quantity_type(STEPS, "count")  # HealthKit's own
    yield ohk.UnknownTypeError, lambda: store.query("HKQuantityTypeIdentifierNope")
    yield ohk.InvalidUnitError, lambda: ohk.convert(1, "kg/", "g")
    yield ohk.IncompatibleUnitError, lambda: ohk.convert(1, "kg", "m")
    yield ohk.InvalidValueError, lambda: store.save(ohk.CategorySample(SLEEP, T0, T0, 77))
    yield ohk.InvalidDateRangeError, lambda: store.save(ohk.QuantitySample(STEPS, T0, T0 - timedelta(1), 1))
    yield ohk.DuplicateUUIDError, lambda: store.save(steps(1, uuid=store.query(STEPS).samples[0].uuid))
    yield ohk.NotFoundError, lambda: store.delete(uuid.uuid4())
    yield ohk.AnchorWrongStoreError, lambda: other.query(STEPS, anchor)
    yield ohk.AnchorCorruptError, lambda: ohk.Anchor.from_bytes(b"\x01garbage")
    yield ohk.AnchorFromFutureError, lambda: store.query(STEPS, ohk.Anchor.from_value(1 << 40))
    yield ohk.StorageError, lambda: ohk.HealthStore("/proc/ohk-cannot-be-here")
    yield ohk.ClosedError, lambda: closed.save(steps(0))
    yield ohk.ReadOnlyError, lambda: reader.save(steps(0))
    yield ohk.InvalidPredicateError, lambda: ohk.Predicate("quantity >")
    yield ohk.InvalidMetadataError, lambda: store.save(steps(2, metadata={"HKMetadataKeySyncVersion": 1}))
    yield ohk.BufferTooSmallError, lambda: n.lib.ohk_anchor_to_bytes(small, 4, length, anchor._struct)
    yield ohk.ImportInputError, lambda: ohk.import_export(tmp_path / "no-export.zip", store)
    cut = tmp_path / "cut.xml"
    cut.write_text("<?xml version='1.0'?><HealthData><Record")
    yield ohk.ImportDamagedError, lambda: ohk.import_export(cut, store)
    yield ohk.CancelledByCallerError, lambda: ohk.import_export(cut, store, progress=lambda p: False)
    other.close()


def test_every_exception_class_is_reachable_with_a_message(store, tmp_path):
    seen = set()
    for cls, call in reach(store, tmp_path):
        with pytest.raises(cls) as caught:
            call()
        assert caught.value.message and caught.value.status == cls.status, cls
        seen.add(cls)
    # The other four need a store set up first: the tests below. The fifth
    # needs a machine without libarchive (ohk_store_import then names it).
    # The sink's five need a PostgreSQL server: test_sink.py reaches each.
    # A sync's checkpoint error needs two stores synced: test_sync.py; its
    # busy error, a second sync between two batches: SyncTests.swift.
    expired_and_formats = {ohk.AnchorExpiredError, ohk.StoreFormatTooNewError, ohk.StoreFormatTooOldError,
                           ohk.StoreCorruptError, ohk.UnavailableError, ohk.SinkConnectError,
                           ohk.SinkConnectionLostError, ohk.SinkFencedError, ohk.SinkRefusedError,
                           ohk.SinkCheckpointError, ohk.SyncCheckpointError, ohk.SyncBusyError}
    assert seen | expired_and_formats == set(errors._BY_STATUS.values())


def test_store_corrupt_is_reachable(tmp_path):
    """A store whose two LMDB meta pages are damaged does not open."""
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        store.save(steps(0))
    page = os.sysconf("SC_PAGESIZE")
    with open(tmp_path / "s" / "data.mdb", "r+b") as f:
        for meta in (0, page):
            f.seek(meta + 16)
            f.write(b"\0\0\0\0")
    with pytest.raises(ohk.StoreCorruptError) as caught:
        ohk.HealthStore(tmp_path / "s")
    assert "check" in caught.value.message


def test_expired_anchor_is_reachable(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        store.save([steps(0), steps(1)])
        old = store.current_anchor()
        store.delete(store.query(STEPS).samples[0])
        store.prune_all()
        with pytest.raises(ohk.AnchorExpiredError, match="."):
            store.query(STEPS, old)


class MDBVal(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("data", ctypes.c_void_p)]


def set_format(directory, version: int) -> None:
    """Rewrites the store's format number with liblmdb itself (as the C suite does)."""
    name = ctypes.util.find_library("lmdb")
    if name is None:
        pytest.skip("liblmdb not found")
    lmdb = ctypes.CDLL(name)
    env, txn, dbi = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_uint()
    assert lmdb.mdb_env_create(ctypes.byref(env)) == 0
    assert lmdb.mdb_env_set_maxdbs(env, 64) == 0
    assert lmdb.mdb_env_open(env, str(directory).encode(), 0, 0o644) == 0
    assert lmdb.mdb_txn_begin(env, None, 0, ctypes.byref(txn)) == 0
    assert lmdb.mdb_dbi_open(txn, b"meta", 0, ctypes.byref(dbi)) == 0
    key_data, value_data = ctypes.create_string_buffer(b"format", 6), ctypes.c_uint64(version)
    key = MDBVal(6, ctypes.cast(key_data, ctypes.c_void_p))
    value = MDBVal(8, ctypes.cast(ctypes.pointer(value_data), ctypes.c_void_p))
    assert lmdb.mdb_put(txn, dbi, ctypes.byref(key), ctypes.byref(value), 0) == 0
    assert lmdb.mdb_txn_commit(txn) == 0
    lmdb.mdb_env_close(env)


def test_stores_of_other_formats_are_refused(tmp_path):
    path = tmp_path / "s"
    ohk.HealthStore(path).close()
    set_format(path, 99)
    with pytest.raises(ohk.StoreFormatTooNewError, match="."):
        ohk.HealthStore(path)
    set_format(path, 1)
    with pytest.raises(ohk.StoreFormatTooOldError, match="."):
        ohk.HealthStore(path)


def test_errors_derive_from_the_builtin_a_user_would_catch():
    assert issubclass(ohk.UnknownTypeError, KeyError)
    assert issubclass(ohk.InvalidUnitError, ValueError)
    assert issubclass(ohk.StorageError, OSError)
    assert issubclass(ohk.AnchorExpiredError, ohk.AnchorError)


def assert_package_error(error: BaseException, exception: type, builtin: type) -> None:
    """A bad argument's error: `exception`, an OpenHealthKitError with a C
    status, and the builtin a Python caller would catch."""
    assert isinstance(error, exception), repr(error)
    assert isinstance(error, ohk.OpenHealthKitError), repr(error)
    assert error.status != errors.Status.OK and error.status_name.startswith("OHK_ERR_"), repr(error)
    assert isinstance(error, builtin) and str(error), repr(error)


@pytest.mark.parametrize("call, exception, builtin", [
    (lambda s: ohk.QuantitySample(STEPS, datetime(2024, 1, 1), T0, 1), ohk.InvalidArgumentError, ValueError),  # naive
    (lambda s: ohk.QuantitySample(STEPS, "2024-01-01", T0, 1), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.QuantitySample(STEPS, T0, T0, float("inf")), ohk.InvalidValueError, ValueError),
    (lambda s: ohk.QuantitySample(STEPS, T0, T0, "12"), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.QuantitySample(SLEEP, T0, T0, 1), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.CategorySample(SLEEP, T0, T0, 1.5), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.QuantitySample(STEPS, T0, T0, 1, metadata={"k": object()}), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.QuantitySample(STEPS, T0, T0, 1, metadata={1: "v"}), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.QuantitySample("HKQuantityTypeIdentifierNope", T0, T0, 1), ohk.UnknownTypeError, KeyError),
    (lambda s: s.query(42), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query([]), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.query(STEPS, b"not an anchor"), ohk.AnchorCorruptError, ValueError),
    (lambda s: s.query(STEPS, 5), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query(STEPS, limit=-1), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.query(STEPS, predicate="quantity > 1"), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.save([steps(0), "sample"]), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.delete("not-a-uuid"), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.query("Steps\0"), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.watch(STEPS, "not callable"), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.Predicate("startDate > $1", datetime(2024, 1, 1)), ohk.InvalidArgumentError, ValueError),
    (lambda s: ohk.Predicate("quantity > $1", float("nan")), ohk.InvalidValueError, ValueError),
    (lambda s: ohk.Predicate("quantity > $1", object()), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.Predicate("quantity > $1"), ohk.InvalidPredicateError, ValueError),
    (lambda s: ohk.Predicate.quantity("~", 1, "count"), ohk.InvalidArgumentError, ValueError),
    (lambda s: ohk.Anchor.from_str("%%%"), ohk.AnchorCorruptError, ValueError),
    (lambda s: ohk.Anchor.from_bytes("text"), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.HealthStore(s.path, map_size=-1), ohk.InvalidArgumentError, ValueError),
])
def test_bad_input_raises_a_specific_exception(store, call, exception, builtin):
    with pytest.raises(exception) as caught:
        call(store)
    assert_package_error(caught.value, exception, builtin)
    assert not store.query(STEPS)  # nothing was written


@pytest.mark.parametrize("call, exception, builtin", [
    # Types: one, or an iterable of them, never None or a number.
    (lambda s: s.query(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query(b"HKQuantityTypeIdentifierStepCount"), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query([STEPS, 42]), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query_columns(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.batches(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query_parts(None, print), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query_parts(STEPS, None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.watch(None, print), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.observe(42, print), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.subscribe("name", None, print), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.sample_type([]), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.sample_type([]), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.statistics([STEPS]), ohk.ArgumentTypeError, TypeError),
    # Counts: a wrong type is a TypeError, a wrong value a ValueError, and
    # none is cut to fit C (2**64 + 5 would be a limit of 5).
    (lambda s: s.query(STEPS, limit=None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query(STEPS, limit=2**64 + 5), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.batches(STEPS, batch_size=None), ohk.ArgumentTypeError, TypeError),  # raised at the call
    (lambda s: s.batches(STEPS, batch_size=0), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.watch(STEPS, print, max_batch_size="10"), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.HealthStore(s.path, map_size="1"), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.statistics_collection(STEPS, start=T0, end=T0, interval=None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.statistics_collection(STEPS, start=T0, end=T0, interval=(2**40, "day")),
     ohk.InvalidArgumentError, ValueError),
    # Stores, paths, options.
    (lambda s: ohk.HealthStore(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.import_export(None, s), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.import_export("export.zip", s, progress="yes"), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.subscribe("name", STEPS, print, frequency=9), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.register_quantity_type("org.example.x", "count", aggregation=9), ohk.InvalidArgumentError,
     ValueError),
    (lambda s: s.register_category_type("org.example.y", None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.register_category_type("org.example.y", {"Big": 2**70}), ohk.InvalidArgumentError, ValueError),
    (lambda s: s.set_source_priority(STEPS, None), ohk.ArgumentTypeError, TypeError),
    # Saves and deletes of what is not a sample or a UUID.
    (lambda s: s.save(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.save(42), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.delete(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.delete(42), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.associate(uuid.uuid4(), None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.save_audiogram(None, T0), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.save_audiogram([None], T0), ohk.ArgumentTypeError, TypeError),
    # Anchors and predicates: none cut to fit C either.
    (lambda s: ohk.Anchor.from_value(2**64), ohk.InvalidArgumentError, ValueError),
    (lambda s: ohk.Anchor.from_value("1"), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.Predicate.category_value(">", 2**64), ohk.InvalidArgumentError, ValueError),
    (lambda s: ohk.Predicate.sources(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.Predicate.uuids(42), ohk.ArgumentTypeError, TypeError),
    # Units, category names, indexes.
    (lambda s: ohk.QuantitySample(STEPS, T0, T0, 1).value_in(None), ohk.ArgumentTypeError, TypeError),
    (lambda s: ohk.CategorySample(SLEEP, T0, T0, "Dreaming"), ohk.InvalidArgumentError, ValueError),
    (lambda s: ohk.category_value(SLEEP, "Dreaming"), ohk.NotFoundError, KeyError),
    (lambda s: ohk.category_value_name(SLEEP, None), ohk.ArgumentTypeError, TypeError),
    (lambda s: s.query(SLEEP).samples["first"], ohk.ArgumentTypeError, TypeError),
    (lambda s: steps(0, metadata={"big": 2**53}), ohk.InvalidArgumentError, ValueError),
])
def test_rule_47_bad_arguments_raise_package_errors_with_a_builtin_base(store, call, exception, builtin):
    """Rule 47: every error raised for a bad argument is an OpenHealthKitError
    with a status, and the builtin exception a caller would catch."""
    running = set(queries._live)
    with pytest.raises(exception) as caught:
        call(store)
    assert_package_error(caught.value, exception, builtin)
    assert not store.query(STEPS)  # nothing was written
    assert set(queries._live) == running  # and no query was left registered


def test_messages_say_what_to_write_instead(store):
    """Issue 48 item 12: the argument at fault is named, and the message
    gives HealthKit's spelling."""
    from datetime import datetime
    with pytest.raises(ohk.InvalidArgumentError, match="^start is a naive datetime"):
        store.statistics_collection(STEPS, start=datetime(2020, 11, 1), end=datetime(2020, 11, 2))
    with pytest.raises(ohk.UnknownTypeError, match="did you mean StepCount"):
        store.sample_type("stepcount")
    with pytest.raises(ohk.UnknownTypeError, match="did you mean SleepAnalysis"):
        store.sample_type("Sleep")
    for written, spelt in [("km/h", "km/hr"), ("lbs", "lb"), ("miles", "mi"), ("beats/min", "count/min")]:
        with pytest.raises(ohk.OpenHealthKitError, match=f"write {spelt}"):
            ohk.convert(1, written, spelt)
    with pytest.raises(ohk.InvalidPredicateError, match="has no UTC offset"):
        ohk.Predicate("startDate >= 2020-11-01T08:00:00")
