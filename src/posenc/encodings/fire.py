"""FIRE: functional interpolation for relative positions (Li et al. 2023, "Functional Interpolation for Relative
Positions Improves Long Context Transformers", §3.2, eq. 4 and §3.3).

A learned function of the *normalised* distance is added to the logits::

    b(i, j) = f_theta( psi(i - j) / psi(max(L, i)) ),        psi(x) = log(c x + 1)

``f_theta`` is a small MLP (1 -> hidden -> H, one output per head), ``c > 0`` and the threshold ``L`` are learned
(``L`` keeps short prefixes from being normalised by a tiny ``psi(i)``, §3.3 "thresholding"). Normalising by the
query position maps every distance into [0, 1], which is why FIRE interpolates rather than extrapolates at lengths
beyond training. The paper is causal (``i >= j``); posenc uses ``|i - j|`` so an encoder sees the same curve both
ways (masked entries of a decoder are never read).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_positions
from posenc.errors import PosencError

__all__ = ["FIRE", "fire_inputs"]


def fire_inputs(q_positions: torch.Tensor, k_positions: torch.Tensor, c: torch.Tensor | float,
                threshold: torch.Tensor | float) -> torch.Tensor:
    """``psi(|i - j|) / psi(max(L, i))`` ``[(B,) Tq, Tk]`` (float32) with ``psi(x) = log(c x + 1)``."""
    i = q_positions.float()[..., :, None]  # [(B,) Tq, 1]
    j = k_positions.float()[..., None, :]  # [(B,) 1, Tk]
    c = torch.as_tensor(c, dtype=torch.float32, device=i.device)
    threshold = torch.as_tensor(threshold, dtype=torch.float32, device=i.device)
    numerator = torch.log1p(c * (i - j).abs())
    denominator = torch.log1p(c * torch.maximum(i, threshold)).clamp(min=1e-6)  # psi(0) = 0 at i = 0, L = 0
    return numerator / denominator


class FIRE(PositionalEncoding):
    """Learned function of the normalised relative distance (Li et al. 2023, arXiv:2310.04418, §3.2-3.3).

    Args:
        n_heads: attention heads (one MLP output each).
        hidden: width of the MLP's hidden layer (32 in the paper).
        c: initial value of the learned ``c`` in ``psi(x) = log(c x + 1)`` (1 in the paper).
        threshold: initial value of the learned threshold ``L`` (512 in the paper).

    Example::

        >>> import torch, posenc
        >>> posenc.build("fire", n_heads=2).bias(torch.arange(4), torch.arange(4)).shape
        torch.Size([2, 4, 4])
    """

    name = "fire"
    info = EncodingInfo(family="bias", paper="Li et al. 2023, FIRE (arXiv:2310.04418)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, hidden: int = 32, c: float = 1.0, threshold: float = 512.0):
        super().__init__()
        for label, value in (("n_heads", n_heads), ("hidden", hidden)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise PosencError(f"FIRE needs a positive integer {label}, got {value!r}")
        if not (isinstance(c, (int, float)) and c > 0):
            raise PosencError(f"FIRE's c must be > 0 (psi(x) = log(c x + 1)), got {c!r}; the paper starts at 1")
        if not (isinstance(threshold, (int, float)) and threshold >= 0):
            raise PosencError(f"FIRE's threshold L must be >= 0, got {threshold!r}; the paper starts at 512")
        self.n_heads, self.hidden = n_heads, hidden
        self.mlp = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, n_heads))
        # c > 0 through its log; L learned directly (the paper), clamped at 0 when used
        self.log_c = nn.Parameter(torch.tensor(math.log(c), dtype=torch.float32))
        self.threshold = nn.Parameter(torch.tensor(float(threshold), dtype=torch.float32))

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]``): ``f(psi(|i - j|) / psi(max(L, i)))``."""
        q_positions = check_positions(q_positions, name="q_positions")
        k_positions = check_positions(k_positions, name="k_positions")
        device = self.log_c.device
        x = fire_inputs(q_positions.to(device), k_positions.to(device), self.log_c.exp(), self.threshold.clamp(min=0))
        return self.mlp(x[..., None]).movedim(-1, -3)  # [(B,) Tq, Tk, H] -> [(B,) H, Tq, Tk]

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, hidden={self.hidden}"
