"""Attention temperature by position: queries scaled by a factor that grows with their position (Llama 4's
"attention temperature tuning" on its NoPE layers, after Nakanishi 2025, "Scalable-Softmax Is Superior for
Attention", arXiv:2501.19399).

A softmax over ``n`` keys flattens as ``n`` grows: with logits of bounded size every weight tends to ``1/n``. Scalable
softmax multiplies the logits by ``s log n``; Llama 4 multiplies the query at position ``p`` (0-based) by::

    tau(p) = 1 + a * log(1 + floor((p + 1) / F))          a = attn_scale (0.1), F = floor_scale (8192)

so the factor is exactly 1 for the first ``F - 1`` positions and grows like ``a log(p / F)`` past them (Hugging Face
``Llama4TextAttention``: ``log1p(floor((positions + 1) / floor_scale)) * attn_scale + 1``). Keys are not touched and
nothing is added to the logits: the encoding carries position only through this temperature, so a layer with it and
no other encoding is NoPE up to ``F - 1`` tokens.
"""

from __future__ import annotations

import math

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_positions
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["AttentionTemperature", "temperature_factor"]


def temperature_factor(positions: torch.Tensor, attn_scale: float, floor_scale: int) -> torch.Tensor:
    """``1 + attn_scale * log1p(floor((p + 1) / floor_scale))`` in float32 for integer positions ``p`` (any shape);
    the floor is taken on integers, so it is exact at every position."""
    steps = torch.div(positions.long() + 1, floor_scale, rounding_mode="floor")  # exact integer floor
    return (1.0 + attn_scale * torch.log1p(steps.to(torch.float64))).to(torch.float32)


@register("temperature")
class AttentionTemperature(PositionalEncoding):
    """Queries scaled by ``1 + attn_scale * log1p(floor((p + 1) / floor_scale))`` (Llama 4, arXiv:2501.19399).

    Args:
        attn_scale: ``a``, how fast the factor grows past ``floor_scale`` (Llama 4: 0.1).
        floor_scale: ``F``, the positions per step of the floor (Llama 4: 8192).

    Example::

        >>> import torch, posenc
        >>> t = posenc.build("temperature", attn_scale=0.5, floor_scale=2)
        >>> t.query_scale(torch.arange(4))      # 1 + 0.5 log(1 + floor((p + 1) / 2))
        tensor([1.0000, 1.3466, 1.3466, 1.5493])
    """

    info = EncodingInfo(family="temperature", paper="Meta 2025, Llama 4 attention temperature tuning; Nakanishi "
                        "2025, Scalable-Softmax (arXiv:2501.19399)", hooks=("query_scale",))

    def __init__(self, attn_scale: float = 0.1, floor_scale: int = 8192):
        super().__init__()
        if isinstance(attn_scale, bool) or not isinstance(attn_scale, int | float) or not math.isfinite(attn_scale) \
                or attn_scale < 0:
            raise PosencError(f"attn_scale must be a finite number >= 0 (Llama 4: 0.1), got {attn_scale!r}")
        if not whole_number(floor_scale):
            raise PosencError(f"floor_scale must be a positive integer (Llama 4: 8192), got {floor_scale!r}")
        self.attn_scale, self.floor_scale = float(attn_scale), int(floor_scale)

    def query_scale(self, q_positions: torch.Tensor) -> torch.Tensor:
        """``tau(p)`` for each query position, float32 ``[Tq]`` or ``[B, Tq]``."""
        q_positions = check_positions(q_positions, name="q_positions")
        return temperature_factor(q_positions, self.attn_scale, self.floor_scale)

    def extra_repr(self) -> str:
        return f"attn_scale={self.attn_scale:g}, floor_scale={self.floor_scale}"
