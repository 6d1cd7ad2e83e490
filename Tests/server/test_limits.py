"""Bad input and limits (rule 66): each is a 4xx whose JSON names the
field, and nothing is written."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from conftest import HEART, SLEEP, STEPS, WAIT, Server, auth, quantity, token, upload

GOOD = quantity(0)


def bad(**changes):
    s = dict(quantity(1))
    for k, v in changes.items():
        if v is None:
            s.pop(k)
        else:
            s[k] = v
    return s


CASES = [
    # (what, body, status, field)
    ("malformed JSON", b'{"samples": [', 400, None),
    ("not an object", b'[1, 2]', 400, None),
    ("an empty body", b'', 400, None),
    ("samples not a list", json.dumps({"samples": {}}).encode(), 400, "samples"),
    ("a value of the wrong type", {"samples": [GOOD, bad(value="12")]}, 400, "samples[1].value"),
    ("a missing field", {"samples": [GOOD, bad(start=None)]}, 400, "samples[1].start"),
    ("an unknown type", {"samples": [GOOD, bad(type="HKQuantityTypeIdentifierNope")]}, 400, "samples[1].type"),
    ("a unit the type does not measure", {"samples": [GOOD, bad(unit="kg")]}, 400, "samples[1]"),
    ("a unit that does not parse", {"samples": [GOOD, bad(unit="furlongs/")]}, 400, "samples[1].unit"),
    ("an end before the start", {"samples": [GOOD, bad(end="2024-02-01T00:00:00Z")]}, 400, "samples[1]"),
    ("a date without its offset", {"samples": [GOOD, bad(start="2024-03-01T00:01:00")]}, 400, "samples[1].start"),
    ("a date out of range", {"samples": [GOOD, bad(start="0000-01-01T00:00:00Z")]}, 400, "samples[1].start"),
    ("NaN", b'{"samples": [{"uuid": "A0000000-0000-4000-8000-000000000000", "type": "' + STEPS.encode()
     + b'", "start": "2024-03-01T00:00:00Z", "end": "2024-03-01T00:00:00Z", "value": NaN, "unit": "count"}]}', 400, None),
    ("a value out of its type's range", {"samples": [GOOD, bad(type=HEART, unit="count/min", value=1e300)]}, 400,
     "samples[1]"),
    ("a number past a double", b'{"samples": [{"uuid": "A0000000-0000-4000-8000-000000000000", "type": "' + STEPS.encode()
     + b'", "start": "2024-03-01T00:00:00Z", "end": "2024-03-01T00:00:00Z", "value": 1e999, "unit": "count"}]}', 400,
     "samples[0].value"),
    ("text after the body", b'{"samples": []} []', 400, None),
    ("a raw control character in text", b'{"samples": [{"uuid": "a\x01b"}]}', 400, None),
    ("a UUID that is not one", {"samples": [GOOD, bad(uuid="nope")]}, 400, "samples[1].uuid"),
    ("a UUID twice", {"samples": [GOOD, dict(GOOD)]}, 400, "samples[1]"),
    ("a category value outside its type", {"samples": [GOOD, {"uuid": "B0000000-0000-4000-8000-000000000000", "type": SLEEP,
                                                             "start": "2024-03-01T00:00:00Z", "end": "2024-03-01T01:00:00Z",
                                                             "value": 99}]}, 400, "samples[1]"),
    ("a deletion that is not a UUID", {"samples": [GOOD], "deleted": ["nope"]}, 400, "deleted[0]"),
    ("an unknown device field", {"samples": [GOOD, bad(device={"colour": "red"})]}, 400, "samples[1].device"),
]


@pytest.mark.parametrize("what,body,status,field", CASES, ids=[c[0] for c in CASES])
def test_rule_66_bad_input_is_refused_naming_its_field_and_writes_nothing(server, data, what, body, status, field):
    tok = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        before = upload(c, server.url, "alice", tok, samples=[quantity(59)]).json()["anchor"]
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        r = c.post(f"{server.url}/v1/people/alice/changes", headers=auth(tok), content=content)
        assert r.status_code == status, r.text
        assert r.headers["content-type"] == "application/json"
        assert r.json()["error"] and r.json().get("field") == field, r.json()
        after = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(tok)).json()
        assert after["anchor"] == before and len(after["samples"]) == 1


def test_rule_66_query_parameters_are_checked(server, data):
    tok = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", tok, samples=[GOOD])
        url = f"{server.url}/v1/people/alice/changes"
        for params, field in [({"anchor": "%%%"}, "anchor"), ({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"),
                              ({"wait": "-1"}, "wait"), ({"type": "Nope"}, "type"),
                              ({"type": "StepCount", "predicate": "quantity >"}, "predicate")]:
            r = c.get(url, params=params, headers=auth(tok))
            assert r.status_code == 400 and r.json()["field"] == field, (params, r.text)
        other = Server(data.parent / "other-data").start() if (data.parent / "other-data").mkdir() is None else None
        try:
            t2 = token(data.parent / "other-data", "alice", "com.example.sync", read="all", write="all")
            foreign = upload(c, other.url, "alice", t2, samples=[GOOD]).json()["anchor"]
        finally:
            other.stop()
        r = c.get(url, params={"anchor": foreign}, headers=auth(tok))
        assert r.status_code == 400 and r.json()["field"] == "anchor" and "another store" in r.json()["error"]
        assert c.get(f"{server.url}/v1/people/nobody/changes",
                     headers=auth(token(data, "nobody", "x.y", read="all"))).status_code == 404


def test_rule_66_a_body_past_the_limit_is_413_and_a_slow_one_408(data):
    server = Server(data, "--no-sync", "--max-body", "4096", "--request-timeout", "1").start()
    try:
        tok = token(data, "alice", "com.example.sync", read="all", write="all")
        with httpx.Client(timeout=WAIT) as c:
            big = upload(c, server.url, "alice", tok, samples=[quantity(m) for m in range(100)])
            assert big.status_code == 413 and "4096" in big.json()["error"]
        # A client that sends half its body and stops.
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as s:
            s.sendall(f"POST /v1/people/alice/changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n"
                      f"Content-Length: 1000\r\n\r\n{{\"samples\": [".encode())
            start = time.monotonic()
            answer = s.recv(4096).decode()
            assert answer.startswith("HTTP/1.1 408") and '"error":' in answer, answer
            assert time.monotonic() - start < WAIT
        assert not (data / "alice").exists()  # nothing was written: no store made
    finally:
        server.stop()
