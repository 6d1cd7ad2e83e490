#!/usr/bin/env python3
"""What changed since last time: an anchored query whose anchor is kept in
a file. The first run sees everything; each later run only what was added
or deleted since, by any process.

    python3 what_changed.py STORE ANCHOR_FILE
"""

import os
import sys

import openhealthkit as ohk

TYPES = ["StepCount", "HeartRate", "SleepAnalysis", "Workout"]


def main(store: ohk.HealthStore, anchor_file: str) -> tuple[int, int]:
    anchor = None
    if os.path.exists(anchor_file):
        with open(anchor_file) as f:
            anchor = ohk.Anchor.from_str(f.read().strip())
    samples, deleted, new_anchor = store.query(TYPES, anchor)
    print(f"{len(samples)} added, {len(deleted)} deleted since {'the start' if anchor is None else 'the last run'}")
    if len(samples):
        print(samples.to_pandas(index=False)[["start", "type", "value", "unit"]].tail(3).to_string(index=False))
    # Written after the changes are handled: a crash before this sees them again.
    with open(anchor_file + ".new", "w") as f:
        f.write(str(new_anchor))
    os.replace(anchor_file + ".new", anchor_file)
    return len(samples), len(deleted)


if __name__ == "__main__":
    with ohk.HealthStore(sys.argv[1]) as s:
        main(s, sys.argv[2])
