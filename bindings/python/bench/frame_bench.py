#!/usr/bin/env python3
"""The cost of a samples frame: query_columns(...).samples.to_pandas() of N
step counts saved in time order or shuffled (change order then differs
from time order, and the frame is sorted by start; rule 58).

Usage: frame_bench.py PACKAGE_DIR ordered|shuffled [N]
       (PACKAGE_DIR: the bindings/python of the build to measure)
Prints the median of 7 to_pandas() calls in ms.
"""

import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

sys.path.insert(0, sys.argv[1])
import openhealthkit as ohk  # noqa: E402

T0 = datetime(2020, 1, 1, tzinfo=timezone.utc)
N = int(sys.argv[3]) if len(sys.argv) > 3 else 300_000
order = list(range(N))
if sys.argv[2] == "shuffled":
    random.seed(1)
    random.shuffle(order)
with ohk.HealthStore(tempfile.mkdtemp() + "/store") as store:
    for k in range(0, N, 50_000):
        store.save([ohk.QuantitySample("StepCount", T0 + timedelta(minutes=i), T0 + timedelta(minutes=i + 1), 10)
                    for i in order[k:k + 50_000]])
    times = []
    for _ in range(7):
        columns = store.query_columns("StepCount").samples
        t = time.perf_counter()
        columns.to_pandas()
        times.append(time.perf_counter() - t)
    print(f"{sys.argv[2]} to_pandas of {N} samples: median {statistics.median(times) * 1000:.1f} ms")
