"""xPos: RoPE with an exponential decay per pair (Sun et al. 2023, "A Length-Extrapolatable Transformer").

    zeta_i = (2i + gamma R) / ((1 + gamma) R),   gamma = 0.4
    q_n -> R(n) q_n * zeta^((n - c) / scale_base),    k_m -> R(m) k_m * zeta^(-(m - c) / scale_base)

so the logit of ``(n, m)`` carries ``zeta^((n - m) / scale_base)``: a decay with distance on top of RoPE's rotation.
The centre ``c`` (half the longest position in the call) keeps both factors near 1; it cancels in every logit.
"""

from __future__ import annotations

import torch

from posenc.encodings.base import EncodingInfo, check_positions
from posenc.encodings.rope import RoPE, positions_span
from posenc.errors import PosencError
from posenc.kernels import apply_rope

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

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        self._check_qk(q, k)
        q_positions = check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0]).to(q.device)
        k_positions = check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0]).to(k.device)
        center = positions_span(q_positions, k_positions) // 2
        q_cos, q_sin = self.tables(q_positions)
        k_cos, k_sin = self.tables(k_positions)
        q_scale = self.decay(q_positions, center).float()  # [..., Tq, R/2]
        k_scale = (1.0 / self.decay(k_positions, center)).float()
        return apply_rope(q, k, q_cos * q_scale, q_sin * q_scale, k_cos * k_scale, k_sin * k_scale,
                          pairing=self.pairing, inplace=inplace)

    def extra_repr(self) -> str:
        return super().extra_repr() + f", scale_base={self.scale_base:g}, gamma={self.gamma:g}"
