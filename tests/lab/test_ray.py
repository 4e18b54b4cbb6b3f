"""The Ray executor against a one-CPU Ray head that the test starts (``ray start --head --block``) and stops."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from posenc.errors import PosencError
from posenc.lab import run_sweep, summarize

pytest.importorskip("ray")

TINY = {"task": "copy", "train_len": 3, "eval_lengths": [3, 6], "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 8, "eval_samples": 16, "steps": 3}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ray_head():
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray")  # short path: Ray's socket names must stay under 107 characters
    ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
    proc = subprocess.Popen([ray_bin, "start", "--head", "--block", f"--port={port}", "--num-cpus=1",
                             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
                             "--node-ip-address=127.0.0.1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.3)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # --block: the head stops the processes it started
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def test_ray_executor_runs_and_stores(ray_head, tmp_path):
    store = tmp_path / "runs.sqlite"
    spec = {"base": TINY, "grid": {"encoding": ["nope", "learned"]}}
    results = run_sweep(spec, store, executor="ray", address=ray_head, progress=False)
    assert [r.status for r in results] == ["done", "done"], [r.error for r in results]
    summary = summarize(store, spec)
    assert summary["missing"] == 0
    assert summary["series"]["copy"]["learned"]["6"]["cannot_run"] == 1
    again = run_sweep(spec, store, executor="ray", address=ray_head, progress=False)
    assert all(r.skipped for r in again)  # nothing pending: Ray is not even contacted


def test_unreachable_ray_address_fails_fast(tmp_path):
    port = _free_port()  # nothing listens here
    started = time.perf_counter()
    with pytest.raises(PosencError, match="cannot reach a Ray head"):
        run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "s.sqlite", executor="ray",
                  address=f"127.0.0.1:{port}", progress=False)
    assert time.perf_counter() - started < 30
    with pytest.raises(PosencError, match="HOST:PORT"):
        run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "s.sqlite", executor="ray",
                  address="not-an-address", progress=False)
