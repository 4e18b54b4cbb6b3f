"""A small report (fast claims only, plus one claim whose experiment raises), built once for the render, run and
browser tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from posenc.report.claim import Claim, Test
from posenc.report.experiments.base import EXPERIMENTS, Context, Experiment
from posenc.report.measurement import Measurement

#: claims whose experiments take about a second each
FAST_CLAIMS = ["unit-interval-positions", "sin-bounded", "ffn-position-blind", "sin-extrapolates-theory"]

BROKEN_EXPERIMENT = "test_broken_experiment"


def _broken(ctx: Context) -> Measurement:
    raise RuntimeError("the probe model file is missing (simulated break)")


@pytest.fixture(scope="session")
def broken_claim() -> Claim:
    """A claim whose experiment raises, registered for the test session only."""
    EXPERIMENTS[BROKEN_EXPERIMENT] = Experiment(BROKEN_EXPERIMENT, _broken)
    yield Claim("broken-claim", "test ledger", "tutorial", "A claim whose experiment breaks",
                "This experiment always raises.", BROKEN_EXPERIMENT, (Test("x", ">", 0, "never reached", "none"),))
    EXPERIMENTS.pop(BROKEN_EXPERIMENT, None)


@pytest.fixture(scope="session")
def small_report(tmp_path_factory, broken_claim):
    """``run_report`` on the fast claims and the broken one, in quick mode."""
    from posenc.report.run import run_report

    out = tmp_path_factory.mktemp("report")
    result = run_report(out, quick=True, progress=False, claims=FAST_CLAIMS[:2] + [broken_claim] + FAST_CLAIMS[2:])
    return result


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture
def one_thread():
    """One torch and one BLAS thread: the matrices are small, and on a busy machine two threads fight."""
    import torch
    from threadpoolctl import threadpool_limits

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(threads)
