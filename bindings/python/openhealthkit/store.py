"""HealthStore: a store of health samples in one directory."""

from __future__ import annotations

import atexit
import ctypes
import math
import os
import threading
import uuid as uuid_module
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import astuple, dataclass
from datetime import date, datetime, timedelta
from typing import Any, Literal, Union, cast

from ._enums import Frequency as Frequency, SaveResult as SaveResult  # defined once, in api/enums.toml
from . import _native as n, hooks
from .activity import ActivitySummary, ActivitySummaryList, day_range, summaries_to_c
from ._convert import ValueArena, as_list, int64, make_uuid, unix_time, utc_datetime, uuid_bytes
from .anchor import Anchor, AnchorLike, as_anchor
from ._handles import predicate_handle, register_store, store_handle
from .aio import statistics_updates, updates
from .batch import BatchContext, QueryResult, SampleList
from .columns import ColumnsResult, query_columns
from . import statistics as _statistics
from .catalogue import Aggregation, SampleType, convert
from .characteristics import Characteristics
from .catalogue import sample_type as catalogue_type
from .hooks import CommitHook
from .predicate import Predicate
from .queries import (ActivitySummaryQuery, Query, StatisticsQuery, Subscription, on_activity, on_observed, on_results,
                      on_statistics)
from .samples import CategorySample, DeletedObject, Device, QuantitySample, Sample, SampleRecord, Source
from .statistics import Statistics, StatisticsList, StatisticsOptions, StatisticsUpdate
from .receiving import ApplyResult
from .replication import LiveDigest, SyncReport, sync_options
from .subscriptions import SubscriptionStatus
from .workout_list import WorkoutList
from . import sleep as _sleep
from .sleep import SleepNights
from . import summary as _summary
from .summary import StoreSummary
from .errors import ArgumentTypeError, BufferTooSmallError, InvalidArgumentError, InvalidValueError
from ._marshal.audiograms import clamping_bounds
from ._marshal.clinical import check_fhir_json, clinical_record_to_c
from ._marshal.electrocardiograms import electrocardiogram_to_c
from ._marshal.heartbeats import heartbeat_series_end
from ._marshal.workouts import workout_to_c
from ._own_fields import OwnFieldsSample
from .audiogram import AUDIOGRAM, SensitivityPoint
from .clinical import ClinicalRecord
from .correlation import CorrelationSample, correlation_member_types
from .electrocardiogram import ELECTROCARDIOGRAM, Electrocardiogram
from .heartbeat import HEARTBEAT_SERIES, HeartbeatsLike, pack_heartbeats
from .route import EPOCH, ROUTE, LocationsLike, pack_locations
from .workout import WORKOUT, Workout, WorkoutSample

#: The source of samples saved without one, unless the store is given another.
DEFAULT_SOURCE = Source("org.openhealthkit.python", "OpenHealthKit for Python")


@dataclass(frozen=True, slots=True)
class QueryDescriptor:
    """One type and an optional predicate (HKQueryDescriptor); a query may
    name several, and an object matching several comes once."""

    sample_type: str | SampleType
    predicate: Predicate | None = None


#: What queries take as their types: an identifier, a SampleType, a
#: QueryDescriptor, or a list of these.
Types = Union[str, SampleType, QueryDescriptor, Iterable[Union[str, SampleType, QueryDescriptor]]]


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """What a save did with one sample: its ``uuid``, the ``result``,
    and the other sample a sync identifier matched (``other_uuid``, for
    REPLACED and KEPT_EXISTING)."""

    uuid: uuid_module.UUID
    result: SaveResult
    other_uuid: uuid_module.UUID | None


_open_stores: "weakref.WeakSet[HealthStore]" = weakref.WeakSet()


@atexit.register
def _close_open_stores() -> None:
    # Library threads must not call into Python while it shuts down.
    for store in list(_open_stores):
        store.close()


@dataclass(frozen=True)
class VerifyReport:
    """What ``HealthStore.verify()`` found."""

    #: Samples and deleted objects read, over every type.
    samples: int
    deleted_objects: int
    #: One line per problem (the first 100, then a line counting the rest).
    problems: list[str]

    @property
    def ok(self) -> bool:
        """Whether nothing was found."""
        return not self.problems


