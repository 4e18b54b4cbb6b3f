"""Relative offsets in both axes for 2-D (axial) rotations (Heo et al. 2024, "Rotary Position Embedding for Vision
Transformer", §3.2: axial RoPE is relative in rows and columns).

Claim: the logit ``<R(y + dy, x + dx) q, R(y, x) k>`` depends on ``(dy, dx)`` only, not on ``(y, x)``.

Measured through the ``rotate`` hook (float32): a fixed query and key, every patch ``(y, x)`` of a grid of about
``sqrt(N) x sqrt(N)`` patches, offsets ``(dy, dx)`` in {0, 1, 3} x {0, 1, 3} and their mirror ``(dx, dy)``; the spread
of the logit over ``(y, x)`` relative to ``|q| |k|``. Holds below 1e-4. Also reports whether swapping the axes of an
offset changes the logit (it should: rows and columns turn different pairs). Applies to encodings that turn by two
position axes only.
"""

from __future__ import annotations

import math

import torch

from posenc.properties.result import FAILS, HOLDS, NotApplicable, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["relative_2d"]

CLAIM = "the logit of two patches depends only on their row and column offsets"
SOURCE = "Heo et al. 2024 (RoPE for ViT) §3.2"
OFFSETS = ((0, 1), (1, 0), (1, 3), (3, 1), (3, 3))


def relative_2d(view: EncodingView) -> PropertyResult:
    """Spread of the logit over patch positions, per 2-D offset."""
    encoding = view.inner
    if getattr(encoding, "axes", 1) != 2 or view.family != "rotary":
        raise NotApplicable(f"{view.name} does not turn by two position axes (rows and columns of patches); "
                            f"1-D relative offsets are the relative and translation properties")
    side = max(4, int(math.isqrt(view.length)))
    head_dim = int(encoding.head_dim)
    gen = torch.Generator().manual_seed(0)
    q0, k0 = torch.randn(2, head_dim, generator=gen)
    grid = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")).flatten(1)  # [2, S^2]
    n = grid.shape[1]
    scale = float(q0.norm() * k0.norm())
    spreads, logits_at = [], {}
    for dy, dx in OFFSETS:
        q_pos = grid + torch.tensor([dy, dx])[:, None]
        q = q0.expand(1, 1, n, head_dim).contiguous()
        k = k0.expand(1, 1, n, head_dim).contiguous()
        q_rot, k_rot = encoding.rotate(q, k, q_pos[:, None], grid[:, None])
        logits = (q_rot * k_rot).sum(-1).flatten().double()  # [S^2]: one logit per patch pair at this offset
        spreads.append(float(logits.max() - logits.min()) / scale)
        logits_at[(dy, dx)] = float(logits.mean())
    asym = abs(logits_at[(1, 3)] - logits_at[(3, 1)]) / scale
    numbers = {"offsets": [list(o) for o in OFFSETS], "spread": spreads, "spread_max": max(spreads),
               "grid_side": side, "axes_swap_changes_logit": asym}
    ok = max(spreads) <= 1e-4
    reason = (f"over a {side}x{side} patch grid the logit at each (dy, dx) varies by {max(spreads):.2g} of |q||k|"
              + (" (depends on the offsets only)" if ok else " (depends on the patch, not only the offsets)")
              + f"; swapping dy and dx changes it by {asym:.3g}")
    return PropertyResult("relative_2d", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
