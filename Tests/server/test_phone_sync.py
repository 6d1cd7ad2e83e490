"""The phone's own code, end to end (issue 50, item 5): examples/phone-sync,
written as an iOS app is (HKAnchoredObjectQuery, a persisted anchor, an
update handler), syncs a "phone" store through `ohk serve` into the
person's store on the server, through saves, deletions, sync-identifier
replacements and a restart of the app. Both stores end equal."""

from __future__ import annotations

import json
import math
import os
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import ROOT, WAIT, ohk, token

PHONE_SYNC = os.environ.get("PHONE_SYNC_BIN", str(ROOT / ".build" / "debug" / "phone-sync"))


class App:
    """phone-sync running; its "synced N" lines are counted as they come."""

    def __init__(self, args: list[str]) -> None:
        self.process = subprocess.Popen([PHONE_SYNC, *args], stdout=subprocess.PIPE, text=True)
        self.synced: list[int] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self._changed:
                if line.startswith("synced "):
                    self.synced.append(int(line.split()[1]))
                else:
                    self.synced.append(-1)  # a failure line: the test fails on it
                self._changed.notify_all()

    def wait_synced(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.synced) >= count, timeout=WAIT), self.synced
            assert -1 not in self.synced, "phone-sync failed"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(WAIT)


def contents(store: Path) -> tuple[dict, set]:
    """The live samples by UUID and the deleted UUIDs of a store."""
    lines = [json.loads(line) for line in ohk("changes", "--store", str(store), "--since", "none").stdout.splitlines()]
    live = {o["added"]["uuid"]: o["added"] for o in lines if "added" in o}
    deleted = {o["deleted"]["uuid"] for o in lines if "deleted" in o}
    return live, deleted


def assert_equal_stores(phone: Path, server_store: Path) -> None:
    (a, a_deleted), (b, b_deleted) = contents(phone), contents(server_store)
    assert set(a) == set(b) and a_deleted == b_deleted
    for u in a:
        x, y = dict(a[u]), dict(b[u])
        # Values travel in the app's unit (count/min), and may come back an ulp away.
        assert math.isclose(x.pop("value"), y.pop("value"), rel_tol=1e-12), u
        x.pop("displayValue", None), y.pop("displayValue", None)
        assert x == y


def test_a_phone_app_syncs_its_store_through_the_server(server, data, tmp_path):
    phone = tmp_path / "phone"

    def add(*args: str) -> str:
        return ohk("add", "--store", str(phone), *args).stdout.strip()

    add("StepCount", "812", "--start", "2024-03-01T08:00:00Z", "--end", "2024-03-01T08:10:00Z", "--source", "com.example.pedometer")
    add("HeartRate", "61", "--unit", "count/min", "--start", "2024-03-01T08:05:00Z", "--source", "com.apple.health.watch")
    add("SleepAnalysis", "AsleepCore", "--start", "2024-03-01T01:00:00Z", "--end", "2024-03-01T02:00:00Z")
    v1 = add("BodyMass", "72.5", "--unit", "kg", "--start", "2024-03-01T07:00:00Z", "--source", "com.example.scale",
             "--metadata", "HKMetadataKeySyncIdentifier=weigh-1", "--metadata", "HKMetadataKeySyncVersion=1")
    tok = token(data, "alice", "com.example.phone-sync", read="all", write="all", relay=True)
    args = ["--store", str(phone), "--server", server.url, "--person", "alice", "--token", tok,
            "--anchor-file", str(tmp_path / "anchor")]
    app = App(args)
    try:
        app.wait_synced(1)
        assert app.synced[0] == 4
        assert_equal_stores(phone, data / "alice")
        # Each change on the phone reaches the server as it is committed.
        add("StepCount", "120", "--start", "2024-03-01T09:00:00Z", "--source", "com.example.pedometer")
        app.wait_synced(2)
        ohk("delete", "--store", str(phone), next(u for u, s in contents(phone)[0].items() if s["value"] == 812))
        app.wait_synced(3)
        # A sync-identifier replacement: v2 saved, v1 reported deleted.
        add("BodyMass", "72.1", "--unit", "kg", "--start", "2024-03-01T07:00:00Z", "--source", "com.example.scale",
            "--metadata", "HKMetadataKeySyncIdentifier=weigh-1", "--metadata", "HKMetadataKeySyncVersion=2")
        app.wait_synced(4)
        assert app.synced[3] == 2  # the new version and the old one's deletion, in one batch
        assert_equal_stores(phone, data / "alice")
        assert v1 in contents(data / "alice")[1]
    finally:
        app.stop()
    # The app restarts from its saved anchor: nothing is sent twice.
    add("HeartRate", "64", "--unit", "count/min", "--start", "2024-03-01T10:00:00Z", "--source", "com.apple.health.watch")
    app = App(args)
    try:
        app.wait_synced(1)
        assert app.synced == [1]
        assert_equal_stores(phone, data / "alice")
    finally:
        app.stop()


def test_docs_phone_sync_shows_the_tested_code():
    source = (ROOT / "examples" / "phone-sync" / "main.swift").read_text()
    code = source[source.index("/// The types this app syncs"):source.index("/// The command line of this stand-in")].rstrip()
    doc = (ROOT / "docs" / "phone-sync.md").read_text()
    assert code in doc, "docs/phone-sync.md and examples/phone-sync/main.swift differ"
