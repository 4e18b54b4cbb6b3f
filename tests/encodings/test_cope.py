"""CoPE's checks before it allocates, and where its bias lives."""

from __future__ import annotations

import pytest
import torch

import posenc
from posenc.errors import PosencError


def test_a_table_too_large_for_memory_is_refused_before_it_is_allocated():
    # 10^7 positions x 10^7 channels of float32: 4 * 10^14 bytes (400 TB) for the table alone
    with pytest.raises(PosencError, match=r"CoPE's table of 10000000 x 10000000 float32 values does not fit in memory"):
        posenc.build("cope", head_dim=10 ** 7, max_len=10 ** 7)


def test_the_bias_lives_on_the_device_of_q_when_the_positions_are_on_the_cpu():
    # a model moved to another device, called with CPU positions (torch.arange): the meta device stands in for a
    # GPU here, holding shapes without values, so the answer is known: a [B, H, Tq, Tk] bias on the meta device
    cope = posenc.build("cope", head_dim=8, max_len=16).to("meta")
    q, k = torch.empty(2, 4, 3, 8, device="meta"), torch.empty(2, 2, 5, 8, device="meta")
    bias = cope.contextual_bias(q, k, torch.arange(2, 5), torch.arange(5))
    assert bias.device.type == "meta" and bias.shape == (2, 4, 3, 5)
