"""docs/openapi.yaml against the server: the description is valid OpenAPI
3.1, and every answer a real client gets matches the schema of its
operation and status, with no field the description does not name."""

from __future__ import annotations

import json

import httpx
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conftest import ROOT, STEPS, WAIT, auth, ohk, quantity, token, upload

SPEC = yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())
BASE = "urn:ohk-openapi"
REGISTRY = Registry().with_resource(BASE, Resource.from_contents(SPEC, default_specification=DRAFT202012))


def resolve(node: dict) -> dict:
    """A `$ref` within the description, followed."""
    while "$ref" in node:
        target = SPEC
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def undeclared(schema: dict, value, where: str = "") -> list[str]:
    """Fields of `value` that `schema` (followed through refs, allOf and
    items) does not declare: the description must name every field."""
    schema = resolve(schema)
    found: list[str] = []
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += undeclared(schema["items"], item, f"{where}[{i}]")
    if isinstance(value, dict):
        declared = dict(schema.get("properties", {}))
        for part in schema.get("allOf", []):
            declared.update(resolve(part).get("properties", {}))
        open_ended = "additionalProperties" in schema or any("additionalProperties" in resolve(p) for p in schema.get("allOf", []))
        if declared or schema.get("type") == "object" and not open_ended:
            found += [f"{where}.{k}" for k in value if k not in declared]
        for k, sub in declared.items():
            if k in value:
                found += undeclared(sub, value[k], f"{where}.{k}")
    return found


def escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def conforms(response: httpx.Response, path: str, method: str) -> None:
    """`response` is one the description lists for `method` on `path`, and its
    JSON matches that answer's schema exactly."""
    answers = SPEC["paths"][path][method]["responses"]
    status = str(response.status_code)
    assert status in answers, f"{method.upper()} {path}: {status} is not described ({response.text[:200]})"
    pointer = f"/paths/{escape(path)}/{method}/responses/{status}"
    if "$ref" in answers[status]:  # a shared answer (the Error)
        pointer = answers[status]["$ref"].lstrip("#")
    answer = resolve(answers[status])
    media = response.headers["content-type"].split(";")[0]
    assert media in answer["content"], f"{method.upper()} {path} {status}: {media} is not described"
    if media != "application/json":
        return
    body = response.json()
    # Validated at its place in the description, so that its refs resolve.
    schema_ref = f"{BASE}#{pointer}/content/{escape(media)}/schema"
    Draft202012Validator({"$ref": schema_ref}, registry=REGISTRY).validate(body)
    extra = undeclared(answer["content"][media]["schema"], body)
    assert not extra, f"{method.upper()} {path} {status} has undescribed fields: {extra[:5]}"


def test_the_openapi_description_is_valid():
    validate_spec(SPEC)


