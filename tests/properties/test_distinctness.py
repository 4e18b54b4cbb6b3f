"""Distinctness (posenc.properties.distinctness): the sinusoid's offset distances against the pairwise distances of
a table written out again in numpy, and a binary code read back against Python integers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from by_hand import nearest_pair, numpy_sinusoid
from posenc.properties.distinctness import decode_binary, nearest_by_length, sinusoid_offset_distances


def test_offset_distances_equal_pairwise_distances_of_a_numpy_table():
    table = numpy_sinusoid(300, 16)
    g = sinusoid_offset_distances(16, 299)
    rng = np.random.default_rng(1)
    for i, j in rng.integers(0, 300, size=(50, 2)):
        if i != j:
            assert np.linalg.norm(table[i] - table[j]) == pytest.approx(g[abs(i - j) - 1], rel=1e-9)
    assert nearest_by_length(g, [300])[300] == pytest.approx(nearest_pair(table), rel=1e-9)


def test_decode_binary_against_python_integers():
    rng = np.random.default_rng(0)
    values = [0, 1, 2 ** 62, 2 ** 63 - 1] + [int(v) for v in rng.integers(0, 2 ** 62, size=20)]
    codes = torch.tensor([[(v >> j) & 1 for j in range(70)] for v in values], dtype=torch.float64)  # 70 channels
    assert decode_binary(codes).tolist() == values
    bad = codes.clone()
    bad[0, 65] = 1
    with pytest.raises(Exception, match="channels 63 and above"):
        decode_binary(bad)
