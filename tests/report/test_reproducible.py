"""The same report command gives the same numbers: twice in one process (identical), and with 1 and 2 torch
threads (verdicts identical, numbers within a stated tolerance: thread count changes the order of float sums)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

#: claims whose experiments do float work that threads split differently (matmuls, lstsq, attention)
CLAIMS = ["word-order", "add-vs-concat", "sin-relative-linear", "ffn-position-blind"]
#: numbers may differ by float32 round-off between thread counts: relative 1e-4 or absolute 1e-6
REL, ABS = 1e-4, 1e-6

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


def _close(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(ABS, REL * max(abs(a), abs(b)))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("repro")
    return {t: _run(base / f"threads{t}", t) for t in (1, 2)}


def test_one_and_two_threads_give_the_same_verdicts_and_close_numbers(runs):
    one, two = runs[1], runs[2]
    assert [c["id"] for c in one] == [c["id"] for c in two] == CLAIMS
    for a, b in zip(one, two, strict=True):
        assert a["verdict"]["status"] == b["verdict"]["status"], a["id"]
        for name, ea in a["estimates"].items():
            eb = b["estimates"][name]
            for key in ("value", "low", "high"):
                assert _close(ea[key], eb[key]), (a["id"], name, key, ea[key], eb[key])
