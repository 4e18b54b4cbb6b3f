"""Rotary position embedding (Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding").

Queries and keys are rotated pair by pair by an angle proportional to their position:

    theta_{p,i} = p * inv_freq_i,        inv_freq_i = base^(-2i/R)   (i = 0..R/2-1, R the rotary width)
    (x1', x2') = (x1 cos theta - x2 sin theta,  x2 cos theta + x1 sin theta)

so ``<R(p) q, R(m) k>`` depends on ``p - m`` only. Scalings (:mod:`posenc.encodings.rope_scaling`) change
``inv_freq`` and an ``attention_factor`` that multiplies cos and sin; the module stays the same.

Precision: angles are built from int64 positions in float64 (Hugging Face builds them in float32 and is off by 0.37
rad-scaled error at 2^24). They are stored as float32 tables and applied with float32 math for float32, bfloat16 and
float16 tensors; float64 tensors get float64 tables (never rounded through float32) and float64 math.
"""

from __future__ import annotations

from typing import Any

import torch

from posenc.checks import whole_number
from posenc.encodings.base import (
    EncodingInfo,
    PositionalEncoding,
    check_head_layout,
    check_positions,
    math_dtype,
    position_bounds,
)
from posenc.encodings.catalog import register
from posenc.encodings.rope_scaling import RopeScaling, compute_inv_freq, yarn_logit_scale
from posenc.errors import PosencError
from posenc.kernels import PAIRINGS, apply_rope, check_pairing, check_qk

__all__ = ["RoPE", "rope_angles", "rope_tables", "positions_span", "convert_qk_weights", "pairing_permutation"]

#: positions below this many are served from a cached table; larger ones are computed per call
_CACHE_LIMIT = 1 << 17


