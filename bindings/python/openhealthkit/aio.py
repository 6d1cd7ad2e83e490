"""asyncio: ``async for`` over a long-running query's deliveries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Callable

from .batch import QueryResult

if TYPE_CHECKING:
    from .predicate import Predicate
    from .queries import Query
    from .statistics import StatisticsUpdate
    from ._store_queries import Queries

_END = object()


async def updates(store: "Queries", types: Any, anchor: Any, predicate: "Predicate | None",
                  max_batch_size: int) -> AsyncIterator[QueryResult]:
    """See HealthStore.updates. The library thread hands each result to the
    loop with call_soon_threadsafe; the queue is unbounded, as HealthKit's
    handlers are (a slow consumer holds results in memory, never loses one)."""
    def start(deliver: Callable[[Any, QueryResult], None], failed: Callable[[BaseException], None]) -> "Query":
        return store.watch(types, deliver, anchor, predicate=predicate, max_batch_size=max_batch_size,
                           on_error=failed)

    async for result in _deliveries(start):
        yield result


async def statistics_updates(start: Callable[..., "Query"]) -> AsyncIterator["StatisticsUpdate"]:
    """See HealthStore.statistics_updates; `start(deliver, failed)` starts
    the live collection."""
    async for update in _deliveries(start):
        yield update


async def _deliveries(start: Callable[..., "Query"]) -> AsyncIterator[Any]:
    """What a live query started by `start(deliver, failed)` delivers, in
    order, until the consumer leaves; its failure raised here."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def deliver(query: Any, item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def failed(error: BaseException) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, error)

    query = start(deliver, failed)
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                query.error = None  # raised here instead of from close()
                raise item
            yield item
    finally:
        query.close()
