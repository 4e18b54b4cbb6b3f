"""Attention with a position bias that is never materialised: PyTorch's FlexAttention with the encoding's
``score_mod`` and a block mask.

:func:`~posenc.model.transformer.attention_mask` builds the encoding's ``bias`` ``[H, Tq, Tk]`` (or ``[B, H, Tq,
Tk]``) and adds it, with the causal, span and padding masks, to the logits: ``O(H Tq Tk)`` memory before attention
starts. Here the encoding's :meth:`~posenc.encodings.base.PositionalEncoding.score_mod` adds the bias of one (query,
key) pair inside the attention kernel, and the masks become a ``mask_mod`` over indices, summarised per tile of
``BLOCK`` x ``BLOCK`` pairs in a :class:`~torch.nn.attention.flex_attention.BlockMask` (tiles that see nothing are
skipped). What attention holds besides q, k and v is then ``O(H (Tq + Tk))`` (the encoding's tables) plus the block
mask's ``O(B (Tq / BLOCK) (Tk / BLOCK))`` tiles; the block mask is built a row of tiles at a time, so it never holds
the ``[B, Tq, Tk]`` mask either.

The values are those of the materialised path (tests/model/test_flex.py: forward and the gradients of q, k, v and of
the encoding's parameters), with one difference: a query that sees no key at all (a padded row before any real key)
gets ``nan`` there and ``0`` here.

FlexAttention is fast only compiled (``torch.compile``, once per shape, minutes on a small CPU); eager it evaluates
``score_mod`` on the whole ``[B, H, Tq, Tk]`` grid, which is fine for checking values. PyTorch's CPU build runs it
forward only (it refuses inputs that need gradients on CPU). :func:`choose` picks the path per call from what
``benchmarks/bench_flex.py`` measured (docs/kernels.md, "Bias attention without the bias").
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import torch

from posenc.encodings.base import PositionalEncoding, ScoreMod
from posenc.encodings.offsets import positions_at
from posenc.encodings.schedule import Layer
from posenc.errors import PosencError

__all__ = ["FlexMask", "flex_mask", "block_mask", "flex_attend", "choose", "PATHS", "BLOCK", "FLEX_MIN_LENGTH_CPU"]

#: the side of a block-mask tile (FlexAttention's default)
BLOCK = 128
#: what ``Transformer.forward(bias_path=...)`` accepts
PATHS = ("auto", "materialised", "flex")
#: ``"auto"`` on CPU takes compiled FlexAttention from this many keys on, and only without gradients: below it the
#: compile (once per shape and process) costs more than the materialised bias it saves in the lab's short runs
#: (benchmarks/bench_flex.py, docs/kernels.md)
FLEX_MIN_LENGTH_CPU = 8192

MaskMod = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class FlexMask:
    """What the layers with one encoding and span share in a forward: the encoding's ``score_mod`` and the block
    mask (causality, the layer's window and chunk, padding)."""

    score_mod: ScoreMod
    block_mask: object  # torch.nn.attention.flex_attention.BlockMask


def _mask_mod(q_positions: torch.Tensor, k_positions: torch.Tensor, t_q: int, t_k: int, causal: bool,
              key_padding_mask: torch.Tensor | None, layer: Layer | None) -> MaskMod | None:
    """``mask_mod(b, h, q_idx, kv_idx)``: True where the query sees the key (the queries being the last ``t_q`` of
    ``t_k``, as in :func:`~posenc.model.transformer.attention_mask`); ``None`` when every pair is seen. Written with
    tensor operations that broadcast, so it runs on scalars (FlexAttention) and on index grids (:func:`block_mask`)."""
    window = None if layer is None else layer.window
    chunk = None if layer is None else layer.chunk
    if not causal and key_padding_mask is None and window is None and chunk is None:
        return None
    shift = t_k - t_q
    q_at, k_at = positions_at(q_positions), positions_at(k_positions)

    def mask_mod(b, h, q_idx, kv_idx):
        seen = torch.ones_like(q_idx + kv_idx, dtype=torch.bool)
        if causal:
            seen = seen & (kv_idx <= q_idx + shift)
        if window is not None:
            seen = seen & ((q_at(b, q_idx) - k_at(b, kv_idx)).abs() < window)
        if chunk is not None:
            seen = seen & (q_at(b, q_idx) // chunk == k_at(b, kv_idx) // chunk)
        if key_padding_mask is not None:
            seen = seen & ~key_padding_mask[b, kv_idx]
        return seen

    return mask_mod


def block_mask(mask_mod: MaskMod | None, batch: int, t_q: int, t_k: int, device: torch.device):
    """The :class:`~torch.nn.attention.flex_attention.BlockMask` of ``mask_mod`` (``None``: every pair seen) over
    ``batch`` rows, ``t_q`` queries and ``t_k`` keys, in tiles of :data:`BLOCK`: a tile is skipped when it sees
    nothing, runs without the mask when it sees everything, and applies ``mask_mod`` otherwise. Evaluated one row of
    tiles at a time (``[batch, BLOCK, Tk]`` booleans), never on the whole ``[batch, Tq, Tk]``."""
    from torch.nn.attention.flex_attention import BlockMask

    n_q, n_k = max(1, math.ceil(t_q / BLOCK)), max(1, math.ceil(t_k / BLOCK))
    kv = torch.arange(n_k * BLOCK, device=device)
    kv_valid = kv < t_k
    b = torch.arange(batch, device=device)[:, None, None]
    h = torch.zeros((), dtype=torch.long, device=device)
    some_rows, every_rows = [], []
    for i in range(n_q):
        q = torch.arange(i * BLOCK, (i + 1) * BLOCK, device=device)
        inside = (q < t_q)[:, None] & kv_valid  # [BLOCK, n_k * BLOCK]: pairs past the ends are not seen
        if mask_mod is None:
            seen = inside[None]
        else:  # [1 or batch, BLOCK, n_k * BLOCK]: one row when the mask does not depend on the batch row
            seen = mask_mod(b, h, q.clamp(max=max(t_q - 1, 0))[None, :, None],
                            kv.clamp(max=max(t_k - 1, 0))[None, None, :]) & inside
        tiles = seen.view(seen.shape[0], BLOCK, n_k, BLOCK)
        some_rows.append(tiles.any(3).any(1))  # [1 or batch, n_k]
        every_rows.append(tiles.all(3).all(1))
    some, full = torch.stack(some_rows, 1), torch.stack(every_rows, 1)  # [1 or batch, n_q, n_k]
    partial = some & ~full

    def ordered(dense: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        counts = dense.sum(-1, dtype=torch.int32)[:, None]  # [rows, 1, n_q]
        order = torch.argsort(dense.to(torch.int8), dim=-1, descending=True, stable=True).to(torch.int32)[:, None]
        return counts.contiguous(), order.contiguous()

    return BlockMask.from_kv_blocks(*ordered(partial), *ordered(full), BLOCK_SIZE=(BLOCK, BLOCK), mask_mod=mask_mod,
                                    seq_lengths=(t_q, t_k))


def flex_mask(encoding: PositionalEncoding, positions: torch.Tensor, causal: bool,
              key_padding_mask: torch.Tensor | None, batch: int, device: torch.device, layer: Layer | None = None,
              k_positions: torch.Tensor | None = None) -> FlexMask | None:
    """The :class:`FlexMask` of ``encoding`` at these positions, for a batch of ``batch`` rows (the counterpart of
    :func:`~posenc.model.transformer.attention_mask`); ``None`` when the encoding has no ``score_mod``."""
    k_positions = positions if k_positions is None else k_positions
    score_mod = encoding.score_mod(positions, k_positions)
    if score_mod is None:
        return None
    t_q, t_k = positions.shape[-1], k_positions.shape[-1]
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.to(device=device, dtype=torch.bool)
    mask_mod = _mask_mod(positions.to(device), k_positions.to(device), t_q, t_k, causal, key_padding_mask, layer)
    return FlexMask(score_mod, block_mask(mask_mod, batch, t_q, t_k, device))


_compiled: dict[str, Callable] = {}


def flex_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: FlexMask, scale: float,
                compiled: bool | None = None) -> torch.Tensor:
    """FlexAttention of ``q (B, H, Tq, Dh)`` over ``k, v (B, Hk, Tk, Dh)`` with ``mask``'s ``score_mod`` and block
    mask; ``compiled`` (default: on, unless the environment sets ``POSENC_FLEX_COMPILE=0``) runs it through
    ``torch.compile``, built once per process and shape (eager, it evaluates ``score_mod`` on the whole grid)."""
    from torch.nn.attention.flex_attention import flex_attention

    if compiled is None:
        compiled = os.environ.get("POSENC_FLEX_COMPILE", "1") != "0"
    if compiled:
        if "flex" not in _compiled:
            _compiled["flex"] = torch.compile(flex_attention, dynamic=False)
        run = _compiled["flex"]
    else:
        run = flex_attention
    try:
        return run(q, k, v, score_mod=mask.score_mod, block_mask=mask.block_mask, scale=scale,
                   enable_gqa=k.shape[1] != q.shape[1])
    except NotImplementedError as error:  # torch's CPU build: forward only
        raise PosencError(f"FlexAttention cannot run here: {error}; use bias_path='materialised' (or 'auto') to "
                          f"train on {q.device.type}") from error


def choose(path: str, encoding: PositionalEncoding, length: int, device: torch.device, dropout: float) -> bool:
    """Whether attention runs on FlexAttention (``True``) or adds the materialised bias (``False``) under ``path``
    (:data:`PATHS`). ``"flex"`` insists (a bias without ``score_mod``, a per-layer bias from content or input, or
    dropout, is an error; an encoding with no bias at all keeps SDPA's fast path, there is nothing to materialise);
    ``"materialised"`` never; ``"auto"`` only where it was measured faster with
    its compile counted: on CPU, without gradients, from :data:`FLEX_MIN_LENGTH_CPU` keys on (on an H200 the
    materialised path was faster at every length from 512 to 16384 keys, with and without gradients, so ``"auto"``
    keeps it on a GPU; docs/kernels.md). An empty sequence (no bias to build) always takes the
    materialised path."""
    if path not in PATHS:
        raise PosencError(f"bias_path must be one of {', '.join(PATHS)}, got {path!r}")
    info = encoding.info
    fits = type(encoding).score_mod is not PositionalEncoding.score_mod and not info.biases_from_content and dropout == 0
    nothing = not (info.biases_logits or info.biases_from_content)
    if path == "flex" and length and not nothing:
        if not fits:
            raise PosencError(f"bias_path='flex' needs an encoding with a score_mod and no per-layer bias from "
                              f"content or input, and no attention dropout; {encoding.name} with dropout {dropout} "
                              f"has not; use bias_path='auto' or 'materialised'")
        return True
    if path != "auto" or not fits or length == 0:
        return False
    return device.type == "cpu" and not torch.is_grad_enabled() and length >= FLEX_MIN_LENGTH_CPU
