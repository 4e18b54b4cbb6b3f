"""CoPE: contextual position encoding (Golovneva et al. 2024, "Contextual Position Encoding: Learning to Count
What's Important", §3, eqs. 3-5).

Positions are counted by the content: query ``i`` decides with a gate which earlier keys count, and a key's position
is the number of counted keys between it and the query::

    g_ij = sigmoid(q_i . k_j / sqrt(Dh))      (eq. 3; keys j at or before i)
    p_ij = sum_{t=j}^{i} g_it                 (eq. 4; fractional, at most the number of keys)
    e[p] = (p - floor p) e[ceil p] + (1 - p + floor p) e[floor p]     (eq. 5; e learned, one vector per integer)
    logit_ij += q_i . e[p_ij]

computed as the paper suggests: ``z_i[n] = q_i . e[n]`` for the integers ``n < n_pos`` once, then interpolated, with
``p`` clipped at ``n_pos - 1`` (its ``p_max``). The gates read the attention logits as attention scales them: the
paper's reference code (its Appendix B, ``SelfAttn.forward``) divides ``q k^T`` by ``sqrt(head_dim)`` before
``CoPE.forward(query, attn_logits)`` takes their sigmoid, and adds the unscaled ``q . e[p]`` to the scaled logits;
posenc's attention adds the bias after its own ``1/sqrt(Dh)`` scaling, so only the gates carry the scale here
(x-transformers' ``Attend`` does the same; ``tests/encodings/test_cope_reference.py`` compares with it). "Earlier" means ``k_position <= q_position``, so a KV cache or left
padding counts the same keys as the full sequence. Gates of keys at other positions are 0.

The bias needs the queries and keys, so CoPE uses the ``contextual_bias`` hook, which attention calls in every layer
with that layer's q and k (after ``rotate``, which CoPE leaves alone); ``bias`` stays ``None``.

Cost: besides attention's own ``q k^T``, CoPE computes the gates (a second ``q k^T`` of ``B H Tq Tk Dh``
multiply-adds), a cumulative sum over keys, ``q e^T`` (``B H Tq n_pos Dh``) and a gather, and holds about four
``[B, H, Tq, Tk]`` float tensors: per query token ``O(H Tk (Dh + c))`` time and ``O(H Tk)`` memory, i.e. roughly one
more attention's worth of work on top of attention.
"""

from __future__ import annotations

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_allocation, check_head_layout, check_positions
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["CoPE", "cope_positions", "cope_bias"]


def cope_positions(q: torch.Tensor, k: torch.Tensor, visible: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """``p_ij = sum_{t >= j, visible} sigmoid(scale * q_i . k_t)`` ``[B, H, Tq, Tk]`` (eqs. 3-4).

    ``q [B, H, Tq, Dh]``, ``k [B, H, Tk, Dh]`` (heads already matched), ``visible [(B, 1,) Tq, Tk]`` bool,
    ``scale``: attention's logit scale (``1/sqrt(Dh)``), so the gates see the logits attention uses.
    """
    gates = torch.sigmoid((q @ k.transpose(-1, -2)) * scale) * visible  # [B, H, Tq, Tk]
    return gates.flip(-1).cumsum(-1).flip(-1)  # sum over t = j..Tk-1 of the visible gates


def cope_bias(q: torch.Tensor, positions: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``q_i . e[p_ij]`` ``[B, H, Tq, Tk]`` with ``e`` interpolated between integer rows of ``table [n_pos, Dh]``."""
    p = positions.clamp(max=table.shape[0] - 1)
    z = q @ table.to(q.dtype).T  # [B, H, Tq, n_pos]: q_i . e[n]
    low = p.floor()
    frac = p - low
    z_low = z.gather(-1, low.long())  # [B, H, Tq, Tk]
    z_high = z.gather(-1, p.ceil().long())
    return frac * z_high + (1 - frac) * z_low


@register("cope")
class CoPE(PositionalEncoding):
    """Contextual positions from gates over previous tokens (Golovneva et al. 2024, arXiv:2405.18719, §3).

    Args:
        head_dim: width of each query/key head ``Dh`` (the position vectors' width).
        max_len: ``n_pos``, the number of integer positions with a learned vector (``p`` is clipped below it).

    Example::

        >>> import torch, posenc
        >>> cope = posenc.build("cope", head_dim=8, max_len=16)
        >>> q = k = torch.randn(1, 2, 5, 8)
        >>> cope.contextual_bias(q, k, torch.arange(5), torch.arange(5)).shape
        torch.Size([1, 2, 5, 5])
    """

    #: 2: the gates read the scaled logits ``q k^T / sqrt(Dh)`` (Appendix B); 1 took the sigmoid of ``q k^T``
    revision = 2
    info = EncodingInfo(family="contextual", paper="Golovneva et al. 2024, CoPE (arXiv:2405.18719)",
                        hooks=("contextual_bias",))

    def __init__(self, head_dim: int = 64, max_len: int = 512):
        super().__init__()
        for label, value in (("head_dim", head_dim), ("max_len", max_len)):
            if not whole_number(value):
                raise PosencError(f"CoPE needs a positive integer {label}, got {value!r}")
        check_allocation(2 * 4 * max_len * head_dim, f"CoPE's table of {max_len} x {head_dim} float32 values",
                         "use a smaller max_len or head_dim", detail="the table and its initial draw")
        self.head_dim, self.max_len = head_dim, max_len
        self.table = nn.Parameter(torch.zeros(max_len, head_dim))  # e[0..n_pos-1]; zeros: starts as NoPE
        nn.init.normal_(self.table, std=0.02)

    def contextual_bias(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor,
                        k_positions: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        """``[B, H, Tq, Tk]``: ``q_i . e[p_ij]`` for keys at or before each query's position, 0 elsewhere (the layer
        input ``x`` is not read)."""
        check_head_layout(q, q_positions, "q", "q_positions")  # [B, T, H, Dh] is named before any size check
        check_head_layout(k, k_positions, "k", "k_positions")
        if q.dim() != 4 or k.dim() != 4 or q.shape[-1] != self.head_dim or k.shape[-1] != self.head_dim:
            raise PosencError(f"CoPE was built for head_dim {self.head_dim}; got q {list(q.shape)} and k "
                              f"{list(k.shape)} (want [batch, heads, seq, {self.head_dim}])")
        if q.shape[1] % k.shape[1]:
            raise PosencError(f"q has {q.shape[1]} heads, not a multiple of k's {k.shape[1]}")
        q_positions = check_positions(q_positions, q.shape[2], "q_positions", batch=q.shape[0]).to(q.device)
        k_positions = check_positions(k_positions, k.shape[2], "k_positions", batch=k.shape[0]).to(q.device)
        k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)  # GQA: [B, H, Tk, Dh]
        visible = k_positions[..., None, :] <= q_positions[..., :, None]  # [(B,) Tq, Tk]
        if visible.dim() == 3:
            visible = visible[:, None]  # [B, 1, Tq, Tk]
        scale = self.logit_factor / self.head_dim ** 0.5  # the scale attention gives its logits
        positions = cope_positions(q, k, visible, scale)
        return cope_bias(q, positions, self.table) * visible

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, max_len={self.max_len}"
