"""Installing a library over one that a running process has loaded
(issue 47): every install step writes a new file and renames it into
place (scripts/install_file.sh), so the running process keeps its copy.
Writing over it in place, as `cp` does, kills that process."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import openhealthkit

ROOT = Path(__file__).resolve().parents[3]
INSTALL_FILE = ROOT / "scripts" / "install_file.sh"
EXPORT_B = ROOT / "Tests" / "Fixtures" / "export-small-b.xml"

# Loads the library, says so, waits for a line, then runs code of the
# library it has not run yet (an import, a query and statistics).
HOLDER = """
import sys
import openhealthkit as ohk
assert ohk.__file__.startswith(sys.argv[3]), ohk.__file__
with ohk.HealthStore(sys.argv[1]) as store:
    print("loaded", flush=True)
    sys.stdin.readline()
    ohk.import_export(sys.argv[2], store)
    print(len(store.query("HKQuantityTypeIdentifierStepCount").samples), flush=True)
    print("ok", flush=True)
"""


def _hold_then_replace(tmp_path: Path, replace: list[str]) -> subprocess.CompletedProcess:
    """Starts a process on a private copy of the package, replaces its
    library with 4 KB of zeros by `replace` (the command, given the new
    file and the library's path), lets the process go on, and returns
    how it ended."""
    package = tmp_path / "site" / "openhealthkit"
    shutil.copytree(Path(openhealthkit.__file__).parent, package)
    library = package / "libopenhealthkit.so"
    assert library.exists(), "make python-lib places the library in the package"
    env = {k: v for k, v in os.environ.items() if k != "OPENHEALTHKIT_LIBRARY"}
    env["PYTHONPATH"] = str(package.parent)
    # From tmp_path: `python -c` puts its working directory first on sys.path.
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "store"), str(EXPORT_B), str(package)],
        env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline() == b"loaded\n"
        junk = tmp_path / "junk.so"
        junk.write_bytes(bytes(4096))
        subprocess.run([*replace, str(junk), str(library)], check=True)
        assert library.read_bytes() == bytes(4096)
        out, err = holder.communicate(b"go\n", timeout=120)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    return subprocess.CompletedProcess(holder.args, holder.returncode, out, err)


def test_installing_over_a_loaded_library_leaves_the_process_running(tmp_path):
    ended = _hold_then_replace(tmp_path, [str(INSTALL_FILE)])
    assert ended.returncode == 0, ended.stderr.decode()
    assert ended.stdout.split()[-1] == b"ok"
    assert int(ended.stdout.split()[-2]) > 0


def test_writing_over_a_loaded_library_in_place_kills_the_process(tmp_path):
    # The hazard the test above guards against: `cp` truncates the file
    # the process has mapped, and its next call into it faults.
    ended = _hold_then_replace(tmp_path, ["cp"])
    assert ended.returncode == -signal.SIGBUS
