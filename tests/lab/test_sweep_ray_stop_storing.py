"""The Ray executor's stop path while the driver stores a finished run: Ctrl-C then keeps that run, whole.

A real driver process runs a one-run sweep on a real one-CPU Ray head (tests/ray_cluster.py, started and seen alive
before the driver connects) into a real SQLite store. The test holds the store's write lock, so the driver waits inside the store's transaction with the run Ray
returned; Ctrl-C arrives there; the lock is released. The run must be stored whole and the sweep then stop as
Ctrl-C asks (``Interrupted``, saying the run is kept), never lose the run to a transaction cut at Ctrl-C.

The driver announces the moment it starts storing and waits for the test to take the lock (a print and a read
around the real ``store_result``); nothing else is replaced. It takes about 15 s of CPU and, under load, up to two
minutes (Ray's start), so it is marked ``slow`` as well as ``ray``.
"""

import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from posenc.lab.sweep import KIND
from posenc.lab.train import CODE_VERSION, RunConfig
from posenc.store import ResultStore
from ray_cluster import START_TIMEOUT_S, _nodes_alive, ray_cluster

pytest.importorskip("ray")

# ctrl_c_interrupts: the driver must start with Ctrl-C delivered, as a terminal gives it; run from a background job
# (`make test-slow &`) the test process, and so the driver, would inherit it ignored and the sweep would never see it
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.ray, pytest.mark.slow,
              pytest.mark.usefixtures("ctrl_c_interrupts")]

TINY = {"task": "copy", "train_len": 3, "eval_lengths": [3, 6], "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 8, "eval_samples": 16, "steps": 3, "encoding": "nope"}

DRIVER = f"""
import sys
from posenc.errors import Interrupted
from posenc.lab import sweep

real = sweep.store_result

def announced(store, result):
    print("storing", flush=True)
    sys.stdin.readline()  # the test takes the store's write lock meanwhile
    real(store, result)
    print("stored", flush=True)

sweep.store_result = announced
try:
    sweep.run_sweep({{"base": {TINY!r}, "grid": {{}}}}, sys.argv[1], executor="ray", address=sys.argv[2],
                    progress=False)
except Interrupted as exc:
    print("interrupted:", exc, flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def test_ctrl_c_while_the_driver_stores_a_ray_run_keeps_it_whole(tmp_path):
    path = tmp_path / "runs.sqlite"
    ResultStore(path)  # the schema, in WAL mode
    with ray_cluster() as address:
        deadline = time.monotonic() + START_TIMEOUT_S
        while _nodes_alive(address) < 1:  # the head's port opens before its node is registered
            assert time.monotonic() < deadline, f"no Ray node alive at {address}"
            time.sleep(1)
        lock = sqlite3.connect(path, isolation_level=None)
        driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(path), address], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert driver.stdout.readline().strip() == "storing", driver.stderr.read()[-3000:]
            lock.execute("BEGIN IMMEDIATE")  # the write lock: the driver's transaction waits for it
            driver.stdin.write("go\n")
            driver.stdin.flush()
            time.sleep(1.0)  # inside the store's BEGIN IMMEDIATE, waiting (busy timeout 60 s)
            assert driver.poll() is None
            driver.send_signal(signal.SIGINT)
            time.sleep(0.5)
            lock.execute("ROLLBACK")  # the lock released: the driver's transaction goes on
            code = driver.wait(timeout=60)
        finally:
            lock.close()
            if driver.poll() is None:
                driver.kill()
                driver.wait()
    out, err = driver.stdout.read(), driver.stderr.read()
    assert code == 130, (code, out, err[-3000:])  # Ctrl-C stopped the sweep ...
    assert out.splitlines()[0] == "stored"  # ... after the run was stored
    assert "1 of its 1 runs to run finished and are kept" in out
    config = RunConfig.from_dict(TINY).as_dict()
    record = ResultStore(path).get(KIND, config, 0, code=CODE_VERSION)
    assert record is not None and record.status == "done" and record.metrics
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (1,)
    con.close()
