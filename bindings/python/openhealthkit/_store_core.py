"""The core of ``HealthStore``: opening and closing a store, its types,
and what the other parts of the façade share (the query descriptors, the
checks of counts, the outcomes of saves). ``store.py`` composes the parts:
``_store_core`` <- ``_store_queries`` <- ``_store_saving`` <-
``_store_analysis`` <- ``HealthStore``."""

from __future__ import annotations

import atexit
import ctypes
import os
import threading
import weakref
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from . import _native as n
from ._convert import as_list, int64, make_uuid, uuid_bytes
from ._enums import Aggregation, SaveResult
from ._handles import predicate_handle, register_store
from .anchor import Anchor
from .catalogue import SampleType, convert
from .catalogue import sample_type as catalogue_type
from .errors import ArgumentTypeError, InvalidArgumentError
from .predicate import Predicate, QueryDescriptor, Types
from .samples import DEFAULT_SOURCE, SaveOutcome, Sample, Source
from .workout import WorkoutSample

if TYPE_CHECKING:
    from .queries import Query

S = TypeVar("S", bound="StoreCore")

_open_stores: "weakref.WeakSet[StoreCore]" = weakref.WeakSet()


@atexit.register
def _close_open_stores() -> None:
    # Library threads must not call into Python while it shuts down.
    for store in list(_open_stores):
        store.close()


class StoreCore:
    """A store's handle, types and running queries (see ``HealthStore``)."""

    def __init__(self, path: str | os.PathLike[str], *, map_size: int | None = None,
                 tombstone_retention: timedelta | None = None, durable: bool = True,
                 default_source: Source = DEFAULT_SOURCE, read_only: bool = False) -> None:
        """Opens the store (``~`` in ``path`` is the home directory).
        ``tombstone_retention``: how long deleted objects are kept (default
        90 days; ``timedelta.max``: until pruned).
        ``durable=False`` skips fsync (scratch stores only). Samples saved
        without a source get ``default_source``.
        ``read_only=True`` opens an existing store for reading (rule 64):
        every write raises :class:`ReadOnlyError`, read access to its files
        is enough, and nothing is created, upgraded or pruned."""
        if not isinstance(path, (str, os.PathLike)):
            raise ArgumentTypeError(f"path must be a str or a path, not {type(path).__name__}")
        options = n.ohk_store_options()
        n.lib.ohk_store_options_init(options, n.STORE_OPTIONS_VERSION)
        if map_size is not None:
            if count_arg(map_size, "map_size") == 0:
                raise InvalidArgumentError("map_size must be a positive int, not 0")
            options.map_size = map_size
        if tombstone_retention is not None:
            if not isinstance(tombstone_retention, timedelta):
                raise ArgumentTypeError("tombstone_retention must be a timedelta")
            options.tombstone_retention = (-1.0 if tombstone_retention == timedelta.max
                                           else tombstone_retention.total_seconds())
        options.durable = bool(durable)
        options.read_only = bool(read_only)
        if not isinstance(default_source, Source):
            raise ArgumentTypeError("default_source must be a Source")
        self.path = os.path.expanduser(os.fspath(path))  # "~/health" as a shell would
        self.default_source = default_source
        self._types: dict[str, SampleType] = {}
        self._queries: set[Query] = set()
        self._queries_lock = threading.Lock()
        handle = ctypes.POINTER(n.ohk_store)()
        n.lib.ohk_store_open(handle, n.encode(self.path, "path"), options)
        self._handle = handle
        register_store(self, handle)
        self._closed = False
        _open_stores.add(self)

    def close(self) -> None:
        """Stops the store's running queries and closes it (idempotent).
        Results already read stay readable."""
        if self._closed:
            return
        self._closed = True
        n.lib.ohk_store_close(self._handle)  # stops every query first
        with self._queries_lock:
            running, self._queries = self._queries, set()
        for query in running:
            query._release()  # an error a callback raised stays in query.error
        _open_stores.discard(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True) and n is not None and n.lib is not None:
            self.close()

    def __repr__(self) -> str:
        return f"<HealthStore {self.path!r}{' (closed)' if self._closed else ''}>"

    def _adopt_query(self, query: Query) -> None:
        with self._queries_lock:
            self._queries.add(query)

    def _forget_query(self, query: Query) -> None:
        with self._queries_lock:
            self._queries.discard(query)

    def sample_type(self, identifier: str | SampleType) -> SampleType:
        """A type by identifier: HealthKit's or one registered in this store."""
        if isinstance(identifier, SampleType):
            return identifier
        if not isinstance(identifier, str):  # before the dict: a list is unhashable
            raise ArgumentTypeError("a sample type is an identifier str or a SampleType, "
                                    f"not {type(identifier).__name__}")
        found = self._types.get(identifier)
        if found is None:
            try:
                found = catalogue_type(identifier)
            except KeyError:
                info = n.ohk_type_info()
                n.lib.ohk_type_lookup(info, self._handle, n.encode(identifier, "type identifier"))
                found = SampleType._from_info(info)
            self._types[identifier] = found
        return found

    def register_quantity_type(self, identifier: str, canonical_unit: str,
                               aggregation: Aggregation = Aggregation.DISCRETE_ARITHMETIC) -> SampleType:
        """Registers a quantity type of this store's own (not a HealthKit
        identifier); registering the same definition again is harmless."""
        try:
            style = Aggregation(aggregation)
        except ValueError:
            raise InvalidArgumentError(f"aggregation must be an Aggregation, not {aggregation!r}") from None
        info = n.ohk_type_info()
        n.lib.ohk_store_register_quantity_type(
            info, self._handle, n.encode(identifier, "identifier"), n.encode(canonical_unit, "unit"), int(style))
        return self._remember(SampleType._from_info(info))

    def register_category_type(self, identifier: str, values: Mapping[str, int]) -> SampleType:
        """Registers a category type of this store's own with named values
        (``{"Low": 1, "High": 2}``)."""
        if not isinstance(values, Mapping):
            raise ArgumentTypeError(f"values must be a mapping of names to ints, not {type(values).__name__}")
        names = [n.encode(name, "value name") for name in values]
        numbers = [int64(v, f"value {name!r}") for name, v in values.items()]
        info = n.ohk_type_info()
        n.lib.ohk_store_register_category_type(
            info, self._handle, n.encode(identifier, "identifier"),
            (ctypes.c_char_p * max(len(names), 1))(*names),
            (ctypes.c_int64 * max(len(numbers), 1))(*numbers), len(names))
        return self._remember(SampleType._from_info(info))

    def _remember(self, kind: SampleType) -> SampleType:
        self._types[kind.identifier] = kind
        return kind

    def current_anchor(self) -> Anchor:
        """The store's head: a query from it returns only later changes."""
        anchor = n.ohk_anchor()
        n.lib.ohk_store_current_anchor(anchor, self._handle)
        return Anchor(anchor)

    def _descriptors(self, types: Types, predicate: Predicate | None) -> tuple[Any, int, list[Any]]:
        items = as_list(types, "types", (str, SampleType, QueryDescriptor),
                        "a type identifier, a SampleType or a QueryDescriptor")
        if not items:
            # Rule 48: every HealthKit query names its types; an empty list would match nothing.
            raise InvalidArgumentError("a query needs at least one type, as each of HealthKit's queries does; to "
                                       "read every type, list them: store.query(ohk.sample_types()) reads all of "
                                       "HealthKit's (add the types registered in the store, if any)")
        array = (n.ohk_descriptor * len(items))()
        keep: list[Any] = []
        for slot, item in zip(array, items):
            kind, own = (item.sample_type, item.predicate) if isinstance(item, QueryDescriptor) else (item, None)
            if own is not None and predicate is not None:
                raise InvalidArgumentError("give a predicate per QueryDescriptor or one for all, not both")
            chosen = own if own is not None else predicate
            slot.type = type_identifier(kind)
            slot.predicate = predicate_handle(chosen)
            keep.append(chosen)
        return array, len(items), keep


