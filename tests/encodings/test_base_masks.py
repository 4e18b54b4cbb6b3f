"""The causal mask every attention path shares (posenc.encodings.base.future_mask)."""

import torch

from posenc.encodings.base import future_mask


def test_future_mask_by_hand():
    # queries are the last Tq of Tk tokens: query 0 is token 2 (sees keys 0..2), query 1 is token 3 (sees all)
    assert future_mask(2, 4).tolist() == [[False, False, False, True], [False, False, False, False]]
    assert torch.equal(future_mask(3, 3), torch.tensor([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=torch.bool))
    assert future_mask(0, 5).shape == (0, 5)
