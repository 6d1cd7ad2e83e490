"""asyncio: ``async for`` over a long-running anchored query's results."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from .batch import QueryResult

if TYPE_CHECKING:
    from .predicate import Predicate
    from .store import HealthStore

_END = object()


async def updates(store: "HealthStore", types: Any, anchor: Any, predicate: "Predicate | None",
                  max_batch_size: int) -> AsyncIterator[QueryResult]:
    """See HealthStore.updates. The library thread hands each result to the
    loop with call_soon_threadsafe; the queue is unbounded, as HealthKit's
    handlers are (a slow consumer holds results in memory, never loses one)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def deliver(query: Any, result: QueryResult) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, result)

    def failed(error: BaseException) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, error)

    query = store.watch(types, deliver, anchor, predicate=predicate,
                        max_batch_size=max_batch_size, on_error=failed)
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                query.error = None  # raised here instead of from close()
                raise item
            yield item
    finally:
        query.close()
