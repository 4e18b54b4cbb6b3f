"""Translation invariance: how two positions interact depends on their distance only (tutorial 001 §3.3, §5.2).

Claim: ``PE[p] . PE[p + k]`` is the same for every p (for the sinusoid it is ``sum_i cos(k w_i)``), so "similarity
against distance" is one curve, not a family of curves.

Measured at distances r = 0, 1, 2, 4, ... up to N/2, always with the query ``r`` positions after the key:

- absolute encodings: ``s_r(p) = PE[p] . PE[p + r]`` from the table; spread ``(max_p - min_p) / mean_p |PE[p]|^2``;
- rotary encodings, through the ``rotate`` hook (float32): a fixed query ``q`` at every position ``p + r`` and a fixed
  key ``k`` at ``p``; spread of the logit over p, relative to ``|q| |k|`` times the largest gain;
- bias encodings, through the ``bias`` hook: the bias of query ``p + r`` on key ``p``, per head; spread relative to
  the largest bias (at least 1).

The similarity curve is the mean over p: cosine similarity for tables, the logit of a vector with itself (relative
to distance 0) for rotations, the head-averaged bias for biases. Holds when the spread is below the tolerance (1e-9 on
float64 tables, 1e-5 on float32 tables, 1e-4 through the float32 rotate hook, 1e-6 for biases).

:func:`offset_spread` measures the same for any score function of (query positions, key positions), such as a
rotary logit of fixed vectors or an added code's dot product (tutorial 003 §14.6.3: RoPE's score depends on the offset
only, the sinusoid added to q and k on where the pair sits too).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["translation", "distances_for", "offset_spread"]

CLAIM = "the interaction of two positions depends only on their distance"
SOURCE = "tutorial 001 §3.3 and §5.2"


def offset_spread(score: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], starts: torch.Tensor, offset: int,
                  scale: float) -> float:
    """``(max_p - min_p) score(p + offset, p) / scale`` over key positions ``starts``: 0 when the score of a query
    ``offset`` places after its key is the same wherever the pair sits (it depends on the offset only)."""
    values = score(starts + offset, starts)  # [S]
    return float((values.max() - values.min()) / scale)


def distances_for(length: int) -> list[int]:
    """0, 1, 2, 4, ... up to ``length // 2``."""
    out, r = [0], 1
    while r <= length // 2:
        out.append(r)
        r *= 2
    return out


def _absolute(view: EncodingView, distances: list[int]) -> tuple[list[float], list[float], float]:
    table = view.table  # [N, D]
    sq = (table * table).sum(-1)  # [N]
    norms = sq.sqrt()
    scale = float(sq.mean()) or 1.0
    spread, curve = [], []
    for r in distances:
        dots = (table[: view.length - r] * table[r:]).sum(-1)  # [N - r]
        spread.append(float(dots.max() - dots.min()) / scale)
        cos = dots / (norms[: view.length - r] * norms[r:]).clamp(min=1e-300)
        curve.append(float(cos.mean()))
    return spread, curve, view.tolerance


def _rotary(view: EncodingView, distances: list[int]) -> tuple[list[float], list[float], float]:
    head_dim = int(getattr(view.inner, "head_dim", view.d_model))
    gen = torch.Generator().manual_seed(0)
    q0, k0 = torch.randn(2, head_dim, generator=gen)
    n = view.length
    q = q0.expand(1, 1, n, head_dim).contiguous()  # [B=1, H=1, N, Dh]
    k = k0.expand(1, 1, n, head_dim).contiguous()
    pos = view.positions
    q_rot, k_rot = view.inner.rotate(q, k, pos, pos)
    same_q, same_k = view.inner.rotate(q, q.clone(), pos, pos)  # a vector against itself
    q_rot, k_rot = q_rot[0, 0].double(), k_rot[0, 0].double()  # [N, Dh]
    same_q, same_k = same_q[0, 0].double(), same_k[0, 0].double()
    factor = float(getattr(view.inner, "attention_factor", 1.0))
    scale = float(q0.norm() * k0.norm()) * factor**2
    spread, curve = [], []
    base = float((same_q[0] * same_k[0]).sum())
    for r in distances:
        logits = (q_rot[r:] * k_rot[: n - r]).sum(-1)  # [N - r]: query at p + r, key at p
        spread.append(float(logits.max() - logits.min()) / scale)
        self_logits = (same_q[r:] * same_k[: n - r]).sum(-1)
        curve.append(float(self_logits.mean()) / base if base else 0.0)
    return spread, curve, 1e-4


def _bias(view: EncodingView, distances: list[int]) -> tuple[list[float], list[float], float]:
    n = view.length
    keys = torch.cat([torch.arange(n - r) for r in distances])  # [M]
    queries = torch.cat([torch.arange(r, n) for r in distances])
    values = view.bias_pairs(queries, keys)  # [M, H]
    scale = max(float(values.abs().max()), 1.0)
    spread, curve, start = [], [], 0
    for r in distances:
        chunk = values[start: start + n - r]  # [N - r, H]
        start += n - r
        spread.append(float((chunk.max(0).values - chunk.min(0).values).max()) / scale)
        curve.append(float(chunk.mean()))
    return spread, curve, 1e-6


def translation(view: EncodingView) -> PropertyResult:
    """Spread over p of the position-position interaction at each distance, and the similarity-distance curve."""
    distances = distances_for(view.length)
    if view.family == "absolute":
        spread, curve, tol = _absolute(view, distances)
        what = "PE[p] . PE[p + r]"
        curve_name = "cosine_similarity_by_distance"
    elif view.family == "rotary":
        view.frequencies  # noqa: B018  (a rotation by several position axes is not 1-D: not applicable, with why)
        spread, curve, tol = _rotary(view, distances)
        what = "the logit <R(p + r) q, R(p) k> (rotate hook, float32)"
        curve_name = "self_logit_by_distance"
    else:
        view.require("bias", "without positions there is nothing to compare")
        spread, curve, tol = _bias(view, distances)
        what = "the bias of query p + r on key p"
        curve_name = "mean_bias_by_distance"
    worst = max(range(len(distances)), key=lambda i: spread[i])
    numbers = {
        "spread_max": spread[worst],
        "distances": distances,
        "spread": spread,
        curve_name: curve,
        "tolerance": tol,
    }
    ok = spread[worst] <= tol
    if ok:
        reason = f"{what} is the same for every p at each distance (largest spread {spread[worst]:.2g})"
    else:
        reason = f"{what} changes with p: at distance {distances[worst]} it spreads by {spread[worst]:.3g} (relative)"
    return PropertyResult("translation", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
