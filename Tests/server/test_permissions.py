"""Tokens and permissions (rule 65): every endpoint against no token, an
unknown or revoked one, another person's, a read-only one, a write-only
one and one restricted to some types."""

from __future__ import annotations

import http.client
import json

import threading

import httpx
import pytest
from httpx_sse import connect_sse

from conftest import HEART, STEPS, WAIT, auth, ohk, quantity, token, upload

# The tokens of the matrix, by what they are.
KINDS = ["none", "unknown", "revoked", "other person", "read only", "write only", "steps only", "full"]


@pytest.fixture
def tokens(server, data):
    full = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    revoked = token(data, "alice", "com.example.old", read="all", write="all")
    revoked_id = revoked.split("_")[1]
    ohk("token", "revoke", "--data", str(data), revoked_id)
    with httpx.Client(timeout=WAIT) as c:
        assert upload(c, server.url, "alice", full, samples=[quantity(0), quantity(1, 60, type_=HEART, unit="count/min")]
                      ).status_code == 200
    return {
        "none": None,
        "unknown": "ohk_0000000000000000_" + "0" * 48,
        "revoked": revoked,
        "other person": token(data, "bob", "com.example.sync", read="all", write="all"),
        "read only": token(data, "alice", "org.example.dash", read="all"),
        "write only": token(data, "alice", "com.example.scale", write="all"),
        "steps only": token(data, "alice", "com.example.steps", read="StepCount", write="StepCount"),
        "full": full,
    }


# What each endpoint answers each kind of token: the status, and for a
# read the types it got.
EXPECTED = {
    "read all": {"none": 401, "unknown": 401, "revoked": 401, "other person": 403, "read only": 200,
                 "write only": 200, "steps only": 200, "full": 200},
    "read heart rate": {"none": 401, "unknown": 401, "revoked": 401, "other person": 403, "read only": 200,
                        "write only": 200, "steps only": 403, "full": 200},
    "stream": {"none": 401, "unknown": 401, "revoked": 401, "other person": 403, "read only": 200,
               "write only": 200, "steps only": 200, "full": 200},
    "upload steps": {"none": 401, "unknown": 401, "revoked": 401, "other person": 403, "read only": 403,
                     "write only": 200, "steps only": 200, "full": 200},
    "upload heart rate": {"none": 401, "unknown": 401, "revoked": 401, "other person": 403, "read only": 403,
                          "write only": 200, "steps only": 403, "full": 200},
}


def call(c: httpx.Client, base: str, endpoint: str, tok: str | None) -> httpx.Response:
    url = f"{base}/v1/people/alice/changes"
    if endpoint == "read all":
        return c.get(url, headers=auth(tok))
    if endpoint == "read heart rate":
        return c.get(url, params={"type": "HeartRate"}, headers=auth(tok))
    if endpoint == "stream":
        with c.stream("GET", url, headers={**auth(tok), "Accept": "text/event-stream"}) as r:
            if r.status_code == 200:
                first = next(r.iter_lines())
                assert first.startswith("id: ")
            else:
                r.read()
            return r
    sample = quantity(9) if endpoint == "upload steps" else quantity(9, 70, type_=HEART, unit="count/min")
    return upload(c, base, "alice", tok, samples=[sample])


@pytest.mark.parametrize("endpoint", list(EXPECTED))
@pytest.mark.parametrize("kind", KINDS)
def test_rule_65_permission_matrix(server, tokens, endpoint, kind):
    with httpx.Client(timeout=WAIT) as c:
        r = call(c, server.url, endpoint, tokens[kind])
        assert r.status_code == EXPECTED[endpoint][kind], (endpoint, kind, r.status_code)
        if r.status_code != 200:
            body = json.loads(r.read()) if endpoint == "stream" else r.json()
            assert body["error"]  # every refusal says why, as JSON
        if r.status_code == 401:
            assert r.headers["www-authenticate"].startswith("Bearer")
        if endpoint == "read all" and r.status_code == 200:
            got = {s["type"] for s in r.json()["samples"]}
            listed = {STEPS} if kind == "steps only" else {STEPS, HEART}
            assert set(r.json()["types"]) == listed  # "all" lists the types it may read
            # A type it may write but not read shows its own samples only: none here.
            assert got == (set() if kind == "write only" else listed)
        if endpoint == "read heart rate" and r.status_code == 403 and kind != "other person":
            assert r.json()["field"] == "type" and HEART in r.json()["error"]


def test_rule_65_write_without_read_sees_only_its_own_samples(server, data):
    full = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    scale = token(data, "alice", "com.example.scale", write="BodyMass")
    with httpx.Client(timeout=WAIT) as c:
        mine = quantity(1, 70, type_="HKQuantityTypeIdentifierBodyMass", unit="kg")
        assert upload(c, server.url, "alice", scale, samples=[mine]).status_code == 200
        upload(c, server.url, "alice", full, samples=[quantity(2, 71, type_="HKQuantityTypeIdentifierBodyMass", unit="kg",
                                                               source="com.example.other"), quantity(3)])
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(scale)).json()
        assert [s["uuid"] for s in read["samples"]] == [mine["uuid"]]
        assert read["types"] == ["HKQuantityTypeIdentifierBodyMass"]


