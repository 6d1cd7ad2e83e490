#!/usr/bin/env python3
"""Phases 2, 3 and 7 of the reference workload (docs/benchmarks.md) from Python, beside
py_sqlite_peer.py (the same phases with Python's sqlite3).

Usage: bench.py N DIR     (DIR: a fresh store directory, removed first)

The store is filled first with the workload's N samples (phase 1's data,
saved from Python in transactions of 100,000; its rate is printed as
"python_ingest", for information). Then:
  full_read      one query from no anchor; every sample's uuid (bytes),
                 start, end (Unix seconds), value and source are read, as
                 the sqlite3 peer reads its tuples
  full_read_kept the same, all sample objects kept in a list first (the
                 peer's fetchall)
  full_read_rich the same touching uuid.UUID and aware datetimes
  batched_read   limit 1,000 from no anchor until an empty batch
  numpy_full     one query_columns: the query writes NumPy columns as it
                 reads; the median of 5 calls (first_per_s: the first's rate)
  numpy_full_from_batch  query(...).samples.to_numpy(): a batch, then columns
  numpy_batched  limit 1,000 until empty, each batch to_numpy()
  pandas_full    query_columns(...).samples.to_pandas(): the DataFrame
  arrow_full     one query_arrow, every column: the library writes the
                 table pyarrow takes (median of 5; pyarrow_bytes: what
                 pyarrow itself allocated, the copies it made)
  arrow_numpy_columns  query_arrow of numpy_full's columns (uuid, dates,
                 value, type, source): like for like with numpy_full
  arrow_from_batch  query(...).samples.to_arrow()
  parquet_export export_parquet into a fresh folder (MB/s of Parquet written)
  observer       1,000 rounds of {save 1 sample; wait for the observer},
                 in-process and with the saves made by a second process
  size           peak RSS and peak anonymous memory (RssAnon at phase ends) of
                 the reads: the store is filled by a child process, as the
                 sqlite3 peer reads a file the C peer filled
One JSON object per line; exits non-zero when a count check fails.
"""

from __future__ import annotations

import json
import platform
import resource
import shutil
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy  # noqa: E402,F401 - imported before timing, as a NumPy user has it
import openhealthkit as ohk  # noqa: E402

STEPS = "HKQuantityTypeIdentifierStepCount"
HEART = "HKQuantityTypeIdentifierHeartRate"
MASK = (1 << 64) - 1
EPOCH_MS = 1577836800000
SOURCES = [ohk.Source(f"com.example.source{k}", f"Source {k}") for k in range(5)]
ROUNDS = 1000


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uuid_of(i: int) -> bytes:
    """Sample i's UUID: splitmix64 (seed 42) outputs 2i and 2i+1, version 4."""
    hi = mix64((42 + (2 * i + 1) * 0x9E3779B97F4A7C15) & MASK)
    lo = mix64((42 + (2 * i + 2) * 0x9E3779B97F4A7C15) & MASK)
    raw = bytearray(hi.to_bytes(8, "big") + lo.to_bytes(8, "big"))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return bytes(raw)


def sample(i: int, step: bool | None = None) -> ohk.QuantitySample:
    """Sample i of the workload (after phase 1 every sample is a step count)."""
    is_steps = (i % 10 < 8) if step is None else step
    start = datetime.fromtimestamp((EPOCH_MS + i * 60000) / 1000, timezone.utc)
    end = start + timedelta(seconds=60)
    metadata = {"HKWasUserEntered": True} if i % 10 == 0 else None
    if is_steps:
        return ohk.QuantitySample(STEPS, start, end, i % 1000, "count", source=SOURCES[i % 5],
                                  metadata=metadata, uuid=uuid.UUID(bytes=uuid_of(i)))
    return ohk.QuantitySample(HEART, start, end, 40 + i % 140, "count/min", source=SOURCES[i % 5],
                              metadata=metadata, uuid=uuid.UUID(bytes=uuid_of(i)))


