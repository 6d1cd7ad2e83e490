"""Uploads and reads of `ohk serve` through real HTTP clients (httpx, and
httpx-sse for the event stream): rules 63, 65 and 66 over the network."""

from __future__ import annotations

import json
import signal
import threading
import time
import uuid

import httpx
import pytest
from httpx_sse import connect_sse

from conftest import HEART, ROOT, SLEEP, STEPS, WAIT, Server, auth, ohk, quantity, token, upload


def test_rule_66_an_upload_is_applied_once_and_read_back_as_sent(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    with httpx.Client(timeout=WAIT) as c:
        watch = quantity(1, 120, source="com.apple.health.watch", metadata={"HKMetadataKeySyncIdentifier": "w1",
                                                                             "HKMetadataKeySyncVersion": 1})
        sleep = {"uuid": str(uuid.uuid4()).upper(), "type": SLEEP, "start": "2024-03-01T01:00:00Z",
                 "end": "2024-03-01T02:00:00Z", "valueName": "AsleepCore"}
        body = {"samples": [watch, sleep, quantity(2, 130)], "deleted": []}
        first = c.post(f"{server.url}/v1/people/alice/changes", headers=auth(phone), content=json.dumps(body))
        assert first.status_code == 200, first.text
        answer = first.json()
        assert (answer["added"], answer["alreadyStored"]) == (3, 0)
        again = c.post(f"{server.url}/v1/people/alice/changes", headers=auth(phone), content=json.dumps(body)).json()
        assert (again["added"], again["alreadyStored"], again["anchor"]) == (0, 3, answer["anchor"])
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(phone)).json()
        assert read["anchor"] == answer["anchor"]
        by_uuid = {s["uuid"]: s for s in read["samples"]}
        assert set(by_uuid) == {watch["uuid"], sleep["uuid"], body["samples"][2]["uuid"]}
        assert by_uuid[watch["uuid"]]["source"] == "com.apple.health.watch"
        assert by_uuid[body["samples"][2]["uuid"]]["source"] == "com.example.sync"  # no source: the token's app
        assert by_uuid[sleep["uuid"]]["value"] == 3 and by_uuid[watch["uuid"]]["metadata"]["HKMetadataKeySyncVersion"] == 1
        # What a read gives can be uploaded again unchanged: the same samples.
        echo = upload(c, server.url, "alice", phone, samples=read["samples"]).json()
        assert (echo["added"], echo["alreadyStored"]) == (0, 3)


def test_rule_66_a_store_of_every_kind_read_from_one_person_uploads_to_another_unchanged(server, data):
    # Two real export excerpts: quantities, a category, workouts with
    # events and statistics, a heartbeat series and an audiogram.
    for export in ("export-small-a.xml", "export-small-b.xml"):
        ohk("import", "--store", str(data / "alice"), str(ROOT / "Tests" / "Fixtures" / export))
    relay = token(data, "alice", "com.example.sync", read="all", relay=True)
    copier = token(data, "bob", "com.example.sync", read="all", write="all", relay=True)
    with httpx.Client(timeout=WAIT) as c:
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(relay)).json()
        kinds = {s["type"] for s in read["samples"]}
        assert {"HKWorkoutTypeIdentifier", "HKDataTypeIdentifierHeartbeatSeries", "HKDataTypeIdentifierAudiogram"} <= kinds
        assert any("events" in s.get("workout", {}) for s in read["samples"])
        sent = upload(c, server.url, "bob", copier, samples=read["samples"])
        assert sent.status_code == 200, sent.text
        assert sent.json()["added"] == len(read["samples"])
        copied = c.get(f"{server.url}/v1/people/bob/changes", headers=auth(copier)).json()
        def by_uuid(samples):
            return {s["uuid"]: s for s in samples}
        assert by_uuid(copied["samples"]) == by_uuid(read["samples"])
        again = upload(c, server.url, "bob", copier, samples=copied["samples"]).json()
        assert (again["added"], again["alreadyStored"]) == (0, len(read["samples"]))


