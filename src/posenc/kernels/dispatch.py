"""Pick the fastest correct path for applying RoPE, and validate inputs before any kernel runs."""

from __future__ import annotations

import torch

from posenc.errors import PosencError
from posenc.kernels.reference import rope_apply_reference

__all__ = ["apply_rope", "available_providers", "validate_rope_inputs"]


def validate_rope_inputs(q: torch.Tensor, k: torch.Tensor, q_cos: torch.Tensor, q_sin: torch.Tensor,
                         k_cos: torch.Tensor, k_sin: torch.Tensor, pairing: str) -> None:
    """Clear errors for wrong shapes before any kernel runs."""
    if pairing not in ("half", "interleaved"):
        raise PosencError(f"pairing must be 'half' or 'interleaved', got {pairing!r}")
    for name, x in (("q", q), ("k", k)):
        if x.dim() != 4:
            raise PosencError(f"{name} must have shape [batch, heads, seq, head_dim], got {list(x.shape)}; "
                              f"reshape with .view(B, T, H, Dh).transpose(1, 2)")
        if not x.is_floating_point():
            raise PosencError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if q.shape[0] != k.shape[0]:
        raise PosencError(f"q and k must have the same batch, got {q.shape[0]} and {k.shape[0]}")
    if q.shape[-1] != k.shape[-1]:
        raise PosencError(f"q and k must have the same head_dim, got {q.shape[-1]} and {k.shape[-1]}")
    if q.shape[1] % k.shape[1]:
        raise PosencError(f"q heads ({q.shape[1]}) must be a multiple of k heads ({k.shape[1]}) for grouped-query "
                          f"attention")
    for name, x, c, s in (("q", q, q_cos, q_sin), ("k", k, k_cos, k_sin)):
        if c.shape != s.shape:
            raise PosencError(f"{name} cos and sin tables differ in shape: {list(c.shape)} vs {list(s.shape)}")
        if c.shape[-2] != x.shape[2]:
            raise PosencError(f"{name} has {x.shape[2]} positions but its angle table has {c.shape[-2]}; "
                              f"pass one position per token")
        if c.dim() == 3 and c.shape[0] not in (1, x.shape[0]):
            raise PosencError(f"{name} angle table has batch {c.shape[0]} but {name} has batch {x.shape[0]}")
        if 2 * c.shape[-1] > x.shape[-1]:
            raise PosencError(f"rotary width {2 * c.shape[-1]} exceeds {name}'s head_dim {x.shape[-1]}")


def available_providers() -> list[str]:
    """Names of the RoPE apply paths usable in this process (``reference`` always)."""
    return ["reference"]


def apply_rope(q: torch.Tensor, k: torch.Tensor, q_cos: torch.Tensor, q_sin: torch.Tensor, k_cos: torch.Tensor,
               k_sin: torch.Tensor, *, pairing: str = "half", inplace: bool = False,
               provider: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` by half-width float32 tables ``[T, R/2]`` or
    ``[B, T, R/2]``. ``inplace=True`` writes into q and k and returns them."""
    validate_rope_inputs(q, k, q_cos, q_sin, k_cos, k_sin, pairing)
    q_out = rope_apply_reference(q, q_cos, q_sin, pairing)
    k_out = rope_apply_reference(k, k_cos, k_sin, pairing)
    if inplace:
        with torch.no_grad():
            q.copy_(q_out)
            k.copy_(k_out)
        return q, k
    return q_out, k_out
