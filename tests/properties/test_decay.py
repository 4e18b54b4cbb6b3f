"""The RoFormer / xPos bound by hand."""

import pytest
import torch

from posenc.properties import roformer_bound


def test_the_xpos_damping_uses_the_paper_s_scale_base_of_512_by_default():
    # one pair turning at theta = 0, zeta = 1/2 (Sun et al. 2023: scale_base 512): the sum is |zeta^(r/512)|, so
    # 1/2 at r = 512 and 1/4 at r = 1024
    bound = roformer_bound(torch.tensor([0.0]), torch.tensor([0, 512, 1024]), zeta=torch.tensor([0.5]))
    assert bound.tolist() == pytest.approx([1.0, 0.5, 0.25], rel=1e-15)
