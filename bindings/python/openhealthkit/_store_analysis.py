"""``HealthStore``'s analysis: statistics and their collections (live
too), source priority, activity summaries, workouts counted once, sleep
per night and what the store holds."""

from __future__ import annotations

import ctypes
import os
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from . import _native as n
from . import sleep as _sleep
from . import statistics as _statistics
from . import parquet as _parquet
from . import summary as _summary
from ._convert import as_list
from ._store_core import check_unit, count_arg, query_options, type_identifier
from ._store_saving import Saving
from .anchor import AnchorLike, as_anchor
from .arrow import ArrowResult, deleted_table
from .activity import ActivitySummary, ActivitySummaryList, day_range, summaries_to_c
from .aio import statistics_updates
from .catalogue import SampleType
from .errors import ArgumentTypeError
from .predicate import Predicate
from .queries import ActivitySummaryQuery, Query, StatisticsQuery, on_activity, on_statistics
from .sleep import SleepNights
from .statistics import Statistics, StatisticsList, StatisticsOptions, StatisticsUpdate
from .summary import StoreSummary
from .workout import WORKOUT, WorkoutSample
from .workout_list import WorkoutList


class Analysis(Saving):
    """The statistics and summaries of a store (see ``HealthStore``)."""

    def statistics(self, sample_type: str | SampleType, options: StatisticsOptions | None = None, *,
                   predicate: Predicate | None = None, unit: str | None = None) -> Statistics | None:
        """HKStatisticsQuery: the figures of a quantity type over every
        matching sample, sources merged by priority (the walk the phone and
        the watch both recorded counts once). ``options`` default to a sum
        for cumulative types and an average for discrete ones; values are in
        ``unit`` (default: the type's ``display_unit``, count/min for heart
        rate). None when no sample matches."""
        kind = self.sample_type(sample_type)
        check_unit(kind, unit)
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
        check_unit(kind, unit)
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
        check_unit(kind, unit)
        arguments, labels = _statistics.collection_arguments(
            kind, options, anchor=start if anchor is None else anchor, interval=interval, start=start, end=end,
            utc_offset=utc_offset, time_zone=time_zone, local_time=local_time, predicate=predicate)
        query = StatisticsQuery(self, callback, on_error, kind, unit, labels)
        query._start(n.lib.ohk_query_start_statistics_collection, self._handle, query_options(statistics=arguments),
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
        call(ctypes.byref(listed), self._handle, type_identifier(self.sample_type(sample_type)))
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
        n.lib.ohk_store_set_source_priority(self._handle, type_identifier(self.sample_type(sample_type)), array, len(ids))

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
                                           count_arg(since, "since"))
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
                     query_options(start_day=first, end_day=last), on_activity)
        return query

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

    def summary(self, *, spans: bool = True) -> StoreSummary:
        """What ``ohk stats`` prints: every type the store has held a sample
        of, with its live samples and retained deleted objects, and (with
        ``spans``, which reads each type's samples) its first start, last
        end and sources; ``.anchor`` is where changes from now on start,
        ``.to_pandas()`` a frame by type."""
        if not isinstance(spans, bool):
            raise ArgumentTypeError(f"spans must be a bool, not {type(spans).__name__}")
        return _summary.summary(self, self._handle, spans)

    def export_parquet(self, folder: str | os.PathLike[str], types: Iterable[str | SampleType] | None = None, *,
                       since: AnchorLike = None) -> _parquet.ParquetExport:
        """Writes the store into `folder` as Parquet, or brings an earlier
        export up to date: ``samples/<type identifier>.parquet`` per type
        (the columns of ``query_arrow``: typed, values in canonical units),
        ``deletions.parquet`` (the deleted objects it has seen) and
        ``anchor`` (what the folder is current to).

        The first call writes every sample of `types` (default: every type
        the store has held). Later calls read only what changed since the
        folder's anchor (or `since`), and rewrite only the files of the
        types that changed: a deleted sample's row goes, a new one comes,
        so each file is the type's samples as the store has them. DuckDB
        reads the folder as it is::

            store.export_parquet("health")      # once a day
            duckdb.sql("select * from read_parquet('health/samples/*.parquet', union_by_name=true)")

        An interrupted export leaves no partial file under a final name
        and the anchor where it was: the next call repeats the changes.
        Needs pyarrow."""
        root = Path(folder) if isinstance(folder, (str, os.PathLike)) else None
        if root is None:
            raise ArgumentTypeError(f"folder must be a path, not {type(folder).__name__}")
        start = as_anchor(since) if since is not None else _parquet.kept_anchor(root)
        if types is None:
            identifiers = [t.type for t in self.summary(spans=False)]
        else:
            identifiers = [self.sample_type(t).identifier for t in as_list(types, "types", (str, SampleType),
                                                                             "a type identifier or a SampleType")]

        def query(wanted: list[str], anchor: Any) -> ArrowResult:
            if not wanted:  # an empty store: nothing to write but the anchor
                pa = deleted_table([])
                return ArrowResult(samples=pa.slice(0, 0), deleted=pa, anchor=self.current_anchor())
            return self.query_arrow(wanted, anchor)

        return _parquet.export(root, query, identifiers, start, incremental=bool(start))

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
