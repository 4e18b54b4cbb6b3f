"""Does a model tell word orders and positions apart? Two numbers read off its outputs (tutorial 000 intro: a
recurrent network carries word order by construction; self-attention without positions only reorders its outputs).

- :func:`order_effect`: how much the outputs for a reordered input differ from the original outputs reordered the
  same way (0: the model is permutation equivariant, it cannot tell the orders apart);
- :func:`position_gap`: along a run of one repeated token, how far apart the two closest neighbouring positions'
  outputs stay (0: two positions coincide, nothing but the position differs between them).

Both are relative to the mean absolute output. Shapes: outputs ``h [T, D]`` (positions x channels).
"""

from __future__ import annotations

import torch

__all__ = ["order_effect", "position_gap"]


def order_effect(h: torch.Tensor, h_permuted: torch.Tensor, perm: torch.Tensor) -> float:
    """``max |h(x[perm]) - h(x)[perm]| / mean |h(x)|`` for outputs ``[T, D]``: 0 when the model only reorders its
    outputs with its inputs (it cannot tell the orders apart), above 0 when the order changes what it computes."""
    return float((h_permuted - h[perm]).abs().max() / h.abs().mean())


def position_gap(h: torch.Tensor) -> float:
    """``min_t max |h[t + 1] - h[t]| / mean |h|`` over outputs ``[T, D]`` of one repeated token: how far apart the
    model keeps two neighbouring positions when nothing but the position differs (0: some two coincide)."""
    return float((h[1:] - h[:-1]).abs().amax(dim=1).min() / h.abs().mean())
