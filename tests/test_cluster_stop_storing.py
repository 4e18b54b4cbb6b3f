"""The process pool's stop path (``posenc.cluster.process_pool`` left by Ctrl-C) while a worker is storing a run.

A real pool of one spawned worker stores a run through ``posenc.lab.sweep._execute_and_store`` into a real SQLite
store whose write lock the test holds, so the worker waits inside the store's transaction. The test then leaves the
pool's block with a KeyboardInterrupt, as Ctrl-C in the parent does: the pool interrupts the worker and kills it after
``STOP_GRACE_S``. A lock released within that grace lets the worker store the run whole and end with 130; a lock held
past it gets the worker killed with nothing stored, and the store stays readable either way.
(``tests/lab/test_sweep_stop_storing.py`` sends Ctrl-C to a worker started by hand; here the pool sends it.)
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from posenc import cluster
from posenc.lab.sweep import KIND
from posenc.lab.train import CODE_VERSION
from posenc.store import ResultStore

CONFIG = {"task": "copy", "encoding": "rope", "steps": 1}
METRICS = {"loss": 1.25, "acc": {"8": 0.5}}


pytestmark = pytest.mark.usefixtures("ctrl_c_interrupts")


def _store_one(store_path: str, marker: str):
    """In the worker: a finished run (no training) stored the way the sweep stores it; ``marker`` says it began."""
    from posenc.lab import sweep
    from posenc.lab.train import RunResult

    sweep._execute = lambda config, seed, *rest: RunResult(config, seed, METRICS, 0.5, setup={"device": "cpu"})
    Path(marker).write_text("storing")
    return sweep._execute_and_store(CONFIG, 3, store_path, False, None, None, "cpu")


def _stop_while_storing(tmp_path: Path, release_after: float | None) -> tuple[list[int | None], float]:
    """Leave a pool by KeyboardInterrupt while its worker waits on the store's write lock, released ``release_after``
    seconds into the stop (``None``: after the pool has stopped). The workers' exit codes and the stop's seconds."""
    path, marker = tmp_path / "runs.sqlite", tmp_path / "storing"
    ResultStore(path)
    lock = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    lock.execute("BEGIN IMMEDIATE")
    released = threading.Event()

    def release() -> None:
        if not released.is_set():
            released.set()
            lock.execute("ROLLBACK")

    processes: list = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with cluster.process_pool(1) as pool:
                future = pool.submit(_store_one, str(path), str(marker))
                deadline = time.monotonic() + 60
                while not marker.exists():
                    assert time.monotonic() < deadline and not future.done(), "the worker never began storing"
                    time.sleep(0.05)
                time.sleep(0.5)  # inside the store's BEGIN IMMEDIATE, waiting for the lock (busy timeout 60 s)
                assert not future.done()
                processes = list(pool._processes.values())
                if release_after is not None:
                    threading.Timer(release_after, release).start()
                started = time.monotonic()
                raise KeyboardInterrupt
        stopped = time.monotonic() - started
    finally:
        release()
        lock.close()
    return [p.exitcode for p in processes], stopped


def test_a_run_being_stored_when_the_pool_stops_is_stored_whole(tmp_path):
    codes, seconds = _stop_while_storing(tmp_path, release_after=1.0)
    assert codes == [130]  # interrupted, and ended by the interrupt once the run was stored (not killed: -9)
    assert 1.0 <= seconds < cluster.STOP_GRACE_S + 1.5
    store = ResultStore(tmp_path / "runs.sqlite")
    record = store.get(KIND, CONFIG, 3, code=CODE_VERSION)
    assert record is not None and record.metrics == METRICS and record.status == "done"
    con = sqlite3.connect(tmp_path / "runs.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (1,)
    con.close()


def test_a_worker_still_waiting_after_the_grace_period_is_killed_and_nothing_half_stored(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "STOP_GRACE_S", 1.0)
    codes, seconds = _stop_while_storing(tmp_path, release_after=None)
    assert codes == [-9]  # SIGKILL after the grace period: Ctrl-C alone did not end it (it was storing)
    assert 1.0 <= seconds < 4.0
    con = sqlite3.connect(tmp_path / "runs.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
    con.close()
    assert list(ResultStore(tmp_path / "runs.sqlite").runs()) == []