def expected_steps(n: int) -> int:
    return (n // 10) * 8 + min(n % 10, 8)


def rss_anon_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no RssAnon")


class Report:
    def __init__(self, n: int) -> None:
        self.common = {"system": "openhealthkit-python", "version": ohk.__version__,
                       "python": platform.python_version(), "n": n}
        self.ok = True
        self.anon: dict[str, float] = {}

    def emit(self, phase: str, ok: bool, **fields) -> None:
        print(json.dumps({**self.common, "phase": phase, **fields, "ok": ok}), flush=True)
        self.ok &= ok
        self.anon[phase] = rss_anon_mb()


def rate(report: Report, phase: str, count: int, want: int, seconds: float, **extra) -> None:
    report.emit(phase, count == want, per_s=round(count / seconds), seconds=round(seconds, 3),
                count=count, expected=want, **extra)


def fill(store: ohk.HealthStore, n: int, report: Report) -> None:
    t0 = time.perf_counter()
    for first in range(0, n, 100_000):
        store.save([sample(i) for i in range(first, min(n, first + 100_000))])
    seconds = time.perf_counter() - t0
    report.emit("python_ingest", True, per_s=round(n / seconds), seconds=round(seconds, 3))


def reads(store: ohk.HealthStore, n: int, report: Report) -> None:
    want = expected_steps(n)
    # Phase 2, the way the sqlite3 peer reads: every field of every sample.
    t0 = time.perf_counter()
    result = store.query(STEPS)
    count = 0
    for s in result.samples:
        s.uuid_bytes, s.start_timestamp, s.end_timestamp, s.value, s.source
        count += 1
    rate(report, "full_read", count, want, time.perf_counter() - t0)
    a1 = result.anchor
    del result

    t0 = time.perf_counter()
    kept = list(store.query(STEPS).samples)
    count = 0
    for s in kept:
        s.uuid_bytes, s.start_timestamp, s.end_timestamp, s.value, s.source
        count += 1
    rate(report, "full_read_kept", count, want, time.perf_counter() - t0)
    del kept

    t0 = time.perf_counter()
    count = 0
    for s in store.query(STEPS).samples:
        s.uuid, s.start_date, s.end_date, s.value, s.source
        count += 1
    rate(report, "full_read_rich", count, want, time.perf_counter() - t0)

    # Phase 3: limit 1,000 from no anchor until a batch comes back empty.
    t0 = time.perf_counter()
    count = batches = 0
    anchor = None
    for result in store.batches(STEPS, batch_size=1000):
        batches += 1
        for s in result.samples:
            s.uuid_bytes, s.start_timestamp, s.end_timestamp, s.value, s.source
            count += 1
        anchor = result.anchor
    rate(report, "batched_read", count, want, time.perf_counter() - t0, batches=batches + 1)
    assert anchor is not None and anchor <= a1

    # Five calls, each into a fresh block as the first is: the median, and
    # the first beside it (a single call of 30 ms swung by a third on a
    # noisy machine).
    seconds, counts = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        columns = store.query_columns(STEPS).samples
        seconds.append(time.perf_counter() - t0)
        counts.append(len(columns))
        del columns
    count = counts[0] if len(set(counts)) == 1 else -1  # a call that read other rows fails the check
    rate(report, "numpy_full", count, want, sorted(seconds)[2], calls=5, first_per_s=round(counts[0] / seconds[0]))

    t0 = time.perf_counter()
    columns = store.query(STEPS).samples.to_numpy()
    rate(report, "numpy_full_from_batch", len(columns), want, time.perf_counter() - t0)
    del columns

    t0 = time.perf_counter()
    count = 0
    for result in store.batches(STEPS, batch_size=1000):
        count += len(result.samples.to_numpy())
    rate(report, "numpy_batched", count, want, time.perf_counter() - t0)

    t0 = time.perf_counter()
    frame = store.query_columns(STEPS).samples.to_pandas()
    rate(report, "pandas_full", len(frame), want, time.perf_counter() - t0)
    del frame
    arrow_phases(report, store, want)


def arrow_phases(report: Report, store: ohk.HealthStore, want: int) -> None:
    """Arrow tables and a Parquet folder (pyarrow is a test dependency)."""
    import pyarrow
    for phase, columns in (("arrow_full", None),
                           ("arrow_numpy_columns", ["uuid", "start_date", "end_date", "value", "type", "source"])):
        seconds, counts, copied = [], [], []
        for _ in range(5):
            before = pyarrow.total_allocated_bytes()
            t0 = time.perf_counter()
            table = store.query_arrow(STEPS, columns=columns).samples
            seconds.append(time.perf_counter() - t0)
            copied.append(pyarrow.total_allocated_bytes() - before)
            counts.append(table.num_rows)
            del table
        count = counts[0] if len(set(counts)) == 1 else -1
        rate(report, phase, count, want, sorted(seconds)[2], calls=5, pyarrow_bytes=max(copied))

    t0 = time.perf_counter()
    table = store.query(STEPS).samples.to_arrow()
    rate(report, "arrow_from_batch", table.num_rows, want, time.perf_counter() - t0)
    del table

    folder = Path(store.path).parent / "parquet-bench"
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    written = store.export_parquet(folder, [STEPS])
    seconds = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in folder.rglob("*.parquet"))
    rate(report, "parquet_export", written.rows.get(STEPS, 0), want, seconds, mb_per_s=round(size / seconds / 1e6, 1),
         bytes_per_sample=round(size / max(1, written.rows.get(STEPS, 1)), 1))
    shutil.rmtree(folder, ignore_errors=True)


