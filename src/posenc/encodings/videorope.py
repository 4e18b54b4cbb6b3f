"""VideoRoPE's frequency allocation (Wei et al. 2025, "VideoRoPE: What Makes for Good Video Rotary Position
Embedding?", ICML 2025, arXiv:2502.05173): the temporal axis on the lowest frequencies, height and width interleaved
on the rest.

Like M-RoPE, rotary pair ``i`` of a head turns by the position of one axis, ``t``, ``h`` or ``w``::

    theta_{p,i} = p[axis(i)] * inv_freq_i,        inv_freq_i = base^(-2i/R)    (i = 0 .. R/2 - 1)

Qwen2-VL gives the temporal axis the first (highest) frequencies, and Qwen3-VL interleaves all three. VideoRoPE's
"low-frequency temporal allocation" (LTA) gives ``t`` the last ``s_t`` pairs, whose wavelengths are the longest, so a
temporal offset turns them slowly and far-apart frames do not alias; the first ``R/2 - s_t`` pairs alternate ``h``,
``w``, ``h``, ``w``, ... (for a 128-wide head: 48 spatial pairs, 16 temporal)::

    axis(i) = h  if i < R/2 - s_t and i even;   w  if i < R/2 - s_t and i odd;   t  otherwise

The paper's two other parts choose the position ids, not the rotation: a diagonal layout (a video token's ``h`` and
``w`` offset from its frame's temporal index, centred on the frame) and an adjustable temporal spacing (frame
indices multiplied by ``delta``). The caller builds those positions and passes them as ``[3, B, T]``; text tokens
carry one position on every axis, and VideoRoPE is then RoPE.
"""

from __future__ import annotations

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo
from posenc.encodings.catalog import register
from posenc.encodings.mrope import SectionedRotary, rotary_width
from posenc.encodings.rope_scaling import RopeScaling, compute_inv_freq
from posenc.errors import PosencError
from posenc.kernels import check_pairing

__all__ = ["VideoRoPE", "videorope_axes"]

T_AXIS, H_AXIS, W_AXIS = 0, 1, 2


def videorope_axes(pairs: int, temporal: int) -> torch.Tensor:
    """The axis of each rotary pair ``[pairs]`` (0: t, 1: h, 2: w): ``h, w`` alternating, then ``temporal`` t."""
    i = torch.arange(pairs)
    spatial = pairs - temporal
    return torch.where(i >= spatial, T_AXIS, torch.where(i % 2 == 0, H_AXIS, W_AXIS))


@register("videorope")
class VideoRoPE(SectionedRotary):
    """RoPE over ``(t, h, w)`` positions with the temporal axis on the lowest frequencies (arXiv:2502.05173, LTA).

    Args:
        head_dim: width of each query/key head ``Dh``.
        temporal: pairs of the temporal axis, the last ones (default a quarter of the pairs: 16 of 64).
        base, pairing, rotary_dim: as for :class:`posenc.encodings.rope.RoPE`.

    Example::

        >>> import torch, posenc
        >>> v = posenc.build("videorope", head_dim=16)
        >>> v.pair_axis.tolist()          # h, w, h, w, h, w, then t, t
        [1, 2, 1, 2, 1, 2, 0, 0]
    """

    info = EncodingInfo(family="rotary", paper="Wei et al. 2025, VideoRoPE (arXiv:2502.05173)", hooks=("rotate",))
    axes = 3

    def __init__(self, head_dim: int = 64, temporal: int | None = None, base: float = 10000.0,
                 pairing: str = "half", rotary_dim: int | None = None):
        super().__init__()
        rotary_dim = rotary_width("VideoRoPE", head_dim, rotary_dim)
        check_pairing(pairing)
        pairs = rotary_dim // 2
        temporal = max(1, pairs // 4) if temporal is None else temporal
        if not whole_number(temporal) or temporal >= pairs:
            raise PosencError(f"temporal must be a positive integer below the {pairs} rotary pairs (so height and "
                              f"width keep some), got {temporal!r}; e.g. temporal={max(1, pairs // 4)}")
        inv_freq, factor = compute_inv_freq(rotary_dim, float(base), RopeScaling.parse(None))
        self.head_dim, self.rotary_dim, self.pairing, self.base = head_dim, rotary_dim, pairing, float(base)
        self.temporal, self.attention_factor = temporal, factor
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # [R/2] float64
        self.register_buffer("pair_axis", videorope_axes(pairs, temporal), persistent=False)  # [R/2]

    def tables(self, positions: torch.Tensor, seq_len: int | None = None,
               dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` ``[..., T, R/2]`` in ``dtype`` (float32 or float64) at 1-D (text) positions ``[T]`` or
        ``[B, T]`` (every axis equal)."""
        batch = positions.shape[0] if positions.dim() == 2 else 1
        cos, sin = self.axis_tables(self.to_axes(positions, positions.shape[-1], batch, "positions"), dtype)
        return (cos[0], sin[0]) if positions.dim() == 1 else (cos, sin)

    def extra_repr(self) -> str:
        return (f"head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={self.base:g}, "
                f"temporal={self.temporal}, pairing={self.pairing!r}")
