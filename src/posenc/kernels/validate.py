"""The one validation of a rotation's arguments: every RoPE entry point calls it before anything is computed.

- :func:`check_pairing`: the pairing's name, one of :data:`PAIRINGS`; what every option named ``pairing`` goes through.
- :func:`check_qk`: the rotated tensors themselves (torch tensors, floating point, one device, ``[B, H, T, Dh]``, one
  batch, one head size, query heads a multiple of key heads, and the head size an encoding was built for). Encodings
  call it first, since building their angle tables needs the shapes it vouches for.
- :func:`validate_rope_inputs`: everything :func:`posenc.kernels.apply_rope` receives: the pairing, ``q`` and ``k``
  (through :func:`check_qk`), the cos/sin tables, the optional per-pair scales, and what writing in place needs.

Each failure is a :class:`~posenc.errors.PosencError` naming what was given, what was expected and how to fix it.
"""

from __future__ import annotations

import torch

from posenc.errors import PosencError

__all__ = ["PAIRINGS", "check_pairing", "check_qk", "validate_rope_inputs"]

#: the two ways of pairing channels: ``i`` with ``i + R/2`` (GPT-NeoX / Hugging Face), ``2i`` with ``2i + 1`` (GPT-J)
PAIRINGS = ("half", "interleaved")


def check_pairing(pairing: object, name: str = "pairing") -> None:
    """Raise ``PosencError`` unless ``pairing`` is one of :data:`PAIRINGS`; ``name`` is what the message calls it."""
    if pairing not in PAIRINGS:
        raise PosencError(f"{name} must be 'half' or 'interleaved', got {pairing!r}")


def _check_tensor(name: str, x: object, device: torch.device) -> None:
    if not isinstance(x, torch.Tensor):
        raise PosencError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise PosencError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if x.device != device:
        raise PosencError(f"{name} is on {x.device} but q is on {device}; move both to one device")


def check_qk(q: torch.Tensor, k: torch.Tensor, head_dim: int | None = None) -> None:
    """Clear errors unless ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` can be rotated together.

    ``head_dim``: the head size the calling encoding was built for (``None``: any, as long as q and k agree).
    """
    if not isinstance(q, torch.Tensor):
        raise PosencError(f"q must be a torch.Tensor, got {type(q).__name__}")
    for name, x in (("q", q), ("k", k)):
        _check_tensor(name, x, q.device)
    for name, x in (("q", q), ("k", k)):
        if x.dim() != 4:
            raise PosencError(f"{name} must have shape [batch, heads, seq, head_dim], got {list(x.shape)}; "
                              f"reshape with .view(B, T, H, Dh).transpose(1, 2)")
    if q.shape[0] != k.shape[0]:
        raise PosencError(f"q and k must have the same batch size, got {q.shape[0]} and {k.shape[0]}")
    if head_dim is not None:
        for name, x in (("q", q), ("k", k)):
            if x.shape[-1] != head_dim:
                raise PosencError(f"{name} has head_dim {x.shape[-1]} but this encoding was built for head_dim "
                                  f"{head_dim}; build it with head_dim={x.shape[-1]}")
    if q.shape[-1] != k.shape[-1]:
        raise PosencError(f"q and k must have the same head_dim, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[1] == 0 or q.shape[1] % k.shape[1]:
        raise PosencError(f"q heads ({q.shape[1]}) must be a multiple of k heads ({k.shape[1]}) for grouped-query "
                          f"attention")


def _check_tables(name: str, x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> None:
    if c.shape != s.shape:
        raise PosencError(f"{name} cos and sin tables differ in shape: {list(c.shape)} vs {list(s.shape)}")
    if c.dim() not in (2, 3):
        raise PosencError(f"{name} angle tables must be [T, R/2] or [B, T, R/2], got {list(c.shape)}")
    if c.shape[-2] != x.shape[2]:
        raise PosencError(f"{name} has {x.shape[2]} positions but its angle table has {c.shape[-2]}; "
                          f"pass one position per token")
    if c.dim() == 3 and c.shape[0] not in (1, x.shape[0]):
        raise PosencError(f"{name} angle table has batch {c.shape[0]} but {name} has batch {x.shape[0]}; "
                          f"pass [T, R/2] shared by the batch or one table per row")
    if c.shape[-1] < 1 or 2 * c.shape[-1] > x.shape[-1]:
        raise PosencError(f"rotary width {2 * c.shape[-1]} must be in 2..{name}'s head_dim {x.shape[-1]}; "
                          f"tables hold R/2 angles per token")


def _check_scale(name: str, scale: torch.Tensor, c: torch.Tensor) -> None:
    if scale.shape != c.shape:
        raise PosencError(f"{name} scale has shape {list(scale.shape)} but its cos/sin tables have {list(c.shape)}; "
                          f"pass one factor per token and pair, shaped like the tables")


def _check_inplace(q: torch.Tensor, k: torch.Tensor) -> None:
    for name, x in (("q", q), ("k", k)):
        if torch.is_grad_enabled() and x.requires_grad and x.is_leaf:
            raise PosencError(f"inplace=True would overwrite {name}, a leaf tensor that requires grad; "
                              f"use inplace=False, or rotate a non-leaf (e.g. the projection's output)")
    for name, x in (("q", q), ("k", k)):
        if any(st == 0 and n > 1 for st, n in zip(x.stride(), x.shape, strict=True)):
            raise PosencError(f"inplace=True cannot write into {name}: it is a broadcast (expanded) view whose "
                              f"rows share memory; pass inplace=False or {name}.contiguous()")
    if q.data_ptr() == k.data_ptr() and q.numel():
        raise PosencError("inplace=True needs q and k in separate memory, but they share storage; "
                          "pass inplace=False or separate tensors")


def validate_rope_inputs(q: torch.Tensor, k: torch.Tensor, q_cos: torch.Tensor, q_sin: torch.Tensor,
                         k_cos: torch.Tensor, k_sin: torch.Tensor, pairing: str, inplace: bool = False, *,
                         q_scale: torch.Tensor | None = None, k_scale: torch.Tensor | None = None) -> None:
    """Clear errors for wrong shapes, dtypes and devices of :func:`posenc.kernels.apply_rope`'s arguments, before
    any kernel runs (``q_scale``/``k_scale``: optional factors shaped like their tables)."""
    check_pairing(pairing)
    if not isinstance(inplace, bool):
        raise PosencError(f"inplace must be True or False, got {inplace!r}; a string such as 'no' would count as true")
    check_qk(q, k)
    tables = [("q_cos", q_cos), ("q_sin", q_sin), ("k_cos", k_cos), ("k_sin", k_sin)]
    tables += [(name, x) for name, x in (("q_scale", q_scale), ("k_scale", k_scale)) if x is not None]
    for name, x in tables:
        _check_tensor(name, x, q.device)
    for name, x, c, s, scale in (("q", q, q_cos, q_sin, q_scale), ("k", k, k_cos, k_sin, k_scale)):
        _check_tables(name, x, c, s)
        if scale is not None:
            _check_scale(name, scale, c)
    if inplace:
        _check_inplace(q, k)
