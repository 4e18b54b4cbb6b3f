"""Packed (varlen) sequences: several sequences concatenated along the token axis, delimited by ``cu_seqlens``.

``cu_seqlens = [0, n_0, n_0 + n_1, ..., N]`` (cumulative lengths, as in flash-attn's varlen interface) describes
sequences ``s`` occupying tokens ``cu_seqlens[s] .. cu_seqlens[s+1] - 1``. Each sequence restarts at position 0:

    position(j) = j - cu_seqlens[s]   for cu_seqlens[s] <= j < cu_seqlens[s+1]

so one RoPE call over the packed ``[1, H, N, Dh]`` tensor rotates every sequence as if it were alone.
"""

from __future__ import annotations

import torch

from posenc.errors import PosencError

__all__ = ["check_cu_seqlens", "positions_from_cu_seqlens"]


def check_cu_seqlens(cu_seqlens: torch.Tensor | list[int], total_tokens: int | None = None) -> torch.Tensor:
    """Validate ``cu_seqlens`` and return it as an int64 CPU tensor ``[S + 1]``.

    It must be one-dimensional integers, start at 0, never decrease (an empty sequence repeats a value) and end at
    ``total_tokens`` when that is given.
    """
    if isinstance(cu_seqlens, (list, tuple)):
        cu_seqlens = torch.tensor(cu_seqlens)
    if not isinstance(cu_seqlens, torch.Tensor):
        raise PosencError(f"cu_seqlens must be a tensor or list of ints, got {type(cu_seqlens).__name__}; "
                          f"pass e.g. torch.tensor([0, 5, 12])")
    if cu_seqlens.is_floating_point() or cu_seqlens.is_complex() or cu_seqlens.dtype == torch.bool:
        raise PosencError(f"cu_seqlens must hold integers, got dtype {cu_seqlens.dtype}; pass e.g. "
                          f"torch.tensor([0, 5, 12], dtype=torch.int32)")
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 2:
        raise PosencError(f"cu_seqlens must be 1-D with at least 2 entries [0, ..., total], got shape "
                          f"{list(cu_seqlens.shape)}; for one sequence of N tokens pass [0, N]")
    cu = cu_seqlens.detach().to("cpu", torch.int64)
    if int(cu[0]) != 0:
        raise PosencError(f"cu_seqlens must start at 0, got {int(cu[0])}; prepend 0 (cumulative lengths "
                          f"[0, n0, n0 + n1, ...])")
    steps = cu[1:] - cu[:-1]
    if bool((steps < 0).any()):
        where = int(torch.nonzero(steps < 0)[0, 0])
        raise PosencError(f"cu_seqlens must be increasing, but entry {where + 1} ({int(cu[where + 1])}) is smaller "
                          f"than entry {where} ({int(cu[where])}); pass cumulative sums of the sequence lengths")
    if total_tokens is not None and int(cu[-1]) != total_tokens:
        raise PosencError(f"cu_seqlens ends at {int(cu[-1])} but the packed tensor has {total_tokens} tokens; "
                          f"its last entry must be the total number of tokens")
    return cu


def positions_from_cu_seqlens(cu_seqlens: torch.Tensor | list[int], total_tokens: int | None = None,
                              device: torch.device | str | None = None) -> torch.Tensor:
    """Per-token positions ``[N]`` (int64) of packed sequences, restarting at 0 at each sequence start.

    Example: ``cu_seqlens = [0, 3, 5]`` -> ``[0, 1, 2, 0, 1]``.
    """
    cu = check_cu_seqlens(cu_seqlens, total_tokens)
    lengths = cu[1:] - cu[:-1]  # [S]
    starts = torch.repeat_interleave(cu[:-1], lengths)  # [N] start of each token's sequence
    positions = torch.arange(int(cu[-1]), dtype=torch.int64) - starts
    target = device if device is not None else (cu_seqlens.device if isinstance(cu_seqlens, torch.Tensor) else None)
    return positions if target is None else positions.to(target)
