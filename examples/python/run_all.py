#!/usr/bin/env python3
"""Runs every recipe of the cookbook on an export, as `make cookbook` does,
and checks what each is there to show: the recipes are examples, and this
keeps them working.

    python3 run_all.py EXPORT WORKDIR
"""

import io
import os
import shutil
import sys
from contextlib import redirect_stdout
from datetime import datetime, timedelta, timezone

import openhealthkit as ohk

import daily_steps
import hourly_heart_rate
import sleep_per_night
import what_changed
import workouts


def run(name, body):
    out = io.StringIO()
    with redirect_stdout(out):
        result = body()
    text = out.getvalue()
    print(f"== {name}\n{text}")
    if not text.strip() or text.startswith("no "):
        sys.exit(f"cookbook: {name} printed nothing useful")
    return text, result


def main(export: str, workdir: str) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    with ohk.HealthStore(os.path.join(workdir, "store")) as store:
        report = ohk.import_export(export, store)
        print(f"imported {report.added} records from {export}")
        text, _ = run("daily steps", lambda: daily_steps.main(store, "America/Denver"))
        assert "-07:00" in text or "-06:00" in text, "days name their instants in the zone's offset"
        text, _ = run("hourly heart rate", lambda: hourly_heart_rate.main(store))
        assert "count/min" in text
        run("sleep per night", lambda: sleep_per_night.main(store, "America/Denver"))
        run("workouts", lambda: workouts.main(store))
        anchor_file = os.path.join(workdir, "feed.anchor")
        _, (added, _) = run("what changed (first run)", lambda: what_changed.main(store, anchor_file))
        assert added > 0
        now = datetime.now(timezone.utc)
        store.save(ohk.QuantitySample("StepCount", now - timedelta(minutes=1), now, 42))
        _, (added, deleted) = run("what changed (after one save)", lambda: what_changed.main(store, anchor_file))
        assert (added, deleted) == (1, 0), "only the change since the last run"
    print("cookbook: every recipe ran")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
