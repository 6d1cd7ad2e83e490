"""Delivering a store's changes into PostgreSQL exactly once: ``ohk sink postgres`` from Python (docs/postgres.md)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from types import TracebackType
from typing import Callable

from . import _native as n
from ._handles import store_handle
from .errors import ArgumentTypeError, ClosedError
from .store import HealthStore


@dataclass(frozen=True, slots=True)
class SinkProgress:
    """Where a sink stands: samples and deletions it delivered since it
    opened, transactions committed, the store position committed in
    PostgreSQL, the store's head when last read, and where it started."""

    saves: int
    deletions: int
    batches: int
    position: int
    head: int
    start_position: int

    @property
    def lag(self) -> int:
        """Changes committed in the store and not yet in PostgreSQL (as of the last read)."""
        return max(0, self.head - self.position)


def _progress(p: n.ohk_sink_progress) -> SinkProgress:
    return SinkProgress(p.saves, p.deletions, p.batches, p.position, p.head, p.start_position)


class PostgresSink:
    """Delivers ``store``'s changes into PostgreSQL exactly once (rule 61).

    Opening connects to ``url`` (a libpq connection string), creates the
    tables when missing (``ohk_samples``, ``ohk_changes``,
    ``ohk_sink_checkpoints``) and takes the fence of (``person``, ``name``):
    an older sink of the same pair stops at its next commit with
    ``SinkFencedError``. ``person`` defaults to the store's id, ``name`` to
    ``"default"``; ``batch`` is changes per transaction. Use it as a
    context manager, or call ``close()``.

    Raises ``SinkConnectError`` (unreachable server, bad credentials, no
    such database; the message never shows the password),
    ``SinkCheckpointError`` (this name and person are fed by another
    store) and ``UnavailableError`` (libpq is not installed).
    """

    _handle: ctypes._Pointer[n.ohk_sink] | None = None  # set once opened (close() may run after a failed open)

    def __init__(self, store: HealthStore, url: str, *, name: str = "default", person: str | None = None,
                 batch: int = 50_000) -> None:
        if not isinstance(store, HealthStore):
            raise ArgumentTypeError(f"store must be a HealthStore, not {type(store).__name__}")
        if not isinstance(batch, int) or isinstance(batch, bool) or batch <= 0:
            raise ArgumentTypeError(f"batch must be a positive int, not {batch!r}")
        handle = ctypes.POINTER(n.ohk_sink)()
        n.lib.ohk_sink_open_postgres(ctypes.byref(handle), store_handle(store), n.encode(url, "url"),
                                     n.encode(name, "name"), None if person is None else n.encode(person, "person"),
                                     batch)
        self._handle = handle
        self._store = store  # kept open while the sink lives

    def _live(self) -> ctypes._Pointer[n.ohk_sink]:
        if self._handle is None:
            raise ClosedError("the sink is closed")
        return self._handle

    def deliver(self, progress: Callable[[SinkProgress], object] | None = None) -> SinkProgress:
        """Delivers every change up to the store's head as it is now, one
        transaction per batch, and returns where the sink stands.
        ``progress`` is called after each commit; returning ``False`` stops
        after that commit, and an exception it raises stops and is raised
        here. Failures keep what was committed: ``SinkFencedError``,
        ``SinkRefusedError`` (names the sample), ``SinkConnectionLostError``
        (call again: it reconnects and resumes), ``SinkCheckpointError``."""
        raised: list[BaseException] = []

        def on_progress(p: ctypes._Pointer[n.ohk_sink_progress], _: object) -> int:
            try:
                if progress is not None and progress(_progress(p.contents)) is False:
                    return 1
            except BaseException as error:  # noqa: BLE001 - re-raised once the delivery has stopped
                raised.append(error)
                return 1
            return 0

        # A stop asked by ``progress`` (OHK_ERR_CANCELLED) is no failure.
        n.lib.ohk_sink_deliver(self._live(), n.ohk_sink_progress_fn(on_progress), None)
        if raised:
            raise raised[0]
        return self.progress

    def follow(self, stop: Callable[[SinkProgress], object]) -> SinkProgress:
        """Delivers as commits happen, from any process, until ``stop``
        returns true. ``stop`` is called after each commit and at least
        every quarter second while idle; an exception it raises ends the
        sink and is raised here (Ctrl-C too). A lost connection is retried
        with backoff, resuming from PostgreSQL's checkpoint."""
        if not callable(stop):
            raise ArgumentTypeError(f"stop must be callable, not {type(stop).__name__}")
        raised: list[BaseException] = []

        def on_progress(p: ctypes._Pointer[n.ohk_sink_progress], _: object) -> int:
            try:
                return 1 if stop(_progress(p.contents)) else 0
            except BaseException as error:  # noqa: BLE001 - re-raised once the sink has stopped
                raised.append(error)
                return 1

        n.lib.ohk_sink_follow(self._live(), n.ohk_sink_progress_fn(on_progress), None)
        if raised:
            raise raised[0]
        return self.progress

    @property
    def progress(self) -> SinkProgress:
        """Where the sink stands now."""
        p = n.ohk_sink_progress()
        n.lib.ohk_sink_get_progress(ctypes.byref(p), self._live())
        return _progress(p)

    def close(self) -> None:
        """Closes the connection. Idempotent."""
        if self._handle is not None:
            n.lib.ohk_sink_free(self._handle)
            self._handle = None

    def __enter__(self) -> PostgresSink:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
