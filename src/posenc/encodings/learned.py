"""Learned absolute position embeddings (Gehring et al. 2017, ConvS2S; BERT, GPT-2): one trained vector per position.

    PE[p] = W[p],  W in R^{max_len x d}

A table trained at ``max_len`` has no row for a later position: asking for one raises an error naming both numbers
(tutorial 002: "trained at 512, cannot run 1024"). It is never silently clamped.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, check_allocation
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["LearnedPE", "PositionOutOfRange"]


class PositionOutOfRange(PosencError):
    """A position past the end of a learned table."""


@register("learned")
class LearnedPE(AbsoluteEncoding):
    """A trainable table ``[max_len, dim]`` (Gehring et al. 2017; Devlin et al. 2019; Radford et al. 2019).

    Args:
        dim: width of each position vector (required: the table is a parameter).
        max_len: number of rows; positions ``>= max_len`` raise :class:`PositionOutOfRange`.
        combine: ``"add"`` or ``"concat"``.
        init_std: standard deviation of the normal initialisation (GPT-2: 0.02).
    """

    info = EncodingInfo(family="absolute", paper="Gehring et al. 2017, ConvS2S; Devlin et al. 2019, BERT",
                        hooks=("embed",), length_limited=True)

    def __init__(self, dim: int = 512, max_len: int = 512, combine: str = "add", init_std: float = 0.02):
        super().__init__(dim, combine)
        if dim is None:
            raise PosencError("learned: dim is required, since the table is a parameter of fixed width; pass e.g. "
                              "dim=512")
        if not whole_number(max_len):
            raise PosencError(f"max_len must be a positive integer, got {max_len!r}")
        if isinstance(init_std, bool) or not isinstance(init_std, int | float) or not 0 <= init_std < math.inf:
            raise PosencError(f"init_std must be a finite number >= 0, got {init_std!r}; GPT-2 uses 0.02")
        check_allocation(2 * 4 * max_len * dim, f"a learned table of {max_len} x {dim} float32 values",
                         "use a smaller max_len or dim", detail="the table and its initial draw")
        self.max_len = max_len
        self.weight = nn.Parameter(torch.randn(max_len, dim) * init_std)  # [max_len, dim]

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        if dim is not None and dim != self.dim:
            raise PosencError(f"learned table has width {self.dim}, asked for {dim}; build it with dim={dim}")
        if positions.numel() and int(positions.max()) >= self.max_len:
            raise PositionOutOfRange(
                f"position {int(positions.max())} is past the learned table: it was built with max_len="
                f"{self.max_len}, so positions 0..{self.max_len - 1} exist and a sequence of "
                f"{int(positions.max()) + 1} tokens cannot run; use a longer table or an encoding that extrapolates "
                f"(sinusoidal, rope, alibi, t5, nope)")
        return self.weight[positions].to(dtype)  # [..., T, dim] (a float32 table is returned as is)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, dim={self.dim}, combine={self.combine!r}"
