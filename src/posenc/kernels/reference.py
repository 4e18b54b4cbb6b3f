"""Reference RoPE apply in plain torch: the definition every fast path is tested against.

For a rotary width ``R`` (``R = 2 * cos.shape[-1]``) and pair ``i`` with angle ``theta_i``:

    (x1', x2') = (x1 cos - x2 sin, x2 cos + x1 sin)

``pairing="half"`` (GPT-NeoX / Hugging Face) pairs element ``i`` with ``i + R/2``; ``pairing="interleaved"``
(GPT-J / Meta) pairs ``2i`` with ``2i + 1``. Dimensions ``R..Dh-1`` pass through unchanged (partial rotary).
Math in float32 by default (``math_dtype``; :func:`posenc.kernels.apply_rope` asks for float64 when q or k is
float64); the result has the input's dtype.
"""

from __future__ import annotations

import torch

__all__ = ["rope_apply_reference", "broadcast_table", "pair_channels"]


def broadcast_table(table: torch.Tensor) -> torch.Tensor:
    """``[T, R/2]`` -> ``[1, 1, T, R/2]``; ``[B, T, R/2]`` -> ``[B, 1, T, R/2]`` (broadcast over heads)."""
    if table.dim() == 2:
        return table[None, None]
    return table[:, None]


def pair_channels(x: torch.Tensor, pairing: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The two channels of every rotary pair of ``x [..., R]``, each ``[..., R/2]`` (views): ``i`` and ``i + R/2`` for
    ``"half"``, ``2i`` and ``2i + 1`` for ``"interleaved"``."""
    if pairing == "half":
        half = x.shape[-1] // 2
        return x[..., :half], x[..., half:]
    return x[..., 0::2], x[..., 1::2]


def rope_apply_reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: str = "half",
                         math_dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Rotate ``x [B, H, T, Dh]`` by the angles whose cos/sin are ``[T, R/2]`` or ``[B, T, R/2]``; returns a new tensor.

    ``math_dtype=torch.float64`` gives the high-precision reference the fast paths are checked against.
    """
    half = cos.shape[-1]
    rot = 2 * half
    c = broadcast_table(cos).to(math_dtype)  # [B|1, 1, T, R/2]
    s = broadcast_table(sin).to(math_dtype)
    xf = x[..., :rot].to(math_dtype)
    x1, x2 = pair_channels(xf, pairing)  # [B, H, T, R/2] each
    if pairing == "half":
        out = torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)  # [B, H, T, R]
    else:
        out = torch.stack([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).flatten(-2)  # [B, H, T, R/2, 2] -> [B, H, T, R]
    if rot == x.shape[-1]:
        return out.to(x.dtype)
    return torch.cat([out.to(x.dtype), x[..., rot:]], dim=-1)
