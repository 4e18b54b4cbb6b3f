"""FIRE: functional interpolation for relative positions (Li et al. 2023, "Functional Interpolation for Relative
Positions Improves Long Context Transformers", §3.2, eq. 4 and §3.3).

A learned function of the *normalised* distance is added to the logits::

    b(i, j) = f_theta( psi(i - j) / psi(max(L, i)) ),        psi(x) = log(c x + 1)

``f_theta`` is a small MLP (1 -> hidden -> H, one output per head), ``c > 0`` and the threshold ``L`` are learned
(``L`` keeps short prefixes from being normalised by a tiny ``psi(i)``, §3.3 "thresholding"). Normalising by the
query position maps every distance into [0, 1], which is why FIRE interpolates rather than extrapolates at lengths
beyond training. The paper is causal (``i >= j``); posenc uses ``|i - j|`` so an encoder sees the same curve both
ways (masked entries of a decoder are never read).

Cost: ``psi(|i - j|)`` is evaluated once per distinct offset and gathered, and the MLP's output layer is one matrix
product that writes the ``[H, Tq, Tk]`` bias directly; without gradients it runs a block of query rows at a time, so
the hidden layer never exists for all pairs at once. Rows with ``i <= L`` see ``psi(|i - j|) / psi(L)``, a function
of the offset alone: without gradients they gather one MLP table over the offsets instead. The MLP still runs on every
other pair: its input depends on the query position as well, so it is not offset-only.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, ScoreMod, bias_positions, pair_positions
from posenc.encodings.catalog import register
from posenc.encodings.offsets import Offsets, gather_offsets, offset_range, offsets_of, positions_at
from posenc.errors import PosencError

__all__ = ["FIRE", "fire_inputs"]

#: floats in the hidden layer of one block of query rows on the no-gradient path (256 MB; 2^21 pairs at hidden = 32):
#: few large products, which a shared CPU runs best (measured 2^14 .. 2^21 pairs at T = 4096: 2^21 fastest)
_BLOCK_FLOATS = 1 << 26


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


@register("fire")
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

    info = EncodingInfo(family="bias", paper="Li et al. 2023, FIRE (arXiv:2310.04418)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, hidden: int = 32, c: float = 1.0, threshold: float = 512.0):
        super().__init__()
        for label, value in (("n_heads", n_heads), ("hidden", hidden)):
            if not whole_number(value):
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
        q_positions, k_positions = bias_positions(q_positions, k_positions, self.n_heads, self.name,
                                                  per_pair=4 * self.hidden)  # the MLP's hidden layer
        device = self.log_c.device
        q, k = q_positions.to(device), k_positions.to(device)
        c, threshold = self.log_c.exp(), self.threshold.clamp(min=0)
        offsets = offsets_of(q, k)
        numerator = torch.log1p(c * offsets.values.abs().float())  # psi(|i - j|) at each distinct offset [n]
        denominator = torch.log1p(c * torch.maximum(q.float(), threshold)).clamp(min=1e-6)  # psi(max(L, i)) [(B,) Tq]
        x = gather_offsets(numerator[None], offsets)[..., 0, :, :] / denominator[..., None]  # [(B,) Tq, Tk]
        if torch.is_grad_enabled() and any(p.requires_grad for p in self.parameters()):
            return self._mlp(x).movedim(0, -3)  # [H, (B,) Tq, Tk] -> [(B,) H, Tq, Tk]
        with torch.no_grad():
            # a query at or below L is normalised by psi(L): its input is a function of the offset alone
            short_inputs = numerator / torch.log1p(c * threshold).clamp(min=1e-6)  # [n]
            batch, (Tq, Tk) = x.shape[:-2], x.shape[-2:]
            out = self._blocked(x.reshape(batch.numel(), Tq, Tk), offsets,
                                (q.float() <= threshold).expand(*batch, Tq).reshape(batch.numel(), Tq), short_inputs)
            return out.view(*batch, self.n_heads, Tq, Tk)

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod:
        """The same bias at one pair (FlexAttention): ``psi(|i - j|)`` from a table over the offsets, ``psi(max(L, i))``
        from one per query, and the MLP written out over its hidden units (``b2_h + sum_u W2[h, u] relu(w1_u x +
        b1_u)``), so nothing is held per pair; every parameter (``c``, ``L``, the MLP) gets its gradient."""
        q_positions, k_positions = pair_positions(q_positions, k_positions)
        device = self.log_c.device
        q, k = q_positions.to(device), k_positions.to(device)
        c, threshold = self.log_c.exp(), self.threshold.clamp(min=0)
        values = offset_range(q, k)  # [n], descending: the column of offset d is high - d
        high = values[0]
        numerator = torch.log1p(c * values.abs().float())  # psi(|i - j|) [n]
        denominator = torch.log1p(c * torch.maximum(q.float(), threshold)).clamp(min=1e-6)  # psi(max(L, i)) [(B,) Tq]
        w1, b1 = self.mlp[0].weight[:, 0], self.mlp[0].bias  # [hidden]
        w2, b2 = self.mlp[2].weight, self.mlp[2].bias  # [H, hidden], [H]
        q_at, k_at, denominator_at = positions_at(q), positions_at(k), positions_at(denominator)

        hidden = self.hidden

        def score_mod(score, b, h, q_idx, kv_idx):
            x = numerator[high - (q_at(b, q_idx) - k_at(b, kv_idx))] / denominator_at(b, q_idx)
            bias = b2[h]
            for u in range(hidden):
                bias = bias + w2[h, u] * torch.relu(w1[u] * x + b1[u])
            return score + bias

        return score_mod

    def _mlp(self, x: torch.Tensor, hidden: torch.Tensor | None = None, out: torch.Tensor | None = None
             ) -> torch.Tensor:
        """``f`` at every input of ``x [...]`` -> ``[H, ...]``: the MLP ``W2 relu(w1 x + b1) + b2`` over all the
        inputs at once, its hidden layer ``[hidden, x.numel()]`` and its output layer one matrix product (into the
        ``hidden`` and ``out`` buffers, ``out`` viewable as ``[H, x.numel()]``, when given)."""
        first, second = self.mlp[0], self.mlp[2]
        flat = x.reshape(1, -1)  # [1, N]
        if hidden is None:  # a product, so backward is products too (addcmul's multiply-and-sum backward was slower)
            h = torch.addmm(first.bias[:, None], first.weight, flat).relu_()  # [hidden, N]
        else:
            h = torch.addcmul(first.bias[:, None], first.weight, flat, out=hidden[:, :flat.shape[1]]).relu_()
        if out is None:
            return torch.addmm(second.bias[:, None], second.weight, h).view(self.n_heads, *x.shape)  # [H, ...]
        return torch.addmm(second.bias[:, None], second.weight, h, out=out.view(self.n_heads, -1))

    def _blocked(self, x: torch.Tensor, offsets: Offsets, short: torch.Tensor, short_inputs: torch.Tensor
                 ) -> torch.Tensor:
        """No-gradient path: ``[B', H, Tq, Tk]`` from inputs ``x [B', Tq, Tk]``, written a block of query rows at a
        time. A block whose every query sits at or below the threshold (``short [B', Tq]``) instead gathers one table
        ``f(short_inputs) [H, n]`` over the distinct ``offsets``: the same input at every pair."""
        B, Tq, Tk = x.shape
        out = x.new_empty(B, self.n_heads, Tq, Tk)
        step = max(1, _BLOCK_FLOATS // max(self.hidden * Tk, 1))
        hidden = x.new_empty(self.mlp[0].out_features, min(step, Tq) * Tk)
        short = short.tolist()
        table = None
        for b in range(B):
            for i0 in range(0, Tq, step):
                i1 = min(i0 + step, Tq)
                if not all(short[b][i0:i1]):
                    self._mlp(x[b, i0:i1], hidden, out[b, :, i0:i1])
                    continue
                if table is None:
                    table = self._mlp(short_inputs)  # [H, n]
                gather_offsets(table, offsets.rows(b, i0, i1), out=out[b, :, i0:i1])
        return out

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, hidden={self.hidden}"
