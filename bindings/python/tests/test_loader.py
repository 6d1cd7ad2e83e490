"""Finding the library: next to the package, then $OPENHEALTHKIT_LIBRARY."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import openhealthkit as ohk
from openhealthkit import _native as n

PACKAGE = Path(ohk.__file__).resolve().parent
LIBRARY = PACKAGE / n.LIBRARY_NAME


def copy_without_library(tmp_path: Path) -> Path:
    target = tmp_path / "site" / "openhealthkit"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns(n.LIBRARY_NAME, "__pycache__"))
    return target.parent


def run(site: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != n.ENV_VARIABLE}
    environment.update(env, PYTHONPATH=str(site))
    return subprocess.run([sys.executable, "-c", "import openhealthkit as o; print(o.__version__)"],
                          capture_output=True, text=True, env=environment, cwd=site)


def test_missing_library_is_one_import_error_naming_every_place(tmp_path):
    site = copy_without_library(tmp_path)
    result = run(site, {n.ENV_VARIABLE: str(tmp_path / "nowhere.so")})
    assert result.returncode != 0 and "ImportError" in result.stderr
    assert str(site / "openhealthkit" / n.LIBRARY_NAME) in result.stderr
    assert str(tmp_path / "nowhere.so") in result.stderr
    unset = run(site, {})
    assert "$OPENHEALTHKIT_LIBRARY: not set" in unset.stderr


def test_the_environment_variable_is_used_when_the_package_has_no_library(tmp_path):
    site = copy_without_library(tmp_path)
    result = run(site, {n.ENV_VARIABLE: str(LIBRARY)})
    assert result.returncode == 0 and result.stdout.strip() == ohk.__version__


def test_a_library_of_another_abi_is_refused(monkeypatch):
    monkeypatch.setattr(n, "ABI_VERSION", n.ABI_VERSION + 1)
    with pytest.raises(ImportError, match="ABI version"):
        n.load()


def test_the_loaded_library_exports_only_what_the_header_declares():
    assert ohk.__version__.count(".") == 2
    assert n.lib.ohk_abi_version() == n.ABI_VERSION
