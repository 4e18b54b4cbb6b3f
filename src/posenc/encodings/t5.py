"""T5 relative position bias (Raffel et al. 2020, "Exploring the Limits of Transfer Learning", §2.1).

A learned scalar per (bucket, head) is added to the logits. The relative position ``r = j - i`` (key minus query) is
put in a bucket: exact for ``|r| < max_exact`` (half the buckets), then log-spaced up to ``max_distance``, then one
last bucket. Bidirectional: half the buckets for ``r > 0``, half for ``r <= 0``; causal: only ``r <= 0`` counts.

``scale`` multiplies the looked-up bias, ``b(i, j) = scale * w[bucket(j - i), h]``: a fixed temperature for models
that share or rescale the table (e.g. a learned table reused across a deeper stack, or logits scaled by
``1/sqrt(d)`` after the bias is added, which a bias added before the scaling must undo).

The bias depends on ``j - i`` only, so :meth:`T5Bias.bias` buckets and looks up each distinct offset once and gathers
the resulting ``[H, n_offsets]`` table (:mod:`posenc.encodings.offsets`): the same values as a lookup per pair.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, ScoreMod, bias_positions, pair_positions
from posenc.encodings.catalog import register
from posenc.encodings.offsets import offset_bias, offset_score_mod
from posenc.errors import PosencError

__all__ = ["T5Bias", "t5_bucket"]


def t5_bucket(relative: torch.Tensor, bidirectional: bool = True, num_buckets: int = 32,
              max_distance: int = 128) -> torch.Tensor:
    """Bucket index (int64) of each relative position ``r = key - query``.

    Hand example (bidirectional, 32 buckets, max_distance 128): r = 0 -> 0, r = -3 -> 3, r = +3 -> 19,
    r = -8 -> 8 (the first log bucket), r = -200 -> 15 (the last).
    """
    if not isinstance(relative, torch.Tensor) or relative.is_floating_point() or relative.is_complex():
        raise PosencError(f"relative positions must be an integer tensor (key minus query), got "
                          f"{relative.dtype if isinstance(relative, torch.Tensor) else type(relative).__name__}")
    bucket = torch.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (relative > 0).long() * num_buckets
        distance = relative.abs()
    else:
        distance = (-relative).clamp(min=0)
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    # log-spaced buckets from max_exact to max_distance; clamp(min=1) keeps log() finite where is_small anyway
    log_ratio = torch.log(distance.clamp(min=1).double() / max_exact) / math.log(max_distance / max_exact)
    large = max_exact + (log_ratio * (num_buckets - max_exact)).long()
    large = large.clamp(max=num_buckets - 1)
    return bucket + torch.where(is_small, distance, large)


@register("t5")
class T5Bias(PositionalEncoding):
    """Learned bucketed relative bias (Raffel et al. 2020).

    Args:
        n_heads: number of attention heads.
        num_buckets: 32 in T5.
        max_distance: 128 in T5; distances beyond share the last bucket.
        bidirectional: ``True`` for an encoder, ``False`` for a causal decoder.
        scale: a fixed factor on the bias (1 in T5).
    """

    info = EncodingInfo(family="bias", paper="Raffel et al. 2020, T5 (JMLR 21:140)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True,
                 scale: float = 1.0):
        super().__init__()
        if not whole_number(n_heads):
            raise PosencError(f"t5 needs a positive number of heads, got {n_heads!r}")
        if not whole_number(num_buckets, 4) or (bidirectional and num_buckets % 2):
            raise PosencError(f"num_buckets must be an integer >= 4 (even when bidirectional), got {num_buckets!r}")
        if not whole_number(max_distance):
            raise PosencError(f"max_distance must be a positive integer (the distance past which offsets share the "
                              f"last bucket), got {max_distance!r}; T5 uses 128")
        if max_distance <= num_buckets // (4 if bidirectional else 2):
            raise PosencError(f"max_distance ({max_distance}) must exceed the exact range "
                              f"({num_buckets // (4 if bidirectional else 2)}); T5 uses 128")
        self.n_heads, self.num_buckets, self.max_distance, self.bidirectional = (
            n_heads, num_buckets, max_distance, bidirectional)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
            raise PosencError(f"scale must be a finite number, got {scale!r}; T5 uses 1.0")
        self.scale = float(scale)
        self.embedding = nn.Embedding(num_buckets, n_heads)  # one scalar per (bucket, head)
        nn.init.normal_(self.embedding.weight, std=0.02)

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]``)."""
        q_positions, k_positions = bias_positions(q_positions, k_positions, self.n_heads, self.name)
        return offset_bias(q_positions, k_positions, self._table, self.embedding.weight.device)

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod:
        """The same bias at one pair (FlexAttention), read from the ``[H, n_offsets]`` table."""
        q_positions, k_positions = pair_positions(q_positions, k_positions)
        return offset_score_mod(q_positions, k_positions, self._table, self.embedding.weight.device)

    def _table(self, offsets: torch.Tensor) -> torch.Tensor:
        """``[H, n]``: the scaled bias at each offset ``q - k`` (the bucket of ``r = key - query = -offset``)."""
        buckets = t5_bucket(-offsets, self.bidirectional, self.num_buckets, self.max_distance)
        values = self.embedding(buckets).T  # [H, n]
        return values if self.scale == 1.0 else values * self.scale

    def extra_repr(self) -> str:
        return (f"n_heads={self.n_heads}, num_buckets={self.num_buckets}, max_distance={self.max_distance}, "
                f"bidirectional={self.bidirectional}" + ("" if self.scale == 1.0 else f", scale={self.scale:g}"))
