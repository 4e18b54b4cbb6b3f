"""KERPLE: kernelized relative positional embedding (Chi et al. 2022, "KERPLE: Kernelized Relative Positional
Embedding for Length Extrapolation", §4.2, eq. for the power and logarithmic variants).

A conditionally positive definite kernel of the distance, made a bias by a shift (which softmax ignores)::

    power:   b_h(i, j) = -r1_h |i - j|^{r2_h}              r1 > 0, 0 < r2 <= 2
    log:     b_h(i, j) = -r1_h log(1 + r2_h |i - j|)        r1, r2 > 0

with ``r1``, ``r2`` learned per head. ALiBi is the power kernel at ``r2 = 1`` with fixed ``r1``; the paper finds the
log variant extrapolates best (§5). The constraints are kept by parametrising ``r = softplus(raw)`` (and ``r2 <= 2``
by clamping for the power variant).

The bias depends on ``|i - j|`` only, so :meth:`KERPLE.bias` evaluates the kernel once per distinct offset and
gathers it (:mod:`posenc.encodings.offsets`); the values are those of :func:`kerple_bias` on every pair.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, ScoreMod, bias_positions, pair_positions
from posenc.encodings.catalog import register
from posenc.encodings.offsets import offset_bias, offset_score_mod
from posenc.errors import PosencError

__all__ = ["KERPLE", "kerple_bias"]

KERNELS = ("log", "power")


def kerple_bias(distance: torch.Tensor, r1: torch.Tensor, r2: torch.Tensor, kernel: str = "log") -> torch.Tensor:
    """``[(B,) H, Tq, Tk]`` from ``|i - j|`` ``[(B,) Tq, Tk]`` and per-head ``r1, r2 [H]``."""
    return kerple_curve(distance.unsqueeze(-3), r1[:, None, None], r2[:, None, None], kernel)


def kerple_curve(distance: torch.Tensor, r1: torch.Tensor, r2: torch.Tensor, kernel: str = "log") -> torch.Tensor:
    """The kernel ``-r1 |d|^r2`` or ``-r1 log(1 + r2 |d|)`` elementwise, ``distance`` broadcast against ``r1, r2``
    (``[n]`` distances with ``[H, 1]`` parameters give the table ``[H, n]``)."""
    d = distance.float()
    if kernel == "power":
        return -r1 * d.pow(r2)
    return -r1 * torch.log1p(r2 * d)


def _inverse_softplus(x: float) -> float:
    return x + math.log(-math.expm1(-x))


@register("kerple")
class KERPLE(PositionalEncoding):
    """Learned log or power distance kernel per head (Chi et al. 2022, arXiv:2205.09921, §4.2).

    Args:
        n_heads: attention heads.
        kernel: ``"log"`` or ``"power"``.
        r1, r2: initial values of the per-head parameters (``r2`` in (0, 2] for ``"power"``).

    Example (log kernel, r1 = r2 = 1: ``-log(1 + |i - j|)``)::

        >>> import torch, posenc
        >>> b = posenc.build("kerple", n_heads=1, r1=1.0, r2=1.0).bias(torch.tensor([3]), torch.arange(4))
        >>> [round(v, 4) for v in b[0, 0].tolist()]
        [-1.3863, -1.0986, -0.6931, 0.0]
    """

    info = EncodingInfo(family="bias", paper="Chi et al. 2022, KERPLE (arXiv:2205.09921)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, kernel: str = "log", r1: float = 1.0, r2: float = 1.0):
        super().__init__()
        if not whole_number(n_heads):
            raise PosencError(f"KERPLE needs a positive number of heads, got {n_heads!r}")
        if kernel not in KERNELS:
            raise PosencError(f"KERPLE kernel must be one of {', '.join(KERNELS)}, got {kernel!r}")
        if not (isinstance(r1, (int, float)) and r1 > 0 and isinstance(r2, (int, float)) and r2 > 0):
            raise PosencError(f"KERPLE needs r1 > 0 and r2 > 0, got r1={r1!r}, r2={r2!r}")
        if kernel == "power" and r2 > 2:
            raise PosencError(f"the power kernel needs 0 < r2 <= 2 (conditionally positive definite), got {r2!r}")
        self.n_heads, self.kernel = n_heads, kernel
        self.raw_r1 = nn.Parameter(torch.full((n_heads,), _inverse_softplus(float(r1))))  # [H]
        self.raw_r2 = nn.Parameter(torch.full((n_heads,), _inverse_softplus(float(r2))))  # [H]

    def parameters_r(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(r1 [H], r2 [H])`` as the kernel uses them."""
        r1, r2 = F.softplus(self.raw_r1), F.softplus(self.raw_r2)
        return r1, (r2.clamp(max=2.0) if self.kernel == "power" else r2)

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]``)."""
        q_positions, k_positions = bias_positions(q_positions, k_positions, self.n_heads, self.name)
        return offset_bias(q_positions, k_positions, self._table, self.raw_r1.device)

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod:
        """The same bias at one pair (FlexAttention), read from the ``[H, n_offsets]`` table."""
        q_positions, k_positions = pair_positions(q_positions, k_positions)
        return offset_score_mod(q_positions, k_positions, self._table, self.raw_r1.device)

    def _table(self, offsets: torch.Tensor) -> torch.Tensor:
        """``[H, n]``: the kernel at each offset."""
        r1, r2 = self.parameters_r()
        return kerple_curve(offsets.abs(), r1[:, None], r2[:, None], self.kernel)

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, kernel={self.kernel!r}"
