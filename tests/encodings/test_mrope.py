"""M-RoPE's positions: one row per sequence must match the batch."""

from __future__ import annotations

import pytest
import torch

import posenc
from posenc.errors import PosencError


@pytest.mark.parametrize("name, options", [("mrope", {"mrope_section": [2, 1, 1]}), ("axial_rope", {}),
                                           ("videorope", {})])
def test_per_sequence_positions_of_another_batch_are_refused_naming_both_batches(name, options):
    # q and k hold 2 sequences; 3 rows of positions fit neither one row per sequence nor one row for all
    encoding = posenc.build(name, head_dim=8, **options)
    x = torch.randn(2, 1, 4, 8)
    with pytest.raises(PosencError, match=r"^q_positions has batch 3 but the input has batch 2"):
        encoding.rotate(x, x, torch.zeros(3, 4, dtype=torch.long), torch.arange(4))
