"""`POST /v1/people/{person}/health-auto-export` (rule 67): the Health
Auto Export app's REST payload, as its wiki ("API Export – JSON Format")
and payloads captured from devices have it."""

from __future__ import annotations

import copy
import json
import math

import httpx

from conftest import WAIT, auth, token

NBSP = "\u202f"


def payload() -> dict:
    return {"data": {
        "metrics": [
            {"name": "step_count", "units": "count", "data": [
                {"qty": 812, "date": "2024-03-01 08:00:00 +0100", "source": "Alice's Apple Watch|iPhone"},
                {"qty": 120.5, "date": "2024-03-01 08:01:00 +0100", "source": "iPhone"},
                {"qty": 300, "date": f"2024-03-01 8:05:00{NBSP}PM +0100", "source": "iPhone"}]},
            {"name": "blood_oxygen_saturation", "units": "%", "data": [{"qty": 97, "date": "2024-03-01 03:00:00 +0100"}]},
            {"name": "heart_rate", "units": "count/min", "data": [
                {"Min": 58, "Avg": 61, "Max": 66, "date": "2024-03-01 08:00:00 +0100", "source": "Alice's Apple Watch"}]},
            {"name": "blood_pressure", "units": "mmHg", "data": [
                {"systolic": 121, "diastolic": 79, "date": "2024-03-01 07:30:00 +0100"}]},
            {"name": "active_energy", "units": "kJ", "data": [{"qty": 41.84, "date": "2024-03-01 08:00:00 +0100"}]},
            {"name": "weight_body_mass", "units": "lb", "data": [{"qty": 154.3, "date": "2024-03-01 07:00:00 +0100"}]},
            {"name": "sleep_analysis", "units": "hr", "data": [
                {"startDate": "2024-03-01 00:10:00 +0100", "endDate": "2024-03-01 06:40:00 +0100", "qty": 6.5,
                 "value": "InBed", "source": "Alice's Apple Watch"},
                {"startDate": "2024-03-01 00:20:00 +0100", "endDate": "2024-03-01 02:00:00 +0100", "qty": 1.67,
                 "value": "Core", "source": "Alice's Apple Watch"},
                {"startDate": "2024-03-01 02:00:00 +0100", "endDate": "2024-03-01 03:00:00 +0100", "qty": 1,
                 "value": "Deep", "source": "Alice's Apple Watch"},
                {"date": "2024-03-01", "asleep": 0, "core": 3.1, "deep": 1, "rem": 1.5, "inBed": 0,
                 "sleepStart": "2024-02-29 23:50:00 +0100", "sleepEnd": "2024-03-01 06:40:00 +0100"}]},
            {"name": "mystery_metric", "units": "count", "data": [{"qty": 1, "date": "2024-03-01 08:00:00 +0100"},
                                                                  {"qty": 2, "date": "2024-03-01 09:00:00 +0100"}]},
        ],
        "workouts": [{"id": "1F088C46-09AD-4259-A78F-6CBE9F90BD94", "name": "Outdoor Walk",
                      "start": "2024-03-01 19:37:47 +0100", "end": "2024-03-01 19:56:37 +0100", "duration": 1130.08}],
    }}


def post(c: httpx.Client, base: str, tok: str, body: dict) -> httpx.Response:
    return c.post(f"{base}/v1/people/alice/health-auto-export", headers=auth(tok), content=json.dumps(body))


