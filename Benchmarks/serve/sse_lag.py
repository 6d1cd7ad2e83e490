"""Commit → event latency of `ohk serve`'s event stream: another process's
commit (a save through the Python package, not durable, so that fsync is
not counted) timed against the event's arrival at an SSE client.

usage: sse_lag.py URL PERSON TOKEN STORE-DIR COUNT
Prints the median, p95 and p99 in milliseconds."""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

import httpx
from httpx_sse import connect_sse

import openhealthkit as ohk

url, person, token, store_dir, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
sent: dict[str, float] = {}
lags: list[float] = []
ready, done = threading.Event(), threading.Event()


def follow() -> None:
    with httpx.Client(timeout=None) as c:
        with connect_sse(c, "GET", f"{url}/v1/people/{person}/changes", headers={"Authorization": f"Bearer {token}"},
                         params={"type": "StepCount"}) as source:
            for e in source.iter_sse():
                now = time.perf_counter()
                ready.set()
                for s in json.loads(e.data)["samples"]:
                    if s["uuid"] in sent:
                        lags.append((now - sent[s["uuid"]]) * 1000)
                if len(lags) >= count:
                    done.set()
                    return


threading.Thread(target=follow, daemon=True).start()
ready.wait(30)
t0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
with ohk.HealthStore(store_dir, durable=False) as store:
    for i in range(count):
        u = uuid.uuid4()
        sent[str(u).upper()] = time.perf_counter()
        store.save(ohk.QuantitySample("HKQuantityTypeIdentifierStepCount", t0 + timedelta(seconds=i),
                                      t0 + timedelta(seconds=i), 1, uuid=u))
        time.sleep(0.01)  # one commit every 10 ms: each is its own event
done.wait(60)
lags.sort()
print(f"sse lag over {len(lags)} commits: median {statistics.median(lags):.2f} ms, "
      f"p95 {lags[int(len(lags) * 0.95)]:.2f} ms, p99 {lags[int(len(lags) * 0.99)]:.2f} ms")
