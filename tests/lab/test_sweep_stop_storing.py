"""The pool's stop path while a worker is storing a run: Ctrl-C then keeps the stored run whole and the store
readable.

A real worker process (``posenc.cluster``'s worker set-up, so its Ctrl-C handler is the pool's) stores a finished run
through ``posenc.lab.sweep._execute_and_store`` into a real SQLite store. The test holds the store's write lock, so
the worker waits inside the store's transaction; Ctrl-C arrives there; the lock is released. The run must be stored
whole (the worker ends after its transaction, with 130), never lost to a transaction cut at Ctrl-C.
"""

import signal
import sqlite3
import subprocess
import sys
import time

from posenc.lab.sweep import KIND
from posenc.lab.train import CODE_VERSION
from posenc.store import ResultStore

CONFIG = {"task": "copy", "encoding": "rope", "steps": 1}
METRICS = {"loss": 1.25, "acc": {"8": 0.5, "16": 0.25}}

WORKER = f"""
import os, sys
from posenc import cluster
from posenc.lab import sweep
from posenc.lab.train import RunResult

cluster._worker_init(os.getppid())          # a pool worker: Ctrl-C goes to the pool's handler
sweep._execute = lambda config, seed, *rest: RunResult(config, seed, {METRICS!r}, 0.5, setup={{"device": "cpu"}})
print("storing", flush=True)
sweep._execute_and_store({CONFIG!r}, 3, sys.argv[1], False, None, None, "cpu")
print("stored", flush=True)
"""


def test_ctrl_c_while_a_worker_stores_keeps_the_run_whole(tmp_path):
    path = tmp_path / "runs.sqlite"
    ResultStore(path)  # the schema, in WAL mode
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # the write lock: the worker's transaction waits for it
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline().strip() == "storing"
        time.sleep(1.5)  # inside the store's BEGIN IMMEDIATE, waiting (busy timeout 60 s)
        assert worker.poll() is None
        worker.send_signal(signal.SIGINT)
        time.sleep(0.5)
        lock.execute("ROLLBACK")  # the lock released: the worker's transaction goes on
        code = worker.wait(timeout=60)
    finally:
        lock.close()
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    out, err = worker.stdout.read(), worker.stderr.read()
    assert code == 130, (code, err)  # Ctrl-C ended the worker ...
    assert "stored" not in out  # ... right after the run was stored, before anything else
    record = ResultStore(path).get(KIND, CONFIG, 3, code=CODE_VERSION)
    assert record is not None and record.metrics == METRICS and record.status == "done"
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (1,)
    con.close()


def test_ctrl_c_before_a_worker_stores_ends_it_without_a_row(tmp_path):
    # the other side of the shield: Ctrl-C outside the storing block ends the worker at once, storing nothing
    path = tmp_path / "runs.sqlite"
    ResultStore(path)
    script = WORKER.replace('print("storing", flush=True)',
                            'print("storing", flush=True); import time; time.sleep(30)')
    worker = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline().strip() == "storing"
        worker.send_signal(signal.SIGINT)
        code = worker.wait(timeout=20)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert code == 130
    assert list(ResultStore(path).runs()) == []
