"""Rules 19, 20 and 23 (docs/semantics.md) from Python: one environment per store
per process, a full disk that is an error, never a signal, and a damaged
store that verify() reports.

The disk tests mount small tmpfs file systems and need root; they are
skipped where mounting is not allowed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import openhealthkit as ohk
from conftest import STEPS, steps

# Another process: saves `count` step samples to the store at argv[1], one
# transaction each, and prints their UUIDs.
WRITER = textwrap.dedent("""
    import sys
    from datetime import datetime, timedelta, timezone
    import openhealthkit as ohk
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    with ohk.HealthStore(sys.argv[1], durable=False) as store:
        for i in range(int(sys.argv[2])):
            s = ohk.QuantitySample("HKQuantityTypeIdentifierStepCount", t0 + timedelta(minutes=i),
                                   t0 + timedelta(minutes=i + 1), 1)
            store.save(s)
            print(s.uuid, flush=True)
""")

# Another process: the pid holding LMDB's liveness lock (byte 0 of
# lock.mdb), or "none". A process cannot see its own record locks.
LOCK_PROBE = textwrap.dedent("""
    import fcntl, struct, sys
    with open(sys.argv[1] + "/lock.mdb", "rb") as f:
        probe = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 1, 0)
        kind, _, _, _, pid = struct.unpack("hhqqi4x", fcntl.fcntl(f, fcntl.F_GETLK, probe))
    print("none" if kind == fcntl.F_UNLCK else pid)
""")


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(ohk.__file__)))
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    return env


def lock_holder(path: str) -> str:
    return subprocess.run([sys.executable, "-c", LOCK_PROBE, path], capture_output=True,
                          text=True, check=True, env=child_env()).stdout.strip()


def test_rule19_closing_one_of_two_handles_keeps_the_process_lock(tmp_path):
    path = str(tmp_path / "store")
    first = ohk.HealthStore(path, durable=False)
    second = ohk.HealthStore(path, durable=False)
    first.close()
    assert lock_holder(path) == str(os.getpid())
    second.save(steps(1))
    second.close()
    assert lock_holder(path) == "none"


def test_rule19_another_process_writing_beside_the_remaining_handle_loses_nothing(tmp_path):
    path = str(tmp_path / "store")
    os.symlink(path, tmp_path / "link")
    os.makedirs(path)
    first = ohk.HealthStore(path, durable=False)
    second = ohk.HealthStore(tmp_path / "link", durable=False)  # the same store by another path
    first.close()
    writer = subprocess.Popen([sys.executable, "-c", WRITER, path, "300"], stdout=subprocess.PIPE,
                              text=True, env=child_env())
    mine = []
    i = 0
    while writer.poll() is None or i < 50:
        s = steps(i)
        second.save(s)
        mine.append(s.uuid)
        i += 1
    theirs = [line.strip() for line in writer.stdout.read().splitlines()]
    assert writer.wait() == 0 and len(theirs) == 300
    expected = {str(u) for u in mine} | set(theirs)
    assert {str(s.uuid) for s in second.query(STEPS).samples} == expected
    second.close()
    with ohk.HealthStore(path, durable=False) as fresh:
        assert {str(s.uuid) for s in fresh.query(STEPS).samples} == expected


class Tmpfs:
    """A tmpfs of `megabytes` on a new temporary directory."""

    def __init__(self, megabytes: int) -> None:
        self.path = tempfile.mkdtemp(prefix="ohk-tmpfs-")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", self.path],
                              capture_output=True)
        if done.returncode != 0:
            os.rmdir(self.path)
            pytest.skip("cannot mount a tmpfs here (needs root)")

    def fill(self, leaving: int) -> None:
        """Writes a file until at most `leaving` bytes are free."""
        with open(os.path.join(self.path, "filler"), "wb") as f:
            while True:
                free = os.statvfs(self.path).f_bavail * os.statvfs(self.path).f_frsize
                if free <= leaving:
                    break
                try:
                    f.write(b"\1" * min(1 << 16, free - leaving))
                    f.flush()
                except OSError:
                    break

    def remove(self) -> None:
        subprocess.run(["umount", "-l", self.path], check=False)
        os.rmdir(self.path)


@pytest.fixture
def small_disk():
    disk = Tmpfs(32)
    yield disk
    disk.remove()


def test_rule20_a_save_larger_than_the_free_space_raises_and_writes_nothing(small_disk):
    path = os.path.join(small_disk.path, "store")
    with ohk.HealthStore(path) as store:
        store.save(steps(0))
        small_disk.fill(leaving=6 << 20)
        notes = "x" * 50_000
        heavy = [steps(i + 1, metadata={"Notes": notes}) for i in range(200)]
        with pytest.raises(ohk.StorageError, match="not enough disk space") as raised:
            store.save(heavy)
        assert raised.value.status == ohk.StorageError.status
        assert len(store.query(STEPS).samples) == 1


def test_rule20_a_store_on_a_full_disk_opens_and_answers_queries(small_disk):
    path = os.path.join(small_disk.path, "store")
    with ohk.HealthStore(path) as store:
        store.save([steps(i) for i in range(50)])
    small_disk.fill(leaving=0)
    with ohk.HealthStore(path) as store:
        assert len(store.query(STEPS).samples) == 50
        with pytest.raises(ohk.StorageError, match="not enough disk space"):
            store.save([steps(100 + i) for i in range(2000)])
        assert len(store.query(STEPS).samples) == 50


def _renumber_pages(directory: str) -> None:
    """Gives every page after LMDB's two meta pages a wrong page number in
    its header, as a damaged disk might (LMDB's reads never look there)."""
    page = os.sysconf("SC_PAGESIZE")
    with open(os.path.join(directory, "data.mdb"), "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        for p in range(2, size // page):
            f.seek(p * page)
            number = int.from_bytes(f.read(8), "little") ^ 0x5A5A
            f.seek(p * page)
            f.write(number.to_bytes(8, "little"))


def test_rule23_verify_reports_a_sound_store_and_names_damaged_pages(tmp_path):
    directory = str(tmp_path / "store")
    with ohk.HealthStore(directory) as store:
        store.save([steps(i) for i in range(200)])
        report = store.verify()
        assert report.ok and report.problems == []
        assert (report.samples, report.deleted_objects) == (200, 0)
        _renumber_pages(directory)  # damaged under the open handle
        report = store.verify()
        assert not report.ok
        assert "says it is page" in report.problems[0]
        assert report.samples == 0  # nothing is read through damaged pages
    with pytest.raises(ohk.ClosedError):
        store.verify()
    # A process that opens it afresh walks the pages first and refuses it.
    with pytest.raises(ohk.StoreCorruptError, match="says it is page"):
        ohk.HealthStore(directory)
