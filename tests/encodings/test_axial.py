"""Axial RoPE at its smallest width: a head of 4 channels is one rotary pair per axis."""

from __future__ import annotations

import torch

import posenc


def test_the_smallest_head_of_4_channels_turns_one_pair_by_the_row_and_one_by_the_column():
    # R = 4: R/4 = 1 frequency per axis, f_0 = base^0 = 1 (whatever the base). Half pairing: pair 0 is channels
    # (0, 2) and turns by the row y, pair 1 is channels (1, 3) and turns by the column x.
    ax = posenc.build("axial_rope", head_dim=4)
    y, x = 2, 3
    v = torch.tensor([[[[1.0, 2.0, 3.0, 4.0]]]], dtype=torch.float64)  # [1, 1, 1, 4]
    c, s = torch.tensor([y, x], dtype=torch.float64).cos(), torch.tensor([y, x], dtype=torch.float64).sin()
    # (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), x1 = channels 0..1, x2 = channels 2..3
    want = torch.tensor([1 * c[0] - 3 * s[0], 2 * c[1] - 4 * s[1], 3 * c[0] + 1 * s[0], 4 * c[1] + 2 * s[1]],
                        dtype=torch.float64)
    got = ax.rotate(v.float(), v.float(), torch.tensor([[[y]], [[x]]]), torch.tensor([[[y]], [[x]]]))[0]
    torch.testing.assert_close(got[0, 0, 0].double(), want, atol=1e-6, rtol=1e-6)
