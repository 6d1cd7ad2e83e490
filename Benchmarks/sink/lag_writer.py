"""The writer of scripts/sink_lag_bench.sh: saves one step sample at a time,
RATE a second for SECONDS, each carrying the Unix time just before its
save in the metadata key ``bench_t`` (the sink's lag is PostgreSQL's commit
time of the row less that). Paced by an absolute schedule, so a slow save
is caught up, not drifted from.

    python3 lag_writer.py STORE RATE SECONDS
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timedelta, timezone

import openhealthkit as ohk

store_dir, rate, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
t0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
with ohk.HealthStore(store_dir, durable=False) as store:
    start = time.monotonic()
    late = 0
    for i in range(int(rate * seconds)):
        due = start + i / rate
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        else:
            late += 1
        begin = t0 + timedelta(seconds=i)
        store.save(ohk.QuantitySample("HKQuantityTypeIdentifierStepCount", begin, begin + timedelta(seconds=1), 10,
                                      metadata={"bench_t": time.time()}))
    elapsed = time.monotonic() - start
    print(f"writer: {int(rate * seconds)} saves in {elapsed:.2f} s ({late} behind schedule)", file=sys.stderr)