def percentiles(latencies_ns: list[int]) -> dict[str, float]:
    ordered = sorted(latencies_ns)

    def rank(p: float) -> float:  # nearest rank
        return ordered[max(0, -(-len(ordered) * p // 100) - 1)] / 1000
    # min_us < 0 would mean a callback ran before the save's clock read.
    return {"median_us": round(rank(50), 1), "p99_us": round(rank(99), 1),
            "min_us": round(ordered[0] / 1000, 1)}


WRITER = r"""
import sys, time
sys.path.insert(0, sys.argv[2])
sys.path.insert(0, sys.argv[3])
import openhealthkit as ohk
from bench import sample
with ohk.HealthStore(sys.argv[1]) as store:
    for line in sys.stdin:
        store.save(sample(int(line), step=True))
        print(time.monotonic_ns(), flush=True)
"""


def observer(store: ohk.HealthStore, path: str, n: int, report: Report) -> None:
    arrived = threading.Event()
    stamp = [0]

    def changed(query, types):
        stamp[0] = time.monotonic_ns()
        arrived.set()

    with store.observe(STEPS, changed):
        latencies = []
        for k in range(ROUNDS):
            arrived.clear()
            store.save(sample(n + 10_000 + k, step=True))
            saved = time.monotonic_ns()
            if not arrived.wait(30):
                raise RuntimeError("observer callback did not arrive")
            latencies.append(stamp[0] - saved)
        report.emit("observer", len(latencies) == ROUNDS, mode="in_process", **percentiles(latencies))

        package = str(Path(ohk.__file__).resolve().parents[1])
        writer = subprocess.Popen([sys.executable, "-c", WRITER, path, package, str(Path(__file__).parent)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        latencies = []
        for k in range(ROUNDS):
            arrived.clear()
            writer.stdin.write(f"{n + 11_000 + k}\n")
            writer.stdin.flush()
            saved = int(writer.stdout.readline())
            if not arrived.wait(30):
                raise RuntimeError("observer callback did not arrive")
            latencies.append(stamp[0] - saved)
        writer.stdin.close()
        writer.wait(30)
        report.emit("observer", len(latencies) == ROUNDS and writer.returncode == 0,
                    mode="cross_process", **percentiles(latencies))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--fill":
        n, path = int(sys.argv[2]), sys.argv[3]
        with ohk.HealthStore(path, map_size=1 << 30) as store:
            fill(store, n, Report(n))
        return
    if len(sys.argv) != 3:
        sys.exit("usage: bench.py N DIR")
    n, path = int(sys.argv[1]), sys.argv[2]
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run([sys.executable, __file__, "--fill", str(n), path], check=True)
    report = Report(n)
    with ohk.HealthStore(path, map_size=1 << 30) as store:
        reads(store, n, report)
        observer(store, path, n, report)
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report.emit("size", True, peak_rss_mb=round(peak_rss, 1),
                peak_anon_mb=round(max([*report.anon.values(), rss_anon_mb()]), 1),
                anon_mb_at_phase_end={k: round(v, 1) for k, v in report.anon.items()})
    shutil.rmtree(path, ignore_errors=True)
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
