"""Word arithmetic and pair similarity (posenc.probe.composition) against ranks counted by hand."""

import math

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.probe.composition import (
    analogy_rank,
    nearest_words,
    random_analogy_ranks,
    random_pair_cosines,
    single_word_ranks,
    unit_rows,
)


def _circle(angles_deg):
    a = np.radians(np.asarray(angles_deg, dtype=np.float64))
    return np.stack([np.cos(a), np.sin(a)], axis=1)


def test_unit_rows_and_zero_rows():
    u = unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(u, [[0.6, 0.8], [0.0, 0.0]])


def test_analogy_rank_by_hand():
    # rows on the unit circle at 0, 90, 40, 52, 200 degrees; 0 + 90 points at 45 degrees
    unit = _circle([0, 90, 40, 52, 200])
    candidates = np.arange(5)
    assert analogy_rank(unit, [0, 1], [], 2, candidates) == 1  # 40 is 5 degrees away
    assert analogy_rank(unit, [0, 1], [], 3, candidates) == 2  # 52 is 7 degrees away
    assert analogy_rank(unit, [0, 1], [], 4, candidates) == 3  # the query words left out
    assert nearest_words(unit, [0, 1], [], candidates, 2) == [2, 3]
    # 90 - 0 + 40 points at 0.766 (cos 40) - 1 = -0.234 along x, 1 + 0.643 along y: about 98 degrees
    assert analogy_rank(unit, [1, 2], [0], 3, candidates) == 1
    assert single_word_ranks(unit, [1, 2], [0], 3, candidates) == [1, 1]  # 52 is nearest to 90 and to 40 alone
    with pytest.raises(PosencError, match="not among the candidates"):
        analogy_rank(unit, [0, 1], [], 1, candidates)


def test_analogy_rank_counts_against_a_brute_force_loop():
    rng = np.random.default_rng(1)
    unit = unit_rows(rng.normal(size=(300, 8)))
    candidates = np.arange(10, 300)
    for _ in range(20):
        a, b, c, t = rng.choice(candidates, 4, replace=False)
        q = unit[a] - unit[b] + unit[c]
        q = q / np.linalg.norm(q)
        brute = 1 + sum(unit[i] @ q > unit[t] @ q + 1e-12 for i in candidates if i not in (a, b, c, t))
        assert analogy_rank(unit, [a, c], [b], t, candidates) == brute


def test_chance_ranks_spread_over_the_vocabulary():
    rng = np.random.default_rng(2)
    unit = unit_rows(rng.normal(size=(400, 16)))
    ranks = random_analogy_ranks(unit, np.arange(400), 2, 1, 300, seed=0)
    assert ranks.min() >= 1 and ranks.max() <= 400 - 3
    assert abs(np.median(ranks) - 200) < 40  # random vectors: the target's rank is uniform


def test_random_pair_cosines_are_of_two_different_words():
    unit = unit_rows(np.eye(3))  # any two different rows are orthogonal; a row with itself gives 1
    cos = random_pair_cosines(unit, np.arange(3), 500, seed=0)
    assert np.all(cos == 0.0)
    rng = np.random.default_rng(0)
    d = 64
    cos = random_pair_cosines(unit_rows(rng.normal(size=(2000, d))), np.arange(2000), 5000)
    assert abs(cos.std() - 1 / math.sqrt(d)) < 0.01  # FACTS §2: std 1/sqrt(d) for random directions
