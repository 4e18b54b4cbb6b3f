"""The rotary branch of ``uniqueness``: its smallest distance between positions against brute force over all pairs.

For a rotary encoding the property compares the rotations themselves: ``||R(p) - R(q)||_F / sqrt 2`` for every pair
of positions ``p < q < L``. Two independent computations of that minimum:

- numpy, float64: ``R(p)`` built as a block-diagonal matrix of 2x2 rotations by ``p * base^(-2i/R)`` (RoFormer's
  frequencies, written out again), times the attention factor, and every pair compared;
- the hook: ``R(p)`` read off the encoding's own ``rotate`` by rotating the basis vectors ``e_j`` (one per head) at
  every position, so column ``j`` of ``R(p)`` is the rotated ``e_j``; every pair compared (float32 tables).

The small cases are chosen so that the closest pair is *not* a pair of neighbours: with one frequency of 1 rad per
position, offset 25 comes back within 0.13 rad of a full turn, closer than offset 1 (1 rad away).
"""

import math

import numpy as np
import pytest
import torch

import posenc
from posenc.properties import EncodingView, uniqueness


def _numpy_rotations(n: int, rotary_dim: int, base: float, factor: float = 1.0, gain: float = 1.0) -> np.ndarray:
    """``[n, R, R]``: ``gain * blockdiag(rot(p w_0), ..., rot(p w_{R/2-1}))`` with ``w_i = base^(-2i/R) / factor``."""
    w = base ** (-np.arange(0, rotary_dim, 2) / rotary_dim) / factor
    out = np.zeros((n, rotary_dim, rotary_dim))
    for p in range(n):
        for i, wi in enumerate(w):
            c, s = math.cos(p * wi), math.sin(p * wi)
            out[p, 2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    return gain * out


def _hook_rotations(encoding, n: int, head_dim: int) -> np.ndarray:
    """``[n, Dh, Dh]``: column j of R(p) is ``rotate`` applied to the basis vector e_j at position p."""
    basis = torch.eye(head_dim)[None, :, None, :].expand(1, head_dim, n, head_dim).contiguous()  # [1, Dh, n, Dh]
    rotated, _ = encoding.rotate(basis, basis.clone(), torch.arange(n), torch.arange(n))
    return rotated[0].permute(1, 2, 0).double().numpy()  # [n, Dh (output), Dh (input j)]


def _brute_curve(rotations: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """``curve[L-1] = min_{p<q<L} ||R(p) - R(q)||_F / sqrt 2`` by comparing every pair, and the earliest closest pair."""
    n = len(rotations)
    flat = rotations.reshape(n, -1)
    dist = np.full((n, n), np.inf)
    for q in range(1, n):
        dist[:q, q] = np.linalg.norm(flat[:q] - flat[q], axis=1) / math.sqrt(2)
    curve = np.full(n, np.inf)
    for length in range(2, n + 1):
        curve[length - 1] = dist[:length, :length].min()
    p, q = np.unravel_index(np.argmin(dist), dist.shape)
    return curve, (int(p), int(q))


CASES = [  # (options, length): closest offsets 25, 44, 6, then 1 and 1 (measured; the brute force decides)
    ({"head_dim": 2}, 30),  # w = 1: offsets 25 (0.13) < 19 (0.15) < 6 (0.28) < 1 (0.96)
    ({"head_dim": 4, "base": 3.0}, 64),
    ({"head_dim": 8}, 40),  # RoFormer's frequencies at Dh = 8: offset 6, 0.28 rad short of a turn in pair 0
    ({"head_dim": 8, "rotary_dim": 4, "base": 2.0, "scaling": {"type": "linear", "factor": 2.0}}, 48),
    ({"head_dim": 6, "base": 5.0, "scaling": {"type": "yarn", "factor": 4.0, "original_max_len": 16}}, 40),
]


@pytest.mark.parametrize("options,length", CASES, ids=["one-pair", "base-3", "roformer", "partial-linear", "yarn"])
def test_rotary_min_distance_matches_brute_force_over_all_pairs(options, length):
    rope = posenc.build("rope", **options)
    result = uniqueness(EncodingView(rope, length, options["head_dim"]))
    numbers = result.numbers
    scaling = options.get("scaling", {})
    expected = None
    if scaling.get("type") != "yarn":  # YaRN's frequencies are not RoFormer's: compared through the hook only
        factor = scaling.get("factor", 1.0)  # linear: every frequency divided by the factor
        expected, pair = _brute_curve(_numpy_rotations(length, rope.rotary_dim, rope.base, factor,
                                                       rope.attention_factor))
        assert numbers["min_distance"] == pytest.approx(expected[-1], rel=1e-9)
        p, q = numbers["closest_pair"]
        assert q - p == pair[1] - pair[0]  # the rotary distance depends on the offset only
        for key, value in numbers["min_distance_by_length"].items():
            assert value == pytest.approx(expected[int(key) - 1], rel=1e-9), key
    # the encoding's own rotations, every pair (channels past the rotary width do not turn and add nothing)
    hooked, hook_pair = _brute_curve(_hook_rotations(rope, length, options["head_dim"]))
    assert numbers["min_distance"] == pytest.approx(hooked[-1], rel=2e-4, abs=2e-5)
    for key, value in numbers["min_distance_by_length"].items():
        assert value == pytest.approx(hooked[int(key) - 1], rel=2e-4, abs=2e-5), key
    p, q = numbers["closest_pair"]
    assert q - p == hook_pair[1] - hook_pair[0]
    if expected is not None:
        torch.testing.assert_close(torch.tensor(hooked[1:]), torch.tensor(expected[1:]), rtol=2e-4, atol=2e-5)


def test_one_frequency_closest_pair_is_offset_25_not_the_neighbours():
    """The worked case by hand: one pair turning 1 rad per position; D(delta) = sqrt(2 - 2 cos delta), smallest for
    delta < 30 at delta = 25 (25 rad is 4 turns less 0.133 rad): D = 2 sin(0.133 / 2) = 0.1327."""
    result = uniqueness(EncodingView(posenc.build("rope", head_dim=2), 30, 2))
    p, q = result.numbers["closest_pair"]
    assert q - p == 25
    assert result.numbers["min_distance"] == pytest.approx(2 * abs(math.sin(25 / 2)), rel=1e-12)
    assert result.numbers["min_distance"] == pytest.approx(0.1327, abs=1e-4)
    assert result.numbers["min_distance_by_length"]["16"] == pytest.approx(math.sqrt(2 - 2 * math.cos(6)), rel=1e-12)
