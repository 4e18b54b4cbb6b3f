"""posenc.cluster: the executor and address checks, the process pool, and a private Ray that leaves no token."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from posenc.cluster import EXECUTORS, check_address, check_executor, process_pool
from posenc.errors import PosencError


def test_executors_and_addresses_are_checked_by_form():
    assert [check_executor(e) for e in EXECUTORS] == ["local", "ray"]
    with pytest.raises(PosencError, match="unknown executor 'dask'; valid executors are: local, ray"):
        check_executor("dask")
    assert check_address(None) == "auto"
    assert check_address("local") == "local"
    assert check_address("10.0.0.5:6379") == "10.0.0.5:6379"
    for bad in ("ray://head:10001", "head", ":6379", "head:port"):
        with pytest.raises(PosencError, match="is not HOST:PORT or 'auto'"):
            check_address(bad)
    with pytest.raises(PosencError, match="must be a string"):
        check_address(6379)


def _pid(_: int) -> int:
    return os.getpid()


def test_process_pool_runs_in_other_processes():
    with process_pool(2) as pool:
        pids = set(pool.map(_pid, range(8)))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


_PRIVATE = """
import os, sys
from posenc.cluster import connect_ray
ray, started = connect_ray("local")
print(started, ray.cluster_resources().get("CPU", 0) > 0, os.environ.get("RAY_AUTH_MODE"))
ray.shutdown()
"""


@pytest.mark.xdist_group("ray")
@pytest.mark.ray
def test_a_private_ray_writes_no_token(tmp_path):
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    env["HOME"] = str(tmp_path)  # Ray would write HOME/.ray/auth_token
    done = subprocess.run([sys.executable, "-c", _PRIVATE], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["True", "True", "None"]  # started, usable, the setting restored
    assert not (tmp_path / ".ray" / "auth_token").exists()
