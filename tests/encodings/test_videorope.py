"""VideoRoPE's frequency allocation: the axis of each pair by hand, text positions as RoPE, the temporal axis on the
lowest frequencies; the derived tables (as M-RoPE's and axial RoPE's) are not checkpointed."""

import pytest
import torch

import posenc
from posenc.errors import PosencError


def test_axes_by_hand():
    assert posenc.build("videorope", head_dim=16).pair_axis.tolist() == [1, 2, 1, 2, 1, 2, 0, 0]
    assert posenc.build("videorope", head_dim=128).pair_axis.tolist() == [1, 2] * 24 + [0] * 16  # the paper's
    assert posenc.build("videorope", head_dim=12, temporal=3).pair_axis.tolist() == [1, 2, 1, 0, 0, 0]


def test_the_temporal_pairs_have_the_lowest_frequencies():
    v = posenc.build("videorope", head_dim=32, temporal=4)
    t_freq = v.inv_freq[v.pair_axis == 0]
    assert float(t_freq.max()) < float(v.inv_freq[v.pair_axis != 0].min())


def test_text_positions_are_rope():
    v = posenc.build("videorope", head_dim=16, base=500.0)
    rope = posenc.build("rope", head_dim=16, base=500.0)
    q, k = torch.randn(2, 2, 6, 16), torch.randn(2, 2, 6, 16)
    for a, b in zip(v.rotate(q, k, torch.arange(6), torch.arange(6)), rope.rotate(q, k, torch.arange(6),
                                                                                    torch.arange(6)), strict=True):
        torch.testing.assert_close(a, b)


def test_each_pair_turns_by_its_axis_position():
    v = posenc.build("videorope", head_dim=8, temporal=1)  # pairs: h, w, h, t
    thw = torch.tensor([[5], [2], [9]])[:, None]  # one token at t=5, h=2, w=9: [3, 1, 1]
    q = torch.zeros(1, 1, 1, 8)
    q[..., :4] = 1.0  # the first channel of every pair (half pairing: pair i is channels i and i + 4)
    out = v.rotate(q, q, thw, thw)[0][0, 0, 0]
    inv = v.inv_freq
    angles = torch.tensor([2 * inv[0], 9 * inv[1], 2 * inv[2], 5 * inv[3]], dtype=torch.float64)
    torch.testing.assert_close(out[:4].double(), angles.cos(), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(out[4:].double(), angles.sin(), rtol=1e-6, atol=1e-6)


def test_refusals():
    with pytest.raises(PosencError, match="temporal must be a positive integer below the 4 rotary pairs"):
        posenc.build("videorope", head_dim=8, temporal=4)
    with pytest.raises(PosencError, match="has 2 axes"):
        posenc.build("videorope", head_dim=8).rotate(torch.randn(1, 1, 2, 8), torch.randn(1, 1, 2, 8),
                                                     torch.zeros(2, 1, 2, dtype=torch.long), torch.arange(2))


def test_tables_at_one_row_of_text_positions_per_sequence_are_ropes():
    # text positions: every axis is the token's index, so pair i turns by p * base^(-2i/R) as in RoPE;
    # head 8, base 100: f = 1, 100^(-1/4), 100^(-1/2), 100^(-3/4)
    v = posenc.build("videorope", head_dim=8, base=100.0)
    positions = torch.tensor([[0, 1, 2], [5, 7, 9]])  # [B = 2, T = 3]
    f = torch.tensor([1.0, 100 ** -0.25, 100 ** -0.5, 100 ** -0.75], dtype=torch.float64)
    angles = positions.double()[..., None] * f  # [2, 3, 4]
    cos, sin = v.tables(positions)
    torch.testing.assert_close(cos.double(), angles.cos(), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(sin.double(), angles.sin(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, options", [("videorope", {}), ("mrope", {"mrope_section": [2, 1, 1]}),
                                           ("axial_rope", {})])
def test_the_derived_tables_are_buffers_but_not_checkpointed(name, options):
    # inv_freq and pair_axis follow from the constructor's arguments: they move with .to() (buffers) but are no
    # state to save, so a checkpoint of a model holds none of them and one saved before them still loads strictly
    encoding = posenc.build(name, head_dim=8, **options)
    assert {"inv_freq", "pair_axis"} <= dict(encoding.named_buffers()).keys()
    assert list(encoding.state_dict()) == []
    encoding.load_state_dict({}, strict=True)
