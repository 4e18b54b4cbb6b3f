"""A verdict on one claim, decided from measured intervals by one rule (never written by hand).

Five outcomes come from :func:`judge`:

- ``supported``: every test's interval lies wholly on the claim's side of its threshold;
- ``refuted``: every core test's interval lies wholly on the other side;
- ``qualified``: some tests pass and some fail, each decided; the verdict names the condition;
- ``inconclusive``: an interval straddles a threshold so that the outcome could go either way (the reason says by how
  much the sample would have to grow), a number that could decide rests on fewer than
  :data:`~posenc.stats.MIN_UNITS` units and so has no interval, or a requirement (the model learned the task in
  distribution) is not met;
- ``not testable``: the test cannot tell the cases apart here (a requirement marked so failed), with the reason; or
  the claim cannot be tested as written (:attr:`~posenc.report.claim.Claim.untestable`), with its reason.

Two say that nothing was measured that could decide, and are never counted as evidence either way:

- ``not decided in quick mode``: quick mode cannot decide the claim by construction (its experiment does not run in
  quick mode, or a number that could decide rests on fewer seeds than an interval needs, as with ``--seeds 2``); the
  verdict carries the command that decides it;
- ``not run``: the experiment was not run in this report (it trains past the report's time budget); the verdict
  carries the command that runs it and the reason says how long it takes.

A last one, ``failed``, is set by the runner when the experiment raised: the claim has no numbers, only the error.

The rule: each :class:`~posenc.report.claim.Test` compares one statistic's interval with its threshold and gives
pass, fail or undecided (a number without an interval is undecided). Every way the undecided tests could fall is
tried; if all give one status, that is the verdict, else it is inconclusive (or not decided in quick mode, when an
undecided test's number has no interval in quick mode).

Three more readings calibrate it (docs/report.md, "Nulls, hedges, ceilings and scope"):

- the null: a test that names its null's estimate (:attr:`~posenc.report.claim.Test.null`) is read against it first.
  A null whose interval already passes the bar means the test cannot tell the cases apart: not testable, with both
  numbers. A null whose interval straddles the bar: inconclusive (the bar does not separate null from effect).
- the ceiling: a ``headroom`` requirement that fails makes the claim not testable on that metric.
- the hedge: a verdict that would be refuted stands only with power to see the effect. A ``power`` requirement
  that is not met turns it inconclusive; a hedged claim (:attr:`~posenc.report.claim.Claim.hedged`, "may") with no
  power requirement is refuted only by exact numbers (an exact computation sees the whole setting), else
  inconclusive.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from posenc.errors import PosencError
from posenc.stats import MIN_UNITS, Estimate

if TYPE_CHECKING:
    from posenc.report.claim import Claim, Test

__all__ = ["Verdict", "STATUSES", "DECIDED", "UNDECIDED", "NOT_MEASURED", "QUICK_UNDECIDED", "NOT_RUN",
           "supported", "refuted", "qualified", "inconclusive", "not_testable", "not_run", "not_decided_in_quick",
           "failed", "judge", "outcome", "decide_command"]

QUICK_UNDECIDED = "not decided in quick mode"
NOT_RUN = "not run"
#: every status a verdict can have, in the order the summary counts them
STATUSES = ("supported", "qualified", "refuted", "inconclusive", "not testable", QUICK_UNDECIDED, NOT_RUN, "failed")
#: the statuses that say something about the claim
DECIDED = ("supported", "qualified", "refuted")
#: measured, but the numbers do not decide (or the test cannot)
UNDECIDED = ("inconclusive", "not testable")
#: nothing was measured that could decide: never evidence, never counted among the inconclusive
NOT_MEASURED = (QUICK_UNDECIDED, NOT_RUN)


@dataclass(frozen=True)
class Verdict:
    """``status`` (one of :data:`STATUSES`), ``reason`` (the numbers that decided it), ``condition`` (qualified
    only), ``command`` (not run and not decided in quick mode only: the command that runs or decides it)."""

    status: str
    reason: str
    condition: str | None = None
    command: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise PosencError(f"verdict status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "qualified" and not self.condition:
            raise PosencError("a qualified verdict must name its condition (condition='...')")
        if self.status in NOT_MEASURED and not self.command:
            raise PosencError(f"a {self.status!r} verdict must name the command that runs or decides it "
                              f"(command='posenc report ...')")

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


def not_run(reason: str, command: str) -> Verdict:
    return Verdict(NOT_RUN, reason, command=command)


def not_decided_in_quick(reason: str, command: str) -> Verdict:
    return Verdict(QUICK_UNDECIDED, reason, command=command)


def decide_command(claim_id: str) -> str:
    """The command that runs one claim's full experiment (into the default output folder's store)."""
    return f"posenc report --claim {claim_id}"


def failed(error: str) -> Verdict:
    return Verdict("failed", error)


# ---------------------------------------------------------------------------------------------------------------
# the rule
# ---------------------------------------------------------------------------------------------------------------
def outcome(test: Test, estimate: Estimate) -> bool | None:
    """``True`` when the whole interval passes the test, ``False`` when the whole interval fails it, ``None`` when
    it straddles the threshold, the value is NaN, or the number has no interval (too few units to decide)."""
    if math.isnan(estimate.value) or not estimate.has_interval:
        return None
    low, high = estimate.low, estimate.high
    if test.op == ">":
        return True if low > test.threshold else False if high <= test.threshold else None
    return True if high < test.threshold else False if low >= test.threshold else None


def _more_data(test: Test, estimate: Estimate) -> str:
    """How much larger the sample would have to be for the interval to clear the threshold (width ~ 1/sqrt(n))."""
    gap = abs(estimate.value - test.threshold)
    half = estimate.half_width
    if not estimate.has_interval:
        return (f"{test.statistic} rests on n={estimate.n}, too few for an interval: at least {MIN_UNITS} "
                f"independent units are needed")
    if gap == 0 or math.isnan(gap) or not math.isfinite(half):
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


def _describe(test: Test, estimate: Estimate, result: bool | None, null: Estimate | None = None) -> str:
    mark = {True: "holds", False: "does not hold", None: "undecided"}[result]
    if result is None and not estimate.has_interval:
        mark = f"undecided (n={estimate.n}: no interval)"
    beside = f"; null {null.text()}" if null is not None else ""
    return (f"{test.says}: {test.statistic} = {estimate.text()} (needs {test.op} {test.threshold:.7g}{beside})"
            f" — {mark}")


def _null_check(claim: Claim, estimates: Mapping[str, Estimate], quick: bool) -> Verdict | None:
    """The null's reading (module docstring): ``None`` when every null that a test names fails its bar, else the
    verdict it forces (not testable when a null passes, inconclusive or not decided in quick mode when one is
    undecided)."""
    passing, undecided, too_few = [], [], False
    against = claim.null or "the null"
    for t in (*claim.requires, *claim.tests):
        if not t.null:
            continue
        null, est = estimates[t.null], estimates[t.statistic]
        result = outcome(t, null)
        bar = f"{t.op} {t.threshold:.7g}"
        if result is True:
            passing.append(f"{t.says}: {against} already gives {t.null} = {null.text()}, past the bar {bar} "
                           f"(measured: {t.statistic} = {est.text()})")
        elif result is None:
            too_few = too_few or not null.has_interval
            undecided.append(f"{t.says}: {against} gives {t.null} = {null.text()}, across the bar {bar} "
                             f"(measured: {t.statistic} = {est.text()})")
    if passing:
        return not_testable("the null already passes the bar, so the test cannot tell the cases apart: "
                            + "; ".join(passing))
    if undecided:
        text = "the bar does not separate the null from the effect: " + "; ".join(undecided)
        return _too_few(claim, quick, text) if too_few else inconclusive(text)
    return None


def _powered(claim: Claim, estimates: Mapping[str, Estimate], results: list[tuple[Test, Estimate, bool | None]],
             reason: str, quick: bool) -> Verdict | None:
    """The power check of a verdict that would be refuted (module docstring): ``None`` when the refutation stands,
    else the undecided verdict that replaces it."""
    unmet = [(p, estimates[p.statistic], outcome(p, estimates[p.statistic])) for p in claim.power]
    unmet = [(p, e, r) for p, e, r in unmet if r is not True]
    if unmet:
        text = (f"{reason}. It would be refuted, but only a test with power to see the effect refutes it, and the "
                f"power requirement is not met: " + "; ".join(_describe(p, e, r) for p, e, r in unmet))
        if any(r is None and not e.has_interval for _, e, r in unmet):
            return _too_few(claim, quick, text)
        return inconclusive(text)
    exact = all(not e.sampled for t, e, _ in results if t.role == "core")
    if claim.hedged and not claim.power and not exact:
        from posenc.report.claim import hedge_words

        words = ", ".join(dict.fromkeys(hedge_words(claim.quote, claim.claim)))
        return inconclusive(f"{reason}. The claim is hedged ({words}): a 'may' is refuted only by showing it cannot "
                            f"happen in the setting tested, with power to see it if it did, and this claim shows no "
                            f"power (a power requirement: a positive control, or the null's separation from the "
                            f"stated effect); its sampled numbers alone leave it open")
    return None


def _too_few(claim: Claim, quick: bool, reason: str) -> Verdict:
    """Undecided because a number that could decide has no interval: in quick mode that is by construction (its 2
    seeds), so the claim is not decided in quick mode; otherwise inconclusive."""
    if quick:
        return not_decided_in_quick(f"{reason}. Quick mode cannot decide this: its numbers rest on too few units "
                                    f"for an interval (at least {MIN_UNITS}); the full report decides it",
                                    decide_command(claim.id))
    return inconclusive(reason)


def _unless(test: Test, estimate: Estimate) -> str:
    """A failing test's wording in a qualified verdict: its ``unless`` with ``{value}`` replaced by the measured value
    (3 significant digits), so the summary can say by how much ("grow 4-fold, not twofold")."""
    if not test.unless:
        return f"not: {test.says}"
    return test.unless.replace("{value}", f"{estimate.value:.3g}")


def judge(claim: Claim, estimates: Mapping[str, Estimate], missing: str | None = None, quick: bool = False,
          missing_status: str | None = None, command: str | None = None, option: str | None = None) -> Verdict:
    """The verdict of ``claim`` from ``estimates`` (statistic name -> :class:`Estimate`).

    ``missing``: the experiment did not run here (its reason), so nothing can be judged: ``missing_status``, by
    default "not decided in quick mode" in quick mode (the experiment does not run there) and "not run" otherwise,
    with ``command`` (default: the claim's own ``posenc report --claim ID``). ``quick``: the numbers come from quick
    mode, so an undecided test whose number has no interval makes the claim not decided in quick mode, not
    inconclusive. A claim marked :attr:`~posenc.report.claim.Claim.untestable` is not testable whatever was measured.
    A test's null (:attr:`~posenc.report.claim.Test.null`) is an estimate like its statistic: a missing one raises.
    ``option``: the option of the claim's choice the estimates measure (``None``: its headline); only the tests and
    requirements read under it count (:meth:`~posenc.report.claim.Claim.under`).
    """
    claim = claim.under(option)
    if claim.untestable:
        return not_testable(f"not testable as written: {claim.untestable}")
    if missing:
        missing_status = missing_status or (QUICK_UNDECIDED if quick else NOT_RUN)
        if missing_status not in NOT_MEASURED:
            raise PosencError(f"claim {claim.id}: a missing measurement's status must be one of {NOT_MEASURED}, got "
                              f"{missing_status!r}")
        return Verdict(missing_status, missing, command=command or decide_command(claim.id))
    absent = [t.statistic for t in (*claim.requires, *claim.tests) if t.statistic not in estimates]
    absent += [f"{t.null} (the null of {t.statistic})" for t in (*claim.requires, *claim.tests)
               if t.null and t.null not in estimates]
    if absent:
        raise PosencError(f"claim {claim.id}: the experiment {claim.experiment!r} gave no estimate for "
                          f"{', '.join(dict.fromkeys(absent))}; it gave {', '.join(sorted(estimates)) or 'none'}. The "
                          f"experiment and the claim disagree: bump the claim's revision after fixing either")
    for req in claim.requires:
        if req.role == "power":  # read only when the verdict would be refuted
            continue
        est = estimates[req.statistic]
        result = outcome(req, est)
        if result is not True:
            text = _describe(req, est, result, estimates[req.null] if req.null else None)
            if req.otherwise == "not testable" and result is False:
                return not_testable(f"requirement not met, so the test cannot tell the cases apart: {text}")
            if result is None and not est.has_interval:
                return _too_few(claim, quick, f"requirement undecided: {text}")
            return inconclusive(f"requirement not met: {text}")
    null_verdict = _null_check(claim, estimates, quick)
    if null_verdict is not None:
        return null_verdict
    results = [(t, estimates[t.statistic], outcome(t, estimates[t.statistic])) for t in claim.tests]
    reason = "; ".join(_describe(t, e, r, estimates[t.null] if t.null else None) for t, e, r in results)
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
        text = f"{reason}. Undecided: {settle}"
        if any(not e.has_interval for _, e, r in results if r is None):
            return _too_few(claim, quick, text)
        return inconclusive(text)
    status = statuses.pop()
    if status == "refuted":
        unpowered = _powered(claim, estimates, results, reason, quick)
        if unpowered is not None:
            return unpowered
    if status == "qualified":
        failing = [(t, e) for t, e, r in results if r is False]
        condition = "; ".join(_unless(t, e) for t, e in failing) or "some tests undecided"
        return qualified(condition, reason)
    return Verdict(status, reason)
