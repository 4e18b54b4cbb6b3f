"""Reading the parts of a sum back (posenc.probe.separation) against brute-force searches and exact maps; the draws
of word/position pairs stay uniform; the linear read-out's accuracy against numpy's least squares."""

import numpy as np
import pytest
import torch

from posenc.errors import PosencError
from posenc.probe.separation import (
    alternating_decode,
    angles_deg,
    apply_linear,
    draw_pairs,
    fit_linear,
    linear_readout_accuracy,
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


def test_drawn_pairs_stay_uniform_after_the_clashes_are_redrawn():
    """``draw_pairs`` redraws each clash (other word = word, other position = position) on its own. With 4
    candidates about a quarter of the 40000 pairs clash (10000), so the other words stay uniform only if each clash
    gets its own draw: about 10000 of each word, binomial sd sqrt(40000 * 1/4 * 3/4) = 87. One word given to every
    clash would hold about 7500 + 10000 = 17500. Positions: a clash moves to the next position, never the same one."""
    candidates = np.array([3, 17, 40, 99])
    w, v, p, q = draw_pairs(40_000, candidates, 7, seed=0)
    counts = np.array([(v == c).sum() for c in candidates])
    assert np.abs(counts - 10_000).max() < 5 * 87
    assert set(np.unique(w)) == set(candidates) and (p != q).all()
    assert p.min() == q.min() == 0 and p.max() == q.max() == 6


def _readout(x: np.ndarray, labels: np.ndarray, classes: int) -> float:
    """Least squares from [x, 1] to one-hot labels (numpy), then the share of rows whose largest output is right."""
    design = np.column_stack([x, np.ones(len(x))])
    weights = np.linalg.lstsq(design, np.eye(classes)[labels], rcond=None)[0]
    return float(((design @ weights).argmax(1) == labels).mean())


def test_linear_readout_accuracy_equals_numpy():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 200)
    x = rng.normal(size=(200, 3)) + labels[:, None] * np.array([0.8, -0.3, 0.1])  # partly separable
    ours = linear_readout_accuracy(torch.from_numpy(x), torch.from_numpy(labels), 5)
    assert ours == pytest.approx(_readout(x, labels, 5), abs=1e-12)
    assert 0.3 < ours < 1
