"""The PostgreSQL sink from Python (rule 61), against a throwaway cluster
started by scripts/pg_cluster.sh: a machine where it cannot start fails
these tests, never skips them."""

from __future__ import annotations

import itertools
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

import openhealthkit as ohk
from conftest import WAIT, steps

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "pg_cluster.sh"
_databases = itertools.count()


class Cluster(str):
    """The cluster's URL, and its folder for a restart."""
    folder: str

    def restart(self) -> None:
        done = subprocess.run(["bash", str(SCRIPT), "restart", f"{self.folder}/pg"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def cluster():
    folder = tempfile.mkdtemp(prefix="ohk-pg-")
    Path(folder).chmod(0o711)  # the server's user (nobody, under root) must reach it
    started = subprocess.run(["bash", str(SCRIPT), "start", f"{folder}/pg"], capture_output=True, text=True)
    assert started.returncode == 0, f"cannot start PostgreSQL: {started.stderr}"
    url = Cluster(started.stdout.strip().splitlines()[-1])
    url.folder = folder
    yield url
    subprocess.run(["bash", str(SCRIPT), "stop", f"{folder}/pg"], capture_output=True)
    subprocess.run(["rm", "-rf", folder])


def psql(url: str, sql: str) -> str:
    done = subprocess.run(["psql", url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def database(cluster):
    name = f"py_{next(_databases)}"
    psql(cluster, f"CREATE DATABASE {name}")
    return cluster.rsplit("/", 1)[0] + "/" + name


def test_rule_61_python_delivers_each_change_once(store, database):
    saved = [steps(i, value=i + 1) for i in range(30)]
    store.save(saved)
    store.delete(saved[3:5])
    seen = []
    with ohk.PostgresSink(store, database, person="py", batch=8) as sink:
        done = sink.deliver(progress=seen.append)
    assert done.saves == 28 and done.deletions == 2 and done.lag == 0
    assert [p.batches for p in seen] == list(range(1, len(seen) + 1)) and len(seen) == 4
    rows = psql(database, "SELECT count(*), sum(value) FROM ohk_samples WHERE person = 'py'")
    assert rows == f"28|{sum(range(1, 31)) - 4 - 5}"
    assert psql(database, "SELECT count(*) FROM ohk_changes") == "30"
    # A second sink of the same name resumes from PostgreSQL's checkpoint and fences the first.
    first = ohk.PostgresSink(store, database, person="py")
    second = ohk.PostgresSink(store, database, person="py")
    store.save([steps(100)])
    with pytest.raises(ohk.SinkFencedError, match="fenced off"):
        first.deliver()
    assert second.deliver().saves == 1
    first.close()
    second.close()
    with pytest.raises(ohk.ClosedError):
        second.deliver()


def test_rule_61_python_follow_stops_when_asked_and_errors_are_typed(store, database, cluster):
    store.save([steps(0)])
    sink = ohk.PostgresSink(store, database, person="follow")
    stop = threading.Event()
    result = []
    thread = threading.Thread(target=lambda: result.append(sink.follow(lambda p: stop.is_set())))
    thread.start()
    store.save([steps(1), steps(2)])
    # Waits on the event the sink makes visible: the rows in PostgreSQL.
    for _ in range(int(WAIT / 0.05)):
        if psql(database, "SELECT count(*) FROM ohk_samples") == "3":
            break
        threading.Event().wait(0.05)
    assert psql(database, "SELECT count(*) FROM ohk_samples") == "3"
    stop.set()
    thread.join(WAIT)
    assert not thread.is_alive() and result[0].saves == 3
    sink.close()

    port = cluster.rsplit(":", 1)[1].split("/")[0]
    with pytest.raises(ohk.SinkConnectError) as refused:
        ohk.PostgresSink(store, f"postgresql://ohk:not-the-password@127.0.0.1:{port}/postgres")
    assert "not-the-password" not in str(refused.value) and "***" in str(refused.value)
    with pytest.raises(ohk.ArgumentTypeError):
        ohk.PostgresSink(store, database, batch=0)


def test_rule_61_python_refused_rows_lost_connections_and_other_stores(store, database, cluster, tmp_path):
    with ohk.PostgresSink(store, database, person="faults") as sink:
        # A constraint of the database's own refuses a row: the batch rolls back, the sample is named.
        psql(database, "ALTER TABLE ohk_samples ADD CONSTRAINT small_values CHECK (value < 100)")
        big = steps(1, value=500)
        store.save([steps(0, value=5), big])
        with pytest.raises(ohk.SinkRefusedError, match=str(big.uuid).upper()) as refused:
            sink.deliver()
        assert "rolled back" in str(refused.value)
        assert psql(database, "SELECT count(*) FROM ohk_samples") == "0"
        psql(database, "ALTER TABLE ohk_samples DROP CONSTRAINT small_values")
        assert sink.deliver().saves == 2

        # A server restart breaks the connection; the next call reconnects and resumes.
        cluster.restart()
        store.save([steps(2)])
        with pytest.raises(ohk.SinkConnectionLostError, match="committed stays"):
            sink.deliver()
        assert sink.deliver().saves == 3
        assert psql(database, "SELECT count(*) FROM ohk_changes") == "3"

    # The same name and person fed by another store.
    with ohk.HealthStore(tmp_path / "other", durable=False) as other:
        with pytest.raises(ohk.SinkCheckpointError, match="another --name or --person"):
            ohk.PostgresSink(other, database, person="faults")
