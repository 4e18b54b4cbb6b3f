"""posenc.cluster: the executor and address checks, the process pool, and a private Ray that leaves no token."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from posenc.cluster import (
    EXECUTORS,
    RAY_CONNECT_TIMEOUT_S,
    check_address,
    check_executor,
    check_reachable,
    connect_ray,
    process_pool,
    why_a_worker_died,
)
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


def test_a_head_that_refuses_is_named_at_once():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends
    for check in (check_reachable, connect_ray):
        start = time.monotonic()
        with pytest.raises(PosencError, match=f"cannot reach a Ray head at 127.0.0.1:{port} \\(.*refused"):
            check(f"127.0.0.1:{port}")
        assert time.monotonic() - start < 1.0  # refused before ray is imported
    assert check_reachable("auto") == "auto" and check_reachable("local") == "local"  # left to Ray


def test_a_head_that_does_not_answer_is_refused_after_the_timeout():
    # a listener whose backlog is full: the kernel drops further connection requests unanswered, as a host behind a
    # firewall that drops packets does
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        waiting = []
        for _ in range(3):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(("127.0.0.1", port))
            waiting.append(client)
        time.sleep(0.2)
        try:
            start = time.monotonic()
            with pytest.raises(PosencError, match=f"127.0.0.1:{port} \\(no answer within 0.5 s"):
                check_reachable(f"127.0.0.1:{port}", timeout=0.5)
            assert 0.4 < time.monotonic() - start < 2.0
        finally:
            for client in waiting:
                client.close()
    assert RAY_CONNECT_TIMEOUT_S <= 3.0  # the default refuses a silent head within seconds


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
@pytest.mark.slow  # starts a Ray cluster of its own (about 18 s)
def test_a_private_ray_writes_no_token(tmp_path):
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    env["HOME"] = str(tmp_path)  # Ray would write HOME/.ray/auth_token
    done = subprocess.run([sys.executable, "-c", _PRIVATE], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["True", "True", "None"]  # started, usable, the setting restored
    assert not (tmp_path / ".ray" / "auth_token").exists()


def _sleep_then_pid(seconds: float) -> int:
    import time

    time.sleep(seconds)
    return os.getpid()


def test_leaving_the_pool_by_an_exception_stops_it_at_once():
    # before, leaving the block waited for every submitted task (hours of runs after a Ctrl-C)
    import time

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with process_pool(2) as pool:
            pool.submit(_pid, 0).result()  # the workers are up
            futures = [pool.submit(_sleep_then_pid, 600) for _ in range(6)]
            processes = list(pool._processes.values())
            manager = pool._executor_manager_thread
            time.sleep(0.5)
            raise KeyboardInterrupt
    assert time.monotonic() - started < 120  # not 600 s per task
    # the executor's own thread has ended with the block: left to the interpreter's exit, it can close its pipes
    # while the exit wakes it, and Python 3.11 prints a traceback after posenc's message (seen under load)
    assert not manager.is_alive()
    deadline = time.monotonic() + 5  # a killed worker is reaped by its parent shortly after the block ends
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(not p.is_alive() for p in processes)
    # none of the six ran to its end: those not yet handed to the workers were cancelled (how many the pool had
    # already moved to its call queue depends on its feeder thread's timing), the rest died with their workers
    assert any(f.cancelled() for f in futures)
    assert not any(f.done() and not f.cancelled() and f.exception() is None for f in futures)


_SHIELDED = """
import os, signal, sys, time
from posenc.cluster import _on_interrupt, finish_before_interrupt
signal.signal(signal.SIGINT, _on_interrupt)  # what a pool worker installs
with finish_before_interrupt():
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while a result is being stored
    time.sleep(0.2)
    print("stored", flush=True)
print("not reached", flush=True)
"""


def test_a_worker_finishes_storing_before_ctrl_c_ends_it():
    done = subprocess.run([sys.executable, "-c", _SHIELDED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 130 and done.stdout.split() == ["stored"], done.stderr[-2000:]


_WARNING_IN_A_WORKER = """
import warnings
from posenc.cluster import process_pool

def warn(_):
    warnings.warn("a library's warning, once per worker", RuntimeWarning)
    return 1

if __name__ == "__main__":
    with process_pool(2) as pool:
        print(sum(pool.map(warn, range(4))))
"""


def test_pool_workers_print_no_library_warnings(tmp_path):
    # a library's warning (a kernel that cannot be built, a registration notice) came once per worker, between the
    # progress lines; the parent speaks for the pool
    script = tmp_path / "warn.py"
    script.write_text(_WARNING_IN_A_WORKER)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["4"], done.stderr[-2000:]
    assert "a library's warning" not in done.stderr


def test_the_executors_are_a_registry_that_suggests_the_closest(capsys):
    from posenc.cli import main
    from posenc.names import UnknownName

    with pytest.raises(UnknownName, match="Did you mean 'ray'"):
        check_executor("rya")
    assert main(["sweep", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(f"{name}: {what}" in help_text for name, what in EXECUTORS.items())  # the help reads the table


@pytest.mark.parametrize(("main_file", "hint"), [
    ("/home/me/sweep_them.py", True),  # python sweep_them.py: a script that may lack the guard
    ("/x/site-packages/pytest/__main__.py", False),  # python -m ...: a module's main, guarded by convention
    ("/x/.venv/bin/posenc", False),  # a console command
    (None, False),  # an interactive session
])
def test_a_dead_worker_is_explained_with_the_missing_guard_only_where_a_script_runs(monkeypatch, main_file, hint):
    import types

    main = types.ModuleType("__main__")
    if main_file is not None:
        main.__file__ = main_file
    monkeypatch.setitem(sys.modules, "__main__", main)
    why = why_a_worker_died()
    assert why.startswith("killed from outside, or out of memory")
    assert ("if __name__ == \"__main__\":" in why) is hint
    assert (main_file is not None and main_file in why) is hint  # the script is named where it is the cause


_NO_GUARD = """
import sys
from posenc.lab.sweep import run_sweep

TINY = {"task": "copy", "encoding": "rope", "d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 4,
        "train_len": 4, "eval_lengths": [4], "eval_samples": 4, "steps": 2, "warmup": 1}
run_sweep({"base": TINY, "grid": {"encoding": ["rope", "alibi"]}}, sys.argv[1], workers=2, progress=False, threads=1)
"""


@pytest.mark.slow  # two spawned workers that import torch and fail (about 10 s)
def test_a_script_that_starts_a_sweep_without_the_guard_is_told_so(tmp_path):
    script = tmp_path / "no_guard.py"
    script.write_text(_NO_GUARD)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "runs.sqlite")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("posenc.errors.PosencError: a worker process of sweep") and str(script) in last, last
