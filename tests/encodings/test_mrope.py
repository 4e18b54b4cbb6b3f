"""M-RoPE and its siblings (axial RoPE, VideoRoPE): one row of positions per sequence must match the batch, a
transposed q or k is named with its own positions, and the rotary width is checked down to a head of one pair."""

from __future__ import annotations

import pytest
import torch

import posenc
from posenc.encodings.mrope import rotary_width
from posenc.errors import PosencError


@pytest.mark.parametrize("name, options", [("mrope", {"mrope_section": [2, 1, 1]}), ("axial_rope", {}),
                                           ("videorope", {})])
def test_per_sequence_positions_of_another_batch_are_refused_naming_both_batches(name, options):
    # q and k hold 2 sequences; 3 rows of positions fit neither one row per sequence nor one row for all
    encoding = posenc.build(name, head_dim=8, **options)
    x = torch.randn(2, 1, 4, 8)
    with pytest.raises(PosencError, match=r"^q_positions has batch 3 but the input has batch 2"):
        encoding.rotate(x, x, torch.zeros(3, 4, dtype=torch.long), torch.arange(4))


SECTIONED = [("mrope", {"mrope_section": [2, 1, 1]}), ("axial_rope", {}), ("videorope", {})]


@pytest.mark.parametrize("name, options", SECTIONED)
@pytest.mark.parametrize("transposed", ["q", "k"])
def test_a_transposed_input_is_named_with_its_own_positions(name, options, transposed):
    # q or k laid out [B, T, H, Dh]: its dim 1 holds the 5 tokens of *its* positions, and the message says which
    # (q with q_positions, k with k_positions), and how to fix that tensor
    encoding = posenc.build(name, head_dim=8, **options)
    right, wrong = torch.randn(1, 2, 5, 8), torch.randn(1, 5, 2, 8)
    q, k = (wrong, right) if transposed == "q" else (right, wrong)
    with pytest.raises(PosencError, match=rf"^{transposed} has shape \[1, 5, 2, 8\], which reads as \[B, T, H, Dh\]: "
                                          rf"its dim 1 holds the 5 tokens of {transposed}_positions; .*"
                                          rf"pass {transposed}\.transpose\(1, 2\)$"):
        encoding.rotate(q, k, torch.arange(5), torch.arange(5))


@pytest.mark.parametrize("head_dim, rotary_dim, width", [
    (2, None, 2),  # the smallest head: one pair
    (4, None, 4), (8, 2, 2), (8, 8, 8),
    (0, None, None), (3, None, None), (2.0, None, None), (True, None, None),  # not an even integer >= 2
    (8, 0, None), (8, 3, None), (8, 10, None),  # rotary_dim odd, empty or wider than the head
])
def test_rotary_width_takes_even_widths_from_one_pair(head_dim, rotary_dim, width):
    if width is None:
        with pytest.raises(PosencError, match=r"(head_dim|rotary_dim) must be an even integer"):
            rotary_width("M-RoPE", head_dim, rotary_dim)
    else:
        assert rotary_width("M-RoPE", head_dim, rotary_dim) == width


def test_a_head_of_one_pair_turns_by_the_temporal_position():
    # head_dim 2: one pair (channels 0 and 1 under half pairing), all of it on the first (temporal) axis; its
    # frequency is base^0 = 1, so (1, 0) at temporal position t turns to (cos t, sin t)
    m = posenc.build("mrope", head_dim=2)
    assert m.mrope_section == (1, 0, 0)
    t = torch.tensor([0, 1, 2, 3])
    thw = torch.stack([t, torch.zeros(4, dtype=torch.long), torch.full((4,), 7)])[:, None]  # [3, 1, 4]
    q = torch.tensor([1.0, 0.0]).expand(1, 1, 4, 2)
    out = m.rotate(q, q, thw, thw)[0][0, 0].double()
    torch.testing.assert_close(out, torch.stack([t.double().cos(), t.double().sin()], -1), rtol=1e-6, atol=1e-6)
