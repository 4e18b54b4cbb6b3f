"""Relative position representations (Shaw, Uszkoreit and Vaswani 2018, "Self-Attention with Relative Position
Representations", §3, eqs. 4-5), on the keys: the ``relative_key`` of BERT-style models.

Each clipped distance between a key and a query has a learned vector ``a[d]`` of the head width; the query reads it
beside the key::

    d_ij = clip(j - i, -L, R)                                   (eq. 5; L = R = k in the paper)
    e_ij = (q_i . k_j + q_i . a[d_ij]) / sqrt(Dh)               (eq. 4: q_i (k_j + a_ij)^T / sqrt(d_z))

so the bias is ``q_i . a[d_ij] / sqrt(Dh)``: it depends on the query's content, hence the ``contextual_bias`` hook
(attention adds it to its logits after its own ``1/sqrt(Dh)``). Positions are the tokens' positions, so a KV cache
or left padding gives the same distances as the full sequence. ``a`` is one table shared by the heads, as in the
paper and in transformers' ``relative_key`` (``Wav2Vec2BertSelfAttention``'s ``distance_embedding``, whose
``left_max_position_embeddings`` and ``right_max_position_embeddings`` are ``max_left`` and ``max_right`` here;
``tests/encodings/test_shaw.py`` compares with it).

Cost: ``q a^T`` (``B H Tq (L + R + 1) Dh`` multiply-adds) and a gather of ``B H Tq Tk`` values: a little more than
attention's own ``q k^T`` when ``L + R + 1`` is below ``Tk``.
"""

from __future__ import annotations

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_head_layout, check_positions
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["RelativeKey", "relative_key_bias"]


def relative_key_bias(q: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor, table: torch.Tensor,
                      max_left: int) -> torch.Tensor:
    """``q_i . a[clip(k_j - q_i, -L, R)] / sqrt(Dh)`` ``[B, H, Tq, Tk]``.

    ``q [B, H, Tq, Dh]``; positions ``[T]`` or ``[B, T]``; ``table [L + R + 1, Dh]``, row ``d + L`` for distance ``d``;
    ``max_left``: ``L``.
    """
    right = table.shape[0] - 1 - max_left
    distance = k_positions[..., None, :] - q_positions[..., :, None]  # [(B,) Tq, Tk]
    rows = distance.clamp(-max_left, right) + max_left  # [(B,) Tq, Tk] rows of the table
    z = q @ table.to(q.dtype).T  # [B, H, Tq, L + R + 1]: q_i . a[d] for every distance
    index = rows[:, None] if rows.dim() == 3 else rows[None, None]  # [B or 1, 1, Tq, Tk]
    index = index.expand(q.shape[0], q.shape[1], *rows.shape[-2:])  # [B, H, Tq, Tk]
    return z.gather(-1, index) / q.shape[-1] ** 0.5


@register("relative_key")
class RelativeKey(PositionalEncoding):
    """A learned vector per clipped key-query distance, read by the query (Shaw et al. 2018, arXiv:1803.02155, §3).

    Args:
        head_dim: width of each query head ``Dh`` (the vectors' width).
        max_left: ``L``, the farthest distance to an earlier key with a vector of its own (farther ones share it).
        max_right: ``R``, the same for later keys; ``None``: ``max_left`` (the paper's one ``k``). A causal model
            never reads past 0.

    Example::

        >>> import torch, posenc
        >>> shaw = posenc.build("relative_key", head_dim=8, max_left=2)
        >>> q = k = torch.randn(1, 1, 6, 8)
        >>> bias = shaw.contextual_bias(q, k, torch.arange(6), torch.arange(6))[0, 0]  # [Tq, Tk]
        >>> # keys 2, 3, 4 and 5 places before query 5 share the vector of distance 2
        >>> bool((bias[5, :4] == bias[5, 3]).all()), bool(bias[5, 3] == bias[5, 4])
        (True, False)
    """

    info = EncodingInfo(family="contextual", paper="Shaw et al. 2018, relative position representations "
                                                   "(arXiv:1803.02155)", hooks=("contextual_bias",))

    def __init__(self, head_dim: int = 64, max_left: int = 64, max_right: int | None = None):
        super().__init__()
        max_right = max_left if max_right is None else max_right
        for label, value in (("head_dim", head_dim), ("max_left", max_left), ("max_right", max_right)):
            if not whole_number(value):
                raise PosencError(f"relative_key needs a positive integer {label}, got {value!r}; e.g. "
                                  f"head_dim=64, max_left=64")
        self.head_dim, self.max_left, self.max_right = head_dim, max_left, max_right
        self.table = nn.Parameter(torch.empty(max_left + max_right + 1, head_dim))  # a[-L..R], row d + L
        nn.init.normal_(self.table, std=0.02)

    def contextual_bias(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor,
                        k_positions: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        """``[B, H, Tq, Tk]``: ``q_i . a[clip(j - i)] / sqrt(Dh)`` (the keys are read only for their number and
        layout; the layer input ``x`` is not read)."""
        check_head_layout(q, q_positions, "q", "q_positions")
        check_head_layout(k, k_positions, "k", "k_positions")
        if q.dim() != 4 or k.dim() != 4 or q.shape[-1] != self.head_dim:
            raise PosencError(f"relative_key was built for head_dim {self.head_dim}; got q {list(q.shape)} and k "
                              f"{list(k.shape)} (want [batch, heads, seq, {self.head_dim}])")
        q_positions = check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0]).to(q.device)
        k_positions = check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0]).to(q.device)
        return relative_key_bias(q, q_positions, k_positions, self.table, self.max_left)

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, max_left={self.max_left}, max_right={self.max_right}"