class HealthStore:
    """A store of health samples in `path` (created when missing).

    ``with HealthStore("/var/lib/app/health") as store: ...`` closes it on
    exit; ``close()`` stops its running queries first. A store may be used
    from many threads at once. Running queries keep the store alive until
    they are closed or the store is.
    """

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
            if _count(map_size, "map_size") == 0:
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

    # ---- life cycle

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

    def __enter__(self) -> "HealthStore":
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

    # ---- types

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

    # ---- saving and deleting

    def save(self, samples: Sample | Iterable[Sample]) -> list[SaveOutcome]:
        """Saves samples in one transaction, all or nothing, durable when it
        returns (rule 13, docs/semantics.md). Returns what happened to each, in order."""
        batch = as_list(samples, "samples", (Sample,), "a Sample")
        keep: list[Any] = []
        inputs = self._sample_inputs(batch, keep)
        outcomes = (n.ohk_save_outcome * max(len(batch), 1))()
        try:
            n.lib.ohk_store_save(outcomes, self._handle, inputs, len(batch))
        except InvalidArgumentError:
            own = _own_fields_error(batch)  # a workout read back: name the Python call, not the C one
            if own is not None:
                raise own from None
            raise
        return [_outcome(outcomes[i]) for i in range(len(batch))]

    def _sample_inputs(self, batch: list[Sample], keep: list[Any]) -> Any:
        """``batch`` as the ohk_sample_input array that save and apply pass;
        `keep` holds what the array points at until the call returns."""
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, tuple[bytes, bytes, bytes | None]] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, Sample):
                raise ArgumentTypeError(f"sample {index} is a {type(sample).__name__}, not a Sample")
            self._fill_input(inputs[index], sample, sources, keep)
        return inputs

    def _inputs(self, samples: Sample | Iterable[Sample], what: str,
                keep: list[Any]) -> tuple[list[Sample], Any]:
        """Quantity and category samples as an ohk_sample_input array."""
        batch = as_list(samples, what, (Sample,), "a Sample")
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, tuple[bytes, bytes, bytes | None]] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, (QuantitySample, CategorySample)):
                raise ArgumentTypeError(f"{what}[{index}] is a {type(sample).__name__}, not a QuantitySample or "
                                        "CategorySample")
            self._fill_input(inputs[index], sample, sources, keep)
        return batch, inputs

    def _own_input(self, identifier: str | SampleType, start: datetime, end: datetime, source: Source | None,
                   device: Device | None, metadata: Mapping[str, Any] | None, uuid: uuid_module.UUID | None,
                   creation_date: datetime | None, utc_offset: timedelta | None,
                   keep: list[Any]) -> n.ohk_sample_input:
        """The ohk_sample_input of a sample with fields of its own (a
        workout, route, correlation, heartbeat series, audiogram,
        electrocardiogram, clinical record): what every sample has, checked
        as a QuantitySample's would be; its type is `identifier`."""
        carrier = object.__new__(Sample)
        carrier._init(self.sample_type(identifier), start, end, 0.0, None, source, device, metadata, uuid, 0,
                      creation_date, utc_offset)
        target = n.ohk_sample_input()
        self._fill_input(target, carrier, {}, keep)
        return target

    # ---- workouts, routes and correlations (rules 31-33 and 36, docs/semantics.md)

    def save_workout(self, workout: Workout, start: datetime, end: datetime, *, source: Source | None = None,
                     device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                     uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                     utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a workout (HKWorkout, rule 31): its own fields (a
        ``Workout``), its interval and what every sample has (a UUID is made
        when not given; the store's default source when none is given), in
        one transaction. Returns ``[outcome]``, as ``save`` does; read back,
        it is a ``WorkoutSample``. InvalidValueError for an unknown activity
        or event type, a negative duration or total; InvalidDateRangeError
        for an interval that ends before it starts; UnknownTypeError or
        InvalidArgumentError for statistics of a type that is not one of
        HealthKit's quantity types."""
        if not isinstance(workout, Workout):
            raise ArgumentTypeError(f"workout must be a Workout, not {type(workout).__name__}")
        keep: list[Any] = []
        sample = self._own_input(WORKOUT, start, end, source, device, metadata, uuid, creation_date, utc_offset, keep)
        fields = workout_to_c(workout, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_workout(outcome, self._handle, sample, fields)
        return [_outcome(outcome)]

    def summary(self, *, spans: bool = True) -> StoreSummary:
        """What ``ohk stats`` prints: every type the store has held a sample
        of, with its live samples and retained deleted objects, and (with
        ``spans``, which reads each type's samples) its first start, last
        end and sources; ``.anchor`` is where changes from now on start,
        ``.to_pandas()`` a frame by type."""
        if not isinstance(spans, bool):
            raise ArgumentTypeError(f"spans must be a bool, not {type(spans).__name__}")
        return _summary.summary(self, self._handle, spans)

    def sleep_nights(self, first: date, last: date, *, utc_offset: timedelta = timedelta(0),
                     time_zone: str | None = None, local_time: bool = False,
                     predicate: Predicate | None = None) -> SleepNights:
        """Sleep per night from SleepAnalysis (rule 59), nights ``first`` to
        ``last`` (dates, both included): time in bed, asleep, awake and each
        stage, sources merged by priority (two sources' records of a night
        count once). A night is the day it ends on, from noon to noon in
        ``time_zone`` (or the fixed ``utc_offset``, UTC by default), or in
        each sample's own offset with ``local_time=True``::

            store.sleep_nights(date(2020, 11, 1), date(2020, 11, 30), time_zone="Europe/Paris").to_pandas()
        """
        return _sleep.sleep_nights(self._handle, first, last, utc_offset=utc_offset, time_zone=time_zone,
                                   local_time=local_time, predicate=predicate)

    def workouts(self, start: datetime | None = None, end: datetime | None = None, *,
                 predicate: Predicate | None = None, include_duplicates: bool = False) -> WorkoutList:
        """The workouts that start in [start, end) (None: open), by start,
        each counted once (rule 57): of likely duplicates, which an app
        that wrote a workout again leaves (the same activity, start, end,
        duration and totals), the one created first; ``.copies`` holds the
        others, or ``include_duplicates=True`` keeps them, marked in the
        frame's ``duplicate_of``. ``.to_pandas()`` has activity, duration,
        distance, energy and source as columns::

            runs = store.workouts(start=day0).to_pandas()
            runs.groupby("activity", observed=True)[["distance_km", "energy_kcal"]].sum()
        """
        if not isinstance(include_duplicates, bool):
            raise ArgumentTypeError(f"include_duplicates must be a bool, not {type(include_duplicates).__name__}")
        when = None if start is None and end is None else Predicate.date_range(start, end, strict_start=True)
        chosen = when if predicate is None else predicate if when is None else when & predicate
        samples = [s for s in self.query(WORKOUT, predicate=chosen).samples if isinstance(s, WorkoutSample)]
        return WorkoutList(samples, include_duplicates)

    def save_route(self, workout: WorkoutSample | uuid_module.UUID | str | bytes | None, locations: LocationsLike, *,
                   source: Source | None = None, device: Device | None = None,
                   metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                   creation_date: datetime | None = None, utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a route (HKWorkoutRoute, rule 32) of a stored workout (a
        ``WorkoutSample`` or its UUID; None for a route of no workout), in
        one transaction. ``locations``: a NumPy structured array or a
        mapping of columns (``timestamp``, ``latitude``, ``longitude``
        required; ``altitude``, ``horizontal_accuracy``,
        ``vertical_accuracy``, ``course``, ``speed`` optional, NaN or None
        where unknown), a 2-D array of columns in that order,
        ``LocationColumns``, a DataFrame or a ``Route`` read back, or a
        sequence of ``Location``s, tuples in that order, mappings or objects
        with those attributes. Timestamps are aware datetimes,
        Unix seconds or ``datetime64`` (UTC). The store sorts them by time;
        the route's interval is its first and last. Returns ``[outcome]``.
        NotFoundError for a workout the store does not hold live;
        InvalidValueError for no location, a latitude beyond ±90° or a
        longitude beyond ±180°, a NaN or infinite value."""
        target = None if workout is None else _workout_uuid(workout)
        data = pack_locations(locations)
        count = len(data) // ctypes.sizeof(n.ohk_location)
        points = (n.ohk_location * count).from_buffer_copy(data) if count else (n.ohk_location * 1)()
        keep: list[Any] = []
        # The library takes the route's interval from its locations: start and end are not read.
        sample = self._own_input(ROUTE, EPOCH, EPOCH, source, device, metadata, uuid, creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_route(outcome, self._handle, sample, target, points, count)
        return [_outcome(outcome)]

    def save_correlation(self, correlation_type: str | SampleType, members: Sample | Iterable[Sample],
                         start: datetime | None = None, end: datetime | None = None, *,
                         source: Source | None = None, device: Device | None = None,
                         metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                         creation_date: datetime | None = None,
                         utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a correlation (HKCorrelation, rule 33) of
        ``"BloodPressure"`` (one systolic and one diastolic sample) or
        ``"Food"`` (dietary samples) with its members, new quantity or
        category samples, in one transaction: the members are samples of
        their own types too. ``start`` and ``end`` default to the members'
        earliest start and latest end. Returns the members' outcomes in
        order, then the correlation's. InvalidArgumentError for a member of
        a type the correlation does not hold. A member the store holds
        already is grouped, not saved again (``SaveResult.ALREADY_STORED``);
        NotFoundError for one that was deleted."""
        kind = self.sample_type(correlation_type)
        if not kind.is_correlation:
            raise InvalidArgumentError(f"{kind.identifier} is not a correlation type "
                                       "(HKCorrelationTypeIdentifierBloodPressure or HKCorrelationTypeIdentifierFood)")
        keep: list[Any] = []
        batch, inputs = self._inputs(members, "members", keep)
        if not batch:
            raise InvalidValueError(f"a {kind.identifier} correlation needs at least one member")
        first = min(sample.start_timestamp for sample in batch)
        last = max(sample.end_timestamp for sample in batch)
        sample = self._own_input(kind, start if start is not None else utc_datetime(first),
                                 end if end is not None else utc_datetime(last), source, device, metadata, uuid,
                                 creation_date, utc_offset, keep)
        outcomes = (n.ohk_save_outcome * (len(batch) + 1))()
        n.lib.ohk_store_save_correlation(outcomes, self._handle, sample, inputs, len(batch))
        return [_outcome(outcome) for outcome in outcomes]

    def add_to_workout(self, workout: WorkoutSample | uuid_module.UUID | str | bytes,
                       samples: Sample | Iterable[Sample]) -> list[SaveOutcome]:
        """HealthKit's ``add(_:to:)`` (rule 36): saves the quantity or
        category samples the store does not hold yet and associates every
        one with the stored workout, in one transaction, all or nothing.
        Returns each one's outcome, ALREADY_STORED for a sample stored
        before (only associated). NotFoundError for a workout the store does
        not hold live. ``associate`` does the same for stored samples given
        by UUID."""
        target = _workout_uuid(workout)
        keep: list[Any] = []
        batch, inputs = self._inputs(samples, "samples", keep)
        outcomes = (n.ohk_save_outcome * max(len(batch), 1))()
        n.lib.ohk_store_add_to_workout(outcomes, self._handle, target, inputs, len(batch))
        return [_outcome(outcomes[i]) for i in range(len(batch))]

    # ---- heartbeat series (rule 39, docs/semantics.md)

    def save_heartbeat_series(self, beats: HeartbeatsLike, start: datetime, end: datetime | None = None, *,
                              source: Source | None = None, device: Device | None = None,
                              metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                              creation_date: datetime | None = None,
                              utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a heartbeat series (HKHeartbeatSeriesSample, rule 39) in one
        transaction: its beats, each a time in seconds since ``start`` and
        whether a gap in the data came just before it, and what every
        sample has. ``beats``: a sequence of ``Heartbeat``s, ``(time, gap)``
        tuples or plain numbers (no gap); a 1-D NumPy array of times, a
        structured array, a DataFrame or a mapping of ``time_since_start``
        and ``preceded_by_gap`` columns; or a ``HeartbeatSeries`` or
        ``HeartbeatColumns`` read back. The store sorts them by time.
        ``end`` defaults to ``start`` plus the last beat's time (HealthKit's
        builder ends a series at its last beat). Returns ``[outcome]``;
        read back, it is a ``HeartbeatSeriesSample``. InvalidValueError for
        no beat, a NaN or infinite time (refused before the library), a
        negative one, or a beat after ``end``; InvalidDateRangeError for an
        ``end`` before ``start``."""
        data = pack_heartbeats(beats)
        count = len(data) // ctypes.sizeof(n.ohk_heartbeat)
        points = (n.ohk_heartbeat * count).from_buffer_copy(data) if count else (n.ohk_heartbeat * 1)()
        keep: list[Any] = []
        sample = self._own_input(HEARTBEAT_SERIES, start, start if end is None else end, source, device, metadata,
                                 uuid, creation_date, utc_offset, keep)
        if end is None:
            sample.end = heartbeat_series_end(sample.start, data)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_heartbeat_series(outcome, self._handle, sample, points, count)
        return [_outcome(outcome)]

    def save_audiogram(self, points: Iterable[SensitivityPoint | tuple[Any, ...]], start: datetime,
                       end: datetime | None = None, *, source: Source | None = None, device: Device | None = None,
                       metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                       creation_date: datetime | None = None,
                       utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves an audiogram (HKAudiogramSample, rule 40) in one
        transaction: ``points`` are ``SensitivityPoint``s or tuples
        ``(frequency Hz, left dBHL or None, right dBHL or None[, left
        masked, right masked[, left clamping, right clamping]])``, a
        clamping range a ``ClampingRange`` or a ``(lower, upper)`` pair in
        dBHL (None: an open bound) or None; the store sorts the points by
        frequency. ``end`` defaults to ``start``. Returns ``[outcome]``;
        read back, it is an ``AudiogramSample``. InvalidValueError for no
        point, a frequency that is not positive or appears twice, a point
        with neither ear, a level or bound that is not finite (NaN is
        refused here, as C would read it as "not tested" or "open"), a
        range without a bound, of an ear not tested, or out of order."""
        rows = [tuple(as_list(point, f"points[{i}]", (), "a SensitivityPoint or a tuple of numbers"))
                for i, point in enumerate(as_list(points, "points", (), "SensitivityPoints or tuples"))]
        array = (n.ohk_audiogram_point * max(1, len(rows)))()
        ranges = (n.ohk_audiogram_clamping * max(1, len(rows)))()
        for i, row in enumerate(rows):
            if not 3 <= len(row) <= 7:
                raise InvalidArgumentError(f"points[{i}]: (frequency, left, right[, left masked, right masked"
                                           "[, left clamping, right clamping]])")
            frequency, left, right = row[0], row[1], row[2]
            extra = list(row[3:]) + [None] * (7 - len(row))
            levels = []
            for side, v in (("left", left), ("right", right)):
                if v is not None and (not isinstance(v, (int, float)) or not math.isfinite(v)):
                    raise InvalidValueError(f"points[{i}]: the {side} ear's level must be a finite number or None, not {v!r}")
                levels.append(math.nan if v is None else float(v))
            array[i] = n.ohk_audiogram_point(float(frequency), levels[0], levels[1],
                                             -1 if extra[0] is None else int(bool(extra[0])),
                                             -1 if extra[1] is None else int(bool(extra[1])))
            bounds = [bound for side, given in (("left", extra[2]), ("right", extra[3]))
                      for bound in clamping_bounds(given, f"points[{i}]: the {side} ear's clamping range")]
            ranges[i] = n.ohk_audiogram_clamping(*bounds)
        keep: list[Any] = []
        sample = self._own_input(AUDIOGRAM, start, start if end is None else end, source, device, metadata,
                                 uuid, creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        audiogram = n.ohk_audiogram(array, ranges, len(rows))
        n.lib.ohk_store_save_audiogram(outcome, self._handle, sample, audiogram)
        return [_outcome(outcome)]

    # ---- electrocardiograms and clinical records (rules 41 and 42, docs/semantics.md)

    def save_electrocardiogram(self, electrocardiogram: Electrocardiogram, start: datetime,
                               end: datetime | None = None, *, source: Source | None = None,
                               device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                               uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                               utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves an electrocardiogram (HKElectrocardiogram, rule 41) in one
        transaction: an ``Electrocardiogram`` (its classification, symptoms
        status, average heart rate, sampling frequency and voltages in
        microvolts, which its constructor takes as any sequence or NumPy
        array), the first voltage at ``start``. The voltages go to the
        library in place, as the array's own memory. ``end`` defaults to
        ``start`` plus the recording's ``duration`` (its number of voltages
        over its frequency: 30 s for 15,360 voltages at 512 Hz). Returns
        ``[outcome]``; read back, it is an ``ElectrocardiogramSample``.
        InvalidValueError for an unknown classification, symptoms status
        or lead, voltages without a sampling frequency, a frequency that
        is not positive, a negative heart rate, NaN or infinite numbers
        (refused before the library), voltages that run past ``end``;
        InvalidDateRangeError for an ``end`` before ``start``."""
        if not isinstance(electrocardiogram, Electrocardiogram):
            raise ArgumentTypeError("electrocardiogram must be an Electrocardiogram, not "
                                    f"{type(electrocardiogram).__name__}")
        keep: list[Any] = []
        fields = electrocardiogram_to_c(electrocardiogram, keep)
        sample = self._own_input(ELECTROCARDIOGRAM, start, start if end is None else end, source, device,
                                 metadata, uuid, creation_date, utc_offset, keep)
        if end is None:
            sample.end = sample.start + electrocardiogram.duration
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_electrocardiogram(outcome, self._handle, sample, fields)
        return [_outcome(outcome)]

    def save_clinical_record(self, clinical_type: str | SampleType, record: ClinicalRecord, start: datetime,
                             end: datetime | None = None, *, source: Source | None = None,
                             device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                             uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                             utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a clinical record (HKClinicalRecord, rule 42) of a clinical
        type (``"ImmunizationRecord"`` or
        ``"HKClinicalTypeIdentifierImmunizationRecord"``; ``AllergyRecord``,
        ``ClinicalNoteRecord``, ``ConditionRecord``, ``CoverageRecord``,
        ``LabResultRecord``, ``MedicationRecord``, ``ProcedureRecord``,
        ``VitalSignRecord``) in one transaction: its display name and FHIR
        resource, whose JSON the store keeps byte for byte. ``end``
        defaults to ``start``. Returns ``[outcome]``; read back, it is a
        ``ClinicalRecordSample``. InvalidArgumentError for a type that is
        not a clinical one; InvalidValueError for a resource type HealthKit
        does not read ("Patient"), an empty display name, identifier or
        FHIR version, data that is not one JSON object (checked here
        first, for the message, and by the library)."""
        kind = self.sample_type(clinical_type)
        if not kind.is_clinical_record:
            raise InvalidArgumentError(f"{kind.identifier} is not a clinical type "
                                       "(HKClinicalTypeIdentifierImmunizationRecord...)")
        if not isinstance(record, ClinicalRecord):
            raise ArgumentTypeError(f"record must be a ClinicalRecord, not {type(record).__name__}")
        check_fhir_json(record.data)
        keep: list[Any] = []
        fields = clinical_record_to_c(record, keep)
        sample = self._own_input(kind, start, start if end is None else end, source, device, metadata, uuid,
                                 creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_clinical_record(outcome, self._handle, sample, fields)
        return [_outcome(outcome)]

    def correlation_objects(self, correlation: CorrelationSample,
                            sample_type: str | SampleType | None = None) -> SampleList:
        """The live members of a correlation read from this store
        (HKCorrelation's ``objects``, or ``objects(for:)`` with
        ``sample_type``): one query of the member types the correlation's
        type holds, by the members' UUIDs."""
        if not isinstance(correlation, CorrelationSample):
            raise ArgumentTypeError(f"correlation must be a CorrelationSample, not {type(correlation).__name__}")
        types: list[str | SampleType] = ([sample_type] if sample_type is not None
                                         else list(correlation_member_types(correlation.sample_type)))
        return self.query(types, predicate=correlation.correlation.predicate()).samples

    def _fill_input(self, target: n.ohk_sample_input, sample: Sample,
                    sources: dict[Source, tuple[bytes, bytes, bytes | None]], keep: list[Any]) -> None:
        # The last two fields are there when the flags say so.
        record, context = cast(SampleRecord, sample._r), sample._c
        kind = sample.sample_type
        identifier = kind.identifier.encode("utf-8")
        target.type, target.start, target.end, target.value = identifier, record[1], record[2], record[3]
        if record[6] & n.SAMPLE_HAS_CREATION_DATE:
            target.has_creation_date, target.creation_date = True, record[8]
        if record[6] & n.SAMPLE_HAS_UTC_OFFSET:
            target.has_utc_offset, target.utc_offset = True, record[7]
        unit = getattr(context, "unit", None)
        target.unit = unit.encode("utf-8") if unit else None
        ctypes.memmove(target.uuid, record[0], 16)
        source = sample.source or self.default_source
        encoded = sources.get(source)
        if encoded is None:
            encoded = sources[source] = (n.encode(source.bundle_identifier, "bundle identifier"),
                                         n.encode(source.name, "source name"),
                                         None if source.version is None else n.encode(source.version, "version"))
        target.source.bundle_identifier, target.source.name, target.source.version = encoded
        device = sample.device
        if device is not None:
            c_device = n.ohk_device(*(None if value is None else n.encode(value, f"device {field}")
                                      for field, value in zip(n.DEVICE_FIELDS, astuple(device))))
            keep.append(c_device)
            target.device = ctypes.pointer(c_device)
        metadata = sample.metadata
        if metadata:
            arena = ValueArena()
            entries = (n.ohk_metadata_entry * len(metadata))()
            for slot, (key, value) in zip(entries, metadata.items()):
                slot.key = arena.text(key, "metadata key")
                arena.fill(slot.value, value, f"metadata {key!r}")
            keep.extend((arena, entries))
            target.metadata, target.metadata_count = entries, len(metadata)

    def delete(self, objects: Sample | uuid_module.UUID | str | Iterable[Sample | uuid_module.UUID | str]) -> int:
        """Deletes samples (or the samples with these UUIDs) in one
        transaction, all or nothing (rule 15): NotFoundError if one is
        unknown or deleted already; one listed twice is deleted once.
        Returns how many were deleted, as ``delete_matching`` does."""
        items = as_list(objects, "objects", (Sample, DeletedObject, uuid_module.UUID, str, bytes),
                        "a Sample or a UUID")
        unique = dict.fromkeys(o.uuid_bytes if isinstance(o, (Sample, DeletedObject)) else uuid_bytes(o)
                               for o in items)
        packed = b"".join(unique)
        n.lib.ohk_store_delete_uuids(self._handle, packed, len(unique))
        return len(unique)

    def apply(self, samples: Sample | Iterable[Sample] = (),
              deleted: Iterable[Sample | DeletedObject | uuid_module.UUID | str] = ()) -> ApplyResult:
        """Applies a receiver's batch in one transaction, all or nothing
        (rule 63): ``samples`` then the ``deleted`` UUIDs, as a phone's
        anchored query returned them. A sample stored already with the same
        content is skipped (other content: ``DuplicateUUIDError``); one whose
        UUID was deleted, here or by an earlier deletion of a UUID the store
        never held, is skipped too, and such a deletion is kept so that a
        late upload is skipped. Sending the same batch again changes nothing."""
        batch = as_list(samples, "samples", (Sample,), "a Sample")
        gone = as_list(deleted, "deleted", (Sample, DeletedObject, uuid_module.UUID, str, bytes),
                       "a Sample, a DeletedObject or a UUID")
        packed = b"".join(o.uuid_bytes if isinstance(o, (Sample, DeletedObject)) else uuid_bytes(o) for o in gone)
        keep: list[Any] = []
        inputs = self._sample_inputs(batch, keep)
        outcome = n.ohk_apply_outcome()
        n.lib.ohk_store_apply(ctypes.byref(outcome), self._handle, inputs, len(batch), packed, len(gone))
        return ApplyResult._from(outcome)

    def sync_from(self, source: HealthStore, *, name: str = "default",
                  types: str | SampleType | Iterable[str | SampleType] | None = None,
                  from_scratch: bool = False, batch_size: int = 20_000) -> SyncReport:
        """Copies every change of ``source`` since this store's checkpoint
        for it (its store id and ``name``) into this store, up to the
        source's head (rule 69, docs/sync.md): each batch of ``batch_size``
        changes is one transaction that also writes the checkpoint, so a
        sync stopped at any moment resumes where it stood. Run it again, or
        both ways, to keep stores alike (rule 70: a deletion wins, the
        higher sync version wins, a UUID with other content is a conflict
        left alone). ``types`` limits it to those types (a checkpoint keeps
        the types it started with). ``SyncCheckpointError`` when the
        checkpoint no longer fits the source (``from_scratch=True`` copies
        it in full); ``SyncBusyError`` when another sync of the same name
        ran meanwhile; ``InvalidArgumentError`` for the same store twice."""
        if not isinstance(source, HealthStore):
            raise ArgumentTypeError(f"source must be a HealthStore, not {type(source).__name__}")
        names = None if types is None else [source.sample_type(t).identifier
                                            for t in as_list(types, "types", (str, SampleType), "a type")]
        options, _keep = sync_options(name, names, from_scratch, batch_size)
        report = n.ohk_sync_report()
        n.lib.ohk_store_sync(ctypes.byref(report), self._handle, store_handle(source), ctypes.byref(options))
        return SyncReport._from(report)

    def live_digest(self, type: str | SampleType | None = None) -> LiveDigest:
        """The live digest (rule 68) of ``type``, or of every type summed:
        two stores with equal digests hold the same live samples."""
        digest = n.ohk_live_digest()
        n.lib.ohk_store_live_digest(ctypes.byref(digest), self._handle,
                                    None if type is None else n.encode(self.sample_type(type).identifier, "type"))
        return LiveDigest._from(digest)

    def sync_conflicts(self) -> list[uuid_module.UUID]:
        """The UUIDs a sync found with other content here than in its source (rule 70)."""
        count = ctypes.c_uint64()
        try:
            n.lib.ohk_store_sync_conflicts(ctypes.byref(count), self._handle, None, 0)
            return []
        except BufferTooSmallError:
            pass
        room = count.value
        buffer = ctypes.create_string_buffer(16 * room)
        n.lib.ohk_store_sync_conflicts(ctypes.byref(count), self._handle, buffer, room)
        return [uuid_module.UUID(bytes=buffer.raw[16 * i:16 * i + 16]) for i in range(count.value)]

    def associate(self, workout: Sample | uuid_module.UUID | str,
                  samples: Sample | uuid_module.UUID | str | Iterable[Sample | uuid_module.UUID | str]) -> None:
        """Associates stored quantity or category samples with a stored
        workout (HealthKit's ``add(_:to:)``, rule 36), in one transaction,
        all or nothing; ``Predicate.workout(workout)`` finds them.
        ``add_to_workout`` also saves new ones. NotFoundError for a workout or sample the store does
        not hold live; InvalidArgumentError for a ``workout`` that is not a
        workout or a sample of another kind. Associating again changes nothing."""
        items = as_list(samples, "samples", (Sample, uuid_module.UUID, str, bytes), "a Sample or a UUID")
        packed = b"".join(o.uuid_bytes if isinstance(o, Sample) else uuid_bytes(o) for o in items)
        target = workout.uuid_bytes if isinstance(workout, Sample) else uuid_bytes(workout)
        n.lib.ohk_store_associate(self._handle, target, packed, len(packed) // 16)

    def delete_matching(self, sample_type: str | SampleType, predicate: Predicate | None = None) -> int:
        """Deletes every sample of the type that `predicate` matches (None:
        all) in one transaction; returns how many."""
        deleted = ctypes.c_uint64()
        n.lib.ohk_store_delete_matching(deleted, self._handle, _identifier(sample_type),
                                        predicate_handle(predicate))
        return deleted.value

    def prune(self, deleted_before: datetime) -> int:
        """Drops deleted objects deleted before the moment (rule 16); anchors
        older than the newest one dropped then expire. Returns how many."""
        pruned = ctypes.c_uint64()
        n.lib.ohk_store_prune(pruned, self._handle, unix_time(deleted_before, "deleted_before"))
        return pruned.value

    def prune_all(self) -> int:
        """Drops every deleted object; returns how many."""
        pruned = ctypes.c_uint64()
        n.lib.ohk_store_prune_all(pruned, self._handle)
        return pruned.value

    def verify(self) -> VerifyReport:
        """Checks the whole store, like SQLite's ``PRAGMA integrity_check``:
        LMDB's pages first (read without LMDB, which trusts them), then every
        record, index entry, deletion, sync identifier, workout link and
        subscription against each other, and the maintained statistics and
        small tables against their checks; each problem names the tree, the
        key and what disagrees, the same list as C's ``ohk_store_verify``.
        It repairs nothing and raises nothing for what it finds: the report
        lists the problems (rule 23, docs/semantics.md).
        One read transaction over the whole store; writers go on meanwhile."""
        samples, deleted = ctypes.c_uint64(), ctypes.c_uint64()
        text = n.OWNED_STRING()
        # Problems found come back as ERR_STORE_CORRUPT, not raised (n.ALLOWED_STATUSES).
        n.lib.ohk_store_verify(samples, deleted, ctypes.byref(text), self._handle)
        problems: list[str] = []
        if text:
            try:
                problems = ctypes.string_at(text).decode("utf-8", "replace").split("\n")
            finally:
                n.lib.ohk_string_free(text)
        return VerifyReport(samples.value, deleted.value, problems)

    # ---- commit hooks

    def set_commit_hook(self, hook: CommitHook | None) -> None:
        """Calls ``hook(types, anchor)`` after each commit made through this
        store that saved or deleted samples: the identifiers of the types
        it changed, and the store's anchor right after it (SQLite's commit
        hook). It runs on the saving thread, after the commit is durable,
        before ``save`` or ``delete`` returns, and may call the store
        (a save from inside it calls it again). Failed writes, prunes and
        other processes' commits do not call it (``observe`` hears those).
        A new hook replaces the old one; ``None`` removes it, and so does
        ``close()``. An exception it raises goes to ``sys.unraisablehook``;
        the commit stands."""
        if hook is None:
            n.lib.ohk_store_set_commit_hook(self._handle, n.ohk_commit_fn(), None, n.ohk_destroy_fn())
            return
        if not callable(hook):
            raise ArgumentTypeError(f"hook must be callable or None, not {hook!r}")
        # On failure the library runs the destroy callback, which forgets the key.
        n.lib.ohk_store_set_commit_hook(self._handle, hooks.on_commit, hooks.register(hook),
                                        hooks.on_destroy)

    # ---- one-shot anchored queries

    # ---- statistics (rules 25-29, docs/semantics.md)

    def statistics(self, sample_type: str | SampleType, options: StatisticsOptions | None = None, *,
                   predicate: Predicate | None = None, unit: str | None = None) -> Statistics | None:
        """HKStatisticsQuery: the figures of a quantity type over every
        matching sample, sources merged by priority (the walk the phone and
        the watch both recorded counts once). ``options`` default to a sum
        for cumulative types and an average for discrete ones; values are in
        ``unit`` (default: the type's ``display_unit``, count/min for heart
        rate). None when no sample matches."""
        kind = self.sample_type(sample_type)
        _check_unit(kind, unit)
        return _statistics.statistics(self._handle, kind, options, predicate, unit)

    def statistics_collection(self, sample_type: str | SampleType, options: StatisticsOptions | None = None, *,
                              start: datetime, end: datetime, interval: str | tuple[int, str] = "day",
                              anchor: datetime | None = None, utc_offset: timedelta = timedelta(0),
                              time_zone: str | None = None, local_time: bool = False,
                              predicate: Predicate | None = None, unit: str | None = None) -> StatisticsList:
        """HKStatisticsCollectionQuery: one ``Statistics`` per interval from
        ``start`` to ``end`` (``"day"``, ``"hour"``, ``(2, "week")``...), with
        None figures where there is no data, one interval starting at
        ``anchor`` (default: ``start``). The list has ``to_numpy()`` and
        ``to_pandas()`` (a DataFrame indexed by interval start).

        Intervals are counted in one zone (rule 28), as HealthKit counts in
        its calendar's: ``time_zone``'s (``"Europe/Paris"``: a day is 23 or
        25 hours when its clocks change), else the fixed ``utc_offset``
        (default: UTC). Each interval's ``start`` and ``end`` are aware
        datetimes in that zone: the instants it covers.

        With ``local_time=True``, each sample counts in its own UTC offset
        (imports keep it; one without in ``utc_offset``), so a walk at 07:00
        in San Francisco falls on that day wherever the query runs. Such
        intervals are wall-clock times: ``start`` and ``end`` are naive
        datetimes, and naive arguments are accepted as wall-clock times.
        Daily step totals in Paris, then in each sample's own day::

            store.statistics_collection("StepCount", start=day0, end=day7, time_zone="Europe/Paris")
            store.statistics_collection("StepCount", start=datetime(2020, 11, 1),
                                        end=datetime(2020, 11, 8), local_time=True)
        """
        kind = self.sample_type(sample_type)
        _check_unit(kind, unit)
        return _statistics.statistics_collection(
            self._handle, kind, options, anchor=start if anchor is None else anchor, interval=interval, start=start,
            end=end, utc_offset=utc_offset, time_zone=time_zone, local_time=local_time, predicate=predicate,
            unit=unit)

    def watch_statistics(self, sample_type: str | SampleType, callback: Callable[[Query, StatisticsUpdate], Any],
                         options: StatisticsOptions | None = None, *, start: datetime, end: datetime,
                         interval: str | tuple[int, str] = "day", anchor: datetime | None = None,
                         utc_offset: timedelta = timedelta(0), time_zone: str | None = None, local_time: bool = False,
                         predicate: Predicate | None = None, unit: str | None = None,
                         on_error: Callable[[BaseException], Any] | None = None) -> Query:
        """A statistics collection kept current (HKStatisticsCollectionQuery
        with its update handler; rule 34): ``callback(query, update)`` gets a
        ``StatisticsUpdate`` with the collection of ``statistics_collection``
        (same arguments) when it starts (``update.initial``), then again
        after each commit, by any process, that changes its figures, with
        ``update.changed`` the indexes of the intervals that changed. On a
        library thread, as ``watch``; close the query to stop it."""
        kind = self.sample_type(sample_type)
        _check_unit(kind, unit)
        arguments, labels = _statistics.collection_arguments(
            kind, options, anchor=start if anchor is None else anchor, interval=interval, start=start, end=end,
            utc_offset=utc_offset, time_zone=time_zone, local_time=local_time, predicate=predicate)
        query = StatisticsQuery(self, callback, on_error, kind, unit, labels)
        query._start(n.lib.ohk_query_start_statistics_collection, self._handle, _query_options(statistics=arguments),
                     on_statistics)
        return query

    def statistics_updates(self, sample_type: str | SampleType, options: StatisticsOptions | None = None, *,
                           start: datetime, end: datetime, interval: str | tuple[int, str] = "day",
                           anchor: datetime | None = None, utc_offset: timedelta = timedelta(0),
                           time_zone: str | None = None, local_time: bool = False,
                           predicate: Predicate | None = None,
                           unit: str | None = None) -> AsyncIterator[StatisticsUpdate]:
        """``async for update in store.statistics_updates("StepCount", start=…,
        end=…):`` the collection, then each change to it, as
        ``watch_statistics`` delivers them; leaving the loop stops the query."""
        def start_query(callback: Callable[[Query, StatisticsUpdate], Any],
                        on_error: Callable[[BaseException], Any]) -> Query:
            return self.watch_statistics(sample_type, callback, options, start=start, end=end, interval=interval,
                                         anchor=anchor, utc_offset=utc_offset, time_zone=time_zone,
                                         local_time=local_time, predicate=predicate, unit=unit, on_error=on_error)
        return statistics_updates(start_query)

    def source_priority(self, sample_type: str | SampleType, *, set_only: bool = False) -> list[str]:
        """The order statistics merge this type's sources in now (rule 27),
        bundle identifiers first first: those set with
        ``set_source_priority``, then the default order (watches, phones,
        then other sources, the newest first) of the other sources with a
        sample of the type. With ``set_only``, the set ones alone (empty
        while the default is in force). Reads the type's samples."""
        if not isinstance(set_only, bool):
            raise ArgumentTypeError(f"set_only must be a bool, not {type(set_only).__name__}")
        listed = ctypes.POINTER(ctypes.c_char)()
        call = n.lib.ohk_store_source_priority if set_only else n.lib.ohk_store_source_priority_in_force
        call(ctypes.byref(listed), self._handle, _identifier(self.sample_type(sample_type)))
        if not listed:
            return []
        try:
            return ctypes.string_at(listed).decode("utf-8").split("\n")
        finally:
            n.lib.ohk_string_free(listed)

    def set_source_priority(self, sample_type: str | SampleType, bundle_identifiers: Iterable[str]) -> None:
        """The order statistics merge this type's sources in (rule 27): these
        first, then the default (watches, phones, then other sources, the
        newest first); an empty list restores the default."""
        ids = [n.encode(b, "bundle identifier") for b in as_list(bundle_identifiers, "bundle_identifiers", (str,),
                                                                  "a bundle identifier")]
        array = (ctypes.c_char_p * max(1, len(ids)))(*ids)
        n.lib.ohk_store_set_source_priority(self._handle, _identifier(self.sample_type(sample_type)), array, len(ids))

    def characteristics(self) -> Characteristics:
        """The person's characteristics (rule 38): HealthKit's
        ``dateOfBirthComponents()``, ``biologicalSex()``, ``bloodType()``,
        ``fitzpatrickSkinType()`` and ``wheelchairUse()`` in one value;
        each not set (None or ``NOT_SET``) until an import of an export's
        ``<Me>`` or ``set_characteristics`` sets it."""
        out = n.ohk_characteristics()
        n.lib.ohk_store_characteristics(out, self._handle)
        return Characteristics._from_struct(out)

    def set_characteristics(self, characteristics: Characteristics) -> None:
        """Replaces the store's characteristics, in one transaction.
        InvalidValueError for a value HealthKit does not have."""
        if not isinstance(characteristics, Characteristics):
            raise ArgumentTypeError(f"characteristics must be Characteristics, not {type(characteristics).__name__}")
        n.lib.ohk_store_set_characteristics(self._handle, characteristics._to_struct())

    # ---- activity summaries (rule 43, docs/semantics.md)

    def save_activity_summaries(self, summaries: ActivitySummary | Iterable[ActivitySummary]) -> int:
        """Saves activity summaries (HKActivitySummary, rule 43) in one
        transaction, all or nothing: each replaces the store's summary of
        its day whole (a value left None is then absent, not kept).
        Returns how many were written: one equal to the stored summary is
        not a change and does not count. Summaries are values of the
        store, not samples: anchors, queries and commit hooks do not see
        them. InvalidValueError for a value that is negative or not finite
        (NaN is refused here, as C would read it as "absent"), or a move
        mode HealthKit does not have; InvalidArgumentError for a day given
        twice; ArgumentTypeError for a ``datetime`` as a day."""
        array, count = summaries_to_c(summaries)
        written = ctypes.c_uint64()
        n.lib.ohk_store_save_activity_summaries(written, self._handle, array, count)
        return written.value

    def activity_summaries(self, start: date | None = None, end: date | None = None) -> ActivitySummaryList:
        """The summaries of the days from ``start`` through ``end`` (both
        included; None: unbounded), in calendar order
        (HKActivitySummaryQuery). The list has ``to_pandas()``, a DataFrame
        indexed by day. InvalidArgumentError for an ``end`` before
        ``start``."""
        return self.activity_summary_changes(0, start, end)[0]

    def activity_summary_changes(self, since: int = 0, start: date | None = None,
                                 end: date | None = None) -> tuple[ActivitySummaryList, int]:
        """The summaries of the days from ``start`` through ``end`` written
        after change ``since`` (0: all), in calendar order, and the store's
        summary change sequence now, to pass as ``since`` next time (what
        HKActivitySummaryQuery's update handler gets)::

            summaries, seen = store.activity_summary_changes()
            ...
            changed, seen = store.activity_summary_changes(seen)

        Summaries are never deleted, so changes are summaries only. A
        sequence past this store's last raises InvalidArgumentError (it
        comes from another store); a lower one of another store cannot be
        told from this store's."""
        first, last = day_range(start, end)
        found = ctypes.POINTER(n.ohk_activity_summary)()
        count, sequence = ctypes.c_uint64(), ctypes.c_uint64()
        n.lib.ohk_store_activity_summaries(found, count, sequence, self._handle, first, last,
                                           _count(since, "since"))
        try:
            summaries = ActivitySummaryList(ActivitySummary._from_struct(found[i]) for i in range(count.value))
        finally:
            n.lib.ohk_activity_summaries_free(found)
        return summaries, sequence.value

    def watch_activity_summaries(self, callback: Callable[[Query, Any], Any], start: date | None = None,
                                 end: date | None = None, *,
                                 on_error: Callable[[BaseException], Any] | None = None) -> Query:
        """Activity summaries kept current (HKActivitySummaryQuery with its
        update handler; rule 43): ``callback(query, update)`` gets an
        ``ActivitySummaryUpdate`` with every summary of the days from
        ``start`` through ``end`` (None: unbounded) when it starts
        (``update.initial``), then, after each commit by any process that
        saved or changed summaries of those days, only those. On a library
        thread, as ``watch``; close the query to stop it."""
        first, last = day_range(start, end)
        query = ActivitySummaryQuery(self, callback, on_error)
        query._start(n.lib.ohk_query_start_activity_summaries, self._handle,
                     _query_options(start_day=first, end_day=last), on_activity)
        return query

    def current_anchor(self) -> Anchor:
        """The store's head: a query from it returns only later changes."""
        anchor = n.ohk_anchor()
        n.lib.ohk_store_current_anchor(anchor, self._handle)
        return Anchor(anchor)

    def query(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
              limit: int = 0) -> QueryResult:
        """HKAnchoredObjectQuery: the samples added and objects deleted after
        `anchor` (None: every live sample and every retained deleted
        object) of `types`, in change order, at most `limit` together (0:
        all), and the anchor to pass next time.

        `types` is a type (identifier, short name or SampleType), a
        QueryDescriptor, or a list of these with at least one, as each of
        HealthKit's queries names its types (rule 48):
        ``store.query(ohk.sample_types())`` reads every HealthKit type."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        return self._query(descriptors, count, as_anchor(anchor), _count(limit, "limit"))

    def sample_query(self, types: Types, *, predicate: Predicate | None = None, sort: str = "start_date",
                     descending: bool = False, limit: int = 0) -> list[Sample]:
        """HKSampleQuery: the live samples of `types` that match, sorted by
        ``sort`` (``"start_date"``, ``"end_date"``; ties by UUID), the
        latest first with ``descending``, at most ``limit`` (0: all).
        ``store.sample_query("HeartRate", descending=True, limit=10)`` is
        the latest ten. Reads every match, as ``ohk query --latest`` does."""
        keys = {"start_date": lambda s: (s.start_timestamp, s.uuid_bytes),
                "end_date": lambda s: (s.end_timestamp, s.uuid_bytes)}
        if sort not in keys:
            raise InvalidArgumentError(f"sort must be one of {', '.join(keys)}, not {sort!r}")
        if not isinstance(descending, bool):
            raise ArgumentTypeError(f"descending must be a bool, not {type(descending).__name__}")
        limit = _count(limit, "limit")
        found = sorted(self.query(types, predicate=predicate).samples, key=keys[sort], reverse=descending)
        return found[:limit] if limit else found

    def query_columns(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
                      limit: int = 0, unit: str | None = None, times: bool = False) -> ColumnsResult:
        """The same query as ``query``, its samples as NumPy columns (see
        SampleColumns; values in each type's canonical unit, exactly as
        stored, or in `unit`, rounded to 15 significant digits: rule 44)
        written by the library as it reads them: no sample objects and no
        batch of records in between, three to four times as fast as
        ``query(...).samples.to_numpy()`` for a large read. `types` as in
        ``query``: at least one (rule 48). With ``times``, each sample's UTC
        offset and creation date too (``to_pandas(times=True)``). Needs NumPy."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        return query_columns(self._handle, lambda batch: BatchContext(batch, self.sample_type, False), descriptors,
                             count, as_anchor(anchor), _count(limit, "limit"), unit, times)

    def _query(self, descriptors: Any, count: int, anchor: Anchor, limit: int) -> QueryResult:
        batch = ctypes.POINTER(n.ohk_batch)()
        n.lib.ohk_store_fetch(batch, self._handle, descriptors, count, anchor._struct, limit)
        try:
            return QueryResult(batch, self.sample_type)
        except BaseException:
            n.lib.ohk_batch_free(batch)
            raise

    def batches(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
                batch_size: int = 1000) -> Iterator[QueryResult]:
        """Reads from `anchor` in batches of at most `batch_size` until a
        batch comes back empty (not yielded). Each result's anchor resumes
        right after it; every change comes exactly once (rule 5). `types`
        as in ``query``: at least one (rule 48). Bad arguments raise here,
        not at the first batch."""
        if _count(batch_size, "batch_size") == 0:
            raise InvalidArgumentError("batch_size must be at least 1")
        # Built once: the descriptors (and the predicates they point at) serve every batch.
        descriptors, count, keep = self._descriptors(types, predicate)
        return self._batches(descriptors, count, keep, as_anchor(anchor), batch_size)

    def _batches(self, descriptors: Any, count: int, keep: list[Any], position: Anchor,
                 batch_size: int) -> Iterator[QueryResult]:
        # `keep` holds the predicates the descriptors point at while the generator runs.
        while True:
            result = self._query(descriptors, count, position, batch_size)
            if not result:
                return
            position = result.anchor
            yield result

    # ---- long-running queries

    def watch(self, types: Types, callback: Callable[[Query, QueryResult], Any],
              anchor: AnchorLike = None, *, predicate: Predicate | None = None,
              max_batch_size: int = 0,
              on_error: Callable[[BaseException], Any] | None = None) -> Query:
        """A long-running anchored query: ``callback(query, result)`` gets the
        snapshot after `anchor` (``result.initial`` is True), then each later
        change set (from any process) in commit order, none skipped or
        repeated (rule 9), on a library thread. `types` as in ``query``: at
        least one (rule 48). See queries.py for errors raised in the
        callback."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        start = as_anchor(anchor)
        batch_size = _count(max_batch_size, "max_batch_size")  # checked before the query is registered
        query = Query(self, callback, on_error)
        options = _query_options(descriptors, count, anchor=start._struct, max_batch_size=batch_size)
        query._start(n.lib.ohk_query_start_anchored, self._handle, options, on_results)
        return query

    def observe(self, types: Types, callback: Callable[[Query, frozenset[str]], Any], *,
                predicate: Predicate | None = None,
                on_error: Callable[[BaseException], Any] | None = None) -> Query:
        """HKObserverQuery: ``callback(query, changed_types)`` after each commit
        (by any process) that changed something matching (rule 10). `types`
        as in ``query``: at least one (rule 48)."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        query = Query(self, callback, on_error)
        query._start(n.lib.ohk_query_start_observer, self._handle, _query_options(descriptors, count), on_observed)
        return query

    def subscribe(self, name: str, types: Types, callback: Callable[[Subscription, QueryResult], Any],
                  *, predicate: Predicate | None = None, frequency: Frequency = Frequency.IMMEDIATE,
                  max_batch_size: int = 0,
                  on_error: Callable[[BaseException], Any] | None = None,
                  start: Literal["head", "beginning"] | AnchorLike = "head") -> Subscription:
        """Opens the durable subscription `name` (rule 11): ``callback(sub,
        result)`` gets every change after its acknowledged position; call
        ``sub.acknowledge()`` once handled, or the same changes come again.
        `types` as in ``query``: at least one (rule 48). A new subscription
        starts where `start` says, as in ``register_subscription``. A
        callback that raises stops the subscription, unacknowledged: the
        exception goes to `on_error` and is raised by ``close()``, and the
        changes come again when it is opened next."""
        if start != "head":
            self.register_subscription(name, types, predicate=predicate, frequency=frequency, start=start)
        descriptors, count, _keep = self._descriptors(types, predicate)
        # Every argument checked before the subscription is registered.
        encoded, batch_size = n.encode(name, "name"), _count(max_batch_size, "max_batch_size")
        try:
            how_often = Frequency(frequency)
        except ValueError:
            raise InvalidArgumentError(f"frequency must be a Frequency, not {frequency!r}") from None
        subscription = Subscription(self, callback, on_error)
        options = _query_options(descriptors, count, name=encoded, frequency=int(how_often), max_batch_size=batch_size)
        subscription._start(n.lib.ohk_query_start_subscription, self._handle, options, on_results)
        return subscription

    def register_subscription(self, name: str, types: Types, *, predicate: Predicate | None = None,
                              frequency: Frequency = Frequency.IMMEDIATE,
                              start: Literal["head", "beginning"] | AnchorLike = "head") -> None:
        """Registers the durable subscription `name` without running it, or
        updates its frequency (its types must be the same). A new one
        starts where `start` says (rule 62): ``"head"``, the store's
        current position (the default); ``"beginning"``, so that every
        retained change comes first, a backfill; or an ``Anchor`` of this
        store, after it. An existing one keeps its position."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        encoded = n.encode(name, "name")
        try:
            how_often = Frequency(frequency)
        except ValueError:
            raise InvalidArgumentError(f"frequency must be a Frequency, not {frequency!r}") from None
        if start == "head":
            where = None
        elif start == "beginning":
            where = n.ohk_anchor()  # "no anchor": the beginning
        else:
            where = as_anchor(start)._struct
        options = _query_options(descriptors, count, anchor=where, name=encoded, frequency=int(how_often))
        n.lib.ohk_store_register_subscription(self._handle, options)

    def subscriptions(self) -> list[SubscriptionStatus]:
        """Every durable subscription with its position and how far behind
        it is (what ``ohk subscriptions`` lists)."""
        array = ctypes.POINTER(n.ohk_subscription_status)()
        count = ctypes.c_uint64()
        n.lib.ohk_store_subscriptions(ctypes.byref(array), ctypes.byref(count), self._handle)
        try:
            return [SubscriptionStatus._from(array[i], Frequency(array[i].frequency)) for i in range(count.value)]
        finally:
            n.lib.ohk_subscription_statuses_free(array, count.value)

    def remove_subscription(self, name: str) -> None:
        """Forgets the durable subscription `name` (NotFoundError if none)."""
        n.lib.ohk_store_remove_subscription(self._handle, n.encode(name, "name"))

    def updates(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
                max_batch_size: int = 0) -> AsyncIterator[QueryResult]:
        """``async for result in store.updates(types):`` the snapshot, then
        each change set, as watch() delivers them; leaving the loop stops the
        query. A failure of the query is raised from the loop."""
        return updates(self, types, anchor, predicate, max_batch_size)

    # ---- helpers

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
            slot.type = _identifier(kind)
            slot.predicate = predicate_handle(chosen)
            keep.append(chosen)
        return array, len(items), keep


def _query_options(descriptors: Any = None, count: int = 0, *, anchor: Any = None, max_batch_size: int = 0,
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


def _check_unit(kind: SampleType, unit: str | None) -> None:
    if unit is not None and kind.canonical_unit is not None:
        convert(0.0, kind.canonical_unit, unit)  # IncompatibleUnitError or InvalidUnitError now, not after the query


def _identifier(kind: str | SampleType) -> bytes:
    if isinstance(kind, SampleType):
        return kind.identifier.encode("utf-8")
    return n.encode(kind, "type identifier")


def _count(value: int, what: str) -> int:
    """A count for a C ``uint64_t``: ArgumentTypeError for what is not an
    int, InvalidArgumentError for one out of range (ctypes would cut it)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be an int >= 0, not {type(value).__name__}")
    if not 0 <= value < 2**64:
        raise InvalidArgumentError(f"{what} must be an int from 0 to 2**64 - 1, not {value!r}")
    return value


def _outcome(outcome: n.ohk_save_outcome) -> SaveOutcome:
    result = SaveResult(outcome.outcome)
    other = (None if result is SaveResult.SAVED or result is SaveResult.ALREADY_STORED
             else make_uuid(bytes(outcome.other_uuid)))
    return SaveOutcome(make_uuid(bytes(outcome.uuid)), result, other)


def _workout_uuid(workout: Any) -> bytes:
    """A workout's UUID as 16 bytes: a WorkoutSample's, or a UUID given."""
    if isinstance(workout, Sample):
        if not isinstance(workout, WorkoutSample):
            raise InvalidArgumentError(f"{workout.sample_type.identifier} sample {workout.uuid} is not a workout")
        return workout.uuid_bytes
    return uuid_bytes(workout, "workout")


def _own_fields_error(batch: list[Sample]) -> InvalidArgumentError | None:
    """The error naming the call that saves the first workout, route,
    correlation or heartbeat series of `batch`, if it has one."""
    for index, sample in enumerate(batch):
        if isinstance(sample, OwnFieldsSample):
            return InvalidArgumentError(f"sample {index} is a {type(sample).__name__}: save it with "
                                        f"HealthStore.{sample._saved_by}")
    return None


__all__ = ["HealthStore", "QueryDescriptor", "SaveOutcome", "SaveResult", "Frequency",
           "DEFAULT_SOURCE", "VerifyReport"]
