"""Shared fixtures: a fresh store per test and helpers to make samples."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

import openhealthkit as ohk

STEPS = "HKQuantityTypeIdentifierStepCount"
HEART = "HKQuantityTypeIdentifierHeartRate"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
T0 = datetime(2024, 3, 1, 8, 0, tzinfo=timezone.utc)
#: Generous bound for events from library threads: a failure, never a pacing sleep.
WAIT = 20.0


def steps(i: int, value: float = 10, **kwargs) -> ohk.QuantitySample:
    """The i-th one-minute step-count sample after T0."""
    start = T0 + timedelta(minutes=i)
    return ohk.QuantitySample(STEPS, start, start + timedelta(minutes=1), value, **kwargs)


def heart(i: int, bpm: float = 60) -> ohk.QuantitySample:
    start = T0 + timedelta(minutes=i)
    return ohk.QuantitySample(HEART, start, start, bpm, "count/min")


@pytest.fixture
def store(tmp_path):
    with ohk.HealthStore(tmp_path / "store", durable=False) as opened:
        yield opened


class Inbox:
    """Collects callback deliveries; wait() blocks until `count` arrived."""

    def __init__(self) -> None:
        self.items: list = []
        self._changed = threading.Condition()

    def put(self, *args) -> None:
        with self._changed:
            self.items.append(args[-1] if len(args) > 1 else args[0])
            self._changed.notify_all()

    def wait(self, count: int) -> list:
        return self.wait_until(lambda items: len(items) >= count, f"{count} deliveries")

    def wait_until(self, done, what: str) -> list:
        with self._changed:
            if not self._changed.wait_for(lambda: done(self.items), timeout=WAIT):
                raise AssertionError(f"waited {WAIT}s for {what}, got {len(self.items)} deliveries")
            return list(self.items)
