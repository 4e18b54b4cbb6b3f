"""PoPE: the logit by hand, its properties, and equality with x-transformers 2.31.10 (weights copied)."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc.errors import PosencError
from posenc.model.transformer import attend
from tolerance import bound

XT_VERSION = "2.31.10"  #: the x-transformers release compared (pinned in the dev extra)


def _logits(pope, q, k, qp, kp):
    qo, ko = pope.rotate(q, k, qp, kp)
    return qo @ ko.transpose(-1, -2)


def test_the_logit_by_hand():
    # Dh = 2: frequencies 1 and 10000^(-1/2) = 0.01; one head with phase biases (-0.3, -1.1)
    pope = posenc.build("pope", head_dim=2, n_heads=1)
    with torch.no_grad():
        pope.phase_bias.copy_(torch.tensor([[-0.3, -1.1]]))
    q, k = torch.tensor([[[[0.4, -1.2]]]]), torch.tensor([[[[2.0, 0.5]]]])
    sp = lambda v: math.log1p(math.exp(v))  # noqa: E731
    t, s = 7, 3
    want = sp(0.4) * sp(2.0) * math.cos(4 * 1.0 + 0.3) + sp(-1.2) * sp(0.5) * math.cos(4 * 0.01 + 1.1)
    got = _logits(pope, q, k, torch.tensor([t]), torch.tensor([s]))
    # float32: softplus (2 steps), the angle (frequency, product, phase: 3) and its cosine (1), two products and
    # the sum (3): 9 steps, each term's error at most its magnitudes times (1 + its angle), the angle's own error
    # reaching the cosine through its slope
    scale = sp(0.4) * sp(2.0) * (1 + 4.3) + sp(-1.2) * sp(0.5) * (1 + 1.14)
    assert float(got) == pytest.approx(want, rel=0, abs=bound(torch.float32, 9, scale=scale))


def test_the_bias_is_clamped_to_minus_two_pi_and_zero():
    pope = posenc.build("pope", head_dim=2, n_heads=1)
    q = torch.randn(1, 1, 3, 2)
    with torch.no_grad():
        pope.phase_bias.fill_(-7.0)  # below -2 pi: acts as -2 pi, a whole turn, i.e. no bias
    low = _logits(pope, q, q, torch.arange(3), torch.arange(3))
    with torch.no_grad():
        pope.phase_bias.fill_(0.0)
    torch.testing.assert_close(low, _logits(pope, q, q, torch.arange(3), torch.arange(3)), rtol=1e-5, atol=1e-6)


@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 2**16))
def test_magnitudes_are_content_and_bounded_by_the_aligned_logit(t, s, seed):
    g = torch.Generator().manual_seed(seed)
    pope = posenc.build("pope", head_dim=6, n_heads=2, bias_init="zero")
    q, k = torch.randn(1, 2, 1, 6, generator=g), torch.randn(1, 2, 1, 6, generator=g)
    logit = _logits(pope, q, k, torch.tensor([t]), torch.tensor([s]))
    aligned = (F.softplus(q) * F.softplus(k)).sum(-1, keepdim=True)  # every phase 0: the largest logit
    assert bool((logit.abs() <= aligned + 1e-5).all())
    if t == s:  # no offset and no bias: every channel adds its magnitude
        torch.testing.assert_close(logit, aligned, rtol=1e-5, atol=1e-6)


def test_grouped_query_keys_take_each_query_heads_bias():
    pope = posenc.build("pope", head_dim=4, n_heads=4, bias_init="uniform")
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 4, 5, 4, generator=g), torch.randn(1, 2, 5, 4, generator=g)
    grouped = _logits(pope, q, k.repeat_interleave(2, dim=1), torch.arange(5), torch.arange(5))
    qo, ko = pope.rotate(q, k, torch.arange(5), torch.arange(5))
    torch.testing.assert_close(qo @ ko.repeat_interleave(2, dim=1).transpose(-1, -2), grouped)


def test_bad_arguments():
    with pytest.raises(PosencError, match="bias_init must be one of zero, uniform"):
        posenc.build("pope", bias_init="normal")
    with pytest.raises(PosencError, match="q has 2 heads but this PoPE holds a phase bias for 4"):
        posenc.build("pope", head_dim=4, n_heads=4).rotate(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4),
                                                            torch.arange(3), torch.arange(3))


@pytest.mark.parametrize("kv_heads", [4, 1])
def test_equals_x_transformers_polar_pos_emb(kv_heads):
    xt = pytest.importorskip("x_transformers.x_transformers")
    torch.manual_seed(0)
    B, T, D, H, Dh = 2, 9, 32, 4, 8
    attn = xt.Attention(dim=D, heads=H, dim_head=Dh, causal=True, kv_heads=kv_heads).eval()
    polar = xt.PolarEmbedding(Dh, kv_heads)
    with torch.no_grad():
        polar.learned_bias.uniform_(-2 * math.pi, 0.0)  # its bias_uniform_init fails on a leaf parameter
    x, positions = torch.randn(B, T, D), torch.arange(T)
    with torch.no_grad():
        want = attn(x, polar_pos_emb=polar(positions))
        q = attn.to_q(x).view(B, T, H, Dh).transpose(1, 2)
        k = attn.to_k(x).view(B, T, kv_heads, Dh).transpose(1, 2)
        v = attn.to_v(x).view(B, T, kv_heads, Dh).transpose(1, 2)
        pope = posenc.build("pope", head_dim=Dh, n_heads=H)
        # x-transformers adds the bias to the keys' phases (one row per key head); posenc subtracts it from each
        # query head's phase, which gives the same logits
        pope.phase_bias.copy_(polar.learned_bias[:, 0].repeat_interleave(H // kv_heads, dim=0))
        y = attend(q, k, v, pope, positions, positions, None, causal=True)
        got = attn.to_out(y.transpose(1, 2).reshape(B, T, H * Dh))
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        pope.phase_bias.zero_()
        other = attn.to_out(attend(q, k, v, pope, positions, positions, None, causal=True)
                            .transpose(1, 2).reshape(B, T, H * Dh))
    assert (other - want).abs().max() > 1e-3  # the bias matters: the comparison can fail


def _softplus(v: float) -> float:
    return max(v, 0.0) + math.log1p(math.exp(-abs(v)))


def test_float64_inputs_are_computed_in_float64():
    # far positions (angles near 3000 rad) and a phase bias: every element against a float64 reference in plain
    # Python; float32 magnitudes or products would be about 1e-7 off
    g = torch.Generator().manual_seed(3)
    pope = posenc.build("pope", head_dim=4, n_heads=2, bias_init="uniform").double()
    q = torch.randn(1, 2, 3, 4, generator=g, dtype=torch.float64)
    k = torch.randn(1, 2, 3, 4, generator=g, dtype=torch.float64)
    qp, kp = torch.tensor([3000, 3001, 3005]), torch.tensor([7, 2999, 3004])
    qo, ko = pope.rotate(q, k, qp, kp)
    assert qo.dtype == ko.dtype == torch.float64
    delta = pope.phase_bias.detach().clamp(-2 * math.pi, 0.0)
    for h in range(2):
        for t in range(3):
            for c in range(4):
                theta = 10000.0 ** (-c / 4)
                phase, phase_k = qp[t].item() * theta - delta[h, c].item(), kp[t].item() * theta
                mq, mk = _softplus(q[0, h, t, c].item()), _softplus(k[0, h, t, c].item())
                for got, want in ((qo[0, h, t, c], mq * math.cos(phase)), (qo[0, h, t, 4 + c], mq * math.sin(phase)),
                                  (ko[0, h, t, c], mk * math.cos(phase_k)),
                                  (ko[0, h, t, 4 + c], mk * math.sin(phase_k))):
                    assert got.item() == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_float32_inputs_stay_float32():
    pope = posenc.build("pope", head_dim=4, n_heads=2)
    q = torch.randn(1, 2, 3, 4)
    qo, ko = pope.rotate(q, q, torch.arange(3), torch.arange(3))
    assert qo.dtype == ko.dtype == torch.float32
    q64 = q.double()
    qo64, _ = pope.rotate(q64, q64, torch.arange(3), torch.arange(3))  # float32 module, float64 input: float64 out
    assert qo64.dtype == torch.float64
    torch.testing.assert_close(qo64.float(), qo, rtol=1e-6, atol=1e-6)
