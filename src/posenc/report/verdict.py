"""A verdict on one claim, decided from measured intervals by one rule (never written by hand).

Five outcomes come from :func:`judge`:

- ``supported``: every test's interval lies wholly on the claim's side of its threshold;
- ``refuted``: every core test's interval lies wholly on the other side;
- ``qualified``: some tests pass and some fail, each decided; the verdict names the condition;
- ``inconclusive``: an interval straddles a threshold so that the outcome could go either way (the reason says by how
  much the sample would have to grow), or a requirement (the model learned the task in distribution, the experiment
  ran at all) is not met;
- ``not testable``: the test cannot tell the cases apart here (a requirement marked so failed), with the reason.

A sixth, ``failed``, is set by the runner when the experiment raised: the claim has no numbers, only the error.

The rule: each :class:`~posenc.report.claim.Test` compares one statistic's interval with its threshold and gives
pass, fail or undecided. Every way the undecided tests could fall is tried; if all give one status, that is the
verdict, else it is inconclusive.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from posenc.errors import PosencError
from posenc.stats import Estimate

if TYPE_CHECKING:
    from posenc.report.claim import Claim, Test

__all__ = ["Verdict", "STATUSES", "supported", "refuted", "qualified", "inconclusive", "not_testable", "failed",
           "judge", "outcome"]

#: every status a verdict can have, in the order the summary counts them
STATUSES = ("supported", "qualified", "refuted", "inconclusive", "not testable", "failed")


@dataclass(frozen=True)
class Verdict:
    """``status`` (one of :data:`STATUSES`), ``reason`` (the numbers that decided it), ``condition`` (qualified only)."""

    status: str
    reason: str
    condition: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise PosencError(f"verdict status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "qualified" and not self.condition:
            raise PosencError("a qualified verdict must name its condition (condition='...')")

    @property
    def label(self) -> str:
        """What the summary table shows: the status, and for ``qualified`` its condition."""
        return f"qualified: {self.condition}" if self.status == "qualified" else self.status

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def supported(reason: str) -> Verdict:
    return Verdict("supported", reason)


def refuted(reason: str) -> Verdict:
    return Verdict("refuted", reason)


def qualified(condition: str, reason: str) -> Verdict:
    return Verdict("qualified", reason, condition)


def inconclusive(reason: str) -> Verdict:
    return Verdict("inconclusive", reason)


def not_testable(reason: str) -> Verdict:
    return Verdict("not testable", reason)


def failed(error: str) -> Verdict:
    return Verdict("failed", error)


# ---------------------------------------------------------------------------------------------------------------
# the rule
# ---------------------------------------------------------------------------------------------------------------
def outcome(test: Test, estimate: Estimate) -> bool | None:
    """``True`` when the whole interval passes the test, ``False`` when the whole interval fails it, ``None`` when
    it straddles the threshold (or the value is NaN)."""
    if math.isnan(estimate.value):
        return None
    low, high = estimate.low, estimate.high
    if test.op == ">":
        return True if low > test.threshold else False if high <= test.threshold else None
    return True if high < test.threshold else False if low >= test.threshold else None


def _more_data(test: Test, estimate: Estimate) -> str:
    """How much larger the sample would have to be for the interval to clear the threshold (width ~ 1/sqrt(n))."""
    gap = abs(estimate.value - test.threshold)
    half = estimate.half_width
    if not math.isfinite(half):
        return f"{test.statistic} has no interval from n={estimate.n}; at least 2 independent samples are needed"
    if gap == 0 or math.isnan(gap):
        return f"{test.statistic} sits on the threshold; no sample size would settle it"
    factor = (half / gap) ** 2
    return (f"{test.statistic} = {estimate.text()} straddles {test.threshold:.7g}; about {math.ceil(factor * estimate.n)}"
            f" samples instead of {estimate.n} would settle it if the value held")


def _status(core: list[bool], conditions: list[bool]) -> str:
    if all(core) and all(conditions):
        return "supported"
    if not any(core):
        return "refuted"
    return "qualified"


def _describe(test: Test, estimate: Estimate, result: bool | None) -> str:
    mark = {True: "holds", False: "does not hold", None: "undecided"}[result]
    return f"{test.says}: {test.statistic} = {estimate.text()} (needs {test.op} {test.threshold:.7g}) — {mark}"


def _unless(test: Test, estimate: Estimate) -> str:
    """A failing test's wording in a qualified verdict: its ``unless`` with ``{value}`` replaced by the measured value
    (3 significant digits), so the summary can say by how much ("grow 4-fold, not twofold")."""
    if not test.unless:
        return f"not: {test.says}"
    return test.unless.replace("{value}", f"{estimate.value:.3g}")


def judge(claim: Claim, estimates: Mapping[str, Estimate], missing: str | None = None) -> Verdict:
    """The verdict of ``claim`` from ``estimates`` (statistic name -> :class:`Estimate`).

    ``missing``: the experiment did not run here (its reason), so nothing can be judged: inconclusive.
    """
    if missing:
        return inconclusive(missing)
    absent = [t.statistic for t in (*claim.requires, *claim.tests) if t.statistic not in estimates]
    if absent:
        raise PosencError(f"claim {claim.id}: the experiment {claim.experiment!r} gave no estimate for "
                          f"{', '.join(absent)}; it gave {', '.join(sorted(estimates)) or 'none'}. The experiment "
                          f"and the claim disagree: bump the claim's revision after fixing either")
    for req in claim.requires:
        est = estimates[req.statistic]
        result = outcome(req, est)
        if result is not True:
            text = _describe(req, est, result)
            if req.otherwise == "not testable" and result is False:
                return not_testable(f"requirement not met, so the test cannot tell the cases apart: {text}")
            return inconclusive(f"requirement not met: {text}")
    results = [(t, estimates[t.statistic], outcome(t, estimates[t.statistic])) for t in claim.tests]
    reason = "; ".join(_describe(t, e, r) for t, e, r in results)
    undecided = [i for i, (_, _, r) in enumerate(results) if r is None]
    statuses = set()
    for fill in itertools.product((True, False), repeat=len(undecided)):
        filled = [r for _, _, r in results]
        for i, value in zip(undecided, fill, strict=True):
            filled[i] = value
        core = [r for (t, _, _), r in zip(results, filled, strict=True) if t.role == "core"]
        conditions = [r for (t, _, _), r in zip(results, filled, strict=True) if t.role == "condition"]
        statuses.add(_status(core, conditions))
    if len(statuses) > 1:
        settle = "; ".join(_more_data(t, e) for t, e, r in results if r is None)
        return inconclusive(f"{reason}. Undecided: {settle}")
    status = statuses.pop()
    if status == "qualified":
        failing = [(t, e) for t, e, r in results if r is False]
        condition = "; ".join(_unless(t, e) for t, e in failing) or "some tests undecided"
        return qualified(condition, reason)
    return Verdict(status, reason)
