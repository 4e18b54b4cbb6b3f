"""A claim as data: where it is made, what it says, and the tests its numbers must pass.

The claims are data (:mod:`posenc.report.claims`: a TOML file per module of :mod:`posenc.report.experiments`, which
measure them); :mod:`posenc.report.ledger` lists them in the page's order; :func:`posenc.report.verdict.judge` is the
one rule that turns a claim's tests and an experiment's estimates into a verdict. Thresholds are fixed in the records,
before any run, each with where it comes from.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal

from posenc.errors import PosencError

__all__ = ["Test", "Choice", "Claim", "ROLES", "TEST_ROLES", "REQUIREMENT_ROLES", "HEDGES",
           "hedge_words", "UNTESTABLE_NULL"]

#: a test's roles: among a claim's tests, and among its requirements
TEST_ROLES = ("core", "condition")
REQUIREMENT_ROLES = ("core", "headroom", "power")
ROLES = ("core", "condition", "headroom", "power")

#: the words that make a sentence an existence claim ("may", "can"): in the document's Chinese quote, and in the
#: English claim (whole words); see :attr:`Claim.hedged`
HEDGES = {"zh": ("可能", "也许", "或许", "可以"), "en": ("may", "might")}
#: 可以 before a verb of seeing is the writer's "one can see" (an observation the document reports), not a hedge on
#: the claim
_SEEING = ("看到", "看出", "发现", "观察到")
#: the null of a claim that cannot be tested as written (:attr:`Claim.untestable`)
UNTESTABLE_NULL = "none: not testable as written"


def hedge_words(quote: str, claim: str = "") -> list[str]:
    """The hedges a claim's quote and English sentence hold, in order of appearance (quote first).

    >>> hedge_words("模型可能学到一种分工", "a model may learn it")
    ['可能', 'may']
    >>> hedge_words("我们也可以发现，维度越高，周期越长")
    []
    """
    found = []
    for word in HEDGES["zh"]:
        start = quote.find(word)
        while start >= 0:
            after = quote[start + len(word):]
            if not (word == "可以" and after.startswith(_SEEING)):
                found.append((start, word))
            start = quote.find(word, start + 1)
    words = [w for _, w in sorted(found)]
    words += re.findall(r"\b(?:" + "|".join(HEDGES["en"]) + r")\b", claim, flags=re.IGNORECASE)
    return [w.lower() for w in words]


@dataclass(frozen=True)
class Test:
    """One threshold a statistic must clear.

    Attributes:
        statistic: the name of an estimate the experiment returns.
        op: ``">"`` (the claim needs the statistic above ``threshold``) or ``"<"`` (below).
        threshold: the bar, fixed before the run.
        says: what passing means, in words ("values stay within [-1, 1]").
        basis: where the threshold comes from ("float32 round-off", "chance level", "Voita et al. 2019", ...).
        role: in :attr:`Claim.tests`, ``"core"``, the claim itself, or ``"condition"``, a condition under which it
            holds: a failing condition makes the verdict qualified, never refuted. In :attr:`Claim.requires`,
            ``"core"`` (a plain precondition, read before any test), ``"headroom"`` (the ceiling rule: the
            baseline of a comparison on a bounded metric lies far enough from the metric's ceiling or floor for the
            claimed margin to fit; unmet: not testable, so its ``otherwise`` must be ``"not testable"``) or
            ``"power"`` (the hedge rule: the test would have seen the effect had it been there, a positive control
            or the null's separation from the stated effect; read only when the verdict would be refuted, which it
            turns into inconclusive when not met).
        unless: for a condition (or a core test among several), the qualified verdict's wording when it fails;
            ``{value}`` in it stands for the measured value (3 significant digits).
        otherwise: for a requirement (:attr:`Claim.requires`), the verdict when it is not met: ``"inconclusive"``
            (the data cannot judge yet: more training, more samples) or ``"not testable"`` (the test cannot tell the
            cases apart at all).
        null: the name of the estimate that holds this statistic on the claim's null (:attr:`Claim.null`: random
            weights, a random table, shuffled positions, an untrained model), computed by the experiment with the
            same code path and sample as the statistic itself; ``""`` when :attr:`no_null` says why none applies.
        no_null: why this statistic has no null (an exact identity, a round-off bound, a count); ``""`` when
            :attr:`null` names one.
        options: the options of the claim's choice (:class:`Choice`) this test reads, where it speaks for some of
            them only (a power requirement on how far a trained model moved says nothing of a pretrained model's
            option); empty: every option. The options that do not list it neither read nor need its statistic.
    """

    __test__ = False  # not a pytest test class

    statistic: str
    op: Literal[">", "<"]
    threshold: float
    says: str
    basis: str
    role: Literal["core", "condition", "headroom", "power"] = "core"
    unless: str = ""
    otherwise: Literal["inconclusive", "not testable"] = "inconclusive"
    null: str = ""
    no_null: str = ""
    options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.op not in (">", "<"):
            raise PosencError(f"test {self.statistic}: op must be '>' or '<', got {self.op!r}")
        if self.role not in ROLES:
            raise PosencError(f"test {self.statistic}: role must be one of {ROLES}, got {self.role!r}")
        if self.role == "headroom" and self.otherwise != "not testable":
            raise PosencError(f"test {self.statistic}: a headroom requirement says the metric has no room for the "
                              f"comparison, so the test cannot tell the cases apart: its otherwise must be "
                              f"'not testable', got {self.otherwise!r}")
        if self.null and self.no_null:
            raise PosencError(f"test {self.statistic}: give its null's estimate (null={self.null!r}) or the reason "
                              f"it has none (no_null={self.no_null!r}), not both")

    @property
    def text(self) -> str:
        where = f"; under {', '.join(self.options)} only" if self.options else ""
        return f"{self.statistic} {self.op} {self.threshold:.7g} ({self.basis}{where})"

    def reads(self, option: str | None) -> bool:
        """Whether this test is read under ``option`` of the claim's choice (``None``: a claim without a choice)."""
        return not self.options or option in self.options


