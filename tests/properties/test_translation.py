"""Translation invariance for any score function (posenc.properties.translation.offset_spread): zero for a score of
the offset alone, the range over positions otherwise, by hand."""

from __future__ import annotations

import pytest
import torch

from posenc.properties.translation import offset_spread


def test_offset_spread_is_zero_for_a_score_of_the_offset_and_measures_the_rest():
    starts = torch.arange(0, 50, 7)
    assert offset_spread(lambda qp, kp: torch.cos(0.3 * (qp - kp).double()), starts, 5, 1.0) == 0.0
    spread = offset_spread(lambda qp, kp: (qp + kp).double(), starts, 2, 4.0)
    assert spread == pytest.approx((2 * 49 + 2 - 2) / 4.0)  # 2p + 2 over p = 0..49: range 2 * 49
