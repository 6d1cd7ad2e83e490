"""Statistics: HealthKit's statistics and statistics-collection queries.

Sums, averages, minimum, maximum, the most recent value and the duration
of a quantity type, over every matching sample or per interval (a day, an
hour, a month...), with overlapping sources merged by priority so that the
walk the phone and the watch both recorded counts once (rules 25-29 of
docs/semantics.md).
"""

from __future__ import annotations

import ctypes
import math
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any, cast

from ._enums import StatisticsOptions as StatisticsOptions  # defined once, in api/enums.toml
from . import _native as n
from ._checks import numpy_module, pandas_module
from ._convert import display_zone, unix_time, utc_datetime
from ._handles import predicate_handle
from .arrow import import_table, options as arrow_options
from .catalogue import Aggregation, SampleType, converted
from .errors import ArgumentTypeError, InvalidArgumentError, Status
from .samples import Source

if TYPE_CHECKING:
    from .predicate import Predicate


#: An interval's unit by name, as OHK_INTERVAL_ values.
_UNITS = {"second": 0, "minute": 1, "hour": 2, "day": 3, "week": 4, "month": 5, "year": 6}


@dataclass(frozen=True, slots=True)
class StatisticsValues:
    """Figures in ``unit``; each None when its option was not asked for or no
    sample fed it. ``duration`` is the time the samples cover."""

    sum: float | None = None
    average: float | None = None
    minimum: float | None = None
    maximum: float | None = None
    most_recent: float | None = None
    most_recent_start: datetime | None = None
    most_recent_end: datetime | None = None
    duration: timedelta | None = None
    #: Samples that fed the interval once sources were merged (0: no data).
    count: int = 0


@dataclass(frozen=True, slots=True)
class Statistics:
    """HKStatistics: one interval's figures, sources merged by priority; with
    SEPARATE_BY_SOURCE, ``by_source`` has each source's own (by bundle
    identifier) and ``sources`` those with a matching sample here.

    ``start`` and ``end`` are aware datetimes with the query's zone's
    offset at each (the instants the interval covers, so ``end - start``
    is its length: 23 hours on a day clocks skip), or naive wall-clock
    times for a collection with ``local_time=True`` (rule 28). Figures
    are in ``unit``."""

    start: datetime
    end: datetime
    unit: str
    values: StatisticsValues
    by_source: dict[str, StatisticsValues] = field(default_factory=dict)
    sources: list[Source] = field(default_factory=list)

    @property
    def sum(self) -> float | None:
        return self.values.sum

    @property
    def average(self) -> float | None:
        return self.values.average

    @property
    def minimum(self) -> float | None:
        return self.values.minimum

    @property
    def maximum(self) -> float | None:
        return self.values.maximum

    @property
    def most_recent(self) -> float | None:
        return self.values.most_recent

    @property
    def duration(self) -> timedelta | None:
        return self.values.duration

    @property
    def count(self) -> int:
        return self.values.count


#: The figures of StatisticsValues, in the order the columns come.
_FIGURES = ("sum", "average", "minimum", "maximum", "most_recent", "duration", "count")


