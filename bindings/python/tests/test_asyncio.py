"""async for over a long-running anchored query."""

from __future__ import annotations

import asyncio

import pytest

import openhealthkit as ohk
from openhealthkit import queries
from conftest import STEPS, WAIT, steps


def test_updates_yields_snapshot_then_changes_and_stops_when_left(store):
    store.save(steps(0))

    async def consume():
        seen = []
        async for result in store.updates(STEPS):
            seen.append(len(result.samples))
            if len(seen) == 1:
                await asyncio.to_thread(store.save, [steps(1), steps(2)])
            else:
                break
        return seen

    assert asyncio.run(asyncio.wait_for(consume(), WAIT)) == [1, 2]
    assert not any(q._store is store for q in store._queries)


def test_a_query_failure_is_raised_from_the_loop(store):
    async def consume():
        async for _ in store.updates(STEPS, ohk.Anchor.from_value(1000)):
            pass

    with pytest.raises(ohk.AnchorFromFutureError):
        asyncio.run(asyncio.wait_for(consume(), WAIT))


def test_many_consumers_on_one_loop(store):
    async def one(count):
        got = 0
        async for result in store.updates(STEPS):
            got += len(result.samples)
            if got >= count:
                return got

    async def main():
        tasks = [asyncio.create_task(one(3)) for _ in range(4)]
        await asyncio.to_thread(store.save, [steps(i) for i in range(3)])
        return await asyncio.gather(*tasks)

    assert asyncio.run(asyncio.wait_for(main(), WAIT)) == [3, 3, 3, 3]
    assert all(q.wait_closed(WAIT) for q in list(queries._live.values()))
