"""Long-term decay: the attention an encoding allows falls with distance (RoFormer §3.4.3; xPos; ALiBi).

- RoPE (Su et al. 2021, §3.4.3): with ``S_j(r) = sum_{i<j} e^{i r theta_i}`` the logit of a query and key ``r`` apart
  is bounded by ``max_i |h_{i+1} - h_i| sum_j |S_j(r)|``, and RoFormer plots ``(1/(R/2)) sum_{j=1}^{R/2} |S_j(r)|``:
  32.5 at r = 0 for R = 128 (``(64 + 1) / 2``), falling with r but not monotonically.
- xPos (Sun et al. 2023): the same sum with each pair damped, ``S_j(r) = sum_{i<j} zeta_i^(r / scale_base) e^{i r
  theta_i}``.
- ALiBi (Press et al. 2022) and any bias: the weight a key ``r`` positions back gets relative to distance 0,
  ``exp(b(r) - b(0))``, averaged over heads (ALiBi: ``exp(-m_h r)``).

Holds when the curve's mean over the last quarter of distances is below half its value at r = 0.
"""

from __future__ import annotations

import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["decay", "roformer_bound", "decay_curve", "DECAY_DISTANCES"]

SOURCE = "Su et al. 2021 (RoFormer) §3.4.3; Sun et al. 2023 (xPos); Press et al. 2022 (ALiBi)"
CLAIM = "attention between two positions decays with their distance"
#: distances reported as numbers (those below the length)
DECAY_DISTANCES = (0, 10, 100, 250, 1000, 4000)


def roformer_bound(inv_freq: torch.Tensor, distances: torch.Tensor, zeta: torch.Tensor | None = None,
                   scale_base: float = 512.0) -> torch.Tensor:
    """``(1/P) sum_{j=1}^{P} |sum_{i<j} zeta_i^(r/scale_base) e^{i r theta_i}|`` for each distance ``r``.

    Args:
        inv_freq: ``theta_i [P]`` (float64), P = R/2 rotary pairs.
        distances: ``r [M]``.
        zeta: optional per-pair decay ``[P]`` (xPos); ``None`` for RoPE.
    Returns:
        ``[M]`` float64.
    """
    r = distances.to(torch.float64)[:, None]  # [M, 1]
    phase = r * inv_freq.to(torch.float64)  # [M, P]
    terms = torch.polar(torch.ones_like(phase), phase)  # e^{i r theta_i}
    if zeta is not None:
        terms = terms * zeta.to(torch.float64) ** (r / scale_base)
    partial = terms.cumsum(dim=-1)  # [M, P]: S_j for j = 1..P
    return partial.abs().mean(dim=-1)


def decay_curve(view: EncodingView) -> tuple[torch.Tensor, torch.Tensor, str]:
    """``(r [N], curve [N] or [N, H], label)`` for r = 0..N-1: the RoFormer bound (rotary) or the per-head relative
    weight ``exp(b(r) - b(0))`` (bias)."""
    r = view.positions
    if view.family == "rotary":
        inv_freq, _ = view.frequencies
        zeta = getattr(view.inner, "zeta", None)
        scale_base = float(getattr(view.inner, "scale_base", 512.0))
        label = "xPos bound (damped RoFormer sum)" if zeta is not None else "RoFormer bound"
        return r, roformer_bound(inv_freq, r, zeta, scale_base), label
    view.require("bias", "decay with distance is measured on logits (rotations or biases)")
    values = view.bias_pairs(r, torch.zeros_like(r))  # [N, H]: query r, key 0
    return r, (values - values[:1]).exp(), "exp(b(r) - b(0)) per head"


def decay(view: EncodingView) -> PropertyResult:
    """The decay curve at a few distances and whether its tail is below half its start."""
    r, curve, label = decay_curve(view)
    mean = curve.mean(dim=-1) if curve.dim() == 2 else curve  # [N]
    start = float(mean[0])
    tail = float(mean[3 * view.length // 4:].mean())
    numbers: dict = {"tail_over_start": tail / start if start else None}
    numbers.update({f"at_{d}": float(mean[d]) for d in DECAY_DISTANCES if d < view.length})
    numbers["curve"] = label
    if curve.dim() == 2:  # per head: the distance where the weight first drops below 1/e
        below = curve < torch.exp(torch.tensor(-1.0, dtype=curve.dtype))
        numbers["distance_to_1_over_e_per_head"] = [int(col.nonzero()[0]) if bool(col.any()) else None
                                                     for col in below.T]
    else:
        numbers["monotonic"] = bool((mean.diff() <= 1e-12).all())
    ok = start > 0 and tail < 0.5 * start
    reason = (f"{label}: {start:.4g} at distance 0, mean {tail:.4g} over the last quarter of {view.length} "
              f"positions" + (" (decays)" if ok else " (does not fall below half)"))
    return PropertyResult("decay", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
