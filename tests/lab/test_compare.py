"""posenc.lab.compare on hand-built tables: accuracy curves by size over seeds, and the ranking's ceiling rule.

The experiments that read these statistics are checked on made-up sweeps in tests/report/test_numbers_training.py.
"""

from __future__ import annotations

import math

import pytest

from by_hand import gate_results
from posenc.lab.compare import NOPE_PAPER_MRR, accuracy_table, by_size_curves, in_distribution, ranking_estimates

SEEDS = 3


def _gate_results(inside: dict[tuple[str, str], float], seeds: int = SEEDS) -> list:
    """:func:`by_hand.gate_results`, the accuracies past L ordered by list(NOPE_PAPER_MRR)."""
    return gate_results(inside, list(NOPE_PAPER_MRR), seeds)


def test_curves_by_size_have_bands_from_three_seeds_only():
    for seeds, band in ((2, False), (3, True)):
        table = accuracy_table(_gate_results({("copy", "rope"): 0.9}, seeds))
        (mean, low, high) = by_size_curves(table, ["rope"])["rope"][2.0]  # size 8 = 2 L
        assert mean == pytest.approx(0.4 + 0.01 * (seeds - 1) / 2)  # past L: 0.4 + 0.01 s, s = 0..seeds-1
        assert math.isfinite(low) is band and math.isfinite(high) is band


def test_nope_ranking_counts_only_the_tasks_whose_accuracies_leave_room_below_the_ceiling():
    """The ceiling rule on a hand-built table: on "flat" every encoding scores 1.0 past L (all tie at the ceiling,
    no order), on "spread" they differ; both were learned in distribution, so both rank, one has room."""
    L = 8.0
    spread = {e: 0.9 - 0.1 * i for i, e in enumerate(NOPE_PAPER_MRR)}
    table = {"token_accuracy": {
        "flat": {e: {4.0: [1.0, 1.0, 1.0], 16.0: [1.0, 1.0, 1.0]} for e in NOPE_PAPER_MRR},
        "spread": {e: {4.0: [1.0, 1.0, 1.0], 16.0: [v, v, v]} for e, v in spread.items()}}}
    estimates, detail = ranking_estimates(table, L, "token_accuracy", in_distribution(table, L))
    assert estimates["ranked_tasks"].value == 2 and estimates["tasks_with_room"].value == 1
    assert detail["tasks"] == ["flat", "spread"]