def test_rule_66_deletions_replacements_and_deletions_ahead_of_their_samples(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    with httpx.Client(timeout=WAIT) as c:
        late = quantity(5, 7)
        early = upload(c, server.url, "alice", phone, deleted=[late["uuid"]]).json()
        assert early["deletedBeforeArrival"] == 1
        v1 = quantity(6, 10, metadata={"HKMetadataKeySyncIdentifier": "s", "HKMetadataKeySyncVersion": 1})
        r = upload(c, server.url, "alice", phone, samples=[late, v1]).json()
        assert (r["added"], r["deletedBefore"]) == (1, 1)
        # A sync-identifier replacement: the phone reports the old one deleted too.
        v2 = quantity(6, 11, metadata={"HKMetadataKeySyncIdentifier": "s", "HKMetadataKeySyncVersion": 2})
        r = upload(c, server.url, "alice", phone, samples=[v2], deleted=[{"uuid": v1["uuid"]}]).json()
        assert (r["added"], r["replaced"], r["alreadyDeleted"]) == (1, 1, 1)
        read = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(phone)).json()
        assert [s["uuid"] for s in read["samples"]] == [v2["uuid"]]
        assert {d["uuid"] for d in read["deleted"]} == {v1["uuid"]}


def test_rule_66_other_content_under_a_stored_uuid_fails_the_whole_request(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        stored = quantity(1, 5)
        anchor = upload(c, server.url, "alice", phone, samples=[stored]).json()["anchor"]
        changed = dict(stored, value=6)
        r = upload(c, server.url, "alice", phone, samples=[quantity(2), changed])
        assert r.status_code == 400 and r.json()["field"] == "samples[1]" and stored["uuid"] in r.json()["error"]
        after = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(phone)).json()
        assert after["anchor"] == anchor and len(after["samples"]) == 1  # nothing of it was written