class StatisticsList(list[Statistics]):
    """A collection's intervals (a list of ``Statistics``), with the figures
    as columns for analysis code. ``zone`` is the zone its dates are in, or
    None when they are wall-clock times (``local_time=True``)."""

    zone: tzinfo | None = timezone.utc
    #: Whether the query asked for SEPARATE_BY_SOURCE (``by_source`` needs it).
    separate: bool = False
    #: The unit of the figures.
    unit: str = ""
    #: The library's result, kept for ``to_arrow`` (None for a live query's delivery).
    _result: Any = None

    def to_arrow(self, unit: str | None = None) -> Any:
        """The intervals as a ``pyarrow.Table``, written by the library:
        ``start_date`` and ``end_date`` (timestamp[us, UTC]: the instants,
        or naive wall-clock times with ``local_time=True``), ``source`` and
        ``source_bundle`` (null on the rows with sources merged; with
        SEPARATE_BY_SOURCE each interval's rows per source follow its own),
        ``sum``, ``average``, ``minimum``, ``maximum``, ``most_recent`` (in
        ``unit``, by default the list's; each field's metadata names it),
        ``most_recent_start``, ``most_recent_end``, ``duration`` (seconds)
        and ``count``. A figure not asked for, or of an interval without
        data, is null. Needs pyarrow."""
        if self._result is None:
            raise InvalidArgumentError("a live query's statistics have no Arrow form: use to_numpy(), or "
                                       "store.statistics_collection(...) for a table")
        o = arrow_options(unit or self.unit or None, None)
        result = self._result
        return import_table(lambda array, schema: n.lib.ohk_statistics_result_export_arrow(array, schema, result, o))

    def to_numpy(self) -> dict[str, Any]:
        """``start`` and ``end`` (``datetime64[us]``: UTC instants, or
        wall-clock times with ``local_time=True``), then one float array per
        figure (NaN where absent; ``duration`` in seconds) and ``count``
        (int64). The figures' unit is each Statistics' ``unit``. Needs NumPy."""
        np = numpy_module("to_numpy()")

        def instant(d: datetime) -> Any:
            if d.tzinfo is not None:
                d = d.astimezone(timezone.utc)
            return np.datetime64(d.replace(tzinfo=None), "us")

        columns: dict[str, Any] = {
            "start": np.array([instant(s.start) for s in self], dtype="datetime64[us]"),
            "end": np.array([instant(s.end) for s in self], dtype="datetime64[us]"),
        }
        for name in _FIGURES[:-2]:
            columns[name] = np.array([math.nan if getattr(s, name) is None else getattr(s, name) for s in self],
                                     dtype=np.float64)
        columns["duration"] = np.array([math.nan if s.duration is None else s.duration.total_seconds() for s in self],
                                       dtype=np.float64)
        columns["count"] = np.array([s.count for s in self], dtype=np.int64)
        return columns

    def to_pandas(self, *, by_source: bool = False) -> Any:
        """A DataFrame indexed by interval start, sorted: aware in the
        query's zone (``2020-11-02 10:00:00+01:00`` names the instant), or
        naive wall-clock times with ``local_time=True``. A column per figure
        that any interval has, ``count``, and ``unit``. With ``by_source``
        (queries with SEPARATE_BY_SOURCE), one row per interval and source
        instead, indexed by (start, bundle identifier), with each source's
        own figures. Needs pandas."""
        pd = pandas_module()
        columns = self.to_numpy()
        start = pd.DatetimeIndex(columns["start"], name="start")
        if self.zone is not None:
            start = start.tz_localize("UTC").tz_convert(self.zone)
        if by_source:
            if not self.separate:
                raise InvalidArgumentError("to_pandas(by_source=True) needs a collection queried with "
                                           "StatisticsOptions.SEPARATE_BY_SOURCE in its options")
            rows = [(start[i], bundle, *(_figure(v, name) for name in _FIGURES))
                    for i, s in enumerate(self) for bundle, v in s.by_source.items()]
            frame = pd.DataFrame(rows, columns=["start", "source", *_FIGURES]).set_index(["start", "source"])
        else:
            frame = pd.DataFrame({name: columns[name] for name in _FIGURES}, index=start)
        frame["duration"] = pd.to_timedelta(frame["duration"], unit="s")
        present = [name for name in _FIGURES if name == "count" or frame[name].notna().any()]
        frame = frame[present].copy()
        frame["unit"] = self[0].unit if self else ""
        return frame.sort_index()


def _figure(v: StatisticsValues, name: str) -> Any:
    value = getattr(v, name)
    if name == "duration":
        return math.nan if value is None else value.total_seconds()
    return math.nan if value is None else value


@dataclass(frozen=True, slots=True)
class StatisticsUpdate:
    """One delivery of a live collection (``HealthStore.watch_statistics``):
    every interval, the indexes of those whose figures changed since the
    last delivery, and whether this is the first (all of them changed)."""

    statistics: StatisticsList
    changed: list[int]
    initial: bool


def default_options(kind: SampleType) -> StatisticsOptions:
    """A sum for cumulative types, an average for discrete ones, the
    duration for category types (rule 59)."""
    if kind.is_category:
        return StatisticsOptions.DURATION
    if kind.aggregation is None:
        raise ArgumentTypeError(f"statistics are of quantity and category types; {kind.identifier} is neither")
    if kind.aggregation is Aggregation.CUMULATIVE:
        return StatisticsOptions.CUMULATIVE_SUM
    return StatisticsOptions.DISCRETE_AVERAGE


