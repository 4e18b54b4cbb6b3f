"""Boundedness: position vectors stay small whatever the position (tutorial 001 §3.1; tutorial 003 §14.8.2).

Claim: the sinusoid's values lie in [-1, 1], so a position vector never "drowns" the word embedding, however long
the sequence (tutorial 003 §14.8.2: ``position = [10, 20, -15]`` would swamp ``[0.5, 0.3, -0.2]``).

- absolute encodings: value range of ``PE [N, D]``, per-position norm ``||PE[p]||`` (min, max), the RMS per channel
  ``||PE[p]|| / sqrt(D)`` (what an embedding of unit-variance channels is compared with). Holds when every value is in
  [-1, 1].
- rotary encodings: a rotation keeps norms, so the question is the gain ``||R(p) x|| / ||x||`` per pair: the
  attention factor for RoPE and its scalings, ``zeta^((p - c)/scale_base)`` for xPos (c the centre position, as the
  rotate hook uses). Holds when the gain is the same at every position.
"""

from __future__ import annotations

import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["bounded"]

CLAIM = "position vectors stay in [-1, 1] and never drown the embedding"
SOURCE = "tutorial 001 §3.1; tutorial 003 §14.8.2"


def bounded(view: EncodingView) -> PropertyResult:
    """Value range and norm per position (absolute) or gain per position (rotary)."""
    if view.family == "rotary":
        return _rotary(view)
    view.require("absolute", "boundedness of a position vector does not apply (bias values are logits)")
    table = view.table  # [N, D]
    norms = table.norm(dim=-1)  # [N]
    lo, hi = float(table.min()), float(table.max())
    numbers = {
        "max_abs_value": max(abs(lo), abs(hi)),
        "value_min": lo,
        "value_max": hi,
        "norm_min": float(norms.min()),
        "norm_max": float(norms.max()),
        "rms_per_channel_max": float(norms.max()) / table.shape[1] ** 0.5,
        "norm_at_last_over_first": float(norms[-1] / norms[0]) if float(norms[0]) > 0 else None,
    }
    ok = numbers["max_abs_value"] <= 1.0 + view.tolerance
    reason = (f"values in [{lo:.4g}, {hi:.4g}] over {view.length} positions; norm {numbers['norm_min']:.4g}.."
              f"{numbers['norm_max']:.4g}")
    reason += "" if ok else f": the largest value is {numbers['max_abs_value']:.4g}, outside [-1, 1]"
    return PropertyResult("bounded", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)


def _rotary(view: EncodingView) -> PropertyResult:
    gain = view.gain(center=view.length // 2)  # [N, R/2], centred as the rotate hook does
    per_position = gain.max(dim=-1).values  # [N]
    lo, hi = float(gain.min()), float(gain.max())
    numbers = {
        "gain_spread": hi / lo if lo > 0 else float("inf"),
        "gain_min": lo,
        "gain_max": hi,
        "gain_at_first_position": float(per_position[0]),
        "gain_at_last_position": float(per_position[-1]),
    }
    ok = bool(torch.isclose(gain, gain[:1], rtol=1e-12, atol=0).all())
    if ok:
        reason = f"a rotation keeps norms: the gain is {lo:.4g} at every position (the attention factor)"
    else:
        reason = (f"the gain changes with position, from {lo:.4g} to {hi:.4g} over {view.length} positions "
                  f"(a factor of {numbers['gain_spread']:.4g})")
    return PropertyResult("bounded", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
