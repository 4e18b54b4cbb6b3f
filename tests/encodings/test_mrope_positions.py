"""M-RoPE's per-axis positions ``[A, B, T]`` are checked against the input: another batch or length is refused."""

import pytest
import torch

import posenc
from posenc.errors import PosencError


def test_axis_positions_of_another_batch_or_length_are_refused():
    m = posenc.build("mrope", head_dim=12, mrope_section=[2, 2, 2])
    q, k = torch.randn(2, 1, 5, 12), torch.randn(2, 1, 5, 12)
    good = torch.arange(5).expand(3, 2, 5)
    m.rotate(q, k, good, good)  # no error
    for bad in (torch.arange(5).expand(3, 3, 5), torch.arange(6).expand(3, 2, 6)):
        with pytest.raises(PosencError, match="q_positions"):
            m.rotate(q, k, bad, good)
        with pytest.raises(PosencError, match="k_positions"):
            m.rotate(q, k, good, bad)


def test_a_key_in_the_wrong_layout_is_named():
    m = posenc.build("mrope", head_dim=12, mrope_section=[2, 2, 2])
    q = torch.randn(1, 2, 5, 12)
    k = torch.randn(1, 5, 2, 12)  # [B, T, H, Dh]
    with pytest.raises(PosencError, match=r"^k has shape \[1, 5, 2, 12\]"):
        m.rotate(q, k, torch.arange(5), torch.arange(5))
