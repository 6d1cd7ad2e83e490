#!/usr/bin/env python3
"""Fails when a tracked file reaches outside the repository into ../shared.

The repository builds, tests and runs its quickstart from a clone with
nothing beside it. The one exception is the benchmarks' comparison with the
peer programs (`../shared/bench/peers`), which skips when they are absent.
Usage: scripts/check_self_contained.py   (run by `make test`)
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Any path into the folder beside the repository ("../shared/…", or
# "shared/data/…" and the like written without the "../").
REFERENCE = re.compile(r"(?:\.\./)+shared\b[^\s`'\")]*|(?<![\w./-])shared/(?:data|seeds|bench|DESIGN|STYLE)[^\s`'\")]*")
ALLOWED = re.compile(r"^(?:\.\./)+shared/bench/peers(?:/[\w.-]*)?$")


def main():
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    bad = []
    for name in filter(None, files):
        if name == "scripts/check_self_contained.py":
            continue
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in REFERENCE.finditer(line):
                if not ALLOWED.match(match.group(0).rstrip(".,;:")):
                    bad.append(f"{name}:{number}: {match.group(0)}")
    if bad:
        print("these lines reach outside the repository (only ../shared/bench/peers may):", file=sys.stderr)
        print("\n".join(bad), file=sys.stderr)
        return 1
    print(f"self-contained: {len(files) - 1} tracked files, no reference outside the repository but the peers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