def test_rule_67_health_auto_export_points_become_samples_once(server, data):
    tok = token(data, "alice", "com.healthexport.app", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        first = post(c, server.url, tok, payload())
        assert first.status_code == 200, first.text
        a = first.json()
        # 3 steps, SpO2, heart rate, 2 blood pressure, energy, mass, 3 sleep stages, a workout.
        assert (a["added"], a["points"]) == (13, 15), json.dumps(a)
        assert a["unmapped"] == {"mystery_metric": 2, "sleep_analysis (aggregated: turn off Summarize Data for sleep)": 1}
        # The same window again, and an overlapping one, add nothing twice.
        again = post(c, server.url, tok, payload()).json()
        assert (again["added"], again["alreadyStored"], again["anchor"]) == (0, 13, a["anchor"])
        later = payload()
        later["data"]["metrics"] = [later["data"]["metrics"][0]]
        del later["data"]["workouts"]
        later["data"]["metrics"][0]["data"].append({"qty": 50, "date": "2024-03-01 21:00:00 +0100", "source": "iPhone"})
        r = post(c, server.url, tok, later).json()
        assert (r["added"], r["alreadyStored"]) == (1, 3)
        # A bucket sent again with another value replaces the first.
        grown = copy.deepcopy(later)
        grown["data"]["metrics"][0]["data"] = [{"qty": 75, "date": "2024-03-01 21:00:00 +0100", "source": "iPhone"}]
        r = post(c, server.url, tok, grown).json()
        assert (r["added"], r["replaced"]) == (1, 1)
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(tok)).json()
    by_type: dict[str, list] = {}
    for s in read["samples"]:
        by_type.setdefault(s["type"].removeprefix("HKQuantityTypeIdentifier").removeprefix("HKCategoryTypeIdentifier"),
                           []).append(s)
    # HAE's % is a percentage; HealthKit's a fraction.
    assert by_type["OxygenSaturation"][0]["value"] == 0.97 and by_type["OxygenSaturation"][0]["unit"] == "%"
    assert math.isclose(by_type["BodyMass"][0]["value"], 154.3 * 0.45359237)
    assert math.isclose(by_type["HeartRate"][0]["value"], 61 / 60)
    assert by_type["HeartRate"][0]["metadata"]["HealthAutoExportMinimum"] == 58
    assert math.isclose(by_type["ActiveEnergyBurned"][0]["value"], 10)  # 41.84 kJ
    assert {s["value"] for s in by_type["BloodPressureSystolic"] + by_type["BloodPressureDiastolic"]} == {121, 79}
    assert sorted(s["valueName"] for s in by_type["SleepAnalysis"]) == ["AsleepCore", "AsleepDeep", "InBed"]
    steps = sorted((s["start"], s["value"]) for s in by_type["StepCount"])
    assert steps == [("2024-03-01T07:00:00Z", 812), ("2024-03-01T07:01:00Z", 120.5), ("2024-03-01T19:05:00Z", 300),
                     ("2024-03-01T20:00:00Z", 75)]  # 8:05 PM +0100 is 19:05 UTC
    assert {s["source"] for s in read["samples"]} == {"com.healthexport.app"}
    assert by_type["StepCount"][0]["sourceName"] == "Alice's Apple Watch|iPhone"


def run() -> dict:
    """A Version 2 workout as the app sends it, with its route and a series."""
    return {"id": "8B0A6F0E-3C1D-4D8A-9F5B-2E7C4A1B9D10", "name": "Outdoor Run",
            "start": "2024-03-02 07:00:00 +0100", "end": "2024-03-02 07:30:00 +0100", "duration": 1750.5,
            "location": "Outdoor", "isIndoor": False,
            "activeEnergyBurned": {"qty": 310.5, "units": "kcal"}, "distance": {"qty": 5.2, "units": "km"},
            "elevationUp": {"qty": 42, "units": "m"}, "intensity": {"qty": 9.1, "units": "MET"},
            "heartRate": {"min": {"qty": 98, "units": "bpm"}, "avg": {"qty": 150, "units": "bpm"},
                          "max": {"qty": 171, "units": "bpm"}},
            "heartRateData": [{"date": "2024-03-02 07:01:00 +0100", "Min": 120, "Avg": 130, "Max": 140, "units": "bpm"}],
            "route": [
                {"latitude": 48.8566, "longitude": 2.3522, "altitude": 35.2, "course": 90, "horizontalAccuracy": 4.5,
                 "verticalAccuracy": 3, "speed": 3.1, "timestamp": "2024-03-02 07:00:00 +0100"},
                {"latitude": 48.8570, "longitude": 2.3530, "altitude": 35.9, "course": -1, "horizontalAccuracy": 5,
                 "verticalAccuracy": -1, "speed": -1, "timestamp": "2024-03-02 07:00:05 +0100"},
                {"latitude": 48.8575, "longitude": 2.3540, "timestamp": "2024-03-02 07:00:10 +0100"}]}


