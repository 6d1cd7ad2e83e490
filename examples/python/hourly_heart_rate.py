#!/usr/bin/env python3
"""Hourly heart rate of the last day with readings: average (weighted by
time, as HealthKit does), minimum and maximum, in count/min.

    python3 hourly_heart_rate.py STORE
"""

import sys
from datetime import timedelta

import openhealthkit as ohk

S = ohk.StatisticsOptions


def main(store: ohk.HealthStore) -> None:
    latest = store.sample_query("HeartRate", descending=True, limit=1)
    if not latest:
        print("no heart rates")
        return
    end = latest[0].end_date + timedelta(microseconds=1)
    start = (end - timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
    hours = store.statistics_collection("HeartRate", S.DISCRETE_AVERAGE | S.DISCRETE_MIN | S.DISCRETE_MAX,
                                        start=start, end=end, interval="hour", unit="count/min").to_pandas()
    print(hours.dropna(subset=["average"]).round(1).tail(8).to_string())


if __name__ == "__main__":
    with ohk.HealthStore(sys.argv[1]) as s:
        main(s)