def statistics(handle: Any, kind: SampleType, options: StatisticsOptions | None,
               predicate: Predicate | None, unit: str | None) -> Statistics | None:
    """HKStatisticsQuery in the store `handle` (see HealthStore.statistics)."""
    result = ctypes.POINTER(n.ohk_statistics_result)()
    status = n.lib.ohk_store_statistics(ctypes.byref(result), handle, kind.identifier.encode("utf-8"),
                                        predicate_handle(predicate), int(_options(kind, options)))
    if status == Status.ERR_NOT_FOUND:
        return None
    return _read(result, kind, unit, CollectionLabels(timezone.utc, bool(_options(kind, options)
                                                                         & StatisticsOptions.SEPARATE_BY_SOURCE)))[0]


class CollectionLabels:
    """How a collection's dates read: ``zone`` (a tzinfo for instants, None
    for wall-clock times) and whether each source's figures were asked for."""

    def __init__(self, zone: tzinfo | None, separate: bool) -> None:
        self.zone = zone
        self.separate = separate


def _moment(value: datetime, what: str, local_time: bool, utc_offset: timedelta) -> float:
    """Unix seconds of a collection's date; with ``local_time`` a naive
    datetime is a wall-clock time, read in ``utc_offset`` as the library
    reads every date of such a collection."""
    if local_time and isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc).timestamp() - utc_offset.total_seconds()
    return unix_time(value, what)


def collection_arguments(kind: SampleType, options: StatisticsOptions | None, *,
                         anchor: datetime, interval: str | tuple[int, str], start: datetime, end: datetime,
                         utc_offset: timedelta, time_zone: str | None, local_time: bool,
                         predicate: Predicate | None) -> tuple[n.ohk_statistics_options, CollectionLabels]:
    """The C options of a collection, and how its dates will read."""
    if isinstance(interval, str):
        count, unit_name = 1, interval
    elif isinstance(interval, (tuple, list)) and len(interval) == 2:
        count, unit_name = interval
    else:
        raise ArgumentTypeError(f"interval must be a unit name (\"day\") or a (count, unit name) tuple, "
                                f"not {interval!r}")
    if not isinstance(unit_name, str) or unit_name not in _UNITS:
        raise InvalidArgumentError(f"interval unit must be one of {', '.join(_UNITS)}, not {unit_name!r}")
    if not isinstance(count, int) or isinstance(count, bool):
        raise ArgumentTypeError(f"interval count must be a positive int, not {type(count).__name__}")
    if not 0 < count < 2**32:  # a C uint32_t, which ctypes would cut silently
        raise InvalidArgumentError(f"interval count must be from 1 to 2**32 - 1, not {count!r}")
    if not isinstance(utc_offset, timedelta):
        raise ArgumentTypeError(f"utc_offset must be a timedelta, not {type(utc_offset).__name__}")
    if not isinstance(local_time, bool):
        raise ArgumentTypeError(f"local_time must be a bool, not {type(local_time).__name__}")
    chosen = _options(kind, options)
    if local_time:
        chosen |= StatisticsOptions.SAMPLE_LOCAL_TIME
    local = bool(chosen & StatisticsOptions.SAMPLE_LOCAL_TIME)
    labels = CollectionLabels(None if local else display_zone(utc_offset, time_zone),
                              bool(chosen & StatisticsOptions.SEPARATE_BY_SOURCE))
    # start and end first: a naive start is named as start, not as the anchor it defaults to.
    first, last = _moment(start, "start", local, utc_offset), _moment(end, "end", local, utc_offset)
    arguments = statistics_options(kind.identifier, predicate, int(chosen), _moment(anchor, "anchor", local, utc_offset),
                                   count, _UNITS[unit_name], first, last, int(utc_offset.total_seconds()), time_zone)
    return arguments, labels