def rope_angles(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """``theta = p * inv_freq`` in float64: positions ``[..., T]`` (int) -> ``[..., T, R/2]``."""
    return positions.to(torch.float64)[..., None] * inv_freq.to(device=positions.device, dtype=torch.float64)


def positions_span(*positions: torch.Tensor) -> int:
    """``1 + the largest position`` over the given tensors; 0 when all are empty (an empty query or key is valid)."""
    return max((position_bounds(p)[1] + 1 for p in positions if p.numel()), default=0)


def rope_tables(positions: torch.Tensor, inv_freq: torch.Tensor, attention_factor: float = 1.0,
                dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """``(cos, sin)`` tables ``[..., T, R/2]`` in ``dtype`` (float32, or float64 for float64 inputs), computed in
    float64 and scaled by ``attention_factor``."""
    theta = rope_angles(positions, inv_freq)
    return (theta.cos() * attention_factor).to(dtype), (theta.sin() * attention_factor).to(dtype)


def pairing_permutation(rotary_dim: int, head_dim: int, source: str, target: str) -> torch.Tensor:
    """Index ``perm`` with ``x_target = x_source[..., perm]`` for one head's ``head_dim`` channels.

    half pairs ``i`` with ``i + R/2``; interleaved pairs ``2i`` with ``2i + 1``. Channels ``R..head_dim-1`` stay.
    """
    for name, value in (("source", source), ("target", target)):
        check_pairing(value, f"{name} pairing")
    half = rotary_dim // 2
    if source == target:
        return torch.arange(head_dim)
    # interleaved slot 2i holds half slot i, interleaved slot 2i+1 holds half slot i + R/2
    to_interleaved = torch.stack([torch.arange(half), torch.arange(half) + half], dim=1).flatten()  # [R]
    perm = to_interleaved if target == "interleaved" else torch.argsort(to_interleaved)
    return torch.cat([perm, torch.arange(rotary_dim, head_dim)])


def convert_qk_weights(weight: torch.Tensor, n_heads: int, head_dim: int, source: str, target: str,
                       rotary_dim: int | None = None) -> torch.Tensor:
    """Permute the output rows of a q or k projection (``weight [n_heads * head_dim, in]`` or a bias
    ``[n_heads * head_dim]``) so that a model using ``target`` pairing gives the same logits as ``source``.

    Example::

        w_interleaved = convert_qk_weights(w_half, n_heads=8, head_dim=64, source="half", target="interleaved")
    """
    rotary_dim = head_dim if rotary_dim is None else rotary_dim
    if weight.shape[0] != n_heads * head_dim:
        raise PosencError(f"weight has {weight.shape[0]} output rows but n_heads * head_dim = {n_heads} * {head_dim} "
                          f"= {n_heads * head_dim}; pass the q or k projection of this attention")
    if rotary_dim % 2 or not 0 < rotary_dim <= head_dim:
        raise PosencError(f"rotary_dim must be even and in 1..head_dim ({head_dim}), got {rotary_dim}")
    perm = pairing_permutation(rotary_dim, head_dim, source, target)
    rows = weight.reshape(n_heads, head_dim, *weight.shape[1:])  # [H, Dh, ...]
    return rows[:, perm.to(weight.device)].reshape(weight.shape)


@register("rope")
class RoPE(PositionalEncoding):
    """Rotary position embedding (Su et al. 2021, RoFormer), with every common scaling.

    Args:
        head_dim: width of each query/key head ``Dh``.
        base: the frequency base (10000 in RoFormer; 500000 in Llama 3, 100000 in SmolLM2).
        pairing: ``"half"`` (GPT-NeoX / Hugging Face, ``i`` with ``i + R/2``) or ``"interleaved"`` (GPT-J / Meta).
        rotary_dim: rotate only the first ``R`` channels of each head (GPT-NeoX partial rotary); default ``head_dim``.
        scaling: ``None`` or a dict ``{"type": "linear"|"ntk"|"dynamic"|"yarn"|"llama3"|"longrope"|"proportional",
            **params}``.
        scale_logits: multiply the softmax scale by ``mscale(s, mscale_all_dim)^2`` as DeepSeek-V2/V3 do with YaRN
            (:func:`posenc.encodings.rope_scaling.yarn_logit_scale`): :attr:`logit_factor`, which ``query_scale``
            gives every query.

    Example::

        >>> import torch, posenc
        >>> rope = posenc.build("rope", head_dim=8)
        >>> q, k = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
        >>> qr, kr = rope.rotate(q, k, torch.arange(5), torch.arange(5))
        >>> qr.shape
        torch.Size([1, 2, 5, 8])
    """

    info = EncodingInfo(family="rotary", paper="Su et al. 2021, RoFormer (arXiv:2104.09864)", hooks=("rotate",))

    def __init__(self, head_dim: int = 64, base: float = 10000.0, pairing: str = "half", rotary_dim: int | None = None,
                 scaling: dict[str, Any] | str | RopeScaling | None = None, scale_logits: bool = False):
        super().__init__()
        if not whole_number(head_dim, 2) or head_dim % 2:
            raise PosencError(f"RoPE rotates pairs of channels, so head_dim must be an even integer >= 2, "
                              f"got {head_dim!r}; use an even head_dim such as 64")
        rotary_dim = head_dim if rotary_dim is None else rotary_dim
        if not whole_number(rotary_dim, 2) or rotary_dim % 2:
            raise PosencError(f"rotary_dim must be an even integer >= 2, got {rotary_dim!r}")
        if rotary_dim > head_dim:
            raise PosencError(f"rotary_dim ({rotary_dim}) cannot exceed head_dim ({head_dim}); "
                              f"use rotary_dim <= {head_dim} (e.g. {head_dim // 4} for 25% partial rotary)")
        if pairing not in PAIRINGS:
            raise PosencError(f"pairing must be 'half' (GPT-NeoX / Hugging Face) or 'interleaved' (GPT-J / Meta), "
                              f"got {pairing!r}")
        self.scaling = RopeScaling.parse(scaling)
        inv_freq, factor = compute_inv_freq(rotary_dim, base, self.scaling)  # validates the base and scaling now
        self.head_dim, self.base, self.pairing, self.rotary_dim = head_dim, float(base), pairing, rotary_dim
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # [R/2] float64
        self.attention_factor = factor
        self.scale_logits = bool(scale_logits)
        if self.scale_logits:  # DeepSeek-V2/V3: mscale(s, mscale_all_dim)^2 on the softmax scale, else 1
            params = self.scaling.params
            self.logit_factor = yarn_logit_scale(params.get("factor", 1.0), params.get("mscale_all_dim"))
        self._cache: tuple[torch.Tensor, torch.Tensor] | None = None

    # -- frequencies and tables --------------------------------------------------------------------------------
    def frequencies(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """``(inv_freq [R/2] float64, attention_factor)`` in force for sequences of length ``seq_len``."""
        if self.scaling.length_dependent:
            return compute_inv_freq(self.rotary_dim, self.base, self.scaling, seq_len)
        return self.inv_freq, self.attention_factor

    def tables(self, positions: torch.Tensor, seq_len: int | None = None,
               dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` ``[..., T, R/2]`` for integer positions, scaled by the attention factor: float32 (served
        from a cache below 2^17), or float64 with ``dtype=torch.float64`` (computed per call)."""
        if self.scaling.length_dependent:
            inv_freq, factor = self.frequencies(seq_len)
            return rope_tables(positions, inv_freq, factor, dtype)
        top = position_bounds(positions)[1] + 1 if positions.numel() else 1
        if top > _CACHE_LIMIT or dtype != torch.float32:
            return rope_tables(positions, self.inv_freq, self.attention_factor, dtype)
        if self._cache is None or self._cache[0].shape[0] < top or self._cache[0].device != positions.device:
            size = max(256, 1 << (top - 1).bit_length())
            grid = torch.arange(size, device=positions.device)
            self._cache = rope_tables(grid, self.inv_freq, self.attention_factor)  # [size, R/2] each
        cos, sin = self._cache
        return cos[positions], sin[positions]  # [..., T, R/2]

    def _apply(self, fn, recurse=True):  # moving the module drops the table cache
        self._cache = None
        return super()._apply(fn, recurse)

    # -- the hook ----------------------------------------------------------------------------------------------
    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False, *, seq_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` at their integer positions ``[T]`` or ``[B, T]``.

        The rotary path of every RoPE-family encoding: the arguments are checked once
        (:func:`posenc.kernels.check_qk`, :func:`~posenc.encodings.base.check_positions`), the tables come from
        :meth:`tables`, the per-pair factors from :meth:`scales`, and :func:`posenc.kernels.apply_rope` rotates.
        ``seq_len``: the length a length-dependent scaling is evaluated at (default: 1 + the largest position).
        """
        check_head_layout(q, q_positions, "q", "q_positions")  # [B, T, H, Dh] is named before any size check
        check_head_layout(k, k_positions, "k", "k_positions")
        check_qk(q, k, head_dim=self.head_dim)
        q_positions = check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0])
        k_positions = check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0])
        if seq_len is None and self.scaling.length_dependent:
            seq_len = max(positions_span(q_positions, k_positions), 1)  # what length-dependent scalings measure
        elif seq_len is not None and not whole_number(seq_len):
            raise PosencError(f"seq_len must be a positive integer (the length a length-dependent scaling is "
                              f"evaluated at), got {seq_len!r}; pass None to use 1 + the largest position")
        q_positions, k_positions = q_positions.to(q.device), k_positions.to(k.device)
        work = math_dtype(q, k)  # float64 tables and math for float64 inputs, else float32
        q_cos, q_sin = self.tables(q_positions, seq_len, work)
        k_cos, k_sin = self.tables(k_positions, seq_len, work)
        narrow = torch.float16 if torch.float16 in (q.dtype, k.dtype) else work  # the range the factors need
        q_scale, k_scale = self.scales(q_positions, k_positions, narrow)
        return apply_rope(q, k, q_cos, q_sin, k_cos, k_sin, pairing=self.pairing, inplace=inplace,
                          q_scale=q_scale, k_scale=k_scale)

    def scales(self, q_positions: torch.Tensor, k_positions: torch.Tensor,
               dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """Factors ``[..., T, R/2]`` multiplying each rotated pair of q and of k; ``(None, None)`` for RoPE itself
        (xPos returns its decay here, float64 for ``dtype`` float64 and float32 otherwise, and refuses positions
        whose factors would leave ``dtype``'s range)."""
        return None, None

    def extra_repr(self) -> str:
        return (f"head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={self.base:g}, "
                f"pairing={self.pairing!r}, scaling={self.scaling.as_dict()}"
                + (f", logit_factor={self.logit_factor:.6g}" if self.scale_logits else ""))
