"""``pytest --cpu-times PREFIX``: the CPU time of each test's set-up, call and teardown and of each module's collection.

On a shared machine the wall time of a test says more about the load than about the test, so this records CPU time:
the process's own (every thread) plus that of the child processes it waited for (a CLI run in a subprocess, a
training worker). Each process (each xdist worker) writes one JSON line per phase to ``PREFIX-<worker>.jsonl``, and
the run ends with the files summed by test file. docs/testing.md says how the suite was measured with it.
"""

from __future__ import annotations

import glob
import json
import os
import resource
import time
from collections import defaultdict

import pytest

PHASES = ("collect", "setup", "call", "teardown")


def _cpu() -> tuple[float, float]:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime


class CpuTimes:
    """Records phases as they end (a run stopped part way keeps what it measured)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self._file = None

    def _write(self, nodeid: str, phase: str, start: tuple[float, float], wall: float) -> None:
        own, children = _cpu()
        if self._file is None:
            self._file = open(f"{self.prefix}-{self.worker}.jsonl", "w", encoding="utf-8", buffering=1)  # noqa: SIM115
        self._file.write(json.dumps({"id": nodeid, "phase": phase, "cpu": own - start[0],
                                     "child": children - start[1], "wall": time.perf_counter() - wall}) + "\n")

    def _timed(self, nodeid: str, phase: str):
        start, wall = _cpu(), time.perf_counter()
        yield
        self._write(nodeid, phase, start, wall)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self._timed(item.nodeid, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._timed(item.nodeid, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from self._timed(item.nodeid, "teardown")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        if isinstance(collector, pytest.Module):
            yield from self._timed(collector.nodeid, "collect")
        else:
            yield

    def pytest_sessionfinish(self):
        if self._file is not None:
            self._file.close()

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker != "main":
            return
        by_file: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys((*PHASES, "child"), 0.0))
        for path in glob.glob(f"{glob.escape(self.prefix)}-*.jsonl"):
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    row = json.loads(line)
                    sums = by_file[row["id"].split("::")[0]]
                    sums[row["phase"]] += row["cpu"] + row["child"]
                    sums["child"] += row["child"]
        total = {phase: sum(sums[phase] for sums in by_file.values()) for phase in (*PHASES, "child")}
        write = terminalreporter.write_line
        write(f"CPU seconds (own + waited-for children; {self.prefix}-*.jsonl): "
              + ", ".join(f"{phase} {total[phase]:.1f}" for phase in PHASES)
              + f", of which children {total['child']:.1f}")
        ranked = sorted(by_file.items(), key=lambda item: -sum(item[1][phase] for phase in PHASES))
        for name, sums in ranked[:20]:
            write(f"{sum(sums[p] for p in PHASES):8.1f}  " + "  ".join(f"{p} {sums[p]:6.1f}" for p in PHASES)
                  + f"  {name}")