def query_options(descriptors: Any = None, count: int = 0, *, anchor: Any = None, max_batch_size: int = 0,
                  name: bytes | None = None, frequency: int = 0, start_day: int = 0, end_day: int = 0,
                  statistics: Any = None) -> n.ohk_query_options:
    """An ohk_query_options; it keeps what its pointers point at (ctypes
    holds the objects assigned to a struct's fields)."""
    options = n.ohk_query_options()
    n.lib.ohk_query_options_init(options, n.QUERY_OPTIONS_VERSION)
    if descriptors is not None:
        options.descriptors = ctypes.cast(descriptors, ctypes.POINTER(n.ohk_descriptor))
        options.descriptor_count = count
    if anchor is not None:
        options.anchor = ctypes.pointer(anchor)
    options.max_batch_size = max_batch_size
    options.subscription_name = name
    options.frequency, options.start_day, options.end_day = frequency, start_day, end_day
    if statistics is not None:
        options.statistics = ctypes.pointer(statistics)
    return options


def check_unit(kind: SampleType, unit: str | None) -> None:
    """IncompatibleUnitError or InvalidUnitError for a `unit` the type's
    values cannot be read in."""
    if unit is not None and kind.canonical_unit is not None:
        convert(0.0, kind.canonical_unit, unit)  # IncompatibleUnitError or InvalidUnitError now, not after the query


def type_identifier(kind: str | SampleType) -> bytes:
    """A type's identifier as the C calls take it."""
    if isinstance(kind, SampleType):
        return kind.identifier.encode("utf-8")
    return n.encode(kind, "type identifier")


def count_arg(value: int, what: str) -> int:
    """A count for a C ``uint64_t``: ArgumentTypeError for what is not an
    int, InvalidArgumentError for one out of range (ctypes would cut it)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be an int >= 0, not {type(value).__name__}")
    if not 0 <= value < 2**64:
        raise InvalidArgumentError(f"{what} must be an int from 0 to 2**64 - 1, not {value!r}")
    return value


def save_outcome(outcome: n.ohk_save_outcome) -> SaveOutcome:
    """A C save outcome as a SaveOutcome."""
    result = SaveResult(outcome.outcome)
    other = (None if result is SaveResult.SAVED or result is SaveResult.ALREADY_STORED
             else make_uuid(bytes(outcome.other_uuid)))
    return SaveOutcome(make_uuid(bytes(outcome.uuid)), result, other)


def workout_uuid(workout: Any) -> bytes:
    """A workout's UUID as 16 bytes: a WorkoutSample's, or a UUID given."""
    if isinstance(workout, Sample):
        if not isinstance(workout, WorkoutSample):
            raise InvalidArgumentError(f"{workout.sample_type.identifier} sample {workout.uuid} is not a workout")
        return workout.uuid_bytes
    return uuid_bytes(workout, "workout")

