"""xPos over long spans: every logit of a call is finite and right up to :meth:`XPos.max_span`, and a longer span is
refused with the limit named (it used to come back as inf/NaN past about 72 000 positions)."""

import math

import numpy as np
import pytest
import torch

import posenc
from posenc.errors import PosencError

HEAD_DIM = 8


def _logits_by_hand(q, k, positions, zeta, inv_freq, scale_base):
    """``logit(n, m) = sum_i zeta_i^((n - m) / scale_base) <R(n w_i) q_i, R(m w_i) k_i>`` in float64 (half pairing:
    pair i is channels i and i + R/2), from the paper's formula alone."""
    q, k = q.double().numpy()[0, 0], k.double().numpy()[0, 0]
    half = HEAD_DIM // 2
    out = np.zeros((len(positions), len(positions)))
    terms = np.zeros_like(out)
    for a, n in enumerate(positions):
        for b, m in enumerate(positions):
            for i in range(half):
                tn, tm = n * inv_freq[i], m * inv_freq[i]
                qn = (q[a, i] * math.cos(tn) - q[a, i + half] * math.sin(tn),
                      q[a, i + half] * math.cos(tn) + q[a, i] * math.sin(tn))
                km = (k[b, i] * math.cos(tm) - k[b, i + half] * math.sin(tm),
                      k[b, i + half] * math.cos(tm) + k[b, i] * math.sin(tm))
                value = zeta[i] ** ((n - m) / scale_base) * (qn[0] * km[0] + qn[1] * km[1])
                out[a, b] += value
                terms[a, b] += abs(value)
    return out, terms


@pytest.mark.parametrize("scale_base", [512.0, 64.0])
def test_every_logit_is_finite_and_right_at_the_limit(scale_base):
    xpos = posenc.build("xpos", head_dim=HEAD_DIM, scale_base=scale_base)
    limit = xpos.max_span()
    # the limit by hand: factors up to G = sqrt(float32 max) / 16 on either side of the middle, zeta_0 = 0.4 / 1.4
    gain = math.sqrt(float(np.finfo(np.float32).max)) / 16
    assert limit == 2 * math.floor(math.log(gain) * scale_base / math.log(1.4 / 0.4)) + 1
    positions = [0, 1, 7, limit // 3, limit // 2, limit - 2, limit - 1]  # the whole span, both ends
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(1, 1, len(positions), HEAD_DIM, generator=gen)
    k = torch.randn(1, 1, len(positions), HEAD_DIM, generator=gen)
    p = torch.tensor(positions)
    qx, kx = xpos.rotate(q, k, p, p)
    logits = (qx @ kx.transpose(-1, -2))[0, 0]  # float32, as attention computes them
    assert bool(torch.isfinite(qx).all() and torch.isfinite(kx).all() and torch.isfinite(logits).all())
    zeta = [(2 * i + 0.4 * HEAD_DIM) / (1.4 * HEAD_DIM) for i in range(HEAD_DIM // 2)]
    inv_freq = [10000.0 ** (-2 * i / HEAD_DIM) for i in range(HEAD_DIM // 2)]
    want, terms = _logits_by_hand(q, k, positions, zeta, inv_freq, scale_base)
    error = np.abs(logits.double().numpy() - want)
    assert (error <= 1e-5 * terms + 1e-30).all(), float((error / terms).max())
    # the decay is there: a key far behind the query weighs far less than one beside it (the pair's ratio of gains)
    assert abs(want[-1, 0]) < 1e-3 * terms[-1, -1]


def test_a_span_past_the_limit_is_refused_naming_it():
    xpos = posenc.build("xpos", head_dim=HEAD_DIM)
    limit = xpos.max_span()
    q = torch.randn(1, 1, 2, HEAD_DIM)
    with pytest.raises(PosencError, match=rf"span {limit + 1} \(0 to {limit}\).* only over {limit} positions"):
        xpos.rotate(q, q.clone(), torch.tensor([0, limit]), torch.tensor([0, limit]))
    with pytest.raises(PosencError, match="span 100001"):  # the case: NaN before
        xpos.rotate(q, q.clone(), torch.tensor([0, 100000]), torch.tensor([0, 100000]))


def test_the_limit_is_on_the_span_not_the_offset():
    # a window far from 0 (a KV-cache chunk) is centred on its own positions: its factors stay near 1
    xpos = posenc.build("xpos", head_dim=HEAD_DIM)
    q = torch.randn(1, 1, 4, HEAD_DIM)
    p = torch.arange(4) + 10 ** 9
    qx, kx = xpos.rotate(q, q.clone(), p, p)
    assert bool(torch.isfinite(qx).all()) and float(qx.norm() / q.norm()) == pytest.approx(1.0, rel=0.01)


def test_float16_has_its_own_smaller_limit():
    xpos = posenc.build("xpos", head_dim=HEAD_DIM)
    limit = xpos.max_span(torch.float16)
    assert limit == 2 * math.floor(math.log(math.sqrt(65504.0) / 16) * 512 / math.log(1.4 / 0.4)) + 1
    q = torch.randn(1, 1, 2, HEAD_DIM).half()
    p = torch.tensor([0, limit - 1])
    qx, kx = xpos.rotate(q, q.clone(), p, p)
    assert bool(torch.isfinite(qx).all() and torch.isfinite(kx).all())
    assert bool(torch.isfinite(qx.float() @ kx.float().transpose(-1, -2)).all())
    with pytest.raises(PosencError, match=f"float16 only over {limit} positions"):
        xpos.rotate(q, q.clone(), torch.tensor([0, limit]), torch.tensor([0, limit]))


@pytest.mark.parametrize("option, value", [("gamma", 0.0), ("gamma", -0.4), ("scale_base", float("inf")),
                                           ("scale_base", 0.0), ("gamma", "0.4")])
def test_decay_parameters_outside_their_range_are_refused(option, value):
    with pytest.raises(PosencError, match=f"xpos {option} must be a finite number > 0, got {value!r}"):
        posenc.build("xpos", head_dim=HEAD_DIM, **{option: value})