def statistics_options(identifier: str, predicate: Predicate | None, flags: int, anchor: float, count: int,
                       unit: int, start: float, end: float, utc_offset: int,
                       time_zone: str | None) -> n.ohk_statistics_options:
    """An ohk_statistics_options (it keeps what its pointers point at)."""
    options = n.ohk_statistics_options()
    n.lib.ohk_statistics_options_init(options, n.STATISTICS_OPTIONS_VERSION)
    options.type = identifier.encode("utf-8")
    options.predicate = predicate_handle(predicate)
    options.flags, options.anchor = flags, anchor
    options.interval_count, options.interval_unit = count, unit
    options.from_, options.to, options.utc_offset = start, end, utc_offset
    options.time_zone = None if time_zone is None else n.encode(time_zone, "time_zone")
    return options


def statistics_collection(handle: Any, kind: SampleType, options: StatisticsOptions | None, *,
                          anchor: datetime, interval: str | tuple[int, str], start: datetime, end: datetime,
                          utc_offset: timedelta, time_zone: str | None, local_time: bool, predicate: Predicate | None,
                          unit: str | None) -> StatisticsList:
    arguments, labels = collection_arguments(kind, options, anchor=anchor, interval=interval, start=start,
                                             end=end, utc_offset=utc_offset, time_zone=time_zone,
                                             local_time=local_time, predicate=predicate)
    result = ctypes.POINTER(n.ohk_statistics_result)()
    n.lib.ohk_store_statistics_collection(ctypes.byref(result), handle, arguments)
    return _read(result, kind, unit, labels)


def _options(kind: SampleType, options: StatisticsOptions | None) -> StatisticsOptions:
    if options is None:
        return default_options(kind)
    if not isinstance(options, StatisticsOptions):
        raise ArgumentTypeError(f"options must be StatisticsOptions, not {type(options).__name__}")
    return options


def _read(pointer: Any, kind: SampleType, unit: str | None, labels: CollectionLabels) -> StatisticsList:
    """The statistics of a result the caller owns, which the list keeps
    (for ``to_arrow``) and frees when it is collected."""
    try:
        out = convert_result(pointer.contents, kind, unit, labels)
    except BaseException:
        n.lib.ohk_statistics_result_free(pointer)
        raise
    out._result = pointer
    weakref.finalize(out, n.lib.ohk_statistics_result_free, pointer)
    return out


def convert_result(r: n.ohk_statistics_result, kind: SampleType, unit: str | None,
                   labels: CollectionLabels) -> StatisticsList:
    """The statistics of a C result (not freed: a live query lends it)."""
    canonical = kind.canonical_unit or ""
    target = unit or kind.display_unit or canonical
    zone = labels.zone

    def number(value: float) -> float | None:
        # In another unit than the canonical one: rounded to 15 digits (rule 44).
        return None if math.isnan(value) else converted(value, canonical, target)

    def date(seconds: float) -> datetime:
        d = utc_datetime(seconds)
        if zone is None:
            return d.replace(tzinfo=None)
        # The offset in force, fixed: ``end - start`` is then the real length
        # (across a ZoneInfo, Python subtracts wall clocks: 24 h for a 23-hour day).
        local = d.astimezone(zone)
        return local.replace(tzinfo=timezone(cast(timedelta, local.utcoffset())))

    def values(v: n.ohk_statistics_values) -> StatisticsValues:
        return StatisticsValues(
            sum=number(v.sum), average=number(v.average), minimum=number(v.minimum), maximum=number(v.maximum),
            most_recent=number(v.most_recent),
            most_recent_start=None if math.isnan(v.most_recent_start) else utc_datetime(v.most_recent_start),
            most_recent_end=None if math.isnan(v.most_recent_end) else utc_datetime(v.most_recent_end),
            duration=None if math.isnan(v.duration) else timedelta(seconds=v.duration), count=v.count)

    out = StatisticsList()
    out.zone, out.separate, out.unit = zone, labels.separate, target
    for interval in r.intervals[:r.interval_count]:
        own = r.sources[interval.first_source:interval.first_source + interval.source_count]
        out.append(Statistics(
            start=date(interval.start), end=date(interval.end), unit=target,
            values=values(interval.values),
            by_source={s.bundle_identifier.decode("utf-8"): values(s.values) for s in own},
            sources=[Source(s.bundle_identifier.decode("utf-8"), s.name.decode("utf-8")) for s in own]))
    return out