def test_rule_66_pages_long_polls_and_commits_of_other_processes(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", phone, samples=[quantity(m) for m in range(25)])
        seen, anchor = [], "none"
        while True:
            page = c.get(f"{server.url}/v1/people/alice/changes", params={"anchor": anchor, "limit": 10},
                         headers=auth(phone)).json()
            if not page["samples"]:
                break
            seen += [s["uuid"] for s in page["samples"]]
            anchor = page["anchor"]
        assert len(seen) == len(set(seen)) == 25
        # A long poll returns on the commit of another process.
        answer = {}
        poll = threading.Thread(target=lambda: answer.update(c.get(
            f"{server.url}/v1/people/alice/changes", params={"anchor": anchor, "wait": WAIT},
            headers=auth(phone)).json()))
        poll.start()  # whether the commit comes before its read or during its wait, it is answered
        added = ohk("add", "--store", str(data / "alice"), "StepCount", "42", "--source", "com.example.sync").stdout.strip()
        poll.join(WAIT)
        assert [s["uuid"] for s in answer["samples"]] == [added]
        # Nothing new: an empty answer after the wait, the same anchor.
        quiet = c.get(f"{server.url}/v1/people/alice/changes", params={"anchor": answer["anchor"], "wait": 0.2},
                      headers=auth(phone)).json()
        assert quiet["samples"] == [] and quiet["anchor"] == answer["anchor"]


def test_rule_66_an_event_stream_gives_every_change_as_it_is_committed(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    reader = token(data, "alice", "org.example.dash", read="StepCount")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", phone, samples=[quantity(0)])
        events = []
        done = threading.Event()

        def follow():
            with connect_sse(c, "GET", f"{server.url}/v1/people/alice/changes", headers=auth(reader)) as source:
                for e in source.iter_sse():
                    events.append((e.event, e.id, json.loads(e.data)))
                    if sum(len(d["samples"]) + len(d["deleted"]) for _, _, d in events) >= 3:
                        done.set()
                        return
        t = threading.Thread(target=follow)
        t.start()
        # One upload through the server, one commit by another process, one
        # sample of a type the reader may not read (not streamed).
        r = upload(c, server.url, "alice", phone, samples=[quantity(1), quantity(2, 80, type_=HEART, unit="count/min")])
        assert r.status_code == 200
        ohk("add", "--store", str(data / "alice"), "StepCount", "9")
        assert done.wait(WAIT), events
        t.join(WAIT)
    assert all(kind == "changes" for kind, _, _ in events)
    streamed = [s for _, _, d in events for s in d["samples"]]
    assert len(streamed) == 3 and all(s["type"] == STEPS for s in streamed)
    assert events[-1][1] == events[-1][2]["anchor"]  # the event id is the anchor after it


def test_rule_66_sigterm_ends_streams_lets_requests_finish_and_closes_stores(data):
    server = Server(data, "--no-sync").start()
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", phone, samples=[quantity(0)])
        with connect_sse(c, "GET", f"{server.url}/v1/people/alice/changes", headers=auth(phone)) as source:
            events = source.iter_sse()
            next(events)  # the snapshot
            server.process.send_signal(signal.SIGTERM)
            assert list(events) == []  # the stream ends
    assert server.process.wait(WAIT) == 0
    server.wait_for_log(r"stopped; 0 stores open")
    lines = [line for line in server.lines if "/v1/people/alice/changes" in line]
    assert len(lines) == 2 and all(" 200 " in line for line in lines)  # one log line a request


def test_health_and_metrics(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", phone, samples=[quantity(m) for m in range(3)])
        c.get(f"{server.url}/v1/people/alice/changes", headers=auth(phone))
        c.get(f"{server.url}/v1/people/alice/changes")
        health = c.get(f"{server.url}/v1/health").json()
        assert health["status"] == "ok" and health["openStores"] == 1
        metrics = c.get(f"{server.url}/metrics").text
    assert 'ohk_http_requests_total{endpoint="/v1/people/{person}/changes",method="POST",status="200"} 1' in metrics
    assert 'ohk_http_requests_total{endpoint="/v1/people/{person}/changes",method="GET",status="401"} 1' in metrics
    assert "ohk_samples_received_total 3" in metrics and "ohk_samples_sent_total 3" in metrics
    assert "ohk_open_stores 1" in metrics
    assert 'ohk_http_request_duration_seconds_count{endpoint="/v1/people/{person}/changes",method="POST"} 1' in metrics


def test_rule_66_last_event_id_resumes_past_the_urls_anchor(server, data):
    phone = token(data, "alice", "com.example.sync", read="all", write="all")
    with httpx.Client(timeout=WAIT) as c:
        upload(c, server.url, "alice", phone, samples=[quantity(0)])
        first = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(phone)).json()["anchor"]
        later = quantity(1)
        upload(c, server.url, "alice", phone, samples=[later])
        # An EventSource reconnects to the same URL (anchor=none) with the
        # id it saw last: the stream starts there.
        headers = {**auth(phone), "Last-Event-ID": first}
        with connect_sse(c, "GET", f"{server.url}/v1/people/alice/changes", headers=headers,
                         params={"anchor": "none"}) as source:
            event = next(source.iter_sse())
        assert [s["uuid"] for s in json.loads(event.data)["samples"]] == [later["uuid"]]


def test_rule_66_when_every_open_store_is_in_use_another_is_503(data):
    server = Server(data, "--no-sync", "--max-open-stores", "1").start()
    try:
        alice = token(data, "alice", "com.example.sync", read="all", write="all")
        bob = token(data, "bob", "com.example.sync", read="all", write="all")
        with httpx.Client(timeout=WAIT) as c:
            upload(c, server.url, "alice", alice, samples=[quantity(0)])
            assert upload(c, server.url, "bob", bob, samples=[quantity(0)]).status_code == 200  # alice's closed for it
            with connect_sse(c, "GET", f"{server.url}/v1/people/alice/changes", headers=auth(alice)) as source:
                next(source.iter_sse())  # alice's store is in use as long as the stream is
                with httpx.Client(timeout=WAIT) as other:
                    r = upload(other, server.url, "bob", bob, samples=[quantity(1)])
                    assert r.status_code == 503 and "in use" in r.json()["error"]
            # The client gone, its stream ends by its next keep-alive (5 s) at
            # the latest: retried as a client retries a 503, bob's store opens.
            start = time.monotonic()
            with httpx.Client(timeout=WAIT) as other:
                while (r := upload(other, server.url, "bob", bob, samples=[quantity(1)])).status_code == 503:
                    assert time.monotonic() - start < WAIT
                    time.sleep(0.01)
            assert r.status_code == 200 and time.monotonic() - start < 10
    finally:
        server.stop()
