"""The report's measured curves the explorer draws beside its formulas, read from the committed full report.

Two of the report's measurements on a real model are the quantities the scaling panel draws for SmolLM2-135M:

- ``pair_use`` (claim ``low-dims-position``): for each of SmolLM2's 32 rotary pairs, the share of the pair's
  attention logits that the query-key offset explains, per window of 128 tokens (mean over layers and heads); the page
  ships the mean over the windows and the smallest and largest window, beside the formula's wavelength per pair.
- ``extension`` (claim ``pi-yarn``): SmolLM2's perplexity at its native 8192 tokens and at 10240 tokens under no
  scaling, position interpolation and YaRN (the committed estimate with its 95% interval), beside the formula's
  frequencies for the same scalings.

Only these numbers travel with the page (about 2 KiB). Outside a checkout, or when the report lacks them, the page
ships none and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from posenc.explore.panels import report_claims

__all__ = ["measured_curves"]


def _interval(estimate: Any) -> dict[str, float] | None:
    if not isinstance(estimate, dict) or not all(isinstance(estimate.get(k), (int, float)) for k in ("value", "low", "high")):
        return None
    return {"value": float(estimate["value"]), "low": float(estimate["low"]), "high": float(estimate["high"])}


def _pair_use(claim: dict[str, Any]) -> dict[str, Any] | None:
    numbers = (claim.get("numbers") or {}).get("smollm2") or {}
    windows = numbers.get("per_window")
    if not windows or not all(isinstance(w, list) and len(w) == len(windows[0]) for w in windows):
        return None
    pairs = list(zip(*windows, strict=True))
    return {"claim": claim["id"], "model": "SmolLM2-135M", "length": numbers.get("length"),
            "windows": len(windows), "theta": numbers.get("theta"), "head_dim": numbers.get("head_dim"),
            "mean": [sum(p) / len(p) for p in pairs], "low": [min(p) for p in pairs], "high": [max(p) for p in pairs]}


def _extension(claim: dict[str, Any]) -> dict[str, Any] | None:
    numbers = claim.get("numbers") or {}
    native, long = _interval(numbers.get("ppl_native")), numbers.get("ppl_long") or {}
    scalings = {k: _interval(v) for k, v in long.items()}
    if native is None or not scalings or None in scalings.values() or not numbers.get("native_len"):
        return None
    return {"claim": claim["id"], "model": "SmolLM2-135M", "native_len": numbers["native_len"], "long": numbers["long"],
            "windows": numbers.get("windows"), "native": native, "scalings": scalings,
            "status": (claim.get("verdict") or {}).get("status")}


def measured_curves(report: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{"pair_use": ..., "extension": ...}`` from a committed report json (the checkout's full report by
    default); a measurement the report lacks is left out."""
    claims = report_claims(report)
    out = {}
    for key, claim_id, read in (("pair_use", "low-dims-position", _pair_use), ("extension", "pi-yarn", _extension)):
        if claim_id in claims:
            value = read(claims[claim_id])
            if value is not None:
                out[key] = value
    return out
