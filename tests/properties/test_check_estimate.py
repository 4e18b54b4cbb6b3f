"""The time `posenc check` is said to take: the uniqueness property's pairs, counted by hand, at the machine's rate."""

import pytest

from posenc.properties.check import PAIR_BYTES, estimate_check
from posenc.resources import seconds


def test_the_pairs_of_a_small_table_by_hand():
    # 4 positions: 6 pairs; sinusoidal at width 8 has 8 distinct channels: 6 * 2 * 8 float64 operations, counted
    # twice (192), and 6 * 96 bytes of elementwise passes; the integer table has one distinct channel
    assert PAIR_BYTES == 96
    assert estimate_check(4, 8, ["sinusoidal"])[1] == pytest.approx(seconds(192, memory=576), rel=1e-12)
    assert estimate_check(4, 8, ["integer"])[1] == pytest.approx(seconds(24, memory=576), rel=1e-12)
    both = estimate_check(4, 8, ["sinusoidal", "integer"])[1]
    assert both == pytest.approx(seconds(216, memory=1152), rel=1e-12)


def test_only_absolute_tables_are_compared_and_only_when_pairwise():
    assert estimate_check(4096, 64, ["rope", "alibi"])[1] == 0.0  # rotations and biases: no table of rows
    assert estimate_check(4096, 64, ["sinusoidal"], pairwise=False)[1] == 0.0  # drawing compares nothing


def test_twice_the_width_adds_only_the_gram_products():
    # the passes do not depend on the width; the Gram products double
    n = 1000
    pairs = n * (n - 1) / 2
    narrow, wide = (estimate_check(n, d, ["sinusoidal"])[1] for d in (32, 64))
    assert wide - narrow == pytest.approx(seconds(pairs * 4 * 32), rel=1e-9)
