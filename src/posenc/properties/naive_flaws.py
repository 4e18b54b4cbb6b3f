"""The naive encodings' flaws as numbers (tutorial 000 §2.1-2.3), measured on any absolute encoding.

- ``growth`` (§2.1, "1, 2, 3, ..."): the largest norm in the second half of the positions over the largest in the first
  half. Integer positions double it (``(N - 1 + 1) / (N/2)``); a bounded table keeps it near 1. Holds (no growth) when
  the ratio is at most 1.25.
- ``length_independence`` (§2.2, "3 tokens give 0, 0.5, 1"): the same position encoded inside a sequence of N and of
  N/2 tokens, ``max_{p < N/2} |PE_N[p] - PE_{N/2}[p]|``, and the step ``||PE[1] - PE[0]||`` at both lengths. Holds
  when the vectors agree.
- ``continuity`` (§2.3, binary "不连续"): neighbour distances ``||PE[p + 1] - PE[p]||``, their largest over their
  smallest. Binary jumps by ``sqrt(j + 1)`` where p + 1 carries into bit j (``sqrt(12) = 3.46`` at N = 4096), evenly
  spaced encodings keep 1. Holds when the ratio is at most 2.
"""

from __future__ import annotations

from posenc.properties.result import FAILS, HOLDS, NotApplicable, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["growth", "length_independence", "continuity", "GROWTH_LIMIT", "JUMP_LIMIT"]

SOURCE = "tutorial 000 §2.1-2.3"
#: largest second-half / first-half norm ratio still called "no growth"
GROWTH_LIMIT = 1.25
#: largest / smallest neighbour distance still called "continuous"
JUMP_LIMIT = 2.0


def _absolute_only(view: EncodingView, what: str) -> None:
    if view.family != "absolute":
        raise NotApplicable(f"{view.name} adds no vector to the embedding, so the naive encodings' {what} "
                            f"cannot occur")


def growth(view: EncodingView) -> PropertyResult:
    """Largest norm over positions ``[N/2, N)`` against ``[0, N/2)``."""
    _absolute_only(view, "growth")
    norms = view.table.norm(dim=-1)  # [N]
    half = view.length // 2
    first, second = float(norms[:half].max()), float(norms[half:].max())
    ratio = second / first if first > 0 else float("inf")
    numbers = {"norm_ratio_second_half": ratio, "norm_max_first_half": first, "norm_max_second_half": second}
    ok = ratio <= GROWTH_LIMIT
    reason = (f"the largest norm goes from {first:.4g} (positions < {half}) to {second:.4g} (positions < "
              f"{view.length}), a ratio of {ratio:.4g}" + ("" if ok else f" > {GROWTH_LIMIT}: it grows with position"))
    return PropertyResult("growth", HOLDS if ok else FAILS, numbers, reason,
                          "position vectors do not grow with the position", SOURCE)


def length_independence(view: EncodingView) -> PropertyResult:
    """A position's vector in a sequence of N tokens against the same position in a sequence of N/2."""
    _absolute_only(view, "length dependence")
    half = view.length // 2
    long = view.table[:half]  # [N/2, D], encoded with N positions in the call
    short = view.table_at(view.positions[:half])  # [N/2, D], encoded with N/2 positions
    diff = float((long - short).abs().max())
    scale = max(float(long.abs().max()), 1e-300)
    step_long = float((long[1] - long[0]).norm())
    step_short = float((short[1] - short[0]).norm())
    numbers = {"max_difference": diff, "step_at_length": step_long, "step_at_half_length": step_short,
               "step_ratio": step_short / step_long if step_long > 0 else None}
    ok = diff <= view.tolerance * scale
    if ok:
        reason = f"positions 0..{half - 1} get the same vectors in sequences of {view.length} and {half} tokens"
    else:
        reason = (f"the same position gets another vector when the sequence is shorter: up to {diff:.4g} apart; "
                  f"the step between neighbours is {step_long:.4g} at {view.length} tokens, {step_short:.4g} at "
                  f"{half}")
    return PropertyResult("length_independence", HOLDS if ok else FAILS, numbers, reason,
                          "a position's vector does not depend on the sequence length", SOURCE)


def continuity(view: EncodingView) -> PropertyResult:
    """Largest over smallest distance between neighbouring positions."""
    _absolute_only(view, "jumps")
    table = view.table
    steps = (table[1:] - table[:-1]).norm(dim=-1)  # [N - 1]
    lo, hi = float(steps.min()), float(steps.max())
    ratio = hi / lo if lo > 0 else float("inf")
    where = int(steps.argmax())
    numbers = {"jump_ratio": ratio, "step_min": lo, "step_max": hi, "largest_jump_at": [where, where + 1]}
    ok = ratio <= JUMP_LIMIT
    reason = (f"neighbour distances range {lo:.4g}..{hi:.4g} (ratio {ratio:.4g}); the largest is between positions "
              f"{where} and {where + 1}" + ("" if ok else f": a jump more than {JUMP_LIMIT:g}x the smallest step"))
    return PropertyResult("continuity", HOLDS if ok else FAILS, numbers, reason,
                          "neighbouring positions are evenly close (no jumps)", SOURCE)
