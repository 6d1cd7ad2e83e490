"""HealthStore.set_commit_hook: a synchronous hook on this store's own commits."""

from __future__ import annotations

import gc
import threading

import pytest

import openhealthkit as ohk
from openhealthkit import hooks
from conftest import HEART, STEPS, heart, steps


def test_the_hook_runs_on_the_saving_thread_before_save_returns(store):
    calls = []
    store.set_commit_hook(lambda types, anchor: calls.append((threading.get_ident(), types, anchor)))
    saved = store.save([steps(0), heart(1), steps(2)])
    assert len(calls) == 1  # already called: no waiting
    thread, types, anchor = calls[0]
    assert thread == threading.get_ident()
    assert types == {STEPS, HEART}
    assert anchor == store.current_anchor()
    store.delete(saved[1].uuid)
    assert calls[-1][1] == {HEART}
    changes = store.query(HEART, anchor)
    assert [d.uuid for d in changes.deleted] == [saved[1].uuid]
    assert changes.anchor == calls[-1][2]


def test_failed_saves_and_prunes_do_not_call_it(store):
    first = store.save(steps(0))[0]
    calls = []
    store.set_commit_hook(lambda types, anchor: calls.append(types))
    with pytest.raises(ohk.OpenHealthKitError):
        store.save(steps(1, uuid=first.uuid))
    store.delete(first.uuid)
    assert store.prune_all() == 1
    assert calls == [frozenset({STEPS})]


def test_the_hook_may_call_the_store_and_remove_itself(store):
    seen = []
    start = store.current_anchor()

    def hook(types, anchor):
        seen.append(len(store.query(STEPS, start).samples))
        store.set_commit_hook(None)

    store.set_commit_hook(hook)
    store.save([steps(0), steps(1)])
    store.save(steps(2))
    assert seen == [2]


def test_the_hook_is_kept_alive_by_the_binding_and_released_when_replaced_or_closed(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False) as store:
        calls = []
        store.set_commit_hook(lambda types, anchor: calls.append(types))
        gc.collect()
        store.save(steps(0))
        assert len(calls) == 1
        before = len(hooks._hooks)
        store.set_commit_hook(lambda types, anchor: None)  # the first is released
        assert len(hooks._hooks) == before
        store.close()
        assert len(hooks._hooks) == before - 1
        with pytest.raises(ohk.OpenHealthKitError):
            store.set_commit_hook(None)
    with pytest.raises(TypeError):
        ohk.HealthStore(tmp_path / "t", durable=False).set_commit_hook("not callable")
