import pytest
import torch

import posenc
from posenc.encodings.randomized import sorted_random_positions
from posenc.encodings.xpos import xpos_zeta
from posenc.errors import PosencError


def test_xpos_logit_is_rope_logit_times_zeta_power_of_distance():
    # logit(n, m) = sum_i zeta_i^((n - m)/512) * (RoPE pair-i contribution); check via a one-pair head
    head_dim = 2
    xpos = posenc.build("xpos", head_dim=head_dim)
    rope = posenc.build("rope", head_dim=head_dim)
    q, k = torch.randn(1, 1, 1, head_dim), torch.randn(1, 1, 1, head_dim)
    zeta = float(xpos_zeta(2)[0])  # (0 + 0.4*2)/(1.4*2) = 0.2857...
    assert abs(zeta - 0.8 / 2.8) < 1e-12
    n, m = 900, 100
    qx, kx = xpos.rotate(torch.cat([q, k], 2), torch.cat([q, k], 2), torch.tensor([n, m]), torch.tensor([n, m]))
    qr, kr = rope.rotate(torch.cat([q, k], 2), torch.cat([q, k], 2), torch.tensor([n, m]), torch.tensor([n, m]))
    logit_x = float((qx[0, 0, 0] * kx[0, 0, 1]).sum())
    logit_r = float((qr[0, 0, 0] * kr[0, 0, 1]).sum())
    assert abs(logit_x - logit_r * zeta ** ((n - m) / 512)) < 1e-5


def test_xpos_logit_depends_on_distance_only():
    xpos = posenc.build("xpos", head_dim=8)
    q, k = torch.randn(1, 1, 1, 8), torch.randn(1, 1, 1, 8)
    values = []
    for start in (0, 300, 2000):
        pos = torch.tensor([start + 7, start])
        x = torch.cat([q, k], 2)
        qx, kx = xpos.rotate(x, x, pos, pos)
        values.append(float((qx[0, 0, 0] * kx[0, 0, 1]).sum()))
    assert max(values) - min(values) < 1e-4


def test_nope_does_nothing():
    nope = posenc.build("nope")
    x = torch.randn(2, 3, 4)
    assert torch.equal(nope.embed(x, torch.arange(3)), x)
    assert nope.bias(torch.arange(3), torch.arange(3)) is None


def test_sorted_random_positions_are_sorted_distinct_in_range():
    draw = sorted_random_positions(50, 64, rows=3, generator=torch.Generator().manual_seed(1))
    assert draw.shape == (3, 50)
    for row in draw:
        assert row.unique().numel() == 50 and (row.diff() > 0).all() and row.min() >= 0 and row.max() < 64
    # at the limit n = max_len the only draw is every position, in order; one more is refused
    assert torch.equal(sorted_random_positions(64, 64, rows=2, generator=torch.Generator().manual_seed(1)),
                       torch.arange(64).expand(2, 64))
    with pytest.raises(PosencError, match="a sequence of 65 tokens needs 65 distinct positions but the range is "
                                          r"\[0, 64\)"):
        sorted_random_positions(65, 64)


def test_randomized_uses_one_draw_for_every_hook_of_a_forward():
    wrapped = posenc.build("randomized", encoding="sinusoidal", max_len=1000, options={"dim": 8})
    positions = torch.arange(6)
    x = torch.zeros(1, 6, 8)
    first = wrapped.embed(x, positions)
    mapped = wrapped.randomize(positions)
    again = wrapped.embed(x, positions)
    torch.testing.assert_close(first, again)  # same tensor object -> same draw
    other = wrapped.embed(x, torch.arange(6))  # a new forward -> a new draw
    assert not torch.allclose(first, other)
    assert (mapped.diff() > 0).all() and mapped.max() < 1000
    torch.testing.assert_close(first[0], posenc.build("sinusoidal", dim=8).encode(mapped))


def test_randomized_eval_can_use_plain_positions():
    wrapped = posenc.build("randomized", encoding="rope", max_len=100, options={"head_dim": 8}, at_eval=False).eval()
    assert torch.equal(wrapped.randomize(torch.arange(5)), torch.arange(5))


def test_randomized_wraps_bias_encodings_and_rejects_itself():
    wrapped = posenc.build("randomized", encoding="alibi", max_len=100, options={"n_heads": 2})
    assert wrapped.bias(torch.arange(4), torch.arange(4)).shape == (2, 4, 4)
    with pytest.raises(PosencError, match="itself"):
        posenc.build("randomized", encoding="randomized")
