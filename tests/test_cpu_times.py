"""tests/cpu_times.py (``pytest --cpu-times``): a phase's own CPU and its waited-for children's, summed by file."""

import json
import subprocess
import sys
import time

from cpu_times import CpuTimes


class _Item:
    nodeid = "tests/x/test_y.py::test_z"


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _run(phase_hook, item, work) -> None:
    steps = phase_hook(item)
    next(steps)
    work()
    for _ in steps:  # the hook wrapper ends after the phase
        pass


def test_a_phase_counts_its_own_cpu_and_its_childrens(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # as the run's main process (an xdist worker writes apart)
    times = CpuTimes(str(tmp_path / "cpu"))
    _run(times.pytest_runtest_call, _Item(), lambda: _burn(0.3))
    child = [sys.executable, "-c", "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"]
    _run(times.pytest_runtest_setup, _Item(), lambda: subprocess.run(child, check=True))
    times.pytest_sessionfinish()
    call, setup = (json.loads(line) for line in (tmp_path / "cpu-main.jsonl").read_text().splitlines())
    assert (call["id"], call["phase"], setup["phase"]) == (_Item.nodeid, "call", "setup")
    assert 0.3 <= call["cpu"] < 1.0 and call["child"] == 0.0  # CPU, not wall: a loaded machine cannot inflate it
    assert setup["child"] >= 0.3 and setup["cpu"] < setup["child"]  # the child's CPU is its own, not this process's

    class Reporter:
        lines: list[str] = []

        def write_line(self, line):
            self.lines.append(line)

    times.pytest_terminal_summary(Reporter())
    head, row = Reporter.lines
    assert f"call {call['cpu'] + call['child']:.1f}" in head and row.endswith("tests/x/test_y.py")
    assert float(row.split()[0]) == round(call["cpu"] + setup["cpu"] + setup["child"], 1)
