"""A sweep's worker processes exit when the sweep dies, even when it is killed with SIGKILL (no cleanup runs)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: the test starts a posenc sweep and its workers: fresh Python processes, 15 s or more of CPU
pytestmark = [pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc"),
              pytest.mark.slow]

CLI = [sys.executable, "-c", "import sys; from posenc.cli import main; sys.exit(main())"]


def _stat(pid: int) -> tuple[int, str] | None:
    """``(parent pid, state)`` of a live process, ``None`` when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    return int(fields[1]), fields[0]


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] == pid:
                out.append(int(entry.name))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] != "Z"  # a zombie has exited; only its exit status is left


def test_workers_exit_when_the_sweep_is_killed(tmp_path):
    grid = tmp_path / "long.json"
    grid.write_text(json.dumps({"base": {"task": "copy", "train_len": 4, "eval_lengths": [4], "d_model": 16,
                                         "n_layers": 1, "n_heads": 2, "batch_size": 8, "steps": 100_000},
                                "grid": {"encoding": ["nope", "rope", "alibi", "t5"]}}))
    proc = subprocess.Popen(CLI + ["sweep", "--grid", str(grid), "--store", str(tmp_path / "runs.sqlite"),
                                   "--workers", "2", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    everyone: set[int] = set()
    try:
        deadline = time.time() + 240
        workers: list[int] = []
        while time.time() < deadline and proc.poll() is None:
            workers = [p for p in _children(proc.pid) if "spawn_main" in _cmdline(p)]
            if len(workers) == 2 and all(_training(p) for p in workers):
                break
            time.sleep(0.2)
        assert len(workers) == 2 and proc.poll() is None, "the sweep should be running two workers"
        everyone = set(_children(proc.pid)) | set(workers)  # the workers and multiprocessing's resource tracker
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(p) for p in everyone):
            time.sleep(0.1)
        left = [(p, _cmdline(p)[:80]) for p in everyone if _alive(p)]
        assert not left, f"processes left running after the sweep was killed: {left}"
    finally:  # never leave this test's processes behind, whatever failed
        if proc.poll() is None:
            proc.kill()
        for pid in everyone | set(_children(proc.pid)):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _training(pid: int) -> bool:
    """A worker that has used a few seconds of CPU has imported torch and started training."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    ticks = int(fields[11]) + int(fields[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK") > 3.0
