"""Ctrl-C on ``posenc sweep --workers 2``: the real command, a real process pool, a real SIGINT.

The pool stops within seconds (runs in progress are ended, runs not started never start), every finished run stays in
the store, the command says how many finished and how to resume, and it exits with 130. Before, the runs in progress
died and every remaining run still started; a SIGINT to the sweep alone waited for all of them.
"""

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: each test starts a posenc sweep and its two workers: three fresh Python processes, 15 s or more of CPU
pytestmark = [pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc"),
              pytest.mark.slow]

CLI = [sys.executable, "-c", "import sys; from posenc.cli import main; sys.exit(main())"]
TINY = {"task": "copy", "train_len": 4, "eval_lengths": [4], "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 8, "eval_samples": 4, "warmup": 1}
#: two runs that finish at once, then four that would take hours
VARIANTS = [{"encoding": "nope", "steps": 2}, {"encoding": "rope", "steps": 2}] + [
    {"encoding": name, "steps": 1_000_000} for name in ("alibi", "t5", "sinusoidal", "learned")]


def _done(store: Path) -> int:
    try:
        con = sqlite3.connect(store, timeout=1)
        try:
            return con.execute("SELECT count(*) FROM runs WHERE status = 'done'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not created yet
        return 0


def _rows(store: Path) -> list[tuple[str, str]]:
    con = sqlite3.connect(store)
    try:
        return [(json.loads(config)["model"]["encoding"], status) for config, status in
                con.execute("SELECT config, status FROM runs ORDER BY id")]
    finally:
        con.close()


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (the pool's workers and multiprocessing's helpers)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:100]
    except OSError:
        return ""


def _terminal_signals() -> None:
    """In the child, before it runs: Ctrl-C as a terminal gives it (the default action, not blocked), whatever the
    test runner's process had set (a runner that ignores or blocks SIGINT passes that on to the processes it starts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ignoring_signals() -> None:
    """In the child, before it runs: Ctrl-C ignored, as in a background job of a shell script."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


@contextlib.contextmanager
def _sweep_at_its_long_runs(tmp_path: Path, preexec):
    """A real ``posenc sweep --workers 2`` (its child set up by ``preexec``) whose two short runs are stored and whose
    pool has moved on to the long ones; yields ``(process, store, the processes below it then)``. Whatever of them
    is still alive at the end is killed."""
    grid, store = tmp_path / "grid.json", tmp_path / "runs.sqlite"
    grid.write_text(json.dumps({"base": TINY, "grid": {"variant": VARIANTS}}))
    proc = subprocess.Popen(CLI + ["sweep", "--grid", str(grid), "--store", str(store), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=preexec)
    everyone: set[int] = set()
    try:
        deadline = time.time() + 300
        while _done(store) < 2 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
        assert _done(store) == 2 and proc.poll() is None, "the two short runs should be stored, the sweep running"
        time.sleep(1.0)  # the pool has moved on to the long runs
        everyone |= _descendants(proc.pid)
        yield proc, store, everyone
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        for pid in everyone:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("to", ["group", "sweep"])
def test_ctrl_c_stops_the_pool_keeps_finished_runs_and_says_how_to_resume(tmp_path, to):
    with _sweep_at_its_long_runs(tmp_path, _terminal_signals) as (proc, store, everyone):
        started = time.monotonic()
        if to == "group":  # what a terminal's Ctrl-C does: every process of the foreground group gets SIGINT
            os.killpg(proc.pid, signal.SIGINT)
        else:  # the sweep alone
            os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)  # hours of runs were waiting: this would not end before
        elapsed = time.monotonic() - started
        deadline = time.time() + 5  # multiprocessing's resource tracker ends once the sweep's end closes its pipe
        while time.time() < deadline and any(_alive(pid) for pid in everyone):
            time.sleep(0.1)
        left = [(pid, _cmdline(pid)) for pid in everyone if _alive(pid)]  # read before the cleanup kills them
    assert proc.returncode == 130, err[-2000:]
    assert elapsed < 5, f"stopping took {elapsed:.1f} s"  # measured: 0.7 to 1.0 s on 2 busy cores
    assert "Traceback" not in err
    assert (f"sweep grid interrupted: 2 of its 6 runs to run finished and are kept in {store} (beside the 0 stored "
            f"before); run the same command again to run the 4 still missing") in err
    assert sorted(_rows(store)) == [("nope", "done"), ("rope", "done")]  # kept, and nothing else was stored
    assert not left, f"processes left running: {left}"


def test_a_sweep_started_with_ctrl_c_ignored_keeps_its_workers_through_a_group_sigint(tmp_path):
    """Started with SIGINT ignored (a background job of a script), the sweep ignores a SIGINT to its group, and so do
    its workers: before, the workers ended and the sweep, which went on, reported them dead."""
    with _sweep_at_its_long_runs(tmp_path, _ignoring_signals) as (proc, _, everyone):
        workers = {pid for pid in everyone if "multiprocessing.spawn" in _cmdline(pid)}
        assert len(workers) == 2, [(pid, _cmdline(pid)) for pid in everyone]
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(3.0)
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert all(_alive(pid) for pid in workers)
