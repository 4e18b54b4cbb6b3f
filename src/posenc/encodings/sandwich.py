"""Sandwich: the sinusoidal inner product as a parameter-free relative bias (Chi et al. 2023, "Dissecting Transformer
Length Extrapolation via the Lens of Receptive Field Analysis", ACL 2023, §5 "Sandwich").

Expanding ``(x_m + p_m) W_q W_k^T (x_n + p_n)^T`` of the sinusoidal Transformer leaves a position-position term; with
``W_q W_k^T`` dropped it is ``p_m . p_n``, which depends on ``m - n`` only. Sandwich adds that term to the logits::

    b_h(m, n) = sum_{i=1}^{d'/2} cos((m - n) / (rho_h 10000^{2i/d'}))  -  d'/2

(``- d'/2`` makes ``b(0) = 0``; softmax ignores a constant). It decays roughly logarithmically with distance, as KERPLE
and T5 do (§5), and ``d'`` (128 in the paper) sets how fast. ``rho_h`` compresses head ``h``'s distances so heads see
different ranges, by analogy with ALiBi's per-head slopes: posenc uses ``rho_h = 8 h / H`` (h = 1..H, ALiBi's
exponent range in the paper's Fig. 1 caption) when ``compress`` is on, and ``rho_h = 1`` (every head the same, the
plain inner product) when off. The per-head choice is posenc's reading; the inner product is the paper's formula.
"""

from __future__ import annotations

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, ScoreMod, bias_positions, pair_positions
from posenc.encodings.catalog import register
from posenc.encodings.offsets import Offsets, gather_offsets, offset_bias, offset_score_mod
from posenc.encodings.sinusoidal import sinusoidal_frequencies
from posenc.errors import PosencError

__all__ = ["Sandwich", "sandwich_bias"]


def sandwich_bias(relative: torch.Tensor, dim: int, rho: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """``[(B,) H, Tq, Tk]``: ``sum_i cos(r w_i / rho_h) - d'/2`` for ``relative`` ``r [(B,) Tq, Tk]``.

    The bias depends on ``r`` only, so it is evaluated once per distinct ``r`` (float64) and gathered.
    """
    if relative.numel() == 0:
        return torch.zeros(*relative.shape[:-2], rho.numel(), *relative.shape[-2:])
    high = int(relative.max())
    r = torch.arange(high, int(relative.min()) - 1, -1)  # [nR] distinct distances, descending
    Tq, Tk = relative.shape[-2:]
    offsets = Offsets(r, relative.shape[:-2], Tq, Tk, index=(high - relative).reshape(-1, Tq, Tk))  # r[index] = relative
    return gather_offsets(sandwich_curve(r, dim, rho, base).to(relative.device), offsets)


def sandwich_curve(offsets: torch.Tensor, dim: int, rho: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """``[H, n]`` float32: ``sum_i cos(r w_i / rho_h) - d'/2`` at the offsets ``r [n]``, evaluated in float64."""
    r = offsets.cpu().to(torch.float64)
    w = sinusoidal_frequencies(dim, base)  # [d'/2]
    curve = (r[None, :, None] * w / rho.cpu().to(torch.float64)[:, None, None]).cos().sum(-1) - dim / 2  # [H, n]
    return curve.float().to(offsets.device)


@register("sandwich")
class Sandwich(PositionalEncoding):
    """Parameter-free sinusoidal inner-product bias (Chi et al. 2023, arXiv:2212.10356, §5).

    Args:
        n_heads: attention heads.
        dim: ``d'``, the width of the sinusoid whose inner product is taken (128 in the paper).
        compress: per-head distance compression ``rho_h = 8h/H`` (module docstring); ``False`` gives every head the
            same bias.

    Example (d' = 2, one head: ``cos(r) - 1``)::

        >>> import torch, posenc
        >>> b = posenc.build("sandwich", n_heads=1, dim=2, compress=False).bias(torch.tensor([2]), torch.arange(3))
        >>> [round(v, 4) for v in b[0, 0].tolist()]
        [-1.4161, -0.4597, 0.0]
    """

    info = EncodingInfo(family="bias", paper="Chi et al. 2023, Sandwich (arXiv:2212.10356)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, dim: int = 128, compress: bool = True):
        super().__init__()
        if not whole_number(n_heads):
            raise PosencError(f"Sandwich needs a positive number of heads, got {n_heads!r}")
        sinusoidal_frequencies(dim)  # validates an even width
        self.n_heads, self.dim, self.compress = n_heads, dim, bool(compress)
        rho = (8.0 * torch.arange(1, n_heads + 1, dtype=torch.float64) / n_heads if self.compress
               else torch.ones(n_heads, dtype=torch.float64))
        self.register_buffer("rho", rho, persistent=False)  # [H]

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]``)."""
        q_positions, k_positions = bias_positions(q_positions, k_positions, self.n_heads, self.name)
        return offset_bias(q_positions, k_positions, lambda offsets: sandwich_curve(offsets, self.dim, self.rho))

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod:
        """The same bias at one pair (FlexAttention), read from the ``[H, n_offsets]`` table."""
        q_positions, k_positions = pair_positions(q_positions, k_positions)
        return offset_score_mod(q_positions, k_positions, lambda offsets: sandwich_curve(offsets, self.dim, self.rho))

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, dim={self.dim}, compress={self.compress}"
