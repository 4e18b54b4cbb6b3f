"""PoPE: polar coordinate position embedding (Gopalakrishnan, Csordas, Schmidhuber and Mozer 2025, "Decoupling the
'What' and 'Where' With Polar Coordinate Positional Embeddings", arXiv:2509.10534).

RoPE turns pairs of channels, so a pair's content sets both its length and its angle, and content and position
interfere in the logit. PoPE gives every channel ``c`` of a head (``Dh`` of them, not ``Dh / 2`` pairs) a complex
number whose magnitude comes from the content alone and whose phase from the position alone::

    q~_c = softplus(q_c) * exp(i t theta_c)              theta_c = base^(-c / Dh),   c = 0 .. Dh - 1
    k~_c = softplus(k_c) * exp(i s theta_c)
    logit(t, s) = Re sum_c q~_c conj(k~_c) exp(-i delta_{h,c})
                = sum_c softplus(q_c) softplus(k_c) cos((t - s) theta_c - delta_{h,c})

with a learned phase bias ``delta_{h,c}`` per head and frequency, clamped to ``[-2 pi, 0]``. Magnitudes are
non-negative, so a channel can only add to a logit at the offsets where its cosine is positive: what a key is and
where it is are read apart. The logit depends on ``t - s`` only.

As real vectors: ``rotate`` returns ``[softplus(q) cos(t theta - delta) | softplus(q) sin(t theta - delta)]`` and
``[softplus(k) cos(s theta) | softplus(k) sin(s theta)]``, ``2 Dh`` channels each (:meth:`PoPE.rotated_dim`), whose
dot product is the logit above. The bias sits on the query side (one per query head, so grouped-query keys shared by
several query heads need no copy); the logits are those of putting it on the keys' phase, as x-transformers'
``polar_pos_emb`` does. The softmax scale stays ``1/sqrt(Dh)``. Angles are built from int64 positions in float64;
magnitudes and products are computed in float32, or in float64 for float64 inputs (the precision given is kept).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_head_layout, check_positions, math_dtype
from posenc.encodings.catalog import register
from posenc.errors import PosencError
from posenc.kernels import check_qk

__all__ = ["PoPE", "pope_frequencies"]

BIAS_INITS = ("zero", "uniform")


def pope_frequencies(head_dim: int, base: float) -> torch.Tensor:
    """``theta_c = base^(-c / Dh)`` for ``c = 0 .. Dh - 1`` (float64 ``[Dh]``): one frequency per channel."""
    return base ** (-torch.arange(head_dim, dtype=torch.float64) / head_dim)


@register("pope")
class PoPE(PositionalEncoding):
    """Polar coordinate position embedding (arXiv:2509.10534): magnitudes from content through softplus, phases from
    position, a learned phase bias per head and frequency.

    Args:
        head_dim: width of each query/key head ``Dh`` (queries and keys leave ``rotate`` ``2 Dh`` wide).
        n_heads: query heads (one phase bias row each).
        base: the frequency base (10000).
        bias_init: ``"zero"`` (the phase bias starts at 0) or ``"uniform"`` (drawn from ``[-2 pi, 0]``).

    Example::

        >>> import torch, posenc
        >>> pope = posenc.build("pope", head_dim=4, n_heads=2)
        >>> q = torch.randn(1, 2, 3, 4)
        >>> qp, kp = pope.rotate(q, q, torch.arange(3), torch.arange(3))
        >>> qp.shape, pope.rotated_dim(4)
        (torch.Size([1, 2, 3, 8]), 8)
    """

    info = EncodingInfo(family="rotary", paper="Gopalakrishnan et al. 2025, PoPE (arXiv:2509.10534)",
                        hooks=("rotate",))

    def __init__(self, head_dim: int = 64, n_heads: int = 8, base: float = 10000.0, bias_init: str = "zero"):
        super().__init__()
        if not whole_number(head_dim):
            raise PosencError(f"head_dim must be a positive integer, got {head_dim!r}")
        if not whole_number(n_heads):
            raise PosencError(f"n_heads must be a positive integer, got {n_heads!r}")
        if isinstance(base, bool) or not isinstance(base, int | float) or not math.isfinite(base) or base <= 1:
            raise PosencError(f"base must be a finite number > 1 (PoPE: 10000), got {base!r}")
        if bias_init not in BIAS_INITS:
            raise PosencError(f"bias_init must be one of {', '.join(BIAS_INITS)}, got {bias_init!r}")
        self.head_dim, self.n_heads, self.base, self.bias_init = head_dim, n_heads, float(base), bias_init
        self.register_buffer("inv_freq", pope_frequencies(head_dim, self.base), persistent=False)  # [Dh] float64
        bias = torch.zeros(n_heads, head_dim)
        if bias_init == "uniform":
            bias.uniform_(-2 * math.pi, 0.0)
        self.phase_bias = nn.Parameter(bias)  # [H, Dh]: delta, clamped to [-2 pi, 0] where used

    def rotated_dim(self, head_dim: int) -> int:
        return 2 * head_dim

    def tables(self, positions: torch.Tensor, seq_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """float32 ``(cos, sin)`` of the phases ``t theta_c`` ``[..., T, Dh]`` (before the phase bias)."""
        theta = self._angles(check_positions(positions), self.inv_freq.device).squeeze(-3)
        return theta.cos().float(), theta.sin().float()

    def _angles(self, positions: torch.Tensor, device: torch.device) -> torch.Tensor:
        """float64 ``t theta_c`` ``[..., 1, T, Dh]`` (a head axis to broadcast over)."""
        theta = positions.to(device, torch.float64)[..., None] * self.inv_freq.to(device)  # [(B,) T, Dh]
        return theta.unsqueeze(-3)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``q [B, H, Tq, Dh]``, ``k [B, Hk, Tk, Dh]`` -> ``[B, H, Tq, 2 Dh]``, ``[B, Hk, Tk, 2 Dh]`` (the module
        docstring); ``inplace`` is accepted for the contract and has no effect (the output is wider)."""
        check_head_layout(q, q_positions, "q", "q_positions")  # [B, T, H, Dh] is named before any size check
        check_head_layout(k, k_positions, "k", "k_positions")
        check_qk(q, k, head_dim=self.head_dim)
        if q.shape[1] != self.n_heads:
            raise PosencError(f"q has {q.shape[1]} heads but this PoPE holds a phase bias for {self.n_heads}; build "
                              f"it with n_heads={q.shape[1]}")
        q_positions = check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0])
        k_positions = check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0])
        work = math_dtype(q, k, self.phase_bias)  # float64 for float64 inputs, else float32
        delta = self.phase_bias.clamp(-2 * math.pi, 0.0).double()[:, None, :]  # [H, 1, Dh]
        q_phase = self._angles(q_positions, q.device) - delta  # [(B,) H, Tq, Dh], float64 like RoPE's angles
        k_phase = self._angles(k_positions, k.device)  # [(B,) 1, Tk, Dh]
        q_mag, k_mag = F.softplus(q.to(work)), F.softplus(k.to(work))
        q_out = torch.cat([q_mag * q_phase.cos().to(work), q_mag * q_phase.sin().to(work)], dim=-1)
        k_out = torch.cat([k_mag * k_phase.cos().to(work), k_mag * k_phase.sin().to(work)], dim=-1)
        return q_out.to(q.dtype), k_out.to(k.dtype)

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, n_heads={self.n_heads}, base={self.base:g}, bias_init={self.bias_init!r}"
