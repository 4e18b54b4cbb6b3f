"""xPos: RoPE with an exponential decay per pair (Sun et al. 2023, "A Length-Extrapolatable Transformer").

    zeta_i = (2i + gamma R) / ((1 + gamma) R),   gamma = 0.4
    q_n -> R(n) q_n * zeta^((n - c) / scale_base),    k_m -> R(m) k_m * zeta^(-(m - c) / scale_base)

so the logit of ``(n, m)`` carries ``zeta^((n - m) / scale_base)``: a decay with distance on top of RoPE's rotation.
The centre ``c`` (the middle of the positions in the call, :func:`xpos_center`) keeps both factors near 1; it cancels
in every logit. xPos is RoPE's ``rotate`` with the factors of :meth:`XPos.scales`, which the one rotation
(:func:`posenc.kernels.apply_rope`) applies with the pair's cos and sin.

Range: a query and a key are scaled apart, so each carries half of the decay between the two ends of the call's
positions: ``zeta_0^(-S/2 / scale_base)`` for a span of ``S`` positions, which passes float32's range near
``S = 72 000`` (``scale_base`` 512). :meth:`XPos.max_span` is the span within which every factor stays below
``G = sqrt(finfo.max) / 16`` (2^60 in float32), so that the logit of any query-key pair of the call, the product of
two factors, also stays finite (below ``G^2``) however the pair is ordered; a call over a longer span is refused with
that limit named, never answered with inf or NaN. float64 queries and keys get float64 factors, tables and math, and
float64's range (287 819 positions with the paper's values).
"""

from __future__ import annotations

import math

import torch

from posenc.encodings.base import EncodingInfo, position_bounds
from posenc.encodings.catalog import register
from posenc.encodings.rope import RoPE
from posenc.errors import PosencError

__all__ = ["XPos", "xpos_zeta", "xpos_center", "GAIN_HEADROOM"]

#: the largest factor on one query or key is ``sqrt(finfo(dtype).max) / GAIN_HEADROOM``: a logit (two factors) then
#: stays below ``finfo.max / GAIN_HEADROOM^2``, room for the vectors' own size
GAIN_HEADROOM = 16.0


def xpos_zeta(rotary_dim: int, gamma: float = 0.4) -> torch.Tensor:
    """``zeta_i = (2i + gamma R) / ((1 + gamma) R)`` for i = 0..R/2-1 (float64), each in (0, 1)."""
    i2 = torch.arange(0, rotary_dim, 2, dtype=torch.float64)
    return (i2 + gamma * rotary_dim) / ((1 + gamma) * rotary_dim)


def xpos_center(*positions: torch.Tensor) -> int:
    """``(lo + hi + 1) // 2`` over every position given (0 when all are empty): the middle of the call's positions,
    so the factors on either side reach only half the span. For positions starting at 0 it is ``span // 2``."""
    lo, hi = _bounds(positions)
    return (lo + hi + 1) // 2


def _bounds(positions: tuple[torch.Tensor, ...]) -> tuple[int, int]:
    """``(smallest, largest)`` position over the non-empty tensors; ``(0, -1)`` when all are empty."""
    full = [p for p in positions if p.numel()]
    if not full:
        return 0, -1
    bounds = [position_bounds(p) for p in full]
    return min(low for low, _ in bounds), max(high for _, high in bounds)


