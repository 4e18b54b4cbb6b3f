"""Quick mode is a faithful subsample of full mode: for every claim the quick verdict equals the full verdict or is
less decided (inconclusive: fewer windows and seeds give wider intervals; not decided in quick mode; not run), never a
different decided verdict.

Slow: it runs the full report (about an hour on 2 cores from an empty store; minutes when the store already holds
the full runs, e.g. ``POSENC_FULL_STORE=posenc-report-full/results.sqlite``).
"""

from __future__ import annotations

import os

import pytest

from posenc.report.run import run_report
from posenc.report.verdict import NOT_MEASURED

pytestmark = pytest.mark.slow


def faithful(quick: str, full: str) -> bool:
    """The rule the test applies to one claim's pair of verdicts."""
    return quick == full or quick == "inconclusive" or quick in NOT_MEASURED or full == "not run"


def test_the_rule():
    assert faithful("supported", "supported") and faithful("inconclusive", "refuted")
    assert faithful("not decided in quick mode", "refuted") and faithful("not run", "supported")
    assert not faithful("supported", "refuted") and not faithful("refuted", "inconclusive")


@pytest.mark.hours
def test_quick_verdicts_never_contradict_full_verdicts(tmp_path):
    full_store = os.environ.get("POSENC_FULL_STORE")
    quick = run_report(tmp_path / "quick", quick=True, progress=False)
    full = run_report(tmp_path / "full", quick=False, progress=False, store_path=full_store)
    pairs = {q.claim.id: (q.verdict.status, f.verdict.status) for q, f in zip(quick.results, full.results,
                                                                              strict=True)}
    broken = {c: p for c, p in pairs.items() if not faithful(*p)}
    assert broken == {}, f"quick contradicts full: {broken}"
