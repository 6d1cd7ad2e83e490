#!/usr/bin/env python3
"""The cache lines and pages one query touches, from valgrind's lackey.

    valgrind --tool=lackey --trace-mem=yes --log-fd=9 \\
        build/bench/delta_footprint DIR 9>&1 2>ERR >/dev/null | scripts/footprint.py ERR

lackey writes one line per instruction ("I  addr,size") and data access
(" L addr,size", " S …", " M …"). The driver (Benchmarks/c/delta_footprint.c)
prints to ERR, first, the addresses of its two marks (volatile ints it
reads just before and just after each query), and at the end the
process's maps. This keeps the accesses between the last pair of marks
and counts the distinct 64-byte lines and 4 KB pages they touch, code and
data apart, by the object they fall in (anonymous memory: the heap and the
stacks). Prints a table and one JSON line.
"""
import bisect
import json
import sys
from collections import defaultdict


def marks(err_path):
    """The marks' addresses, from the driver's first line; None until it
    is written (before the store opens, so long before the first query
    in the trace). The trace is read meanwhile: lackey waits on a full
    pipe, so a reader that waited for the line first would wait for ever."""
    try:
        with open(err_path) as f:
            first = f.readline()
    except FileNotFoundError:
        return None
    if not first.startswith("MARKS "):
        return None
    _, begin, end = first.split()[:3]
    return int(begin, 16), int(end, 16)


def mappings(err_path):
    """(start, end, object name) of each mapping the driver printed."""
    maps = []
    with open(err_path) as f:
        for line in f:
            if not line.startswith("MAP "):
                continue
            fields = line[4:].split()
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            name = fields[5].rsplit("/", 1)[-1] if len(fields) > 5 else "anonymous"
            maps.append((lo, hi, "anonymous" if name.startswith("[") else name))
    maps.sort()
    return maps


def main():
    err_path = sys.argv[1]
    found, seen = None, 0
    inside, queries = False, 0
    window = []  # (is_code, address, size) of the last query
    for line in sys.stdin:
        if not line or line[0] not in " I" or "," not in line:
            continue
        if found is None:
            seen += 1
            if seen % 100_000 == 1:
                found = marks(err_path)
            if found is None:
                continue
            begin, end = found
        kind, rest = line.split(None, 1)
        address, size = rest.split(",")
        a = int(address, 16)
        if kind == "L" and a == begin:
            inside, window, queries = True, [], queries + 1
            continue
        if kind == "L" and a == end:
            inside = False
            continue
        if inside:
            window.append((kind == "I", a, int(size)))
    if found is None:
        found = marks(err_path)
        sys.exit(f"footprint: no MARKS line in {err_path}" if found is None else "footprint: the trace ended early")
    if queries == 0:
        sys.exit("footprint: no query between the marks")
    maps = mappings(err_path)
    starts = [m[0] for m in maps]

    def owner(a):
        i = bisect.bisect_right(starts, a) - 1
        return maps[i][2] if i >= 0 and a < maps[i][1] else "unmapped"

    lines = {True: defaultdict(set), False: defaultdict(set)}
    pages = {True: defaultdict(set), False: defaultdict(set)}
    counts = {True: 0, False: 0}
    for code, a, size in window:
        o = owner(a)
        counts[code] += 1
        for line in range(a >> 6, ((a + size - 1) >> 6) + 1):
            lines[code][o].add(line)
        pages[code][o].add(a >> 12)
    figures = {"queries": queries, "instructions": counts[True], "data_accesses": counts[False]}
    for code, label in ((True, "code"), (False, "data")):
        total_lines = sum(len(v) for v in lines[code].values())
        total_pages = sum(len(v) for v in pages[code].values())
        figures[f"{label}_lines"], figures[f"{label}_pages"] = total_lines, total_pages
        print(f"{label}: {total_lines} lines in {total_pages} pages")
        for o in sorted(lines[code], key=lambda o: -len(lines[code][o])):
            print(f"  {o:32} {len(lines[code][o]):5} lines {len(pages[code][o]):4} pages")
    figures["lines"] = figures["code_lines"] + figures["data_lines"]
    figures["pages"] = figures["code_pages"] + figures["data_pages"]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
