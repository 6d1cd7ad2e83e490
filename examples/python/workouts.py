#!/usr/bin/env python3
"""Workouts per month and activity, each counted once (copies an app
wrote again left out), with time, distance and energy.

    python3 workouts.py STORE
"""

import sys

import openhealthkit as ohk


def main(store: ohk.HealthStore) -> None:
    workouts = store.workouts()
    if not workouts:
        print("no workouts")
        return
    frame = workouts.to_pandas()
    frame["month"] = frame.index.strftime("%Y-%m")
    frame["minutes"] = frame["duration"].dt.total_seconds() / 60
    totals = frame.groupby(["month", "activity"], observed=True)[["minutes", "distance_km", "energy_kcal"]].sum()
    print(totals.round(1).to_string())
    print(f"{len(workouts)} workouts, {len(workouts.copies)} likely duplicates left out")


if __name__ == "__main__":
    with ohk.HealthStore(sys.argv[1]) as s:
        main(s)
