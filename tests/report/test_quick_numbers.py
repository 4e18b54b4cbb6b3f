"""The committed quick report's numbers come back: a quick report run from an empty store reproduces every number of
``docs/reports/quick.json`` that is not a timing, exactly (each claim's verdict and its reason, estimates, numbers,
rows, options, setup and scope). A change that moves code between the experiments and the report (issue 42: the
experiments measure, the report presents) must keep this test green; a change that means to move a number updates
the committed report in the same commit, with the reason in docs/report.md.

What is left out, and why: the CPU and wall seconds a claim records (``cpu_s``, ``cpu_s_all_runs``, ``wall_s``: the
machine's speed and load), and the claims whose statistic is itself a timing (:data:`TIMED`), whose numbers move
with the machine by design; their estimates must still be the same statistics.

The run itself is slow (about six minutes on 2 cores): ``pytest -m slow tests/report/test_quick_numbers.py``. The
comparison is tested in the fast suite, on the committed report.
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

COMMITTED = Path(__file__).parents[2] / "docs" / "reports" / "quick.json"
#: claims whose statistic is a timing, with the reason their numbers may move
TIMED = {"sinusoid-cost": "a ratio of the sinusoid table's time to a Transformer block's, timed on this machine"}
#: the keys that hold seconds of the machine's time, wherever they sit in a claim's numbers
TIME_KEYS = re.compile(r"^(cpu_s(_.*)?|wall_s)$")
#: the parts of a claim compared
PARTS = ("verdict", "estimates", "estimates_by_choice", "numbers", "rows", "variants", "setup", "scope", "missing",
         "error")


def _same_number(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _walk(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if TIME_KEYS.match(str(key)):
                continue
            if key not in a or key not in b:
                out.append(f"{path}/{key}: in {'the fresh run' if key in b else 'the committed report'} only")
                continue
            _walk(a[key], b[key], f"{path}/{key}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items committed, {len(b)} now")
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _walk(x, y, f"{path}[{i}]", out)
    elif not _same_number(a, b):
        out.append(f"{path}: committed {a!r}, now {b!r}")


def differences(committed: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Where ``fresh`` (a ``report.json``) differs from ``committed`` in a number or text that is not a timing:
    one line per difference, with its path."""
    one = {c["id"]: c for c in committed["claims"]}
    two = {c["id"]: c for c in fresh["claims"]}
    out = [f"{cid}: in {'the fresh run' if cid in two else 'the committed report'} only"
           for cid in sorted(set(one) ^ set(two))]
    for cid in one.keys() & two.keys():
        if cid in TIMED:  # the same statistics, not the same values
            if sorted(one[cid]["estimates"] or {}) != sorted(two[cid]["estimates"] or {}):
                out.append(f"{cid}/estimates: other statistics")
            continue
        for part in PARTS:
            _walk(one[cid].get(part), two[cid].get(part), f"{cid}/{part}", out)
    if committed.get("quick") != fresh.get("quick"):
        out.append(f"quick: committed {committed.get('quick')!r}, now {fresh.get('quick')!r}")
    return sorted(out)


def _committed() -> dict[str, Any]:
    return json.loads(COMMITTED.read_text(encoding="utf-8"))


def _claim(report: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in report["claims"] if c["id"] == cid)


def test_the_committed_report_agrees_with_itself_and_is_a_quick_one():
    report = _committed()
    assert report["quick"] is True and len(report["claims"]) >= 60
    assert differences(report, copy.deepcopy(report)) == []


def test_a_moved_number_is_found_with_its_path():
    report, moved = _committed(), _committed()
    estimate = next(iter(_claim(moved, "sin-bounded")["estimates"].values()))
    estimate["high"] = estimate["high"] + 1e-12
    found = differences(report, moved)
    assert len(found) == 1 and found[0].startswith("sin-bounded/estimates/") and found[0].endswith(
        f"now {estimate['high']!r}")
    # a changed verdict, a row and a missing claim are found too
    _claim(moved, "sin-unique")["verdict"]["status"] = "refuted"
    _claim(moved, "linear-separation")["rows"] = _claim(moved, "linear-separation")["rows"][:-1]
    moved["claims"] = [c for c in moved["claims"] if c["id"] != "king-queen-apple"]
    found = differences(report, moved)
    assert any(f.startswith("sin-unique/verdict/status") for f in found)
    assert any(f.startswith("linear-separation/rows:") for f in found)
    assert "king-queen-apple: in the committed report only" in found


def test_timings_are_left_out_and_nothing_else():
    report, moved = _committed(), _committed()
    timed = next(iter(TIMED))
    for estimate in _claim(moved, timed)["estimates"].values():
        estimate["value"] = 123.0
    numbers = _claim(moved, "low-dims-position")["numbers"]
    assert "cpu_s_all_runs" in numbers
    numbers["cpu_s_all_runs"] = -1.0
    assert differences(report, moved) == []
    _claim(moved, timed)["estimates"]["other"] = _claim(moved, timed)["estimates"].popitem()[1]
    assert differences(report, moved) == [f"{timed}/estimates: other statistics"]
    # a timing key's name does not hide a number that is not one
    assert not TIME_KEYS.match("cpus") and not TIME_KEYS.match("wall") and TIME_KEYS.match("cpu_s_all_runs")


@pytest.mark.slow
def test_a_quick_report_from_an_empty_store_reproduces_the_committed_numbers(tmp_path):
    from posenc.report.run import run_report

    run_report(tmp_path, quick=True, progress=False)
    fresh = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    found = differences(_committed(), fresh)
    assert not found, f"{len(found)} numbers of docs/reports/quick.json did not come back:\n" + "\n".join(found[:40])
