"""bfloat16 aliasing: from which position a low-precision table makes two positions indistinguishable (FACTS §3, §6).

bfloat16 keeps 8 significant bits, so between 256 and 512 it can only hold even integers: ``bf16(257) = bf16(256)``.
An angle ``theta = p w`` stored in bfloat16 moves in steps of ``w`` while its spacing is ``2^(floor(log2 theta) - 7)``;
once the spacing passes the step, neighbours round to the same angle (transformers #29285, gpt-neox #1003).

- rotary encodings: angles ``p * inv_freq`` computed exactly (float64) then rounded to bfloat16 (and to float32); the
  first position whose whole angle row equals its predecessor's (angles grow with p, so equal rows are neighbours),
  searched up to ``max(N, 2^15)``; and how many of the first N positions stay distinct;
- absolute encodings: the table from the hook cast to bfloat16; the first position whose row equals an earlier row.

Holds when the first N positions all stay distinct in bfloat16.
"""

from __future__ import annotations

import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.uniqueness import first_duplicate_length
from posenc.properties.view import EncodingView

__all__ = ["precision", "first_aliased_position", "SEARCH_LIMIT"]

CLAIM = "positions stay distinguishable when the table is stored in bfloat16"
SOURCE = "FACTS §3 (precision), §6; transformers #29285"
#: the rotary search runs over positions below max(length, SEARCH_LIMIT)
SEARCH_LIMIT = 1 << 15
_CHUNK = 8192


def first_aliased_position(inv_freq: torch.Tensor, dtype: torch.dtype, limit: int) -> int | None:
    """First ``q`` in ``1..limit-1`` with ``round(q w_i) == round((q - 1) w_i)`` in ``dtype`` for every pair i."""
    freqs = inv_freq.to(torch.float64).sort(descending=True).values.tolist()  # the fastest pair filters most
    for start in range(1, limit, _CHUNK):  # ascending chunks: stop at the first chunk with an aliased row
        candidates = torch.arange(start, min(start + _CHUNK, limit), dtype=torch.long)  # [Q]
        for w in freqs:
            now = (candidates.to(torch.float64) * w).to(dtype)
            before = ((candidates - 1).to(torch.float64) * w).to(dtype)
            candidates = candidates[now == before]
            if candidates.numel() == 0:
                break
        if candidates.numel():
            return int(candidates[0])
    return None


def _count_aliased(inv_freq: torch.Tensor, dtype: torch.dtype, n: int) -> int:
    angles = (torch.arange(n, dtype=torch.float64)[:, None] * inv_freq.to(torch.float64)).to(dtype)  # [N, R/2]
    return int((angles[1:] == angles[:-1]).all(dim=-1).sum())


def precision(view: EncodingView) -> PropertyResult:
    """First aliased position in bfloat16 (and float32 for angles)."""
    if view.family == "rotary":
        inv_freq, _ = view.frequencies
        limit = max(view.length, SEARCH_LIMIT)
        first16 = first_aliased_position(inv_freq, torch.bfloat16, limit)
        first32 = first_aliased_position(inv_freq, torch.float32, limit)
        aliased = _count_aliased(inv_freq, torch.bfloat16, view.length)
        numbers = {"first_aliased_position_bfloat16": first16, "first_aliased_position_float32": first32,
                   "aliased_positions_below_length_bfloat16": aliased, "searched_up_to": limit,
                   "table": "angles p * inv_freq"}
        what = "bfloat16 angle table"
    else:
        view.require("absolute", "a bias takes integer distances; it stores no per-position table")
        dup = first_duplicate_length(view.table32.to(torch.bfloat16))
        first16 = None if dup is None else dup - 1
        aliased = 0 if dup is None else 1
        numbers = {"first_aliased_position_bfloat16": first16, "searched_up_to": view.length,
                   "table": "encode() cast to bfloat16"}
        what = "bfloat16 table"
    ok = first16 is None or first16 >= view.length
    if first16 is None:
        reason = f"no two positions share a row of the {what} below {numbers['searched_up_to']}"
    else:
        reason = (f"from position {first16} the {what} holds a row equal to an earlier one"
                  + (f" ({aliased} of the first {view.length} positions alias)" if view.family == "rotary" else ""))
    return PropertyResult("precision", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
