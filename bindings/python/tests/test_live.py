"""Long-running queries, observers and subscriptions from Python (rules 9-12),
and callbacks done right: lifetime, exceptions, threads, garbage collection."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import pytest

import openhealthkit as ohk
from openhealthkit import _store_core, queries
from conftest import HEART, STEPS, WAIT, Inbox, heart, steps


def test_rule_9_snapshot_then_each_change_set_once_in_commit_order(store):
    store.save([steps(0), steps(1)])
    inbox = Inbox()
    with store.watch(STEPS, inbox.put) as query:
        [snapshot] = inbox.wait(1)
        assert len(snapshot.samples) == 2 and snapshot.initial
        transactions = [[steps(10 + 2 * k), steps(11 + 2 * k)] for k in range(5)]
        for batch in transactions:
            store.save(batch)
        store.save(heart(50))  # does not match: adds nothing
        deliveries = inbox.wait_until(lambda items: sum(len(r.samples) for r in items) >= 12,
                                      "10 new samples")[1:]
        # Commits may be coalesced into one call, but never split or reordered.
        delivered = [[s.uuid for s in r.samples] for r in deliveries]
        assert [u for d in delivered for u in d] == [s.uuid for t in transactions for s in t]
        assert all(len(d) % 2 == 0 for d in delivered)
        assert not any(r.initial for r in deliveries)  # watch() tells the snapshot from the updates
        assert not store.query(STEPS).initial
        for earlier, later in zip(deliveries, deliveries[1:]):
            assert earlier.anchor < later.anchor
        query.stop()
        query.stop()  # idempotent
        count = len(inbox.items)
        store.save(steps(99))
        assert not query.running
    assert len(inbox.items) == count  # nothing after stop


def test_rule_9_update_batches_split_at_max_batch_size(store):
    inbox = Inbox()
    with store.watch(STEPS, inbox.put, max_batch_size=3):
        inbox.wait(1)
        store.save([steps(i) for i in range(7)])
        sizes = [len(r.samples) for r in inbox.wait(4)[1:]]  # one commit: split only by the bound
    assert sizes == [3, 3, 1]


def test_rule_10_observer_gets_changed_types_and_never_without_a_change(store):
    inbox = Inbox()
    big = ohk.Predicate.quantity(">", 100, "count")
    with store.observe([ohk.QueryDescriptor(STEPS, big), ohk.QueryDescriptor(HEART)], inbox.put):
        store.save(steps(0, 5))  # does not match the predicate
        store.save([steps(1, 500), heart(2)])
        [changed] = inbox.wait(1)
    assert changed == frozenset({STEPS, HEART})
    assert len(inbox.items) == 1


def test_rule_10_changes_by_another_process_are_observed(tmp_path):
    path = tmp_path / "shared"
    with ohk.HealthStore(path) as store:
        inbox = Inbox()
        with store.observe(STEPS, inbox.put):
            writer = (
                "import sys, openhealthkit as ohk\n"
                "from datetime import datetime, timezone\n"
                "t = datetime(2024, 1, 1, tzinfo=timezone.utc)\n"
                "with ohk.HealthStore(sys.argv[1]) as s:\n"
                "    s.save(ohk.QuantitySample('HKQuantityTypeIdentifierStepCount', t, t, 7))\n"
            )
            subprocess.run([sys.executable, "-c", writer, str(path)], check=True,
                           cwd=Path(ohk.__file__).parents[1], timeout=WAIT)
            assert inbox.wait(1) == [frozenset({STEPS})]


def test_rule_11_subscription_redelivers_until_acknowledged_across_reopen(tmp_path):
    path = tmp_path / "s"
    with ohk.HealthStore(path, durable=False) as store:
        inbox = Inbox()
        sub = store.subscribe("sync", STEPS, inbox.put)
        store.save(steps(0))
        first = inbox.wait(1)[0]
        assert len(first.samples) == 1
        sub.close()  # not acknowledged
    with ohk.HealthStore(path, durable=False) as store:
        inbox = Inbox()
        sub = store.subscribe("sync", STEPS, inbox.put)
        again = inbox.wait(1)[0]
        assert [s.uuid for s in again.samples] == [s.uuid for s in first.samples]
        sub.acknowledge()
        with pytest.raises(ohk.InvalidArgumentError):
            sub.acknowledge()  # nothing waiting
        store.save(steps(1))
        newer = inbox.wait(2)[1]
        assert [s.start_date for s in newer.samples] == [steps(1).start_date]
        sub.close()
        store.remove_subscription("sync")
        with pytest.raises(ohk.NotFoundError):
            store.remove_subscription("sync")


def test_rule_12_callback_may_save_query_and_stop_its_own_query(store):
    done = threading.Event()
    seen = []

    def handler(query, result):
        seen.append(len(result.samples))
        if len(seen) == 1:
            store.save(steps(5))  # a save from inside the handler
            assert len(store.query(STEPS).samples) == 2
        else:
            query.stop()
            done.set()

    store.save(steps(0))
    query = store.watch(STEPS, handler)
    assert done.wait(WAIT)
    store.save(steps(6))
    query.close()
    assert seen == [1, 1] and query.error is None


def test_an_exception_in_a_callback_stops_the_query_and_is_raised_by_close(store):
    reported = Inbox()
    inbox = Inbox()

    def handler(query, result):
        inbox.put(result)
        if result.samples:
            raise RuntimeError("boom")

    query = store.watch(STEPS, handler, on_error=reported.put)
    inbox.wait(1)
    store.save(steps(0))
    assert reported.wait(1) == [query.error] and isinstance(query.error, RuntimeError)
    store.save(steps(1))  # the query stopped: no third delivery
    with pytest.raises(ohk.CallbackError, match="boom") as caught:
        query.close()
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert len(inbox.items) == 2
    query.close()  # raised once


def test_a_library_failure_reaches_on_error_as_its_exception(store):
    store.save(steps(0))
    anchor = store.current_anchor()
    errors = Inbox()
    query = store.watch(STEPS, lambda q, r: None, ohk.Anchor.from_value(999), on_error=errors.put)
    [error] = errors.wait(1)
    assert isinstance(error, ohk.AnchorFromFutureError)
    with pytest.raises(ohk.AnchorFromFutureError):
        query.close()
    assert anchor


def test_callbacks_survive_garbage_collection_and_are_released_after_close(store):
    inbox = Inbox()

    class Handler:
        def __call__(self, query, result):
            inbox.put(result)

    handler = Handler()
    watcher = weakref.ref(handler)
    query = store.watch(STEPS, handler)
    del handler
    for round_ in range(20):
        gc.collect()
        store.save(steps(round_))
        inbox.wait(round_ + 2)
    assert watcher() is not None  # alive while the library may call it
    query.close()
    assert query.wait_closed(WAIT)
    del query
    gc.collect()
    assert watcher() is None  # released through the destroy hook
    assert not queries._live


def test_dropping_every_reference_to_a_store_with_live_queries_never_crashes(tmp_path):
    for round_ in range(10):
        store = ohk.HealthStore(tmp_path / f"s{round_}", durable=False)
        inbox = Inbox()
        store.watch(STEPS, inbox.put)
        store.observe(STEPS, lambda q, t: None)
        store.save(steps(0))
        inbox.wait(1)
        del store, inbox
        gc.collect()
    running = list(queries._live.values())
    assert len(running) == 20  # the stores keep their queries running
    for store in list(_store_core._open_stores):
        store.close()
    assert all(query.wait_closed(WAIT) for query in running)
    assert not queries._live


def test_closing_the_store_stops_its_queries(store):
    inbox = Inbox()
    query = store.watch(STEPS, inbox.put)
    inbox.wait(1)
    store.close()
    assert query.wait_closed(WAIT)
    with pytest.raises(ohk.ClosedError):
        store.save(steps(0))
    query.close()


def test_saves_from_many_threads_all_arrive_once(store):
    inbox = Inbox()
    per_thread, threads = 25, 4
    with store.watch(STEPS, inbox.put):
        inbox.wait(1)

        def writer(offset):
            for i in range(per_thread):
                store.save(steps(offset + i))

        workers = [threading.Thread(target=writer, args=(1000 * k,)) for k in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(WAIT)
        total = per_thread * threads
        delivered = inbox.wait_until(lambda items: sum(len(r.samples) for r in items) >= total,
                                     f"{total} samples")[1:]
    got = [s.uuid for r in delivered for s in r.samples]
    assert len(got) == len(set(got)) == per_thread * threads


def test_rule_62_subscriptions_start_where_asked_and_list_their_lag(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        store.save([steps(0), steps(1), steps(2)])
        store.register_subscription("later", STEPS)
        assert {s.name: s.pending_changes for s in store.subscriptions()} == {"later": 0}
        inbox = Inbox()
        sub = store.subscribe("backfill", STEPS, inbox.put, start="beginning")
        assert len(inbox.wait(1)[0].samples) == 3
        sub.acknowledge()
        sub.close()
        store.save(steps(3))
        listed = {s.name: s for s in store.subscriptions()}
        assert listed["backfill"].pending_changes == 1 and listed["later"].pending_changes == 1
        assert listed["backfill"].last_acknowledged is not None and listed["backfill"].lag is not None
        assert listed["later"].last_acknowledged is None and listed["later"].lag is None
        assert listed["later"].types == [STEPS] and listed["later"].frequency == ohk.Frequency.IMMEDIATE
        assert listed["later"].position == listed["later"].head - 1
        # From an anchor: only what came after it.
        anchor = store.query(STEPS).anchor
        store.save(steps(4))
        store.register_subscription("after", STEPS, start=anchor)
        assert {s.name: s.pending_changes for s in store.subscriptions()}["after"] == 1
        with pytest.raises(ohk.InvalidArgumentError):
            store.register_subscription("bad", STEPS, frequency=42)


def test_rule_62_a_callback_that_raises_stops_the_subscription_unacknowledged(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        errors = Inbox()

        def fails(sub, result):
            raise RuntimeError("consumer down")

        sub = store.subscribe("fragile", STEPS, fails, on_error=errors.put)
        store.save(steps(0))
        assert isinstance(errors.wait(1)[0], RuntimeError)
        with pytest.raises(ohk.CallbackError, match="consumer down"):
            sub.close()
        # Never silently lost: the change waits for the next consumer.
        assert {s.name: s.pending_changes for s in store.subscriptions()} == {"fragile": 1}
        inbox = Inbox()
        again = store.subscribe("fragile", STEPS, inbox.put)
        assert len(inbox.wait(1)[0].samples) == 1
        again.close()
