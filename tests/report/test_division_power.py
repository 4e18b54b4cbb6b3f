"""low-dims-position (tutorial 002's division of labour) judged with power and a null under each option: the power
bar derived by hand, and a requirement read under one option of a choice only (Test.options). The lab's null (the
same rows moved as far in a random direction) is checked in tests/lab/test_traced.py, MiniLM's permutation null in
tests/lab/test_embeddings.py."""

from __future__ import annotations

import pytest
import torch
from scipy.linalg import hadamard

from posenc.errors import PosencError
from posenc.lab.embeddings import division_change, quarter_shares
from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims import claims_of
from posenc.report.experiments import tutorial_training as sr
from posenc.report.measurement import Measurement
from posenc.report.run import judge_claim
from posenc.report.verdict import judge
from posenc.stats import Estimate

LAB, SMOL, MINILM = sr.DIVISION_OPTIONS
CLAIM = next(c for c in claims_of("tutorial_training") if c.id == "low-dims-position")


def est(value: float, low: float, high: float, n: int = 6) -> Estimate:
    return Estimate(value, low, high, n, "t")


# ---- the power bar --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("r", [1 / 3, 0.2, 0.5])
def test_a_move_into_the_highest_quarter_alone_raises_the_division_by_r2_over_1_plus_r2(r):
    """64 word rows over 32 dimensions with zero-mean orthogonal columns of equal variance (a Hadamard matrix's),
    moved by ``r`` of their norm along 8 more orthogonal columns in the highest quarter: each high dimension's variance
    grows from 1 to 1 + a^2 (a = 2r), so the high quarter's share minus the low's goes from 0 to r^2 / (1 + r^2);
    at r = 1/3 that is the bar, 0.1."""
    h = torch.tensor(hadamard(64), dtype=torch.float64)
    start = h[:, 1:33]
    delta = torch.zeros_like(start)
    delta[:, 24:] = 2 * r * h[:, 33:41]
    assert float(delta.norm() / start.norm()) == pytest.approx(r)
    change = division_change(list(quarter_shares(start)), list(quarter_shares(start + delta)))
    assert change == pytest.approx(r * r / (1 + r * r))
    if r == 1 / 3:
        assert change == pytest.approx(sr.DIVISION) and sr.MOVE_POWER == pytest.approx(r)


def test_the_power_requirement_reads_how_far_the_lab_rows_moved():
    power = CLAIM.power
    assert [(p.statistic, p.op, p.threshold, p.options) for p in power] == [("word_moved", ">", sr.MOVE_POWER, (LAB,))]
    assert CLAIM.hedged and CLAIM.tests[0].null == "division_null"


# ---- one requirement, some options (Test.options) ----------------------------------------------------------------------
def test_the_verdict_under_each_option_reads_only_its_tests():
    lab = {"division": est(0.01, 0.0, 0.02), "division_null": est(0.005, -0.01, 0.02)}
    # power not met (rows moved a tenth of their norm): would be refuted, so inconclusive and says why
    v = judge(CLAIM, {**lab, "word_moved": est(0.11, 0.08, 0.14)}, option=LAB)
    assert v.status == "inconclusive" and "power requirement is not met" in v.reason and "word_moved" in v.reason
    # power met: the division is refuted in the setting tested
    assert judge(CLAIM, {**lab, "word_moved": est(0.6, 0.5, 0.7)}, option=LAB).status == "refuted"
    # SmolLM2 reads no word_moved; its null past the bar makes it not testable, naming both numbers
    v = judge(CLAIM, {"division": est(0.3, 0.27, 0.32), "division_null": est(0.2, 0.15, 0.25)}, option=SMOL)
    assert v.status == "not testable" and "division_null = 0.2 [0.15, 0.25]" in v.reason
    assert judge(CLAIM, {"division": est(0.3, 0.27, 0.32), "division_null": est(0.0, -0.01, 0.01)},
                 option=SMOL).status == "supported"
    # the lab's option without its power estimate is an experiment that disagrees with its claim
    with pytest.raises(PosencError, match="word_moved"):
        judge(CLAIM, {**lab, "division": est(0.01, 0.0, 0.02)}, option=LAB)


def test_judge_claim_passes_each_option():
    lab = {"division": est(0.01, 0.0, 0.02), "division_null": est(0.005, -0.01, 0.02), "word_moved": est(0.6, 0.5, 0.7)}
    other = {"division": est(0.3, 0.27, 0.32), "division_null": est(0.0, -0.01, 0.01)}
    m = Measurement({}, estimates=lab, variants={LAB: lab, SMOL: other, MINILM: other})
    head, verdicts = judge_claim(CLAIM, m)
    assert head.status == "refuted" and verdicts[SMOL].status == "supported"


def test_options_must_be_options_of_the_choice():
    choice = Choice("where", ("a", "b"), "a", "by hand")
    core = Test("x", ">", 0.1, "x", "by hand", no_null="by hand")
    with pytest.raises(PosencError, match="not options of its choice"):
        Claim("c", "by hand", "tutorial", "c", "c", "none", (core,), choice=choice,
              requires=(Test("p", ">", 0.1, "p", "by hand", role="power", options=("z",), no_null="by hand"),))
    with pytest.raises(PosencError, match="not options of its choice"):
        Claim("c", "by hand", "tutorial", "c", "c", "none", (core,),
              requires=(Test("p", ">", 0.1, "p", "by hand", role="power", options=("a",), no_null="by hand"),))
    claim = Claim("c", "by hand", "tutorial", "c", "c", "none", (core,), choice=choice,
                  requires=(Test("p", ">", 0.1, "p", "by hand", role="power", options=("a",), no_null="by hand"),))
    assert [t.statistic for t in claim.under("b").requires] == [] and claim.under(None).requires == claim.requires
    assert "under a only" in claim.requires[0].text


