#!/usr/bin/env python3
"""The latency of `ohk mcp`'s tools, through the Python `mcp` client over
stdio (docs/benchmarks.md): the median and p90 of REPEAT calls of each,
after one warm-up call, in one session.

Usage: mcp_bench.py OHK STORE [REPEAT]
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CALLS = [
    ("statistics", {"type": "StepCount", "interval": "day", "time_zone": "UTC"}),
    ("statistics", {"type": "StepCount", "interval": "month", "by_source": True}),
    ("statistics", {"type": "HeartRate", "interval": "day", "statistics": ["average", "min", "max"]}),
    ("sleep", {}),
    ("latest", {"type": "HeartRate", "count": 10}),
    ("workouts", {"limit": 50}),
    ("store_summary", {}),
]


async def main(ohk: str, store: str, repeat: int) -> None:
    params = StdioServerParameters(command=ohk, args=["mcp", "--store", store])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=120) as s:
            await s.initialize()
            for name, arguments in CALLS:
                first = await s.call_tool(name, arguments)
                rows = json.loads(first.content[0].text)
                size = len(rows.get("rows", rows.get("workouts", rows.get("types", []))))
                seconds = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    await s.call_tool(name, arguments)
                    seconds.append(time.perf_counter() - t0)
                seconds.sort()
                print(json.dumps({"tool": name, "arguments": arguments, "rows": size,
                                  "median_ms": round(statistics.median(seconds) * 1e3, 2),
                                  "p90_ms": round(seconds[int(len(seconds) * 0.9)] * 1e3, 2)}))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20)
