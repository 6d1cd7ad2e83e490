"""Long-running queries: anchored queries with updates, observers, subscriptions.

The C library calls three static trampolines; ``user_data`` is a key into
``_live``, which holds each running query until the library's destroy hook
says it will never call again. So a callback stays alive exactly as long as
the library may call it, whatever the garbage collector does, and no
ctypes callback object is ever freed while C holds it.

Callbacks run on a library thread (ctypes takes the GIL for them), one at a
time per query. An exception raised in a callback stops that query: it is
kept as ``query.error`` and raised, as CallbackError, from the next
``stop()``, ``close()`` or the end of the ``with`` block; ``on_error`` (if
given) is called with it at once. A failure the library reports (an
expired anchor, say) is handled the same way, as its own exception.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import TYPE_CHECKING, Any, Callable

from . import _native as n
from .activity import ActivitySummary, ActivitySummaryList, ActivitySummaryUpdate
from .batch import QueryResult
from .errors import ArgumentTypeError, CallbackError, ClosedError, OpenHealthKitError, Status, error_for
from .statistics import StatisticsUpdate, convert_result

if TYPE_CHECKING:
    from ._store_core import StoreCore

_live: dict[int, "Query"] = {}
_keys = itertools.count(1)
_live_lock = threading.Lock()


class Query:
    """A running query. ``stop()`` ends its callbacks (idempotent; after it
    returns none runs); ``close()`` also frees it. Use it as a context
    manager to close it on exit."""

    def __init__(self, store: "StoreCore", callback: Callable[..., Any],
                 on_error: Callable[[BaseException], Any] | None) -> None:
        if not callable(callback):
            raise ArgumentTypeError("callback must be callable")
        if on_error is not None and not callable(on_error):
            raise ArgumentTypeError("on_error must be callable")
        self._store = store
        self._callback = callback
        self._on_error = on_error
        self._handle: Any = None
        self._lock = threading.Lock()
        #: What stopped the query, when a callback raised or the library failed.
        self.error: BaseException | None = None
        self._raised = False
        self._stopped = False
        self._finished = threading.Event()
        with _live_lock:
            self._key = next(_keys)
            _live[self._key] = self

    def _start(self, opener: Callable[..., int], *args: Any) -> None:
        """Calls the C opener; the destroy hook runs even when it fails."""
        handle = ctypes.POINTER(n.ohk_query)()
        try:
            opener(handle, *args, self._key, _destroy)
        except ctypes.ArgumentError:  # refused before C saw it: no destroy hook will run
            with _live_lock:
                _live.pop(self._key, None)
            raise
        with self._lock:
            if self._handle is None and not self._stopped:  # a callback may have adopted it
                self._handle = handle
        self._store._adopt_query(self)

    @property
    def running(self) -> bool:
        """True until the query is stopped, fails or is closed."""
        return self._handle is not None and not self._stopped and self.error is None

    def stop(self) -> None:
        """Stops the callbacks (waits for a running one, unless called from
        it). Raises CallbackError if a callback raised."""
        with self._lock:
            handle, self._stopped = self._handle, True
        if handle is not None:
            n.lib.ohk_query_stop(handle)
        self._raise_error()

    def close(self) -> None:
        """Stops and frees the query (idempotent). Raises CallbackError if a
        callback raised."""
        self._release()
        self._store._forget_query(self)
        self._raise_error()

    def _release(self) -> None:
        """Frees the C query; the library then calls the destroy hook."""
        with self._lock:
            handle, self._handle, self._stopped = self._handle, None, True
        if handle is not None:
            n.lib.ohk_query_free(handle)

    def wait_closed(self, timeout: float | None = None) -> bool:
        """Waits until the library has released the callback (after close)."""
        return self._finished.wait(timeout)

    def __enter__(self) -> "Query":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _raise_error(self) -> None:
        error = self.error
        if error is None or self._raised:
            return
        self._raised = True
        if isinstance(error, OpenHealthKitError):
            raise error
        raise CallbackError(f"the query's callback raised {type(error).__name__}: {error}") from error

    def _fail(self, query_pointer: Any, error: BaseException) -> None:
        """Stops the query from its own callback after `error`."""
        if self.error is None:
            self.error = error
        n.lib.ohk_query_stop(query_pointer)
        if self._on_error is not None:
            try:
                self._on_error(error)
            except BaseException:  # noqa: BLE001 - nowhere to raise it on a library thread
                pass

    def _adopt_pointer(self, query_pointer: Any) -> None:
        # The first callback may run before _start has stored the handle.
        with self._lock:
            if self._handle is None and not self._stopped:
                self._handle = ctypes.cast(query_pointer, ctypes.POINTER(n.ohk_query))

    def _deliver(self, query_pointer: Any, status: int, payload: Callable[[], Any]) -> None:
        """Runs the callback with what `payload` reads from the library's
        arguments; a failure or a raise stops the query (see the module doc)."""
        self._adopt_pointer(query_pointer)
        if self.error is not None:
            return
        try:
            if status != Status.OK:
                raise error_for(status, n.last_error())
            self._callback(self, payload())
        except BaseException as error:  # noqa: BLE001 - kept and raised from stop()/close()
            self._fail(query_pointer, error)


class Subscription(Query):
    """A durable subscription (our background delivery): deliveries repeat
    until acknowledged, across restarts."""

    def acknowledge(self) -> None:
        """Stores the latest delivery's position; the next delivery starts
        after it. From the callback or any thread later."""
        with self._lock:
            handle = self._handle
        if handle is None:
            raise ClosedError("the subscription is closed")
        n.lib.ohk_query_acknowledge(handle)


# The C callbacks are made by calling the prototypes rather than by using
# them as decorators: mypy types a CFUNCTYPE prototype as a class object,
# which as a decorator would leave the functions untyped.

def _results(query: Any, status: int, batch: Any, key: int) -> None:
    """The results callback of every anchored query and subscription."""
    target = _live.get(key)
    if target is not None:
        target._deliver(query, status,
                        lambda: QueryResult(batch, target._store.sample_type, lent=True))


def _observed(query: Any, status: int, types: Any, count: int, key: int) -> None:
    """The callback of every observer query: the changed types as a frozenset."""
    target = _live.get(key)
    if target is not None:
        target._deliver(query, status,
                        lambda: frozenset(types[i].decode("utf-8") for i in range(count)))


on_results = n.ohk_results_fn(_results)
on_observed = n.ohk_observer_fn(_observed)


class StatisticsQuery(Query):
    """A live statistics collection (``HealthStore.watch_statistics``): its
    callback gets a StatisticsUpdate when it starts and after each commit
    that changes its figures."""

    def __init__(self, store: "StoreCore", callback: Callable[..., Any],
                 on_error: Callable[[BaseException], Any] | None, kind: Any, unit: str | None,
                 labels: Any) -> None:
        super().__init__(store, callback, on_error)
        self._kind = kind
        self._unit = unit
        self._labels = labels
        self._initial = True

    def _update(self, result: Any, changed: Any, count: int) -> Any:
        initial, self._initial = self._initial, False
        return StatisticsUpdate(convert_result(result.contents, self._kind, self._unit, self._labels),
                                [int(changed[i]) for i in range(count)], initial)


def _statistics(query: Any, status: int, result: Any, changed: Any, count: int, key: int) -> None:
    """The callback of every live statistics collection."""
    target = _live.get(key)
    if isinstance(target, StatisticsQuery):
        target._deliver(query, status, lambda: target._update(result, changed, count))


class ActivitySummaryQuery(Query):
    """Activity summaries kept current (``HealthStore.watch_activity_summaries``):
    its callback gets an ActivitySummaryUpdate with the days when it starts,
    then with the days each commit saved or changed."""

    @staticmethod
    def _update(summaries: Any, count: int, is_update: bool) -> Any:
        days = ActivitySummaryList(ActivitySummary._from_struct(summaries[i]) for i in range(count))
        return ActivitySummaryUpdate(days, not is_update)


def _activity(query: Any, status: int, summaries: Any, count: int, is_update: bool, key: int) -> None:
    """The callback of every live activity summary query."""
    target = _live.get(key)
    if isinstance(target, ActivitySummaryQuery):
        target._deliver(query, status, lambda: ActivitySummaryQuery._update(summaries, count, is_update))


def _released(key: int) -> None:
    with _live_lock:
        target = _live.pop(key, None)
    if target is not None:
        target._finished.set()


on_statistics = n.ohk_statistics_fn(_statistics)
on_activity = n.ohk_activity_summaries_fn(_activity)
#: The destroy callback of every query: the library will not call it again.
_destroy = n.ohk_destroy_fn(_released)
