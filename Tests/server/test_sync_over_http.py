"""`ohk sync` with a side on `ohk serve` (rules 69 and 70, docs/sync.md):
a real export store → server → store, equal sample for sample; both
ways; and the refusals, each a clear error that writes nothing."""

from __future__ import annotations

import json

import httpx

from conftest import OHK, ROOT, WAIT, auth, ohk, token


def changes(store) -> dict[str, dict]:
    """Every live sample of a store directory, as `ohk changes` prints it, by UUID."""
    out = ohk("changes", "--since", "none", "--store", str(store)).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["added"]["uuid"]: r["added"] for r in rows if "added" in r}


def test_rule_69_a_real_export_goes_store_to_server_to_store_unchanged(server, data, tmp_path):
    origin, copy = tmp_path / "origin", tmp_path / "copy"
    for export in ("export-phone-and-garmin.xml", "export-small-a.xml", "export-small-b.xml"):
        ohk("import", "--store", str(origin), str(ROOT / "Tests" / "Fixtures" / export))
    relay = token(data, "alice", "org.example.sync", read="all", write="all", relay=True)
    url = f"{server.url}/v1/people/alice"
    up = ohk("sync", str(origin), url, "--token", relay, "--batch", "7")
    assert "verified" in up.stdout and "stores alike" in up.stdout, up.stdout
    down = ohk("sync", url, str(copy), "--token", relay)
    assert "verified" in down.stdout and "stores alike" in down.stdout, down.stdout
    source, copied = changes(origin), changes(copy)
    assert len(source) > 40 and copied == source
    # Back the other way: nothing new, and the server's store checks clean.
    back = ohk("sync", str(copy), url, "--token", relay)
    assert "0 added" in back.stdout and "stores alike" in back.stdout, back.stdout
    assert ohk("check", "--store", str(data / "alice")).returncode == 0
    # A deletion made in the copy reaches the origin through the server.
    victim = next(iter(copied))
    ohk("delete", victim, "--store", str(copy))
    ohk("sync", str(copy), url, "--token", relay)
    ohk("sync", url, str(origin), "--token", relay)
    assert victim not in changes(origin)


def test_rule_69_refusals_over_http_are_clear_and_write_nothing(server, data, tmp_path):
    store = tmp_path / "s"
    ohk("import", "--store", str(store), str(ROOT / "Tests" / "Fixtures" / "export-small-a.xml"))
    url = f"{server.url}/v1/people/alice"
    reader = token(data, "alice", "org.example.dashboard", read="all")
    relay = token(data, "alice", "org.example.sync", read="all", write="all", relay=True)
    carol = token(data, "carol", "org.example.dashboard", read="all")  # carol has no store yet
    first = ohk("sync", str(store), url, "--token", relay)
    assert "stores alike" in first.stdout, first.stdout
    ohk("add", "StepCount", "5", "--store", str(store))
    held = changes(data / "alice")
    cases = [
        (["sync", str(store), url, "--token", "not-a-token"], "401"),
        (["sync", str(store), url, "--token", reader], "relay"),
        (["sync", str(store), "http://127.0.0.1:1/v1/people/alice", "--token", relay], "onnect"),
        (["sync", str(store), f"{server.url}/v1/alice", "--token", relay], "not a store of ohk serve"),
        (["sync", f"{server.url}/v1/people/bob", str(tmp_path / "other"), "--token", relay], "another person"),
        (["sync", f"{server.url}/v1/people/carol", str(tmp_path / "other"), "--token", carol], "404"),
        (["sync", str(store), url, "--token", relay, "--types", "HeartRate"], "--from-scratch"),
    ]
    for args, text in cases:
        r = ohk(*args, check=False)
        assert r.returncode == 1 and text in r.stderr, (args, r.returncode, r.stderr)
    assert changes(data / "alice") == held


def test_rule_69_the_endpoints_refuse_bad_batches_and_other_checkpoints(server, data, tmp_path):
    relay = token(data, "alice", "org.example.sync", read="all", write="all", relay=True)
    with httpx.Client(timeout=WAIT) as c:
        url = f"{server.url}/v1/people/alice/replication"
        bad = c.post(url, params={"name": "x", "expected": "none"}, content=b"OHKR\x02garbage", headers=auth(relay))
        assert bad.status_code == 400 and "malformed" in bad.json()["error"]
        look = c.get(url + "/checkpoints", headers=auth(relay))
        assert look.status_code == 200 and look.json()["checkpoints"] == []
        assert c.get(url, params={"limit": "0"}, headers=auth(relay)).status_code == 400
        assert c.get(url, params={"after": "nonsense"}, headers=auth(relay)).status_code == 400
