#!/usr/bin/env python3
"""Sleep per night: time in bed, asleep and each stage, sources merged by
priority, each night on the day it ends (noon to noon).

    python3 sleep_per_night.py STORE [ZONE]
"""

import sys
from datetime import timedelta

import openhealthkit as ohk


def main(store: ohk.HealthStore, zone: str = "UTC") -> None:
    latest = store.sample_query("SleepAnalysis", descending=True, limit=1)
    if not latest:
        print("no sleep")
        return
    last = latest[0].end_date.date()
    nights = store.sleep_nights(last - timedelta(days=13), last, time_zone=zone).to_pandas()
    print(nights[["hours_in_bed", "hours_asleep"]].round(2).to_string())
    slept = nights[nights["hours_asleep"] > 0]
    print(f"{len(slept)} nights with sleep, {slept['hours_asleep'].mean():.1f} h asleep on average")


if __name__ == "__main__":
    with ohk.HealthStore(sys.argv[1]) as s:
        main(s, *sys.argv[2:3])
