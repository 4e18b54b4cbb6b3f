"""DAPE: the adjusted bias by hand, what it depends on, and its refusals."""

import math

import pytest
import torch

import posenc
from posenc.errors import PosencError
from tolerance import bound


def _set_mlp(dape, w1, b1, w2, b2):
    with torch.no_grad():
        dape.mlp[0].weight.copy_(torch.tensor(w1))
        dape.mlp[0].bias.copy_(torch.tensor(b1))
        dape.mlp[2].weight.copy_(torch.tensor(w2))
        dape.mlp[2].bias.copy_(torch.tensor(b2))


def _gelu(v):
    return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))


def test_the_bias_by_hand():
    # one head over ALiBi (slope 1/2 for a single head), hidden width 2
    dape = posenc.build("dape", n_heads=1, head_dim=4, encoding="alibi", hidden=2)
    _set_mlp(dape, [[1.0, -0.5], [0.25, 2.0]], [0.1, -0.2], [[0.7, -1.3]], [0.05])
    q = torch.tensor([[[[1.0, 0.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5]]]])  # [1, 1, 2, 4]
    k = torch.tensor([[[[0.0, 1.0, 1.0, 1.0], [2.0, -1.0, 0.0, 1.0]]]])
    got = dape.contextual_bias(q, k, torch.arange(2), torch.arange(2))[0, 0]
    slope = float(posenc.build("alibi", n_heads=1).slopes[0])
    for i in range(2):
        for j in range(2):
            s = float(q[0, 0, i] @ k[0, 0, j]) / 2.0  # q . k / sqrt(4)
            b = -slope * abs(i - j)
            h1, h2 = _gelu(1.0 * s - 0.5 * b + 0.1), _gelu(0.25 * s + 2.0 * b - 0.2)
            # float32: the dot product (4), the scale, two layers (3 each), GELU (3), the sum with b (1): 15 steps
            # on terms whose magnitudes add up to at most 1 + |b| + 0.7 |h1| + 1.3 |h2|
            tol = bound(torch.float32, 15, scale=1 + abs(b) + 0.7 * abs(h1) + 1.3 * abs(h2))
            assert float(got[i, j]) == pytest.approx(b + 0.7 * h1 - 1.3 * h2 + 0.05, abs=tol)


def test_a_silent_mlp_leaves_the_base_bias():
    dape = posenc.build("dape", n_heads=2, head_dim=4, encoding="kerple")
    with torch.no_grad():
        dape.mlp[2].weight.zero_()
        dape.mlp[2].bias.zero_()
    q, k = torch.randn(3, 2, 5, 4), torch.randn(3, 2, 5, 4)
    got = dape.contextual_bias(q, k, torch.arange(5), torch.arange(5))
    torch.testing.assert_close(got, dape.base.bias(torch.arange(5), torch.arange(5)).expand(3, -1, -1, -1))


def test_it_reads_queries_and_keys_only_through_their_scores():
    g = torch.Generator().manual_seed(0)
    dape = posenc.build("dape", n_heads=2, head_dim=4, encoding="alibi")
    q, k = torch.randn(1, 2, 5, 4, generator=g), torch.randn(1, 2, 5, 4, generator=g)
    turn, _ = torch.linalg.qr(torch.randn(4, 4, generator=g))  # the same orthogonal map on q and k
    a = dape.contextual_bias(q, k, torch.arange(5), torch.arange(5))
    b = dape.contextual_bias(q @ turn, k @ turn, torch.arange(5), torch.arange(5))
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    c = dape.contextual_bias(2 * q, k, torch.arange(5), torch.arange(5))  # other scores: another bias
    assert (a - c).abs().max() > 1e-3


def test_grouped_query_keys_are_shared():
    dape = posenc.build("dape", n_heads=4, head_dim=4, encoding="alibi")
    q, k = torch.randn(1, 4, 3, 4), torch.randn(1, 2, 3, 4)
    torch.testing.assert_close(dape.contextual_bias(q, k, torch.arange(3), torch.arange(3)),
                               dape.contextual_bias(q, k.repeat_interleave(2, dim=1), torch.arange(3), torch.arange(3)))


def test_refusals():
    with pytest.raises(PosencError, match="'rope' has no bias hook"):
        posenc.build("dape", encoding="rope")
    with pytest.raises(PosencError, match="q has 2 heads but this DAPE was built for 4"):
        posenc.build("dape", n_heads=4, head_dim=4, encoding="alibi").contextual_bias(
            torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.arange(3), torch.arange(3))


def test_float64_inputs_are_computed_in_float64():
    # the hand computation of test_the_bias_by_hand in float64 (weights a float32 cannot hold exactly): float32
    # scores or a float32 MLP would be about 1e-7 off
    dape = posenc.build("dape", n_heads=1, head_dim=4, encoding="alibi", hidden=2)
    w1, b1, w2, b2 = [[1.1, -0.5], [0.25, 2.3]], [0.1, -0.2], [[0.7, -1.3]], [0.05]
    _set_mlp(dape, w1, b1, w2, b2)
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(1, 1, 3, 4, generator=g, dtype=torch.float64), torch.randn(1, 1, 3, 4, generator=g,
                                                                                   dtype=torch.float64)
    got = dape.contextual_bias(q, k, torch.arange(3), torch.arange(3))[0, 0]
    assert got.dtype == torch.float64
    slope = float(posenc.build("alibi", n_heads=1).slopes[0])  # float32's 1/2: exact
    w1, b1 = dape.mlp[0].weight.detach().double().tolist(), dape.mlp[0].bias.detach().double().tolist()
    w2, b2 = dape.mlp[2].weight.detach().double().tolist(), dape.mlp[2].bias.detach().double().tolist()
    for i in range(3):
        for j in range(3):
            s = sum(q[0, 0, i, c].item() * k[0, 0, j, c].item() for c in range(4)) / 2.0
            b = -slope * abs(i - j)
            h = [_gelu(w1[u][0] * s + w1[u][1] * b + b1[u]) for u in range(2)]
            assert got[i, j].item() == pytest.approx(b + w2[0][0] * h[0] + w2[0][1] * h[1] + b2[0], rel=1e-12,
                                                     abs=1e-12)
    assert dape.contextual_bias(q.float(), k.float(), torch.arange(3), torch.arange(3)).dtype == torch.float32