def test_rule_65_a_write_is_saved_as_the_apps_source_and_other_sources_need_relay(server, data):
    app = token(data, "alice", "com.example.scale", read="all", write="all")
    relay = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    with httpx.Client(timeout=WAIT) as c:
        r = upload(c, server.url, "alice", app, samples=[quantity(0), quantity(1, source="com.apple.health")])
        assert r.status_code == 403 and r.json()["field"] == "samples[1].source"
        assert upload(c, server.url, "alice", app, samples=[quantity(2, source="com.example.scale")]).status_code == 200
        assert upload(c, server.url, "alice", relay, samples=[quantity(3, source="com.apple.health")]).status_code == 200
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(relay)).json()
        assert sorted(s["source"] for s in read["samples"]) == ["com.apple.health", "com.example.scale"]
        theirs = next(s for s in read["samples"] if s["source"] == "com.apple.health")
        # An app deletes only its own samples; a relay any, even ahead of arrival.
        r = upload(c, server.url, "alice", app, deleted=[theirs["uuid"]])
        assert r.status_code == 403 and r.json()["field"] == "deleted[0]"
        assert upload(c, server.url, "alice", app, deleted=["D0000000-0000-4000-8000-000000000000"]).status_code == 403
        assert upload(c, server.url, "alice", relay, deleted=[theirs["uuid"]]).json()["deleted"] == 1


def test_rule_65_person_names_are_plain_identifiers(server, data):
    full = token(data, "alice", "com.example.sync", read="all", write="all")
    for bad in ["..", ".hidden", "a%2Fb", "a%00b", "x" * 65, "caf%C3%A9"]:
        # http.client sends the path as written (httpx would resolve "..").
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
        conn.request("GET", f"/v1/people/{bad}/changes", headers=auth(full))
        r = conn.getresponse()
        assert r.status == 400 and json.loads(r.read())["field"] == "person", bad
        conn.close()
    refused = ohk("token", "create", "--data", str(data), "--person", "../etc", "--app", "com.example.sync",
                  "--read", "all", check=False)
    assert refused.returncode != 0 and "--person" in refused.stderr
    assert "../etc" not in (data / ".ohk-tokens").read_text()


def test_rule_65_tokens_are_kept_as_hashes_listed_and_revoked_on_a_running_server(server, data):
    tok = token(data, "alice", "com.example.sync", read="all", write="all")
    kept = (data / ".ohk-tokens").read_text()
    assert tok not in kept and tok.split("_")[2] not in kept  # only the hash
    listed = [json.loads(line) for line in ohk("token", "list", "--data", str(data), "--json").stdout.splitlines()]
    assert [(t["person"], t["app"], t["read"], t["write"], t.get("revoked")) for t in listed] == \
        [("alice", "com.example.sync", "all", "all", None)]
    with httpx.Client(timeout=WAIT) as c:
        assert upload(c, server.url, "alice", tok, samples=[quantity(0)]).status_code == 200
        ohk("token", "revoke", "--data", str(data), listed[0]["id"])
        assert upload(c, server.url, "alice", tok, samples=[quantity(1)]).status_code == 401
        # A token with its secret changed in one character is refused too.
        forged = tok[:-1] + ("0" if tok[-1] != "0" else "1")
        assert c.get(f"{server.url}/v1/people/alice/changes", headers=auth(forged)).status_code == 401
    assert ohk("token", "revoke", "--data", str(data), listed[0]["id"], check=False).returncode == 1


def test_rule_65_a_revoked_token_ends_its_stream_and_its_long_poll(server, data):
    writer = token(data, "alice", "com.example.sync", read="all", write="all")
    reader = token(data, "alice", "org.example.dash", read="all")
    reader_id = reader.split("_")[1]
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", writer, samples=[quantity(0)])
        anchor = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(reader)).json()["anchor"]
        polled = {}
        poll = threading.Thread(target=lambda: polled.update(r=c.get(
            f"{server.url}/v1/people/alice/changes", params={"anchor": anchor, "wait": WAIT}, headers=auth(reader))))
        with connect_sse(c, "GET", f"{server.url}/v1/people/alice/changes", headers=auth(reader)) as source:
            events = source.iter_sse()
            next(events)  # the first answer
            poll.start()
            ohk("token", "revoke", "--data", str(data), reader_id)
            # The next commit wakes both; neither gives it to the revoked token.
            upload(c, server.url, "alice", writer, samples=[quantity(1)])
            assert list(events) == []
        poll.join(WAIT)
        assert polled["r"].status_code == 401


def test_rule_65_a_refused_write_makes_no_store(server, data):
    reader = token(data, "alice", "org.example.dash", read="all")
    with httpx.Client(timeout=WAIT) as c:
        assert upload(c, server.url, "alice", reader, samples=[quantity(0)]).status_code == 404
    assert not (data / "alice").exists()
