"""ALiBi: attention with linear biases (Press et al. 2022, "Train Short, Test Long").

    logits[h, i, j] += -m_h * |i - j|

For n heads with n a power of two the slopes are ``m_h = 2^(-8h/n)``, h = 1..n (8 heads: 1/2 .. 1/256). For other n:
the slopes of the nearest lower power of two ``p``, then every other slope of ``2p`` until there are n. Inside the
causal region ``j <= i`` this is ``-m (i - j)``, the paper's bias; BLOOM adds ``m * j`` instead, which differs by a
per-row constant that softmax ignores.
"""

from __future__ import annotations

import math

import torch

from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_positions
from posenc.errors import PosencError
from posenc.registry import register

__all__ = ["ALiBi", "alibi_slopes"]


def _power_of_two_slopes(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """Head slopes ``[n_heads]`` (float64) following Press et al. 2022."""
    if not isinstance(n_heads, int) or n_heads < 1:
        raise PosencError(f"ALiBi needs a positive number of heads, got {n_heads!r}")
    p = 2 ** int(math.floor(math.log2(n_heads)))
    slopes = _power_of_two_slopes(p)
    if p < n_heads:
        slopes += _power_of_two_slopes(2 * p)[0::2][: n_heads - p]
    return torch.tensor(slopes, dtype=torch.float64)


@register("alibi")
class ALiBi(PositionalEncoding):
    """Linear distance penalty per head (Press et al. 2022, arXiv:2108.12409).

    Args:
        n_heads: number of attention heads (any positive integer).
    """

    info = EncodingInfo(family="bias", paper="Press et al. 2022, Train Short, Test Long (ALiBi)", hooks=("bias",))

    def __init__(self, n_heads: int = 8):
        super().__init__()
        self.n_heads = n_heads
        self.register_buffer("slopes", alibi_slopes(n_heads).to(torch.float32), persistent=False)  # [H]

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]`` for per-row positions): ``-m_h |i - j|``."""
        q_positions = check_positions(q_positions, name="q_positions")
        k_positions = check_positions(k_positions, name="k_positions")
        distance = (q_positions[..., :, None] - k_positions[..., None, :]).abs()  # [(B,) Tq, Tk]
        slopes = self.slopes.to(distance.device)
        if distance.dim() == 3:
            return -slopes[None, :, None, None] * distance[:, None].float()  # [B, H, Tq, Tk]
        return -slopes[:, None, None] * distance[None].float()  # [H, Tq, Tk]

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}"
