"""Relative read-out (posenc.properties.relative_readout): the share of queries a position-only score points at the
key k places back, by hand, and the bound over every affine logit against random logits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from by_hand import numpy_sinusoid
from posenc.properties.relative_readout import best_affine_share, shift_match_share


def test_best_affine_share_is_the_bound_over_every_affine_logit():
    T, k = 64, 1
    pe = torch.arange(1, T + 1, dtype=torch.float64)[:, None].expand(T, 16).clone()  # PE[p] = p + 1
    bound = best_affine_share(pe, k)
    assert bound == pytest.approx(1 / (T - k))  # only query i = k can point at key 0, the smallest
    rng = np.random.default_rng(0)
    x = pe.numpy()
    for _ in range(300):  # random logits PE[i] A PE[j] + PE[i] b + c PE[j] + e: never above the bound
        a, b, c = rng.normal(size=(16, 16)), rng.normal(size=16), rng.normal(size=16)
        scores = x @ a @ x.T + (x @ b)[:, None] + (x @ c)[None, :]
        share = np.mean(scores[k:].argmax(axis=1) == np.arange(T - k))
        assert share <= bound + 1e-12
    with pytest.raises(Exception, match="one direction"):
        best_affine_share(torch.from_numpy(numpy_sinusoid(T, 16)), k)


def test_shift_match_share_by_hand():
    pe = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], dtype=torch.float64)  # a quarter turn
    # shifted[j] = PE[j + 1]: query i's best key is i - 1 for every query
    assert shift_match_share(pe, pe[1:], 1) == 1.0
    # a wrong "shift" (the identity) points every query at itself: key i, never i - 1 (i = 3 has no key 3)
    assert shift_match_share(pe, pe[:-1], 1) == 0.0
