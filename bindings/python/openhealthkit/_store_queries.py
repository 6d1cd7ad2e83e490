"""``HealthStore``'s queries: anchored queries, their NumPy columns and
batches, long-running queries, observers and durable subscriptions."""

from __future__ import annotations

import ctypes
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Literal

from . import _native as n
from ._enums import Frequency
from ._checks import pyarrow_module
from ._store_core import StoreCore, count_arg, query_options
from .aio import updates
from .anchor import Anchor, AnchorLike, as_anchor
from .arrow import ArrowResult, deleted_table, import_table, options as arrow_options
from .batch import BatchContext, QueryResult
from .columns import ColumnsResult, query_columns
from .errors import ArgumentTypeError, InvalidArgumentError
from .predicate import Predicate, Types
from .queries import Query, Subscription, on_observed, on_results
from .samples import Sample
from .subscriptions import SubscriptionStatus


class Queries(StoreCore):
    """The queries of a store (see ``HealthStore``)."""

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
        return self._query(descriptors, count, as_anchor(anchor), count_arg(limit, "limit"))

    def query_parts(self, types: Types, callback: Callable[[QueryResult], Any], anchor: AnchorLike = None, *,
                    predicate: Predicate | None = None) -> Anchor:
        """What ``query`` returns without a limit, handed to
        ``callback(part)`` in parts of at most 4,096 objects (samples and
        deleted objects together), in change order, all read from one
        snapshot (rule 75): a large read holds one part at a time. Each
        part is a QueryResult whose anchor resumes right after it; the
        last part, shorter (perhaps empty), has the query's new anchor,
        which is returned. The callback returns False to stop (the anchor
        of the last part it got is returned); what it raises stops the
        read and is raised here. It may save to the store (the parts after it
        do not see the save); it must not close it (the read holds it open)."""
        if not callable(callback):
            raise ArgumentTypeError(f"callback must be callable, not {type(callback).__name__}")
        descriptors, count, _keep = self._descriptors(types, predicate)
        start = as_anchor(anchor)
        last: list[Anchor] = []
        raised: list[BaseException] = []

        def on_part(batch: Any, _user_data: Any) -> int:
            try:
                part = QueryResult(batch, self.sample_type, lent=True)
                last[:] = [part.anchor]
                return 0 if callback(part) is not False else 1
            except BaseException as error:  # noqa: BLE001 - re-raised once the read has stopped
                raised.append(error)
                return 1

        n.lib.ohk_store_fetch_parts(self._handle, descriptors, count, start._struct, n.ohk_fetch_part_fn(on_part), None)
        if raised:
            raise raised[0]
        return last[0] if last else start

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
        limit = count_arg(limit, "limit")
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
                             count, as_anchor(anchor), count_arg(limit, "limit"), unit, times)

    def query_arrow(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
                    limit: int = 0, unit: str | None = None, columns: Iterable[str] | None = None) -> ArrowResult:
        """The same query as ``query``, its samples as a ``pyarrow.Table``
        written by the library as it reads them, into memory the table
        owns: no sample objects, no batch of records, no copy on the way
        to pyarrow (see ``openhealthkit.arrow`` for the columns; values in
        each type's canonical unit or in `unit`, rounded to 15 significant
        digits: rule 44). Returns the samples, the deleted objects (a
        small table) and the next anchor. Polars and DuckDB read the table
        as it is::

            steps, deleted, anchor = store.query_arrow("StepCount")
            duckdb.sql("select date_trunc('day', start_date) d, sum(value) from steps group by d")

        Needs pyarrow."""
        descriptors, count, _keep = self._descriptors(types, predicate)
        o = arrow_options(unit, columns)
        o.descriptors, o.descriptor_count = descriptors, count
        o.anchor, o.limit = ctypes.pointer(as_anchor(anchor)._struct), count_arg(limit, "limit")
        batch = ctypes.POINTER(n.ohk_batch)()
        table = import_table(lambda array, schema: n.lib.ohk_store_fetch_arrow(batch, array, schema, self._handle, o))
        try:
            rest = QueryResult(batch, self.sample_type)
        except BaseException:
            n.lib.ohk_batch_free(batch)
            raise
        return ArrowResult(samples=table, deleted=deleted_table(list(rest.deleted)), anchor=rest.anchor)

    def arrow_reader(self, types: Types, anchor: AnchorLike = None, *, predicate: Predicate | None = None,
                     batch_size: int = 100_000, unit: str | None = None,
                     columns: Iterable[str] | None = None) -> Any:
        """The samples of ``query_arrow`` as a ``pyarrow.RecordBatchReader``
        of batches of at most `batch_size` rows, each read when the
        consumer asks for it: a store larger than memory streams into
        DuckDB, Polars or a Parquet writer
        (``pyarrow.parquet.write_table`` / ``duckdb.sql("from reader")``).
        Samples only: ``query_arrow`` gives the deleted objects and the
        anchor. Needs pyarrow."""
        if count_arg(batch_size, "batch_size") == 0:
            raise InvalidArgumentError("batch_size must be at least 1")
        first = self.query_arrow(types, anchor, predicate=predicate, limit=batch_size, unit=unit, columns=columns)

        def pages() -> Iterator[Any]:
            page = first
            while True:
                yield from page.samples.to_batches()
                if page.samples.num_rows + page.deleted.num_rows < batch_size:
                    return
                page = self.query_arrow(types, page.anchor, predicate=predicate, limit=batch_size, unit=unit,
                                        columns=columns)

        return pyarrow_module("arrow_reader()").RecordBatchReader.from_batches(first.samples.schema, pages())

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
        if count_arg(batch_size, "batch_size") == 0:
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
        batch_size = count_arg(max_batch_size, "max_batch_size")  # checked before the query is registered
        query = Query(self, callback, on_error)
        options = query_options(descriptors, count, anchor=start._struct, max_batch_size=batch_size)
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
        query._start(n.lib.ohk_query_start_observer, self._handle, query_options(descriptors, count), on_observed)
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
        encoded, batch_size = n.encode(name, "name"), count_arg(max_batch_size, "max_batch_size")
        try:
            how_often = Frequency(frequency)
        except ValueError:
            raise InvalidArgumentError(f"frequency must be a Frequency, not {frequency!r}") from None
        subscription = Subscription(self, callback, on_error)
        options = query_options(descriptors, count, name=encoded, frequency=int(how_often), max_batch_size=batch_size)
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
        options = query_options(descriptors, count, anchor=where, name=encoded, frequency=int(how_often))
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
