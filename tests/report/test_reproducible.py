"""The same report command gives the same numbers: twice in one process (identical), and with 1 and 2 torch
threads (verdicts identical, numbers within the tolerance of tests/report/agreement.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from agreement import assert_reports_agree

#: two reports in fresh processes (about 20 s), each fresh so that nothing the first computed is reused by the second
pytestmark = pytest.mark.slow

#: claims whose experiments do float work that threads split differently (matmuls, lstsq, attention)
CLAIMS = ["word-order", "add-vs-concat", "sin-relative-linear", "ffn-position-blind"]

_SCRIPT = """
import sys, torch
torch.set_num_threads(int(sys.argv[2]))
from posenc.report.run import run_report
run_report(sys.argv[1], quick=True, progress=False, claims=sys.argv[3].split(","))
"""


def _run(out, threads: int) -> list[dict]:
    subprocess.run([sys.executable, "-c", _SCRIPT, str(out), str(threads), ",".join(CLAIMS)], check=True,
                   timeout=600)
    return json.loads((out / "report.json").read_text())["claims"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("repro")
    return {t: _run(base / f"threads{t}", t) for t in (1, 2)}


def test_one_and_two_threads_give_the_same_verdicts_and_close_numbers(runs):
    one, two = runs[1], runs[2]
    assert [c["id"] for c in one] == CLAIMS
    assert_reports_agree(one, two)
