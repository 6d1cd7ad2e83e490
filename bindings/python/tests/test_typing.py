"""The package's annotations stay checkable: ``mypy --strict`` is clean on it.

The package ships py.typed, so its annotations are part of what users'
type checkers read. mypy runs from bindings/python, whose pyproject.toml
holds its configuration (pandas, an optional dependency without type
information, is not followed).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: bindings/python: the directory mypy runs in, for pyproject.toml.
PROJECT = Path(__file__).resolve().parent.parent


def test_mypy_strict_reports_no_errors() -> None:
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (`make py-deps` or `pip install mypy` installs it)")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "openhealthkit"],
                            cwd=PROJECT, capture_output=True, text=True, timeout=600)
    report = result.stdout + result.stderr
    errors = [line for line in report.splitlines() if ": error:" in line]
    assert not errors, report
    assert result.returncode == 0, report
