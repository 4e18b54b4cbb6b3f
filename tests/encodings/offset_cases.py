"""Query and key positions that reach every path of posenc.encodings.offsets, shared by the bias tests."""

from __future__ import annotations

import torch


def offset_cases() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Query and key positions ([T] or [B, T], unequal lengths) through every path of the offset table: consecutive
    keys (whole rows copied), scattered keys with repeats (a column per pair), per-row rows close together and far
    apart (only the offsets that occur), a few pairs (one indexing call); keys after the queries give negative
    offsets, and every case is shifted off position 0 somewhere. 180 x 200 pairs reach the per-(row, head) gather."""
    g = torch.Generator().manual_seed(16)
    scattered_q, scattered_k = torch.randint(0, 400, (190,), generator=g), torch.randint(0, 400, (210,), generator=g)
    return {
        "consecutive keys, shifted": (torch.arange(60, 260), torch.arange(5, 185)),
        "keys after the queries": (torch.arange(0, 190), torch.arange(150, 330)),
        "scattered with repeats": (scattered_q, scattered_k),
        "per-row, a KV cache each": (torch.stack([torch.arange(100, 300), torch.arange(50, 250)]),
                                     torch.stack([torch.arange(0, 180), torch.arange(40, 220)])),
        "per-row, scattered keys": (torch.stack([torch.arange(200), torch.arange(7, 207)]),
                                    torch.stack([torch.arange(37, 217), scattered_k[:180]])),
        "per-row, rows far apart": (torch.stack([torch.arange(200), torch.arange(10**6, 10**6 + 200)]),
                                    torch.stack([torch.arange(37, 217), torch.arange(180)])),
        "per-row queries, shared keys": (torch.stack([torch.arange(200), torch.arange(300, 500)]),
                                         torch.arange(20, 200)),
        "a few pairs": (torch.tensor([3, 1, 4]), torch.tensor([1, 5, 9, 2])),
        "one pair per row": (torch.arange(12)[:, None], torch.tensor([0, 5, 3, 11, 2, 9, 8, 1, 0, 4, 6, 20])[:, None]),
    }
