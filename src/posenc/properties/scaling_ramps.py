"""RoPE scalings as per-dimension frequency ratios against the unscaled frequencies (the YaRN and Llama 3 ramps).

``ratio_i = inv_freq_scaled_i / inv_freq_default_i`` with the same base and rotary width, at the check's length:

- linear (Chen et al. 2023): every ratio is ``1/s``;
- NTK (bloc97 2023): ``s^(-(2i/R) R/(R-2))``, from 1 down to ``1/s``;
- YaRN (Peng et al. 2023): 1 for pairs turning more than ``beta_fast`` times in L0, ``1/s`` below ``beta_slow``, a linear
  ramp in between; plus an attention factor ``0.1 ln s + 1``;
- Llama 3 (Meta 2024): 1 for wavelengths below ``L0 / high``, ``1/s`` above ``L0 / low``, smooth in between.

Claim: high frequencies are kept, low ones divided by the factor, never the other way round. Holds when the ratio never
grows with the pair index and stays within ``[1/s, 1]``. n.a. for unscaled encodings.
"""

from __future__ import annotations

import torch

from posenc.encodings.rope_scaling import default_inv_freq
from posenc.properties.result import FAILS, HOLDS, NotApplicable, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["scaling_ramp", "frequency_ratio"]

CLAIM = "a RoPE scaling keeps high frequencies and divides low ones by the factor (with a ramp between)"
SOURCE = "Peng et al. 2023 (YaRN); Meta 2024 (Llama 3.1); Chen et al. 2023; FACTS §3"


def frequency_ratio(view: EncodingView) -> tuple[torch.Tensor, dict]:
    """``(ratio [R/2] float64, scaling spec)`` of a rotary encoding at the view's length."""
    view.require("rotary", "frequency scalings belong to rotary encodings")
    scaling = getattr(view.inner, "scaling", None)
    spec = scaling.as_dict() if scaling is not None else {"type": "default"}
    if spec.get("type", "default") == "default":
        raise NotApplicable(f"{view.name} uses RoFormer's unscaled frequencies; pass a scaling, e.g. "
                            f"-o 'scaling={{\"type\": \"yarn\", \"factor\": 4}}'")
    inv_freq, _ = view.frequencies
    reference, _ = default_inv_freq(int(view.inner.rotary_dim), float(view.inner.base))
    return inv_freq / reference, spec


def scaling_ramp(view: EncodingView) -> PropertyResult:
    """Per-pair frequency ratio: how many pairs are kept, divided by the factor, or on the ramp."""
    ratio, spec = frequency_ratio(view)
    factor = float(spec.get("factor", 1.0))
    _, attention_factor = view.frequencies
    low = 1 / factor
    kept = int((ratio >= 1 - 1e-9).sum())
    divided = int(((ratio - low).abs() <= 1e-9 * low).sum()) if factor > 1 else 0
    monotone = bool((ratio.diff() <= 1e-12).all())
    within = bool(((ratio <= 1 + 1e-12) & (ratio >= low * (1 - 1e-12))).all())
    numbers = {
        "n_kept": kept,
        "n_divided": divided,
        "n_ramp": ratio.numel() - kept - divided,
        "factor": factor,
        "ratio_first": float(ratio[0]),
        "ratio_last": float(ratio[-1]),
        "ratio_min": float(ratio.min()),
        "attention_factor": attention_factor,
        "scaling": spec,
        "ratio": [round(v, 9) for v in ratio.tolist()],
    }
    ok = monotone and within
    reason = (f"{spec['type']} x{factor:g}: {kept} pairs kept, {divided} divided by {factor:g}, "
              f"{numbers['n_ramp']} in between; attention factor {attention_factor:.4g}")
    if not monotone:
        reason += "; the ratio grows somewhere with the pair index"
    if not within:
        reason += (f"; ratios span {float(ratio.min()):.4g}..{float(ratio.max()):.4g}, outside [1/{factor:g}, 1]"
                   + (" (dynamic NTK's effective factor grows with the length)" if spec["type"] == "dynamic" else ""))
    return PropertyResult("scaling_ramp", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
