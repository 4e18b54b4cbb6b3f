"""ALiBi: attention with linear biases (Press et al. 2022, "Train Short, Test Long").

    logits[h, i, j] += -m_h * |i - j|

For n heads with n a power of two the slopes are ``m_h = 2^(-8h/n)``, h = 1..n (8 heads: 1/2 .. 1/256). For other n:
the slopes of the nearest lower power of two ``p``, then every other slope of ``2p`` until there are n. Inside the
causal region ``j <= i`` this is ``-m (i - j)``, the paper's bias; BLOOM adds ``m * j`` instead, which differs by a
per-row constant that softmax ignores.

Variants as models use them: custom ``slopes`` (one per ALiBi head, e.g. learned or from a checkpoint), and ALiBi on
a subset of ``heads`` only, the other heads getting no bias at all (NoPE), as in hybrid-position models that give
some heads no positional signal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, ScoreMod, bias_positions, pair_positions
from posenc.encodings.catalog import register
from posenc.encodings.offsets import positions_at
from posenc.errors import PosencError

__all__ = ["ALiBi", "alibi_slopes"]


def _power_of_two_slopes(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """Head slopes ``[n_heads]`` (float64) following Press et al. 2022."""
    if not whole_number(n_heads):
        raise PosencError(f"ALiBi needs a positive number of heads, got {n_heads!r}")
    p = 2 ** int(math.floor(math.log2(n_heads)))
    slopes = _power_of_two_slopes(p)
    if p < n_heads:
        slopes += _power_of_two_slopes(2 * p)[0::2][: n_heads - p]
    return torch.tensor(slopes, dtype=torch.float64)


@register("alibi")
class ALiBi(PositionalEncoding):
    """Linear distance penalty per head (Press et al. 2022, arXiv:2108.12409, §3).

    Args:
        n_heads: number of attention heads (any positive integer).
        slopes: the slope of each ALiBi head (``len(heads)`` values, or ``n_heads`` when ``heads`` is not given);
            default the paper's geometric slopes for that many heads.
        heads: indices (0..n_heads-1) of the heads that get ALiBi; the others get no bias (NoPE). Default: all.

    Example (heads 0 and 2 of 4 with slopes 1 and 0.5; heads 1 and 3 see no position)::

        >>> import torch, posenc
        >>> a = posenc.build("alibi", n_heads=4, heads=[0, 2], slopes=[1.0, 0.5])
        >>> a.bias(torch.tensor([2]), torch.arange(3))[:, 0].tolist()
        [[-2.0, -1.0, -0.0], [-0.0, -0.0, -0.0], [-1.0, -0.5, -0.0], [-0.0, -0.0, -0.0]]
    """

    info = EncodingInfo(family="bias", paper="Press et al. 2022, Train Short, Test Long (ALiBi)", hooks=("bias",))

    def __init__(self, n_heads: int = 8, slopes: Sequence[float] | None = None, heads: Sequence[int] | None = None):
        super().__init__()
        if not whole_number(n_heads):
            raise PosencError(f"ALiBi needs a positive number of heads, got {n_heads!r}")
        if heads is None:
            chosen = list(range(n_heads))
        else:
            if isinstance(heads, str | bytes) or not hasattr(heads, "__iter__"):
                raise PosencError(f"heads must be a list of head indices in 0..{n_heads - 1}, got {heads!r}")
            chosen = list(heads)
            bad = [h for h in chosen if not whole_number(h, 0, n_heads)]
            if bad or not chosen:
                raise PosencError(f"heads must be a non-empty list of head indices in 0..{n_heads - 1} (n_heads = "
                                  f"{n_heads}), got {list(heads)!r}" + (f"; out of range: {bad}" if bad else ""))
            if len(set(chosen)) != len(chosen):
                raise PosencError(f"heads lists a head twice: {chosen}; give each head index once")
        if slopes is None:
            values = alibi_slopes(len(chosen))
        else:
            bad = isinstance(slopes, str | bytes) or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in (slopes if hasattr(slopes, "__iter__")
                                                                                else [slopes]))
            if bad:
                raise PosencError(f"ALiBi slopes must be a list of numbers, one per ALiBi head, got {slopes!r}")
            values = torch.as_tensor(list(slopes), dtype=torch.float64)
            if values.dim() != 1 or values.numel() != len(chosen):
                raise PosencError(f"ALiBi got {values.numel()} slopes for {len(chosen)} ALiBi head(s) "
                                  f"({'heads ' + str(chosen) if heads is not None else f'n_heads = {n_heads}'}); "
                                  f"give one slope per ALiBi head")
            if not bool(torch.isfinite(values).all()):
                raise PosencError(f"ALiBi slopes must be finite numbers, got {values.tolist()}")
        full = torch.zeros(n_heads, dtype=torch.float64)
        full[torch.tensor(chosen, dtype=torch.long)] = values
        self.n_heads, self.heads = n_heads, tuple(chosen)
        self.register_buffer("slopes", full.to(torch.float32), persistent=False)  # [H]; 0 on NoPE heads

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]`` for per-row positions): ``-m_h |i - j|``."""
        q_positions, k_positions = bias_positions(q_positions, k_positions, self.n_heads, self.name)
        distance = (q_positions[..., :, None] - k_positions[..., None, :]).abs()  # [(B,) Tq, Tk]
        slopes = self.slopes.to(distance.device)
        if distance.dim() == 3:
            return -slopes[None, :, None, None] * distance[:, None].float()  # [B, H, Tq, Tk]
        return -slopes[:, None, None] * distance[None].float()  # [H, Tq, Tk]

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod:
        """``score - m_h |i - j|`` at one pair (FlexAttention): the slopes ``[H]`` and the positions, nothing per
        pair."""
        q_positions, k_positions = pair_positions(q_positions, k_positions)
        slopes = self.slopes
        q_at, k_at = positions_at(q_positions.to(slopes.device)), positions_at(k_positions.to(slopes.device))

        def score_mod(score, b, h, q_idx, kv_idx):
            return score - slopes[h] * (q_at(b, q_idx) - k_at(b, kv_idx)).abs().float()

        return score_mod

    def extra_repr(self) -> str:
        subset = "" if len(self.heads) == self.n_heads else f", heads={list(self.heads)}"
        return f"n_heads={self.n_heads}{subset}"
