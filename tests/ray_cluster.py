"""A real Ray cluster on this machine for the tests: a head node and, optionally, worker nodes, each started with
``ray start --block`` as its own process group and stopped (with every process it started) afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

#: how long a node may take to come up (seconds)
START_TIMEOUT_S = 90


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # --block: the node stops the processes it started
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _nodes_alive(address: str) -> int:
    """How many nodes the cluster at ``address`` reports alive (asked in a subprocess, so this process stays free
    to connect to Ray itself later)."""
    code = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR', log_to_driver=False); "
            "print(sum(n['Alive'] for n in ray.nodes()))")
    done = subprocess.run([sys.executable, "-c", code, address], capture_output=True, text=True, timeout=60)
    return int(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 and done.stdout.strip() else 0


@contextlib.contextmanager
def ray_cluster(workers: int = 0, cpus: int = 1) -> Iterator[str]:
    """A head with ``cpus`` CPUs plus ``workers`` worker nodes with ``cpus`` each; yields the head's ``HOST:PORT``."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray")  # short path: Ray's socket names must stay under 107 characters
    ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
    common = [f"--num-cpus={cpus}", "--disable-usage-stats", "--node-ip-address=127.0.0.1", "--block"]
    procs = [subprocess.Popen([ray_bin, "start", "--head", f"--port={port}", "--include-dashboard=false",
                               f"--temp-dir={temp}", *common], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.time() + START_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError(f"the Ray head did not open port {port} in {START_TIMEOUT_S} s") from None
                time.sleep(0.3)
        for _ in range(workers):
            procs.append(subprocess.Popen([ray_bin, "start", f"--address={address}", *common],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True))
        while workers and _nodes_alive(address) < 1 + workers:
            if time.time() > deadline:
                raise RuntimeError(f"the Ray cluster at {address} has fewer than {1 + workers} nodes after "
                                   f"{START_TIMEOUT_S} s")
            time.sleep(1)
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(temp, ignore_errors=True)
