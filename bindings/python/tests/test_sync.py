"""Replication between stores from Python (rules 68-70, docs/sync.md)."""

from __future__ import annotations

import pytest

import openhealthkit as ohk

from conftest import STEPS, steps


@pytest.fixture
def other(tmp_path):
    with ohk.HealthStore(tmp_path / "other", durable=False) as opened:
        yield opened


def test_rule_69_python_sync_copies_resumes_and_verifies(store, other):
    samples = [steps(i, value=i + 1) for i in range(40)]
    store.save(samples)
    store.delete(samples[3])
    first = other.sync_from(store, batch_size=9)
    assert (first.changes_read, first.applied.added, first.position) == (40, 39, 41)  # 40 saves, the deletion at 41
    assert first.applied.anchor == other.current_anchor()
    assert first.verified and first.converged
    assert first.source_digest == first.received_digest == store.live_digest()
    assert other.live_digest() == store.live_digest() and other.live_digest(STEPS).count == 39
    # Only what is new comes the next time; a second store of the same name copies alone.
    store.delete(samples[4])
    store.save(steps(100))
    again = other.sync_from(store)
    assert (again.changes_read, again.applied.added, again.applied.deleted) == (2, 1, 1)
    assert other.sync_from(store).changes_read == 0
    # Both ways: the other's own sample comes back, and a round after that reads nothing.
    other.save(steps(200))
    back = store.sync_from(other)
    assert back.applied.added == 1 and back.converged
    other.sync_from(store)
    assert store.sync_from(other).changes_read == 0 and other.sync_from(store).changes_read == 0
    assert store.live_digest() == other.live_digest()


def test_rule_69_python_checkpoints_that_do_not_fit_raise_typed_errors(store, other):
    store.save([steps(0), steps(1)])
    other.sync_from(store)
    with pytest.raises(ohk.SyncCheckpointError, match="from-scratch"):
        other.sync_from(store, types=["HeartRate"])
    assert other.sync_from(store, types=["HeartRate"], from_scratch=True).verified
    store.delete(store.query(STEPS).samples[0])
    store.prune_all()
    with pytest.raises(ohk.SyncCheckpointError, match="pruned"):
        other.sync_from(store, types=["HeartRate"])
    with pytest.raises(ohk.InvalidArgumentError, match="same store"):
        store.sync_from(store)
    with pytest.raises(ohk.ArgumentTypeError):
        store.sync_from("a path")
    with pytest.raises(ohk.InvalidArgumentError, match="batch_size"):
        other.sync_from(store, batch_size=0)
    with pytest.raises(ohk.UnknownTypeError):
        other.sync_from(store, name="typed", types=["NoSuchType"])


def test_rule_70_python_conflicts_are_listed_and_overwrite_nothing(store, other):
    mine = steps(0, value=1)
    theirs = ohk.QuantitySample(STEPS, mine.start_date, mine.end_date, 2, uuid=mine.uuid)
    store.save(mine)
    other.save(theirs)
    report = other.sync_from(store)
    assert report.new_conflicts == 1 and report.verified and not report.converged
    assert other.sync_conflicts() == [mine.uuid]
    assert store.sync_conflicts() == []
    assert other.query(STEPS).samples[0].value == 2


def test_rule_69_python_sync_by_paths(tmp_path):
    """``ohk.sync`` takes directories (or URLs of ohk serve, tested in Tests/server)."""
    a, b = tmp_path / "a", tmp_path / "b"
    with ohk.HealthStore(a, durable=False) as store:
        store.save([steps(i) for i in range(5)])
    report = ohk.sync(a, b, name="paths", batch_size=2)
    assert (report.changes_read, report.applied.added) == (5, 5) and report.verified and report.converged
    assert ohk.sync(str(a), str(b), name="paths").changes_read == 0
    with pytest.raises(ohk.InvalidArgumentError, match="no store there"):
        ohk.sync(tmp_path / "nowhere", b)
    with pytest.raises(ohk.InvalidArgumentError, match="onnect"):
        ohk.sync(a, "http://127.0.0.1:1/v1/people/p", token="t")
