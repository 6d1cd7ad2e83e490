"""`GET /v1/people/{person}/statistics` (rule 66): the merged statistics
collection, as `ohk stats TYPE --by … --format json` prints it."""

from __future__ import annotations

import json

import httpx

from conftest import HEART, STEPS, WAIT, auth, ohk, quantity, token, upload


def test_rule_66_statistics_are_what_ohk_stats_prints(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    steps_only = token(data, "alice", "org.example.dash", read="StepCount")
    with httpx.Client(timeout=WAIT) as c:
        samples = [quantity(m * 90, 100 + m, source="com.example.pedometer" if m % 2 else "com.apple.health.watch")
                   for m in range(40)]  # every 90 minutes over about two days and a half
        samples += [quantity(m * 60, 60 + m, type_=HEART, unit="count/min") for m in range(20)]
        for night, (start, end, stage) in enumerate([("2024-02-29T23:00:00Z", "2024-03-01T01:30:00Z", "AsleepCore"),
                                                       ("2024-03-01T01:30:00Z", "2024-03-01T02:15:00Z", "AsleepDeep"),
                                                       ("2024-03-01T22:40:00Z", "2024-03-02T05:10:00Z", "AsleepREM")]):
            samples.append({"uuid": f"5{night}000000-0000-4000-8000-000000000000", "type": "HKCategoryTypeIdentifierSleepAnalysis",
                            "start": start, "end": end, "valueName": stage})
        for k, (day, km) in enumerate([("01", 5.2), ("02", 10.0), ("02", 10.0)]):  # the last a likely duplicate (rule 57)
            samples.append({"uuid": f"6{k}000000-0000-4000-8000-000000000000", "type": "HKWorkoutTypeIdentifier",
                            "start": f"2024-03-{day}T07:00:00Z", "end": f"2024-03-{day}T07:40:00Z",
                            "source": "com.apple.health.watch" if k < 2 else "com.example.runapp",
                            "workout": {"activityType": "Running", "duration": 2400, "totalDistanceM": km * 1000,
                                        "totalEnergyBurnedKcal": 400 + k}})
        samples[-1]["workout"]["totalEnergyBurnedKcal"] = 401  # the same totals as the second
        assert upload(c, server.url, "alice", phone, samples=samples).status_code == 200
        url = f"{server.url}/v1/people/alice/statistics"
        for params, args in [
            ({"type": "StepCount"}, ["StepCount", "--by", "day", "--utc-offset", "Z"]),
            ({"type": "StepCount", "interval": "6hour", "tz": "Europe/Paris", "from": "2024-03-01", "to": "2024-03-02"},
             ["StepCount", "--by", "6hour", "--tz", "Europe/Paris", "--from", "2024-03-01", "--to", "2024-03-02"]),
            ({"type": "StepCount", "bySource": "true"}, ["StepCount", "--by", "day", "--utc-offset", "Z", "--by-source"]),
            ({"type": "HeartRate", "interval": "hour", "options": "min,max,average", "unit": "count/min"},
             ["HeartRate", "--by", "hour", "--utc-offset", "Z", "--min", "--max", "--average", "--unit", "count/min"]),
            # A category type: hours per value, sleep by night (rule 59).
            ({"type": "SleepAnalysis", "tz": "Europe/Paris"}, ["SleepAnalysis", "--by", "day", "--tz", "Europe/Paris"]),
            # Workouts per interval, each counted once (rule 57).
            ({"type": "Workout"}, ["Workout", "--by", "day", "--utc-offset", "Z"]),
        ]:
            r = c.get(url, params=params, headers=auth(phone))
            assert r.status_code == 200, r.text
            expected = ohk("stats", "--store", str(data / "alice"), "--read-only", *args, "--format", "json").stdout
            assert r.json() == json.loads(expected), params
            assert r.json(), params  # not an empty comparison
        for params, status, field in [({}, 400, "type"), ({"type": "Nope"}, 400, "type"),
                                      ({"type": "StepCount", "interval": "fortnight"}, 400, "interval"),
                                      ({"type": "StepCount", "tz": "Mars/Olympus"}, 400, "tz"),
                                      ({"type": "StepCount", "unit": "kg"}, 400, "unit"),
                                      ({"type": "StepCount", "options": "median"}, 400, "options"),
                                      ({"type": "SleepAnalysis", "bySource": "true"}, 400, "type"),
                                      ({"type": "Workout", "options": "sum"}, 400, "type"),
                                      ({"type": "HKWorkoutRouteTypeIdentifier"}, 400, "type")]:
            r = c.get(url, params=params, headers=auth(phone))
            assert (r.status_code, r.json().get("field")) == (status, field), (params, r.text)
        days = c.get(url, params={"type": "Workout"}, headers=auth(phone)).json()
        assert [(d["workouts"], d["distanceKilometres"], d["likelyDuplicatesNotCounted"]) for d in days] == [(1, 5.2, 0), (1, 10, 1)]
        r = c.get(url, params={"type": "HeartRate"}, headers=auth(steps_only))
        assert r.status_code == 403 and r.json()["field"] == "type"
        assert c.get(url, params={"type": "StepCount"}).status_code == 401
