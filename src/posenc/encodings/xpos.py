"""xPos: RoPE with an exponential decay per pair (Sun et al. 2023, "A Length-Extrapolatable Transformer").

    zeta_i = (2i + gamma R) / ((1 + gamma) R),   gamma = 0.4
    q_n -> R(n) q_n * zeta^((n - c) / scale_base),    k_m -> R(m) k_m * zeta^(-(m - c) / scale_base)

so the logit of ``(n, m)`` carries ``zeta^((n - m) / scale_base)``: a decay with distance on top of RoPE's rotation.
The centre ``c`` (half the longest position in the call) keeps both factors near 1; it cancels in every logit.
xPos is RoPE's ``rotate`` with the factors of :meth:`XPos.scales`, which the one rotation
(:func:`posenc.kernels.apply_rope`) applies with the pair's cos and sin.
"""

from __future__ import annotations

import torch

from posenc.encodings.base import EncodingInfo
from posenc.encodings.rope import RoPE, positions_span
from posenc.errors import PosencError

__all__ = ["XPos", "xpos_zeta"]


def xpos_zeta(rotary_dim: int, gamma: float = 0.4) -> torch.Tensor:
    """``zeta_i = (2i + gamma R) / ((1 + gamma) R)`` for i = 0..R/2-1 (float64), each in (0, 1)."""
    i2 = torch.arange(0, rotary_dim, 2, dtype=torch.float64)
    return (i2 + gamma * rotary_dim) / ((1 + gamma) * rotary_dim)


class XPos(RoPE):
    """RoPE times a per-pair exponential decay (Sun et al. 2023, arXiv:2212.10554).

    Args:
        head_dim, base, pairing, rotary_dim: as for :class:`posenc.encodings.rope.RoPE`.
        scale_base: distance over which the decay ``zeta`` applies once (512 in the paper).
        gamma: 0.4 in the paper.
    """

    name = "xpos"
    info = EncodingInfo(family="rotary", paper="Sun et al. 2023, A Length-Extrapolatable Transformer (xPos)",
                        hooks=("rotate",))

    def __init__(self, head_dim: int = 64, base: float = 10000.0, pairing: str = "half",
                 rotary_dim: int | None = None, scale_base: float = 512.0, gamma: float = 0.4):
        super().__init__(head_dim=head_dim, base=base, pairing=pairing, rotary_dim=rotary_dim)
        if not scale_base > 0:
            raise PosencError(f"scale_base must be > 0, got {scale_base!r}; the paper uses 512")
        self.scale_base, self.gamma = float(scale_base), float(gamma)
        self.register_buffer("zeta", xpos_zeta(self.rotary_dim, gamma), persistent=False)  # [R/2] float64

    def decay(self, positions: torch.Tensor, center: int) -> torch.Tensor:
        """``zeta^((p - c) / scale_base)`` as float64 ``[..., T, R/2]``."""
        exponent = (positions.to(torch.float64) - center)[..., None] / self.scale_base
        return self.zeta.to(positions.device) ** exponent

    def scales(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """float32 ``(zeta^((n - c) / scale_base), zeta^(-(m - c) / scale_base))`` ``[..., T, R/2]`` for q at ``n``
        and k at ``m``, ``c`` half the longest position; :meth:`RoPE.rotate` multiplies the rotated pairs by them."""
        center = positions_span(q_positions, k_positions) // 2
        q_scale = self.decay(q_positions, center).float()  # [..., Tq, R/2]
        k_scale = (1.0 / self.decay(k_positions, center)).float()
        return q_scale, k_scale

    def extra_repr(self) -> str:
        return super().extra_repr() + f", scale_base={self.scale_base:g}, gamma={self.gamma:g}"
