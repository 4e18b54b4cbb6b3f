"""Biases that depend on the offset ``q_pos - k_pos`` alone: evaluate once per distinct offset, then gather.

A relative bias ``b_h(i - j)`` over ``Tq x Tk`` pairs sees few distinct offsets (``Tq + Tk - 1`` for consecutive
positions, never more than the range of ``q`` plus that of ``k``), so the expensive function (a logarithm, a power, a
sum of cosines, a bucket formula and an embedding) is evaluated on a table ``[H, n]`` and each pair costs one gather,
as ALiBi's costs one multiply. The values are those of a per-pair evaluation: the same function of the same offsets,
computed once per offset.

The table runs over the offsets in descending order, ``high, high - 1, ..., low``. When the keys of a row are
consecutive (``k_j = k_0 + j``: ``arange`` positions, a KV cache), query ``i``'s row of the bias is then the
contiguous slice ``table[:, s_i : s_i + Tk]`` with ``s_i = high - q_i + k_0``, and a gather copies whole rows.
Otherwise each pair has its own index into the table.

The same tables serve FlexAttention (:func:`offset_score_mod`): a ``score_mod`` reads the bias of a pair from the
``[H, n]`` table at the pair's offset, so the bias costs ``O(H (Tq + Tk))`` memory instead of ``O(H Tq Tk)``, and the
table's gradient flows back to the encoding's parameters by ordinary autograd.

Used by KERPLE, Sandwich, T5 and FIRE. Positions follow :mod:`posenc.encodings.base`: ``[T]`` shared by the batch or
``[B, T]`` one row per sequence, already checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

__all__ = ["Offsets", "offsets_of", "gather_offsets", "offset_bias", "positions_at", "offset_range",
           "offset_score_mod"]

#: pairs per row of positions from which one ``index_select`` per (row, head), written in place, beats one
#: advanced-indexing call (on CPU about 2x at 4096 x 4096; below this the number of calls dominates)
_LOOP_MIN_PAIRS = 1 << 15


@dataclass(frozen=True)
class Offsets:
    """Where each (query, key) pair finds its offset in a table over ``values``.

    ``values [n]``: the offsets ``q - k`` a table is evaluated at (int64). Then either ``starts [B', Tq]`` (every row's
    keys consecutive: pair ``(i, j)`` reads column ``starts[i] + j``) or ``index [B', Tq, Tk]`` (pair ``(i, j)`` reads
    column ``index[i, j]``). ``batch`` is the leading shape of the bias (``()`` for ``[T]`` positions).
    """

    values: torch.Tensor
    batch: torch.Size
    Tq: int
    Tk: int
    starts: torch.Tensor | None = None
    index: torch.Tensor | None = None

    def full_index(self) -> torch.Tensor:
        """The column of every pair, ``[B', Tq, Tk]`` (int64)."""
        if self.index is not None:
            return self.index
        return self.starts[..., None] + torch.arange(self.Tk, device=self.starts.device)

    def rows(self, b: int, start: int, stop: int) -> Offsets:
        """Row ``b`` of the batch, queries ``start:stop`` only (same ``values``; batch ``()``)."""
        if self.index is not None:
            return Offsets(self.values, torch.Size(), stop - start, self.Tk, index=self.index[b:b + 1, start:stop])
        return Offsets(self.values, torch.Size(), stop - start, self.Tk, starts=self.starts[b:b + 1, start:stop])


def offsets_of(q_positions: torch.Tensor, k_positions: torch.Tensor) -> Offsets:
    """The distinct offsets ``q - k`` of positions ``[T]`` or ``[B, T]`` and where each pair finds its own.

    ``values`` is the range ``high..low`` of the offsets, descending (``Tq + Tk - 1`` values for consecutive
    positions); when rows of a batch sit so far apart that this range is longer than the pairs themselves, it is the
    distinct offsets that occur (sorted) instead. With no pairs at all it is ``[0]``.
    """
    q, k = q_positions[..., :, None], k_positions[..., None, :]  # [(B,) Tq, 1], [(B,) 1, Tk]
    shape = torch.broadcast_shapes(q.shape, k.shape)  # [(B,) Tq, Tk]
    batch, (Tq, Tk) = shape[:-2], shape[-2:]
    flat = (batch.numel(), Tq, Tk)
    device = q.device
    if shape.numel() == 0:
        return Offsets(torch.zeros(1, dtype=torch.long, device=device), batch, Tq, Tk,
                       index=torch.zeros(flat, dtype=torch.long, device=device))
    low = int((q_positions.amin(-1) - k_positions.amax(-1)).min())
    high = int((q_positions.amax(-1) - k_positions.amin(-1)).max())
    if high - low + 1 > shape.numel():  # rows far apart: only the offsets that occur
        values, index = torch.unique(q - k, return_inverse=True)
        return Offsets(values, batch, Tq, Tk, index=index.expand(shape).reshape(flat))
    values = torch.arange(high, low - 1, -1, device=device)  # values[m] = high - m
    if bool((k_positions.diff(dim=-1) == 1).all()):  # consecutive keys: column high - q_i + k_0 + j
        starts = (high - q_positions)[..., :, None] + k_positions[..., :1, None]  # [(B,) Tq, 1]
        return Offsets(values, batch, Tq, Tk, starts=starts[..., 0].expand(*batch, Tq).reshape(flat[:2]))
    return Offsets(values, batch, Tq, Tk, index=((high - q) + k).expand(shape).reshape(flat))


def _fill(out: torch.Tensor, table: torch.Tensor, offsets: Offsets) -> None:
    """``out [B', H, Tq, Tk]`` (each ``out[b, h]`` contiguous) <- the table gathered, one ``index_select`` per
    (row, head): whole rows of the table (consecutive keys) or one column per pair."""
    H = table.shape[0]
    if offsets.starts is not None:
        windows = table.unfold(1, offsets.Tk, 1)  # [H, n - Tk + 1, Tk]: window s is columns s .. s + Tk - 1
        for b in range(out.shape[0]):
            for h in range(H):
                torch.index_select(windows[h], 0, offsets.starts[b], out=out[b, h])
        return
    for b in range(out.shape[0]):
        flat = offsets.index[b].reshape(-1)
        for h in range(H):
            torch.index_select(table[h], 0, flat, out=out[b, h].view(-1))


class _OffsetGather(torch.autograd.Function):
    """:func:`_fill` into a new contiguous ``[B', H, Tq, Tk]``; backward adds the gradient of every pair into its
    column of the table (``index_add``, itself differentiable)."""

    @staticmethod
    def forward(ctx, table: torch.Tensor, offsets: Offsets) -> torch.Tensor:
        out = table.new_empty(offsets.batch.numel(), table.shape[0], offsets.Tq, offsets.Tk)
        _fill(out, table, offsets)
        ctx.offsets, ctx.columns = offsets, table.shape[1]
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        index = ctx.offsets.full_index()  # [B', Tq, Tk]
        table_grad = grad.new_zeros(grad.shape[1], ctx.columns)
        for b in range(index.shape[0]):
            table_grad = table_grad.index_add(1, index[b].reshape(-1), grad[b].reshape(grad.shape[1], -1))
        return table_grad, None


def gather_offsets(table: torch.Tensor, offsets: Offsets, out: torch.Tensor | None = None) -> torch.Tensor:
    """``table [H, n]`` (columns ``offsets.values``) at every pair -> ``[(B,) H, Tq, Tk]``, contiguous and
    differentiable with respect to the table; or, without gradients, written into ``out [(B,) H, Tq, Tk]``."""
    table = table.contiguous()
    H, shape = table.shape[0], (*offsets.batch, table.shape[0], offsets.Tq, offsets.Tk)
    if offsets.Tq * offsets.Tk < _LOOP_MIN_PAIRS:  # small: one call, whatever the batch
        heads = torch.arange(H, device=table.device)[:, None, None]  # [H, 1, 1]
        result = table[heads, offsets.full_index().unsqueeze(-3)].view(shape)  # [B', H, Tq, Tk] -> [(B,) H, Tq, Tk]
        return result if out is None else out.copy_(result)
    if out is not None:
        _fill(out.view(-1, H, offsets.Tq, offsets.Tk), table, offsets)
        return out
    return _OffsetGather.apply(table, offsets).view(shape)


def offset_bias(q_positions: torch.Tensor, k_positions: torch.Tensor,
                curve: Callable[[torch.Tensor], torch.Tensor], device: torch.device | None = None) -> torch.Tensor:
    """``[(B,) H, Tq, Tk]`` whose entry at each pair is ``curve(values)[h, m]`` for the ``m`` with
    ``values[m] = q - k``.

    ``curve`` maps the distinct offsets (int64 ``[n]``, on ``device``) to the bias table ``[H, n]``; positions are
    checked int64 ``[T]`` or ``[B, T]`` and are moved to ``device`` (default: where they are).
    """
    if device is not None:
        q_positions, k_positions = q_positions.to(device), k_positions.to(device)
    offsets = offsets_of(q_positions, k_positions)
    return gather_offsets(curve(offsets.values), offsets)


def positions_at(positions: torch.Tensor) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """``read(b, idx)``: the position of token ``idx`` in batch row ``b``, for checked positions ``[T]`` (shared by the
    batch) or ``[B, T]`` (a single row ``[1, T]`` is shared too); ``b`` and ``idx`` are index tensors of a
    ``score_mod`` or a ``mask_mod``."""
    if positions.dim() == 2 and positions.shape[0] == 1:
        positions = positions[0]
    if positions.dim() == 1:
        return lambda b, idx: positions[idx]
    return lambda b, idx: positions[b, idx]


def offset_range(q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
    """Every offset ``q - k`` from the largest to the smallest the positions can form, descending (int64 ``[n]``, on
    the positions' device); ``[0]`` when there are no pairs. ``values[high - d]`` is offset ``d``."""
    if q_positions.numel() == 0 or k_positions.numel() == 0:
        return torch.zeros(1, dtype=torch.long, device=q_positions.device)
    high = int(q_positions.max() - k_positions.min())
    low = int(q_positions.min() - k_positions.max())
    return torch.arange(high, low - 1, -1, device=q_positions.device)


def offset_score_mod(q_positions: torch.Tensor, k_positions: torch.Tensor,
                     curve: Callable[[torch.Tensor], torch.Tensor], device: torch.device | None = None
                     ) -> Callable[..., torch.Tensor]:
    """FlexAttention ``score_mod`` adding ``curve(values)[h, m]`` at the pair's offset ``values[m] = q - k``: the
    values of :func:`offset_bias` with the table ``[H, n]`` (``n`` = the range of the offsets, :func:`offset_range`)
    in place of the ``[(B,) H, Tq, Tk]`` bias."""
    if device is not None:
        q_positions, k_positions = q_positions.to(device), k_positions.to(device)
    values = offset_range(q_positions, k_positions)
    table, high = curve(values), values[0]  # [H, n]; the column of offset d is high - d
    q_at, k_at = positions_at(q_positions), positions_at(k_positions)

    def score_mod(score, b, h, q_idx, kv_idx):
        return score + table[h, high - (q_at(b, q_idx) - k_at(b, kv_idx))]

    return score_mod
