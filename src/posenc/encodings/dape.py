"""DAPE: data-adaptive positional encoding (Zheng et al. 2024, "DAPE: Data-Adaptive Positional Encoding for Length
Extrapolation", NeurIPS 2024, arXiv:2405.14722).

A bias encoding ``B`` (KERPLE in the paper's main results; ALiBi, FIRE, ...) is fixed once trained: the same offset
gets the same bias whatever the tokens. DAPE lets the bias depend on the attention scores too, through a small MLP
over the heads, applied at every query-key pair::

    A_ij = s_ij + B_ij + f([s_ij ; B_ij])           s_ij = q_i . k_j / sqrt(Dh)   (one value per head)
    f(z) = W2 sigma(W1 z + b1) + b2                  z in R^{2H}, hidden width D_DAPE (32), output in R^H

so each head's bias at a pair is adjusted by what every head scores there. ``sigma`` is GELU here. The hook is
``contextual_bias``: attention passes each layer's turned queries and keys, and DAPE returns ``B + f(...)`` (attention
adds ``s`` itself). The base encoding is any encoding with a ``bias`` hook, built with DAPE's sizes; the MLP starts
at PyTorch's default initialisation.

Cost: the MLP runs on ``B * Tq * Tk`` points of width ``2H -> D_DAPE -> H``, a few times attention's own
``q k^T`` for small heads, and holds ``[B, Tq, Tk, D_DAPE]`` activations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import (
    EncodingInfo,
    PositionalEncoding,
    check_head_layout,
    check_positions,
    entry_memo,
    math_dtype,
)
from posenc.encodings.catalog import build_for_model, get_class, register
from posenc.errors import PosencError
from posenc.kernels import check_qk

__all__ = ["DAPE"]


@register("dape")
class DAPE(PositionalEncoding):
    """A bias encoding adjusted per pair by an MLP over the heads' scores and biases (arXiv:2405.14722).

    Args:
        n_heads: attention heads ``H``.
        head_dim: width of each head (the scores are ``q . k / sqrt(head_dim)``).
        encoding: the base bias encoding (a registry name with a ``bias`` hook; the paper's main one: ``"kerple"``).
        options: the base encoding's options.
        hidden: the MLP's hidden width ``D_DAPE`` (the paper: 32).
        max_len: passed on to a base encoding that takes it (``None`` or a positive integer; checked either way).

    Example::

        >>> import torch, posenc
        >>> dape = posenc.build("dape", n_heads=2, head_dim=4, encoding="alibi")
        >>> q = torch.randn(1, 2, 3, 4)
        >>> dape.contextual_bias(q, q, torch.arange(3), torch.arange(3)).shape
        torch.Size([1, 2, 3, 3])
    """

    info = EncodingInfo(family="contextual", paper="Zheng et al. 2024, DAPE (arXiv:2405.14722)",
                        hooks=("contextual_bias",))

    def __init__(self, n_heads: int = 8, head_dim: int = 64, encoding: str = "kerple",
                 options: Mapping[str, Any] | None = None, hidden: int = 32, max_len: int | None = None):
        super().__init__()
        for key, value in (("n_heads", n_heads), ("head_dim", head_dim), ("hidden", hidden)):
            if not whole_number(value):
                raise PosencError(f"{key} must be a positive integer, got {value!r}")
        if max_len is not None and not whole_number(max_len):
            raise PosencError(f"DAPE: max_len must be a positive integer or None (the base encoding's position range, "
                              f"for a base that has one), got {max_len!r}")
        if options is not None and not isinstance(options, Mapping):
            raise PosencError(f"DAPE: options (of the base encoding) must be a dict such as {{'n_heads': 8}} or None, "
                              f"got {options!r}")
        if not isinstance(encoding, str) or not get_class(encoding).info.biases_logits:
            raise PosencError(f"DAPE adjusts a bias encoding, but {encoding!r} has no bias hook; pass one of the "
                              f"bias encodings, e.g. encoding='kerple' or 'alibi'")
        if get_class(encoding).info.randomized:
            raise PosencError(f"DAPE's base bias must be a fixed one, got the randomized {encoding!r}")
        self.n_heads, self.head_dim, self.hidden = n_heads, head_dim, hidden
        self.base_name = encoding
        self.base = build_for_model(encoding, n_heads=n_heads, head_dim=head_dim, max_len=max_len,
                                    **dict(options or {}))
        self.mlp = nn.Sequential(nn.Linear(2 * n_heads, hidden), nn.GELU(), nn.Linear(hidden, n_heads))

    def contextual_bias(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor,
                        k_positions: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        """``B + f([s ; B])`` ``[B, H, Tq, Tk]`` for queries ``[B, H, Tq, Dh]`` and keys ``[B, Hk, Tk, Dh]``; computed
        in float32, or in float64 for float64 queries and keys (the precision given is kept; the layer input ``x``
        is not read)."""
        check_head_layout(q, q_positions, "q", "q_positions")  # [B, T, H, Dh] is named before any size check
        check_head_layout(k, k_positions, "k", "k_positions")
        check_qk(q, k)
        if q.shape[1] != self.n_heads:
            raise PosencError(f"q has {q.shape[1]} heads but this DAPE was built for {self.n_heads}; build it with "
                              f"n_heads={q.shape[1]}")
        check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0])
        check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0])
        work = math_dtype(q, k, self.mlp[0].weight)
        groups = q.shape[1] // k.shape[1]
        keys = k.repeat_interleave(groups, dim=1) if groups > 1 else k  # [B, H, Tk, Dh]
        scores = (q.to(work) @ keys.to(work).transpose(-1, -2)) / self.head_dim ** 0.5  # [B, H, Tq, Tk]
        bias = entry_memo(("dape base bias", id(self.base), id(q_positions), id(k_positions)),  # once per forward
                          (self.base, q_positions, k_positions), lambda: self.base.bias(q_positions, k_positions))
        bias = bias.to(scores.device, work)  # [(B,) H, Tq, Tk]
        bias = bias.expand_as(scores)
        z = torch.cat([scores, bias], dim=1).permute(0, 2, 3, 1)  # [B, Tq, Tk, 2H]
        return (bias + self._mlp(z, work).permute(0, 3, 1, 2)).to(q.dtype)

    def _mlp(self, z: torch.Tensor, work: torch.dtype) -> torch.Tensor:
        """``f(z) = W2 sigma(W1 z + b1) + b2`` with the weights in ``work``'s precision (``[..., 2H] -> [..., H]``)."""
        first, act, second = self.mlp
        hidden = act(F.linear(z, first.weight.to(work), first.bias.to(work)))  # [..., D_DAPE]
        return F.linear(hidden, second.weight.to(work), second.bias.to(work))

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, head_dim={self.head_dim}, encoding={self.base_name!r}, hidden={self.hidden}"