@dataclass(frozen=True)
class Choice:
    """A methodological choice that can move the verdict, shown rather than hidden.

    The experiment measures every option (``Measurement.variants[option]``); the page shows the verdict under each;
    the headline verdict rests on ``headline``, for the reason ``why``, fixed before any run.
    """

    name: str
    options: tuple[str, ...]
    headline: str
    why: str

    def __post_init__(self) -> None:
        if self.headline not in self.options:
            raise PosencError(f"choice {self.name}: the headline option {self.headline!r} is not among "
                              f"{self.options}")


@dataclass(frozen=True)
class Claim:
    """One claim and how it is judged.

    Attributes:
        id: short stable slug (the page's anchor, the store key ``report:<id>``).
        source: where the claim is made, e.g. ``"tutorial 001 §3.1"`` or ``"Press et al. 2022 (ALiBi)"``.
        origin: ``"tutorial"`` (the four tutorials) or ``"literature"`` (a paper's claim).
        title: a few words for the summary table.
        title_zh: the title in Chinese, shown when the page is switched to Chinese (in the tutorial's own words where
            the claim quotes one); every claim of the ledger has one (``""``: the page shows ``title``).
        claim: the claim in one sentence (English).
        experiment: the name of the experiment that measures it.
        tests: the thresholds (see :class:`Test`); all pass: supported.
        requires: preconditions (the model learned the task; the baseline can fail); unmet: inconclusive or not
            testable, before any test is read.
        choice: a methodological choice whose options the page shows side by side (``None``: none).
        quote: the document's sentence in the original language, where the claim comes from a tutorial.
        revision: bump when the experiment or its sizes change, so stored results are recomputed.
        untestable: why the claim cannot be tested as written (too vague, hedged, a counterfactual with no measure),
            or ``""``. A claim with a reason has no tests: its verdict is ``not testable`` with this reason, and its
            experiment shows what can be measured nearby, if anything. Register a vague claim this way rather than
            testing a stronger one in its place.
        null: what the claim's statistics are compared with, in words, computed the same way (``"all-MiniLM-L6-v2
            with re-initialised weights of matched norms"``, ``"a random table of the same shape"``, ``"exact: no
            null"``); each test names its null's estimate in :attr:`Test.null` or says why none applies in
            :attr:`Test.no_null`.
        not_hedged: why the hedge word in the quote or the sentence (:func:`hedge_words`) does not hedge what is
            tested (a 可能 that names a possibility the claim does not rest on, say), or ``""``; see :attr:`hedged`.
    """

    id: str
    source: str
    origin: Literal["tutorial", "literature"]
    title: str
    claim: str
    experiment: str
    tests: tuple[Test, ...]
    requires: tuple[Test, ...] = ()
    choice: Choice | None = None
    quote: str = ""
    revision: int = 1
    untestable: str = ""
    title_zh: str = ""
    null: str = ""
    not_hedged: str = ""

    def __post_init__(self) -> None:
        if self.untestable:
            if self.tests or self.requires or self.choice is not None:
                raise PosencError(f"claim {self.id} is marked not testable ({self.untestable}) but has tests, "
                                  f"requirements or a choice, which would never be read; drop them or the reason")
        elif not self.tests:
            raise PosencError(f"claim {self.id} has no tests: a claim needs at least one threshold, or "
                              f"untestable='why it cannot be tested as written'")
        if self.origin not in ("tutorial", "literature"):
            raise PosencError(f"claim {self.id}: origin must be 'tutorial' or 'literature', got {self.origin!r}")
        if self.tests and not any(t.role == "core" for t in self.tests):
            raise PosencError(f"claim {self.id} has only conditions; at least one test must be 'core'")
        for kind, tests, roles in (("test", self.tests, TEST_ROLES), ("requirement", self.requires,
                                                                       REQUIREMENT_ROLES)):
            for t in tests:
                if t.role not in roles:
                    raise PosencError(f"claim {self.id}: the {kind} on {t.statistic} has role {t.role!r}; a {kind}'s "
                                      f"role is one of {roles} (headroom and power are requirements, in requires)")
        for t in (*self.requires, *self.tests):
            unknown = [o for o in t.options if self.choice is None or o not in self.choice.options]
            if unknown:
                raise PosencError(f"claim {self.id}: the test on {t.statistic} is read under {unknown}, which are not "
                                  f"options of its choice ({self.choice.options if self.choice else 'it has none'}); "
                                  f"name options of the choice, or leave options empty for every option")
        named = [t.statistic for t in (*self.requires, *self.tests) if t.null]
        if named and not self.null:
            raise PosencError(f"claim {self.id}: {', '.join(named)} name a null estimate but the claim does not say "
                              f"what its null is; set null='...' (e.g. 'the same model with random weights')")
        if self.not_hedged and not hedge_words(self.quote, self.claim):
            raise PosencError(f"claim {self.id} says why its hedge does not hedge it (not_hedged={self.not_hedged!r}), "
                              f"but neither its quote nor its sentence holds a hedge ({', '.join(sum(HEDGES.values(), ()))}"
                              f"); drop not_hedged")

    @property
    def hedged(self) -> bool:
        """Whether the claim is an existence claim ("may", 可能): its quote or sentence holds a hedge
        (:func:`hedge_words`) and :attr:`not_hedged` gives no reason why that hedge does not bear on what is tested.
        A hedged claim is supported by showing the effect happens in the setting tested, and refuted only with power
        to see it (:func:`~posenc.report.verdict.judge`)."""
        return bool(hedge_words(self.quote, self.claim)) and not self.not_hedged

    @property
    def power(self) -> tuple[Test, ...]:
        """The requirements that show the test would have seen the effect (``role="power"``)."""
        return tuple(t for t in self.requires if t.role == "power")

    def under(self, option: str | None) -> Claim:
        """The claim as it is judged under ``option`` of its choice: the tests and requirements that option reads
        (:attr:`Test.options`). ``None``: the choice's headline option (the claim itself when it has no choice)."""
        if self.choice is None:
            return self
        option = self.choice.headline if option is None else option
        if option not in self.choice.options:
            raise PosencError(f"claim {self.id}: {option!r} is not an option of its choice {self.choice.name!r} "
                              f"({', '.join(self.choice.options)})")
        if not any(t.options for t in (*self.requires, *self.tests)):
            return self
        return dataclasses.replace(self, tests=tuple(t for t in self.tests if t.reads(option)),
                                   requires=tuple(t for t in self.requires if t.reads(option)))

    @property
    def criterion_text(self) -> str:
        """The pass criterion in words, from the tests (shown on the page)."""
        if self.untestable:
            return f"Not testable as written: {self.untestable}"
        core = [t for t in self.tests if t.role == "core"]
        cond = [t for t in self.tests if t.role == "condition"]
        text = "Supported if every 95% interval clears its bar: " + "; ".join(
            f"{t.says} ({t.text})" for t in core + cond) + "."
        if cond:
            text += " A failing condition makes it qualified, not refuted."
        if self.requires:
            text += " Judged only if: " + "; ".join(f"{t.says} ({t.text})" for t in self.requires) + "."
        return text + " An interval across a bar that could change the verdict: inconclusive."