def test_rule_67_workouts_with_routes_become_a_workout_and_its_route(server, data):
    tok = token(data, "alice", "com.healthexport.app", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        body = {"data": {"workouts": [run(), {**run(), "id": "other", "name": "Underwater Basket Weaving", "route": [],
                                               "distance": {"qty": 3, "units": "kcal"}}]}}
        first = post(c, server.url, tok, body)
        assert first.status_code == 200, first.text
        a = first.json()
        assert (a["added"], a["points"]) == (3, 2), json.dumps(a)
        # A figure in a unit of another dimension is counted, not dropped silently.
        assert a["unmapped"] == {"workouts.heartRateData (sent as metrics too)": 2, "workouts.distance (unit kcal)": 1}
        again = post(c, server.url, tok, body).json()
        assert (again["added"], again["alreadyStored"]) == (0, 3)
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(tok)).json()["samples"]
        workouts = {s["workout"]["activityType"]: s for s in read if s["type"] == "HKWorkoutTypeIdentifier"}
        (route,) = [s for s in read if s["type"] == "HKWorkoutRouteTypeIdentifier"]
        w = workouts["Running"]
        assert w["value"] == 1750.5 and w["start"] == "2024-03-02T06:00:00Z" and w["end"] == "2024-03-02T06:30:00Z"
        assert w["workout"]["totalEnergyBurnedKcal"] == 310.5 and math.isclose(w["workout"]["totalDistanceM"], 5200)
        (hr,) = w["workout"]["statistics"]
        assert hr["type"] == "HKQuantityTypeIdentifierHeartRate" and hr["unit"] == "count/s"
        assert [math.isclose(hr[k], v / 60) for k, v in (("average", 150), ("minimum", 98), ("maximum", 171))] == [True] * 3
        assert w["metadata"]["HKIndoorWorkout"] is False and w["metadata"]["HKElevationAscended"] == "4200 cm"
        assert workouts["Other"]["metadata"]["HealthAutoExportName"] == "Underwater Basket Weaving"
        assert "totalDistanceM" not in workouts["Other"]["workout"]
        # The route belongs to its workout; CoreLocation's negative "unknown"s are null.
        assert route["route"]["workout"] == w["uuid"] and route["value"] == 3
        assert route["route"]["locations"][1] == [1709359205, 48.857, 2.353, 35.9, 5, None, None, None]
        assert route["route"]["locations"][2][3:] == [None] * 5
        # Sent again with more in it (the energy finished later): both replaced.
        more = {"data": {"workouts": [{**run(), "activeEnergyBurned": {"qty": 1300, "units": "kJ"}}]}}
        r = post(c, server.url, tok, more).json()
        assert (r["added"], r["replaced"]) == (2, 2), json.dumps(r)
        now = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(tok)).json()["samples"]
        runs = [s for s in now if s.get("workout", {}).get("activityType") == "Running"]
        (route,) = [s for s in now if s["type"] == "HKWorkoutRouteTypeIdentifier"]
        assert len(runs) == 1 and math.isclose(runs[0]["workout"]["totalEnergyBurnedKcal"], 1300 / 4.184)
        assert route["route"]["workout"] == runs[0]["uuid"]


def test_rule_67_refusals_name_the_field_and_write_nothing(server, data):
    tok = token(data, "alice", "com.healthexport.app", read="all", write="StepCount")
    full = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        r = post(c, server.url, tok, payload())
        assert r.status_code == 403 and r.json()["field"].startswith("data.metrics[1]"), r.text
        bad = payload()
        bad["data"]["metrics"][0]["data"][1]["date"] = "yesterday"
        r = post(c, server.url, full, bad)
        assert r.status_code == 400 and r.json()["field"] == "data.metrics[0].data[1].date", r.text
        bad = payload()
        del bad["data"]["metrics"][2]["data"][0]["Avg"]
        r = post(c, server.url, full, bad)
        assert r.status_code == 400 and r.json()["field"] == "data.metrics[2].data[0].Avg", r.text
        bad = {"data": {"workouts": [{**run(), "start": "dawn"}]}}
        r = post(c, server.url, full, bad)
        assert r.status_code == 400 and r.json()["field"] == "data.workouts[0].start", r.text
        bad = {"data": {"workouts": [run()]}}
        bad["data"]["workouts"][0]["route"][1]["latitude"] = 91
        r = post(c, server.url, full, bad)
        assert r.status_code == 400 and r.json()["field"] == "data.workouts[0].route", r.text
        r = c.post(f"{server.url}/v1/people/alice/health-auto-export", headers=auth(full), content=b'{"metrics": []}')
        assert r.status_code == 400 and r.json()["field"] == "data", r.text
        assert not (data / "alice" / "data.mdb").exists() or \
            c.get(f"{server.url}/v1/people/alice/changes", headers=auth(full)).json()["samples"] == []


def test_rule_67_every_mapped_name_is_documented():
    import re
    from conftest import ROOT
    code = (ROOT / "Sources" / "OpenHealthKitUpload" / "HealthAutoExportNames.swift").read_text()
    table = code[code.index("static let quantities"):code.index("/// Units the app")]
    doc = (ROOT / "docs" / "semantics.md").read_text()
    rule = doc[doc.index("\n67. "):]
    for name, suffix in re.findall(r'"([a-z0-9_]+)": "([A-Za-z0-9]+)"', table):
        assert f"`{name}`" in rule and f"| {suffix} |" in rule, name
