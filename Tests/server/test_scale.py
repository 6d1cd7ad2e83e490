"""How many people one server holds (rule 66): a data folder of 10,000
people's stores under the default limit of 1,024 descriptors, with the
open-store set bounded and every store still reachable."""

from __future__ import annotations

import hashlib
import json
import os
import secrets

import httpx

from conftest import WAIT, Server, auth, ohk, quantity, upload

PEOPLE = int(os.environ.get("OHK_SCALE_PEOPLE", "10000"))


def test_rule_66_ten_thousand_people_fit_under_the_default_descriptor_limit(data):
    # One token a person would be 10,000 `ohk token create` runs: the
    # token file is written directly, as the command writes it.
    tokens, lines = {}, []
    for person in (f"p{p}" for p in range(PEOPLE)):
        tid, secret = secrets.token_hex(8), secrets.token_hex(24)
        grant = {"person": person, "app": "com.example.sync", "read": "all", "write": "all", "relay": True}
        lines.append(json.dumps({"id": tid, "hash": hashlib.sha256(secret.encode()).hexdigest(), "grant": grant,
                                 "created": 0}, sort_keys=True))
        tokens[person] = f"ohk_{tid}_{secret}"
    (data / ".ohk-tokens").write_text("\n".join(lines) + "\n")
    assert "com.example.sync" in ohk("token", "list", "--data", str(data)).stdout  # the file reads as the command's

    # The default open-store bound, from the descriptor limit.
    server = Server(data, "--no-sync", descriptors=1024).start()
    assert "at most 192 stores open" in server.lines[0]
    try:
        with httpx.Client(timeout=WAIT) as c:
            for person, tok in tokens.items():
                r = upload(c, server.url, person, tok, samples=[quantity(1, 10)])
                assert r.status_code == 200, (person, r.text)
            fds = len(os.listdir(f"/proc/{server.process.pid}/fd"))
            health = c.get(f"{server.url}/v1/health").json()
            # Every store answers, the first ones reopened after they were closed.
            for person in ["p0", "p1", f"p{PEOPLE // 2}", f"p{PEOPLE - 1}"]:
                read = c.get(f"{server.url}/v1/people/{person}/changes", headers=auth(tokens[person])).json()
                assert len(read["samples"]) == 1
    finally:
        assert server.stop() == 0
    assert len([d for d in data.iterdir() if d.is_dir()]) == PEOPLE
    assert health["openStores"] == 192 and fds < 1024, (health, fds)
