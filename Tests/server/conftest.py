"""`ohk serve` started for real on loopback, and the helpers its tests share.

The ohk binary is $OHK_BIN, else the debug build of this checkout (built
with the Server trait by `make server-test`). A server that does not
start fails the test loudly: nothing here is mocked or skipped.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
OHK = os.environ.get("OHK_BIN", str(ROOT / ".build" / "debug" / "ohk"))
WAIT = 60  # generous bound for anything a test waits on

STEPS = "HKQuantityTypeIdentifierStepCount"
HEART = "HKQuantityTypeIdentifierHeartRate"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"


def ohk(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([OHK, *args], capture_output=True, text=True, check=check, timeout=WAIT)


class Server:
    """One `ohk serve` process on a free loopback port."""

    def __init__(self, data: Path, *args: str, descriptors: int | None = None) -> None:
        self.data = data
        self.args = args
        self.descriptors = descriptors
        self.process: subprocess.Popen | None = None
        self.lines: list[str] = []
        self.port = 0
        self._logged = threading.Condition()

    def start(self) -> "Server":
        def limit():
            if self.descriptors:
                import resource
                resource.setrlimit(resource.RLIMIT_NOFILE, (self.descriptors, self.descriptors))
        with self._logged:
            self.lines = []
            self._eof = False
            self.process = subprocess.Popen([OHK, "serve", "--data", str(self.data), "--listen", "127.0.0.1:0", *self.args],
                                            stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        threading.Thread(target=self._read_log, args=(self.process,), daemon=True).start()
        first = self.wait_for_log(r"listening on http://127\.0\.0\.1:(\d+)")
        self.port = int(re.search(r":(\d+),", first).group(1))
        return self

    def _read_log(self, process: subprocess.Popen) -> None:
        # After a restart, an earlier process's reader must not touch the
        # new process's log.
        for line in process.stderr:
            with self._logged:
                if process is self.process:
                    self.lines.append(line.rstrip("\n"))
                    self._logged.notify_all()
        with self._logged:
            if process is self.process:
                self._eof = True
                self._logged.notify_all()

    def wait_for_log(self, pattern: str) -> str:
        """The first log line matching `pattern`; fails if the log ends first."""
        deadline = time.monotonic() + WAIT
        with self._logged:
            while True:
                for line in self.lines:
                    if re.search(pattern, line):
                        return line
                left = deadline - time.monotonic()
                if self._eof or left <= 0:
                    raise AssertionError(f"ohk serve did not log {pattern!r} (exit {self.process.poll()}):\n"
                                         + "\n".join(self.lines))
                self._logged.wait(left)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(WAIT)
        return self.process.returncode if self.process else 0


@pytest.fixture
def data(tmp_path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    return d


@pytest.fixture
def server(data):
    s = Server(data, "--no-sync").start()
    yield s
    s.stop()


def token(data: Path, person: str, app: str, *, read: str = "", write: str = "", relay: bool = False) -> str:
    args = ["token", "create", "--data", str(data), "--person", person, "--app", app]
    if read:
        args += ["--read", read]
    if write:
        args += ["--write", write]
    if relay:
        args.append("--relay")
    return ohk(*args).stdout.strip().splitlines()[-1]


def auth(tok: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"} if tok else {}


def quantity(minute: int, value: float = 1, *, type_: str = STEPS, unit: str = "count", source: str | None = None,
             uid: str | None = None, metadata: dict | None = None) -> dict:
    start = (datetime(2024, 3, 1, tzinfo=timezone.utc) + timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")
    s = {"uuid": uid or str(uuid.uuid4()).upper(), "type": type_, "start": start, "end": start, "value": value, "unit": unit}
    if source:
        s["source"] = source
    if metadata:
        s["metadata"] = metadata
    return s


def upload(client: httpx.Client, base: str, person: str, tok: str | None, samples=(), deleted=()) -> httpx.Response:
    return client.post(f"{base}/v1/people/{person}/changes", headers=auth(tok),
                       content=json.dumps({"samples": list(samples), "deleted": list(deleted)}))