@register("xpos")
class XPos(RoPE):
    """RoPE times a per-pair exponential decay (Sun et al. 2023, arXiv:2212.10554).

    Args:
        head_dim, base, pairing, rotary_dim: as for :class:`posenc.encodings.rope.RoPE`.
        scale_base: distance over which the decay ``zeta`` applies once (512 in the paper).
        gamma: 0.4 in the paper (> 0: ``zeta_0 = gamma / (1 + gamma)``).

    One call spans at most :meth:`max_span` positions (33 995 in float32 with the paper's values, 287 819 in
    float64; see the module docstring).
    """

    info = EncodingInfo(family="rotary", paper="Sun et al. 2023, A Length-Extrapolatable Transformer (xPos)",
                        hooks=("rotate",))

    def __init__(self, head_dim: int = 64, base: float = 10000.0, pairing: str = "half",
                 rotary_dim: int | None = None, scale_base: float = 512.0, gamma: float = 0.4):
        super().__init__(head_dim=head_dim, base=base, pairing=pairing, rotary_dim=rotary_dim)
        for name, value, paper in (("scale_base", scale_base, 512), ("gamma", gamma, 0.4)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise PosencError(f"xpos {name} must be a finite number > 0, got {value!r}; the paper uses {paper}")
        self.scale_base, self.gamma = float(scale_base), float(gamma)
        self.register_buffer("zeta", xpos_zeta(self.rotary_dim, gamma), persistent=False)  # [R/2] float64
        self._zeta_low = float(self.zeta.min())  # zeta_0, read here once: max_span runs every call

    def max_span(self, dtype: torch.dtype = torch.float32) -> int:
        """The most positions (largest minus smallest, plus 1) one call may span with q and k in ``dtype``.

        Every factor ``zeta_i^(+-(p - c) / scale_base)`` then stays at most ``sqrt(finfo.max) / GAIN_HEADROOM``
        (the rotation computes in float32 for every dtype but float64, so bfloat16 counts as float32). With
        ``|p - c| <= S // 2`` for a span ``S`` and the smallest ``zeta_0``:
        ``S = 2 floor(ln(G) scale_base / -ln(zeta_0)) + 1``.
        """
        if dtype not in (torch.float16, torch.float64):
            dtype = torch.float32
        log_gain = 0.5 * math.log(torch.finfo(dtype).max) - math.log(GAIN_HEADROOM)
        half = math.floor(log_gain * self.scale_base / -math.log(self._zeta_low))
        return 2 * half + 1

    def decay(self, positions: torch.Tensor, center: int) -> torch.Tensor:
        """``zeta^((p - c) / scale_base)`` as float64 ``[..., T, R/2]``."""
        exponent = (positions.to(torch.float64) - center)[..., None] / self.scale_base
        return self.zeta.to(positions.device) ** exponent

    def scales(self, q_positions: torch.Tensor, k_positions: torch.Tensor,
               dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """``(zeta^((n - c) / scale_base), zeta^(-(m - c) / scale_base))`` ``[..., T, R/2]`` for q at ``n`` and k at
        ``m``, ``c`` the middle of the positions (:func:`xpos_center`); :meth:`RoPE.rotate` multiplies the rotated
        pairs by them. float64 for ``dtype`` float64, float32 otherwise. Positions spanning more than
        :meth:`max_span` for ``dtype`` are refused."""
        lo, hi = _bounds((q_positions, k_positions))
        limit = self.max_span(dtype)
        if hi - lo + 1 > limit:
            raise PosencError(
                f"xpos: the positions of this call span {hi - lo + 1} ({lo} to {hi}), but xPos keeps its factors "
                f"finite in {str(dtype).removeprefix('torch.')} only over {limit} positions (scale_base "
                f"{self.scale_base:g}, gamma {self.gamma:g}: a query and a key each carry "
                f"zeta^(+-span/2/scale_base) of the decay); rotate windows of at most {limit} positions (xPos' "
                f"blockwise attention), raise scale_base, or use rope")
        center = (lo + hi + 1) // 2
        out = torch.float64 if dtype == torch.float64 else torch.float32
        q_scale = self.decay(q_positions, center).to(out)  # [..., Tq, R/2]
        k_scale = (1.0 / self.decay(k_positions, center)).to(out)
        return q_scale, k_scale

    def extra_repr(self) -> str:
        return super().extra_repr() + f", scale_base={self.scale_base:g}, gamma={self.gamma:g}"
