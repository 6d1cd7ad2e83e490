"""`ohk` run as a user runs it, on the real-export fixtures, with real
readers of what it writes (DuckDB, pyarrow, the `mcp` client).

The ohk binary is $OHK_BIN, else the debug build of this checkout (built
by `make cli-test`). Parquet goes through the Python package of this
checkout (PYTHONPATH), with the library `make python-lib` placed in it.
Nothing here is mocked or skipped: a missing reader fails the test.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OHK = os.environ.get("OHK_BIN", str(ROOT / ".build" / "debug" / "ohk"))
FIXTURES = ROOT / "Tests" / "Fixtures"
WAIT = 120  # generous bound for one command

STEPS = "HKQuantityTypeIdentifierStepCount"


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "bindings" / "python"), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def ohk(*args: str, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    done = subprocess.run([OHK, *args], capture_output=True, text=True, timeout=WAIT, env=environment(**env))
    if check and done.returncode != 0:
        raise AssertionError(f"ohk {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


@pytest.fixture
def store(tmp_path) -> Path:
    """A store holding two real exports: an iPhone's, and a phone's and a
    Garmin's steps of one day (three sources)."""
    path = tmp_path / "store"
    for name in ("export-small-b.xml", "export-phone-and-garmin.xml"):
        ohk("import", "--store", str(path), str(FIXTURES / name))
    return path
