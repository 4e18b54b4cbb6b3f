"""Reading the parts of a sum back (posenc.probe.separation) against brute-force searches and exact maps."""

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.probe.separation import (
    alternating_decode,
    angles_deg,
    apply_linear,
    fit_linear,
    nearest_by_cosine,
    nearest_by_distance,
)


def test_nearest_rows_against_loops():
    rng = np.random.default_rng(0)
    rows, x = rng.normal(size=(50, 5)), rng.normal(size=(30, 5))
    cos = [int(np.argmax([r @ v / np.linalg.norm(r) / np.linalg.norm(v) for r in rows])) for v in x]
    dist = [int(np.argmin([np.linalg.norm(v - r) for r in rows])) for v in x]
    assert nearest_by_cosine(x, rows).tolist() == cos
    assert nearest_by_distance(x, rows).tolist() == dist


def test_angles_by_hand():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    b = np.array([[0.0, 2.0], [1.0, 0.0], [-3.0, 0.0]])
    np.testing.assert_allclose(angles_deg(a, b), [90.0, 45.0, 180.0])


def test_fit_linear_recovers_an_affine_map():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(100, 4))
    w, b = rng.normal(size=(4, 3)), rng.normal(size=3)
    fitted = fit_linear(x, x @ w + b)
    np.testing.assert_allclose(apply_linear(x, fitted), x @ w + b, atol=1e-10)
    np.testing.assert_allclose(fitted[:4], w, atol=1e-10)
    with pytest.raises(PosencError, match="more pairs than dimensions"):
        fit_linear(x[:3], x[:3])


def test_alternating_decode_takes_two_rounds_unless_told():
    # the report decodes with the default. Points that are no word + position sum (random points in 2 channels,
    # 200 words and positions) still move in a third round, so the default is seen: it gives what two rounds give
    rng = np.random.default_rng(0)
    words, positions, x = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)), 2 * rng.normal(size=(500, 2))
    two, three = alternating_decode(x, words, positions, rounds=2), alternating_decode(x, words, positions, rounds=3)
    assert not (np.array_equal(two[0], three[0]) and np.array_equal(two[1], three[1]))
    default = alternating_decode(x, words, positions)
    assert np.array_equal(default[0], two[0]) and np.array_equal(default[1], two[1])


def test_alternating_decode_on_orthogonal_parts_and_against_an_exhaustive_search():
    rng = np.random.default_rng(2)
    words = np.hstack([rng.normal(size=(40, 6)), np.zeros((40, 6))])  # words in the first 6 channels
    positions = np.hstack([np.zeros((30, 6)), rng.normal(size=(30, 6))])  # positions in the last 6
    w, p = rng.integers(0, 40, 25), rng.integers(0, 30, 25)
    got_w, got_p = alternating_decode(words[w] + positions[p], words, positions)
    assert got_w.tolist() == w.tolist() and got_p.tolist() == p.tolist()
    # overlapping parts with noise: the decoder's answer is the exhaustive least-squares pair when it converges
    words, positions = rng.normal(size=(40, 8)), 0.3 * rng.normal(size=(30, 8))
    x = words[w] + positions[p] + 0.05 * rng.normal(size=(25, 8))
    got_w, got_p = alternating_decode(x, words, positions, rounds=3)
    errors = ((x[:, None, None] - words[None, :, None] - positions[None, None]) ** 2).sum(-1)  # [n, 40, 30]
    best = errors.reshape(25, -1).argmin(axis=1)
    agree = (got_w * 30 + got_p) == best
    assert agree.mean() >= 0.9
