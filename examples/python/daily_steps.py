#!/usr/bin/env python3
"""Daily step totals, phone and watch merged (counted once), in one zone.

    python3 daily_steps.py STORE [ZONE]      # ZONE: Europe/Paris, America/Denver...

Each day starts at local midnight in ZONE (default UTC), and the index
names the instant it starts, so the frame joins with other UTC data.
"""

import sys
from datetime import datetime, timedelta

import openhealthkit as ohk


def main(store: ohk.HealthStore, zone: str = "UTC") -> None:
    first = store.sample_query("StepCount", limit=1)
    if not first:
        print("no step counts")
        return
    last = store.sample_query("StepCount", descending=True, limit=1)[0]
    # From the first sample's local midnight, so that days start at midnight.
    from zoneinfo import ZoneInfo
    local = first[0].start_date.astimezone(ZoneInfo(zone))
    start = datetime(local.year, local.month, local.day, tzinfo=ZoneInfo(zone))
    days = store.statistics_collection("StepCount", start=start, end=last.end_date, time_zone=zone).to_pandas()
    print(days[["sum", "unit"]].tail(7).to_string())
    print(f"{len(days)} days, {days['sum'].mean():.0f} steps a day on average")


if __name__ == "__main__":
    with ohk.HealthStore(sys.argv[1]) as s:
        main(s, *sys.argv[2:3])
