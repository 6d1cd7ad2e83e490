"""`ohk mcp` driven by a real MCP client, the Python `mcp` package over
stdio, on the real-export fixtures: every tool, its figures against
`ohk stats`, a change made while it runs, bounded answers and errors
(rule 74; docs/mcp.md)."""

from __future__ import annotations

import csv
import io
import json

import anyio
import pytest
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import OHK, STEPS, WAIT, ohk

TOOLS = {"store_summary", "statistics", "latest", "workouts", "sleep", "changes_since"}


def session(store, tmp_path, body):
    """Runs `body(session)` against `ohk mcp --store STORE`; its result."""
    async def run():
        params = StdioServerParameters(command=OHK, args=["mcp", "--store", str(store)])
        with open(tmp_path / "mcp.stderr", "w") as errors:
            async with stdio_client(params, errlog=errors) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=WAIT) as s:
                    await s.initialize()
                    return await body(s)
    return anyio.run(run)


def answer(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def stats_json(store, *args) -> list[dict]:
    return json.loads(ohk("stats", "--store", str(store), *args, "--utc-offset", "0", "--format", "json").stdout)


def test_rule_74_the_tools_answer_what_ohk_stats_prints(store, tmp_path):
    ohk("add", "--store", str(store), "SleepAnalysis", "AsleepCore", "--start", "2017-10-21T23:00:00Z",
        "--end", "2017-10-22T06:30:00Z")

    async def body(s):
        listed = (await s.list_tools()).tools
        out = {"tools": listed}
        for name, arguments in [
            ("store_summary", {}),
            ("statistics", {"type": "StepCount", "interval": "day", "time_zone": "UTC"}),
            ("statistics", {"type": "StepCount", "interval": "day", "by_source": True, "time_zone": "UTC"}),
            ("statistics", {"type": "HeartRate", "statistics": ["average", "max"], "unit": "count/min"}),
            ("latest", {"type": "StepCount", "count": 3}),
            ("workouts", {"limit": 2}),
            ("sleep", {}),
            ("changes_since", {}),
        ]:
            out.setdefault(name, []).append(answer(await s.call_tool(name, arguments)))
        return out

    got = session(store, tmp_path, body)
    assert {t.name for t in got["tools"]} == TOOLS
    assert all(t.input_schema["type"] == "object" for t in got["tools"])

    summary = got["store_summary"][0]
    counts = json.loads(ohk("stats", "--store", str(store), "--format", "json").stdout)["types"]
    assert {t["type"]: t["samples"] for t in summary["types"]} == {k: v["samples"] for k, v in counts.items()}
    assert summary["times"] == "UTC, ISO 8601"

    merged, by_source, heart = got["statistics"]
    for mine, theirs in ((merged, stats_json(store, "StepCount", "--by", "day")),
                         (by_source, stats_json(store, "StepCount", "--by", "day", "--by-source")),
                         (heart, stats_json(store, "HeartRate", "--by", "day", "--average", "--max", "--unit", "count/min"))):
        # Three years of days: the first 500, and how many there are.
        assert mine["rows"] == theirs[:500] and mine["rowCount"] == len(theirs)
        assert ("cut" in mine) == (len(theirs) > 500)
    assert merged["timeZone"] == "UTC" and any(r.get("sum") for r in merged["rows"])
    assert all(r["unit"] == "count/min" for r in heart["rows"])

    latest = got["latest"][0]
    starts = [s["start"] for s in latest["samples"]]
    assert len(starts) == 3 and starts == sorted(starts, reverse=True) and latest["samples"][0]["unit"] == "count"

    workouts = got["workouts"][0]
    assert len(workouts["workouts"]) == 2 and workouts["matching"] == 5
    assert "cut" in workouts and workouts["workouts"][0]["start"] >= workouts["workouts"][1]["start"]

    sleep = got["sleep"][0]
    assert sleep["rows"] == stats_json(store, "SleepAnalysis", "--by", "day")

    changes = got["changes_since"][0]
    assert sum(changes["added"].values()) == sum(v["samples"] for v in counts.values()) and not changes["more"]


def test_rule_74_a_change_committed_while_it_runs_shows_at_the_next_call(store, tmp_path):
    async def body(s):
        first = answer(await s.call_tool("changes_since", {}))
        added = ohk("add", "--store", str(store), "HeartRate", "64", "--unit", "count/min",
                    "--start", "2024-03-02T08:00:00Z", "--end", "2024-03-02T08:00:00Z").stdout.strip()
        later = answer(await s.call_tool("changes_since", {"anchor": first["anchor"]}))
        latest = answer(await s.call_tool("latest", {"type": "HeartRate"}))
        return added, later, latest

    added, later, latest = session(store, tmp_path, body)
    assert later["added"] == {"HKQuantityTypeIdentifierHeartRate": 1}
    assert later["changes"][0]["uuid"] == added and later["changes"][0]["value"] == 64
    assert latest["samples"][0]["value"] == 64 and latest["samples"][0]["unit"] == "count/min"


def test_rule_74_answers_are_bounded_and_say_how_to_ask_for_the_rest(store, tmp_path):
    # Two months by hour: 1,464 intervals, three answers, each saying where the next starts.
    async def body(s):
        pages, since = [], "2014-09-01"
        while True:
            page = answer(await s.call_tool("statistics", {"type": "StepCount", "interval": "hour",
                                                           "from": since, "to": "2014-10-31"}))
            pages.append(page)
            if "cut" not in page:
                return pages
            since = page["cut"].split("from=")[1].split(",")[0]

    pages = session(store, tmp_path, body)
    assert [len(p["rows"]) for p in pages] == [500, 500, 464]
    assert pages[0]["rowCount"] == 61 * 24
    rows = [r for p in pages for r in p["rows"]]
    assert rows == stats_json(store, "StepCount", "--by", "hour", "--from", "2014-09-01", "--to", "2014-10-31")


def test_bad_input_is_a_tool_error_and_an_unknown_tool_a_protocol_error(store, tmp_path):
    async def body(s):
        results = [await s.call_tool("statistics", {"type": "NoSuchType"}),
                   await s.call_tool("statistics", {"type": "StepCount", "unit": "kg"}),
                   await s.call_tool("statistics", {"type": "StepCount", "time_zone": "Mars/Olympus"}),
                   await s.call_tool("statistics", {"type": "StepCount", "from": "2024-05-01", "to": "2024-04-01"}),
                   await s.call_tool("latest", {"type": "StepCount", "count": 0}),
                   await s.call_tool("changes_since", {"anchor": "not-an-anchor"}),
                   await s.call_tool("latest", {})]
        with pytest.raises(MCPError) as unknown:
            await s.call_tool("delete_everything", {})
        return results, unknown.value.error.code

    results, code = session(store, tmp_path, body)
    assert all(r.is_error for r in results), [r.content[0].text for r in results if not r.is_error]
    texts = [r.content[0].text for r in results]
    assert "unknown type 'NoSuchType'" in texts[0] and "store_summary" in texts[0]
    assert "does not measure" in texts[1]
    assert "required" in texts[-1]
    assert code == -32602
