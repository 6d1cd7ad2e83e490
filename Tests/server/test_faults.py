"""`ohk serve` SIGKILLed at random moments, 100 times, while a phone
uploads with retries and a consumer follows the changes with its anchor
(rule 66): at the end the store holds exactly what was uploaded, and the
consumer saw each change once."""

from __future__ import annotations

import json
import random
import signal
import threading
import time

import httpx

from conftest import WAIT, Server, auth, quantity, token

KILLS = 100


class Endpoint:
    """The running server's address, which moves with each restart."""

    def __init__(self) -> None:
        self._url = None
        self._changed = threading.Condition()

    def set(self, url: str | None) -> None:
        with self._changed:
            self._url = url
            self._changed.notify_all()

    def get(self) -> str:
        with self._changed:
            assert self._changed.wait_for(lambda: self._url is not None, timeout=WAIT), "no server came back"
            return self._url


def retrying(endpoint: Endpoint, call):
    """`call(url)` until the server answers it; connection failures (the
    server was killed) are retried against the next server."""
    while True:
        url = endpoint.get()
        try:
            return call(url)
        except httpx.TransportError:
            continue


def test_rule_66_a_server_killed_100_times_loses_and_repeats_nothing(data):
    tok = token(data, "alice", "com.example.sync", read="all", write="all", relay=True)
    rng = random.Random(66)
    batches, live = [], {}
    for b in range(1500):  # long enough that 100 kills land while it runs
        samples = [quantity(b % 1440, b * 10 + i) for i in range(10)]
        deleted = [rng.choice(list(live))] if b % 4 == 3 and live else []
        for s in samples:
            live[s["uuid"]] = s
        for u in deleted:
            live.pop(u)
        batches.append((samples, deleted))
    endpoint, uploaded, stop = Endpoint(), threading.Event(), threading.Event()
    added_seen, deleted_seen = [], []
    progress = threading.Condition()

    def phone():
        with httpx.Client(timeout=WAIT) as c:
            for samples, deleted in batches:
                body = json.dumps({"samples": samples, "deleted": deleted})
                r = retrying(endpoint, lambda url: c.post(f"{url}/v1/people/alice/changes", headers=auth(tok), content=body))
                assert r.status_code == 200, r.text
        uploaded.set()

    def consumer():
        anchor = "none"
        with httpx.Client(timeout=WAIT) as c:
            while not stop.is_set():
                r = retrying(endpoint, lambda url: c.get(f"{url}/v1/people/alice/changes", headers=auth(tok),
                                                         params={"anchor": anchor, "limit": 500, "wait": 0.5}))
                if r.status_code == 404:  # no upload has made the store yet
                    continue
                assert r.status_code == 200, r.text
                page = r.json()
                with progress:
                    added_seen.extend(s["uuid"] for s in page["samples"])
                    deleted_seen.extend(d["uuid"] for d in page["deleted"])
                    progress.notify_all()
                anchor = page["anchor"]

    threads = [threading.Thread(target=phone), threading.Thread(target=consumer)]
    for t in threads:
        t.start()
    kills = 0
    server = Server(data)
    try:
        while kills < KILLS and not uploaded.is_set():
            server.start()
            endpoint.set(server.url)
            # Let some requests through, then kill it at a random moment.
            server.wait_for_log(r" /v1/people/alice/changes ")
            time.sleep(rng.uniform(0, 0.05))
            endpoint.set(None)
            server.stop(signal.SIGKILL)
            kills += 1
        server.start()
        endpoint.set(server.url)
        assert uploaded.wait(WAIT * 5), "the uploads did not finish"
        with httpx.Client(timeout=WAIT) as c:
            final = c.get(f"{server.url}/v1/people/alice/changes", headers=auth(tok), params={"limit": 100000}).json()
        # The consumer catches up, then stops.
        with progress:
            progress.wait_for(lambda: set(added_seen) - set(deleted_seen) == set(live), timeout=WAIT)
        stop.set()
        for t in threads:
            t.join(WAIT)
    finally:
        server.stop()
    assert kills >= KILLS or uploaded.is_set()
    assert kills >= KILLS, f"the uploads finished after {kills} kills; make them longer"
    assert {s["uuid"] for s in final["samples"]} == set(live)
    assert len(added_seen) == len(set(added_seen)), "a sample was delivered twice"
    assert len(deleted_seen) == len(set(deleted_seen)), "a deletion was delivered twice"
    assert set(added_seen) - set(deleted_seen) == set(live)
