"""Geometry at its edges: the other-words baseline leaves the sample out, the judgement on the margin itself, the
tutorial layout's example labels, and the subspace share of a float32 table computed in float64."""

import numpy as np
import pytest

from posenc.probe.geometry import (
    format_tutorial_layout,
    geometry,
    orthogonality,
    pair_stats,
    subspace_share,
    tutorial_examples,
)


def test_other_words_baseline_leaves_the_tutorial_sample_out():
    # rows 2..12 (the sample) lie in span(e0, e2, e3); rows 0 and 1, the only rows outside the sample, are e1. Every
    # word outside the sample is orthogonal to every sample row, so the other-words baseline has cosine exactly 0
    # (angle 90); a sample row compared with itself would give cosine 1.
    d = 4
    rng = np.random.default_rng(0)
    sample = np.zeros((11, d))
    sample[:, 0] = 1.0
    sample[:, 2:] = rng.standard_normal((11, 2))
    words = np.vstack([np.eye(d)[[1, 1]], sample])  # [13, 4]
    positions = rng.standard_normal((6, d))
    other = geometry(words, positions, word_rows=(2, 13))["baseline"]["other_words"]
    assert other["cos_abs_mean"] == 0.0 and other["angle_min"] == other["angle_max"] == 90.0


def test_a_margin_equal_to_the_lower_end_of_the_interval_is_not_nearly_orthogonal():
    # the rule: "no" when |mean angle - 90| lies at or above the margin, so a margin equal to the interval's lower end
    # (the interval touches it from above) is "no", not "undecided"
    rng = np.random.default_rng(0)
    words, positions = rng.standard_normal((30, 16)) + 0.15, rng.standard_normal((20, 16)) + 0.15
    offset = orthogonality(words, positions)["angle_offset"]
    assert offset.low < offset.high
    assert orthogonality(words, positions, margin=offset.low)["nearly_orthogonal"] == "no"


def test_the_layout_labels_each_example_pair():
    # cos[0, 0] = 1 (angle 0), cos[0, 1] = 0.5 (angle 60), cos[10, 5] = 0 (angle 90); tutorial 001 §4.1 prints the
    # first word against the first and the second position, and word 10 against position 5
    cos = np.zeros((11, 6))
    cos[0, 0], cos[0, 1] = 1.0, 0.5
    stats = pair_stats(cos)
    geo = {"raw": stats, "centred": stats, "baseline": {"gaussian": stats}, "examples": tutorial_examples(cos)}
    lines = format_tutorial_layout(geo).split("\n")
    assert "  first word, first position: cos 1.000000, angle 0.00 deg" in lines
    assert "  first word, second position: cos 0.500000, angle 60.00 deg" in lines
    assert "  word10 / pos5: cos 0.000000, angle 90.00 deg" in lines


def test_subspace_share_of_a_float32_table_is_computed_in_float64():
    # words vary along e0 only: k = 1 and U = e0. Positions 2^24 + (0, 0), (2, 2), (4, 0), (6, 2), exact in float32.
    # In float64 the centred rows are (-3, -1), (-1, 1), (1, -1), (3, 1): share along e0 = 20 / (20 + 4) = 5/6.
    # (A float32 mean rounds 2^24 + 3 to 2^24 + 2 and 2^24 + 1 to 2^24, which would give 24 / 32 = 3/4.)
    words = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 0.0], [-2.0, 0.0]])
    positions = (np.array([[0, 0], [2, 2], [4, 0], [6, 2]], dtype=np.float64) + 2.0**24).astype(np.float32)
    result = subspace_share(words, positions)
    assert result["k"] == 1
    assert result["share"].value == pytest.approx(5 / 6, rel=1e-12)