def test_every_answer_matches_the_openapi_description(server, data):
    for export in ("export-small-a.xml", "export-small-b.xml"):
        ohk("import", "--store", str(data / "alice"), str(ROOT / "Tests" / "Fixtures" / export))
    alice = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    bob = token(data, "bob", "com.example.sync", read="all", write="all", relay=True)
    steps_only = token(data, "bob", "com.example.steps", read="StepCount")
    changes, people = "/v1/people/{person}/changes", f"{server.url}/v1/people"
    with httpx.Client(timeout=WAIT) as c:
        read = c.get(f"{people}/alice/changes", headers=auth(alice))
        conforms(read, changes, "get")
        # Every kind the exports hold, and a correlation and a route.
        samples = read.json()["samples"]
        systolic = quantity(1, 120, type_="HKQuantityTypeIdentifierBloodPressureSystolic", unit="mmHg")
        diastolic = quantity(1, 80, type_="HKQuantityTypeIdentifierBloodPressureDiastolic", unit="mmHg")
        pressure = {**quantity(1), "type": "HKCorrelationTypeIdentifierBloodPressure",
                    "members": [systolic["uuid"], diastolic["uuid"]]}
        del pressure["value"], pressure["unit"]
        route = {**quantity(2), "type": "HKWorkoutRouteTypeIdentifier",
                 "route": {"locations": [[1709251320, 48.85, 2.35, 35, 5, None, None, 1.5], [1709251321, 48.851, 2.351]]}}
        del route["value"], route["unit"]
        sent = upload(c, server.url, "bob", bob, samples=samples + [systolic, diastolic, pressure, route])
        conforms(sent, changes, "post")
        assert sent.json().get("added") == len(samples) + 4, sent.text
        copied = c.get(f"{people}/bob/changes", headers=auth(bob))
        conforms(copied, changes, "get")
        assert {"members", "route", "workout", "beats", "sensitivityPoints"} <= {k for s in copied.json()["samples"] for k in s}
        deleted = upload(c, server.url, "bob", bob, deleted=[systolic["uuid"]])
        conforms(deleted, changes, "post")
        conforms(c.get(f"{people}/bob/changes", headers=auth(bob), params={"anchor": sent.json()["anchor"]}), changes, "get")
        # Refusals: each a described status with the Error schema.
        conforms(c.get(f"{people}/bob/changes"), changes, "get")  # 401
        conforms(c.get(f"{people}/bob/changes", headers=auth(steps_only), params={"type": "HeartRate"}), changes, "get")  # 403
        conforms(c.get(f"{people}/bob/changes", headers=auth(bob), params={"limit": "0"}), changes, "get")  # 400
        conforms(upload(c, server.url, "bob", bob, samples=[{**quantity(3), "unit": "kg"}]), changes, "post")  # 400
        # Health Auto Export, statistics, health.
        hae = {"data": {"metrics": [{"name": "step_count", "units": "count",
                                     "data": [{"date": "2024-03-01 08:00:00 +0000", "qty": 12}]},
                                    {"name": "no_such_metric", "units": "x", "data": [{"date": "2024-03-01 08:00:00 +0000", "qty": 1}]}]}}
        conforms(c.post(f"{people}/bob/health-auto-export", headers=auth(bob), content=json.dumps(hae)),
                 "/v1/people/{person}/health-auto-export", "post")
        stats = "/v1/people/{person}/statistics"
        for params in ({"type": STEPS, "from": "2024-03-01", "to": "2024-03-02"},
                       {"type": STEPS, "from": "2024-03-01", "to": "2024-03-02", "bySource": "true", "options": "sum,min,max"},
                       {"type": "SleepAnalysis", "from": "2024-03-01", "to": "2024-03-02"},
                       {"type": "Workout", "interval": "year"},
                       {"type": "NoSuchType"}):
            conforms(c.get(f"{people}/bob/statistics", headers=auth(bob), params=params), stats, "get")
        # Replication (ohk sync): a batch read from alice, applied to carol, the checkpoints, refusals.
        rep, cps = "/v1/people/{person}/replication", "/v1/people/{person}/replication/checkpoints"
        carol = token(data, "carol", "com.example.sync", read="all", write="all", relay=True)
        batch = c.get(f"{people}/alice/replication", headers=auth(alice), params={"after": "none"})
        conforms(batch, rep, "get")
        conforms(c.get(f"{people}/carol/replication/checkpoints", headers=auth(carol)), cps, "get")  # 404: no store yet
        applied = c.post(f"{people}/carol/replication", headers=auth(carol), content=batch.content,
                         params={"name": "copy", "location": "alice", "expected": "none"})
        conforms(applied, rep, "post")
        assert applied.status_code == 200 and applied.json()["added"] > 0, applied.text
        conforms(c.get(f"{people}/carol/replication/checkpoints", headers=auth(carol)), cps, "get")
        conforms(c.post(f"{people}/carol/replication", headers=auth(carol), content=batch.content,
                        params={"name": "copy", "location": "alice", "expected": "none"}), rep, "post")  # 409
        conforms(c.get(f"{people}/alice/replication", headers=auth(alice), params={"after": "x"}), rep, "get")  # 400
        conforms(c.get(f"{server.url}/v1/health"), "/v1/health", "get")
        conforms(c.get(f"{server.url}/metrics"), "/metrics", "get")
