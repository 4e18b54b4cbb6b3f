"""The verdict read against each test's null, the ceiling's headroom requirement and the hedge's power rule, on
hand-made intervals (posenc.report.verdict.judge; docs/report.md, "Nulls, hedges, ceilings and scope")."""

from __future__ import annotations

import pytest

from posenc.errors import PosencError
from posenc.report.claim import Choice, Claim, Test, hedge_words
from posenc.report.measurement import Measurement
from posenc.report.run import judge_claim
from posenc.report.verdict import QUICK_UNDECIDED, judge
from posenc.stats import Estimate, exact, over_seeds


def est(value: float, low: float, high: float, n: int = 10) -> Estimate:
    return Estimate(value, low, high, n, "bootstrap")


SHARE = Test("share", ">", 0.5, "word heads exist", "halfway between the null (0.3) and the effect (0.7)",
             null="share_null")
NULLED = Claim("nulled", "by hand", "tutorial", "n", "some heads are word experts", "none", (SHARE,),
               null="the same model with random weights of matched norms")
EFFECT = est(0.8, 0.7, 0.9)


# ---- the null -------------------------------------------------------------------------------------------------------
def test_a_null_below_the_bar_lets_the_measurement_decide():
    assert judge(NULLED, {"share": EFFECT, "share_null": est(0.3, 0.2, 0.4)}).status == "supported"
    assert judge(NULLED, {"share": est(0.35, 0.3, 0.4), "share_null": est(0.3, 0.2, 0.4)}).status == "refuted"


def test_a_null_past_the_bar_makes_the_test_not_testable_naming_both_numbers():
    v = judge(NULLED, {"share": EFFECT, "share_null": est(0.6, 0.55, 0.65)})
    assert v.status == "not testable"
    # the null's words, its number and the bar, and the measured number beside them
    assert "the same model with random weights of matched norms already gives share_null = 0.6 [0.55, 0.65]" \
        in v.reason
    assert "past the bar > 0.5" in v.reason and "share = 0.8 [0.7, 0.9]" in v.reason
    # whatever the measurement says: a refuting one is not testable either
    assert judge(NULLED, {"share": est(0.2, 0.1, 0.3), "share_null": est(0.6, 0.55, 0.65)}).status == "not testable"


def test_a_null_straddling_the_bar_leaves_it_inconclusive():
    v = judge(NULLED, {"share": EFFECT, "share_null": est(0.5, 0.45, 0.55)})
    assert v.status == "inconclusive"
    assert v.reason.startswith("the bar does not separate the null from the effect: ")
    assert "share_null = 0.5 [0.45, 0.55], across the bar > 0.5" in v.reason
    # touching the bar from below is not wholly short of it: still undecided
    assert judge(NULLED, {"share": EFFECT, "share_null": est(0.45, 0.4, 0.5)}).status == "supported"
    assert judge(NULLED, {"share": EFFECT, "share_null": est(0.46, 0.41, 0.51)}).status == "inconclusive"


def test_a_null_on_too_few_units_decides_nothing_in_quick_mode():
    thin = over_seeds([0.3, 0.35])  # two seeds: no interval
    assert judge(NULLED, {"share": EFFECT, "share_null": thin}, quick=True).status == QUICK_UNDECIDED
    assert judge(NULLED, {"share": EFFECT, "share_null": thin}).status == "inconclusive"


def test_a_below_bar_reads_its_null_from_the_other_side():
    small = Test("gap", "<", 0.1, "the gap is small", "between the null (0.3) and the effect (0)", null="gap_null")
    claim = Claim("below", "by hand", "tutorial", "b", "...", "none", (small,), null="a shuffled table")
    assert judge(claim, {"gap": exact(0.01), "gap_null": est(0.3, 0.25, 0.35)}).status == "supported"
    assert judge(claim, {"gap": exact(0.01), "gap_null": est(0.05, 0.02, 0.08)}).status == "not testable"


def test_the_reason_shows_each_measurement_beside_its_null():
    v = judge(NULLED, {"share": EFFECT, "share_null": est(0.3, 0.2, 0.4)})
    assert v.reason == ("word heads exist: share = 0.8 [0.7, 0.9] (needs > 0.5; null 0.3 [0.2, 0.4]) — holds")


def test_a_missing_null_raises_like_a_missing_statistic():
    with pytest.raises(PosencError, match=r"gave no estimate for share_null \(the null of share\); it gave share"):
        judge(NULLED, {"share": EFFECT})


def test_a_condition_whose_null_passes_cannot_tell_either():
    cond = Test("other", "<", 0.2, "the other is small", "by hand", role="condition", null="other_null")
    claim = Claim("c", "by hand", "tutorial", "c", "...", "none", (SHARE, cond), null="random weights")
    good = {"share": EFFECT, "share_null": est(0.3, 0.2, 0.4), "other": exact(0.1)}
    assert judge(claim, {**good, "other_null": est(0.5, 0.4, 0.6)}).status == "supported"
    assert judge(claim, {**good, "other_null": est(0.1, 0.05, 0.15)}).status == "not testable"


def test_a_requirement_is_read_before_the_null():
    learned = Test("learned", ">", 0.9, "the model learned", "by hand")
    claim = Claim("r", "by hand", "tutorial", "r", "...", "none", (SHARE,), requires=(learned,), null="random")
    nulls_pass = {"share": EFFECT, "share_null": est(0.6, 0.55, 0.65)}
    assert judge(claim, {**nulls_pass, "learned": exact(0.5)}).status == "inconclusive"
    assert judge(claim, {**nulls_pass, "learned": exact(0.95)}).status == "not testable"


def test_each_option_of_a_choice_reads_its_own_null():
    choice = Choice("window", ("128", "512"), "128", "the length the claim names")
    claim = Claim("w", "by hand", "tutorial", "w", "...", "none", (SHARE,), choice=choice, null="random weights")
    m = Measurement({}, variants={"128": {"share": EFFECT, "share_null": est(0.3, 0.2, 0.4)},
                                  "512": {"share": EFFECT, "share_null": est(0.6, 0.55, 0.65)}},
                    estimates={"share": EFFECT, "share_null": est(0.3, 0.2, 0.4)})
    head, variants = judge_claim(claim, m)
    assert (head.status, variants["128"].status, variants["512"].status) == ("supported", "supported",
                                                                             "not testable")
    assert "512: not testable" in head.reason
    m.variants["512"].pop("share_null")
    with pytest.raises(PosencError, match="share_null"):
        judge_claim(claim, m)


def test_a_test_names_its_null_or_why_it_has_none_not_both():
    with pytest.raises(PosencError, match="not both"):
        Test("x", ">", 1, "x", "by hand", null="x_null", no_null="exact")


def test_a_claim_whose_tests_name_a_null_says_what_that_null_is():
    with pytest.raises(PosencError, match="share name a null estimate but the claim does not say what its null is"):
        Claim("n", "by hand", "tutorial", "n", "...", "none", (SHARE,))


# ---- the ceiling ----------------------------------------------------------------------------------------------------
ROOM = Test("baseline_room", ">", 0.02, "the baseline leaves room for the margin", "the tie margin, 0.02",
            role="headroom", otherwise="not testable")
MARGIN = Test("margin", ">", 0.02, "learned wins by more than the tie margin", "the tie margin")
CEILING = Claim("ceiling", "by hand", "tutorial", "c", "learned beats fixed", "none", (MARGIN,), requires=(ROOM,))


def test_a_baseline_at_the_ceiling_is_not_testable_on_that_metric():
    at_ceiling = {"baseline_room": est(0.0003, 0.0001, 0.0005), "margin": est(-0.001, -0.002, 0.0)}
    v = judge(CEILING, at_ceiling)
    assert v.status == "not testable" and "the baseline leaves room for the margin" in v.reason
    assert judge(CEILING, {**at_ceiling, "baseline_room": est(0.3, 0.2, 0.4)}).status == "refuted"
    assert judge(CEILING, {**at_ceiling, "baseline_room": est(0.02, 0.01, 0.03)}).status == "inconclusive"


def test_a_headroom_requirement_must_be_not_testable_and_sit_among_the_requirements():
    with pytest.raises(PosencError, match="otherwise must be 'not testable'"):
        Test("room", ">", 0.02, "room", "tie margin", role="headroom")
    with pytest.raises(PosencError, match="headroom and power are requirements"):
        Claim("x", "by hand", "tutorial", "x", "...", "none", (MARGIN, ROOM))
    with pytest.raises(PosencError, match="a requirement's role is one of"):
        Claim("x", "by hand", "tutorial", "x", "...", "none", (MARGIN,),
              requires=(Test("c", ">", 0, "c", "c", role="condition"),))


# ---- the hedge ------------------------------------------------------------------------------------------------------
DIVISION = Test("division", ">", 0.1, "low dimensions carry more position", "by hand")
HEDGED = Claim("hedged", "by hand", "tutorial", "h", "a model may learn a division", "none", (DIVISION,),
               quote="模型可能学到一种分工")
POWER = Test("control_division", ">", 0.1, "a model built with the division shows it", "the same bar",
             role="power")
POWERED = Claim("powered", "by hand", "tutorial", "p", "a model may learn a division", "none", (DIVISION,),
                requires=(POWER,), quote="模型可能学到一种分工")
NO_DIVISION = est(0.01, -0.01, 0.03)


def test_hedge_words_come_from_the_quote_and_the_english_sentence():
    assert hedge_words("模型可能学到一种分工", "a model may learn it") == ["可能", "may"]
    assert hedge_words("也许会，或许不会", "It might.") == ["也许", "或许", "might"]
    assert hedge_words("可以外推到更长的序列") == ["可以"]
    # 可以 before a verb of seeing reports what the writer observed; "mayor" is no "may"
    assert hedge_words("我们也可以发现，也可以看到", "the mayor") == []
    assert HEDGED.hedged and not DIVISION_CLAIM.hedged


DIVISION_CLAIM = Claim("plain", "by hand", "tutorial", "d", "a model learns a division", "none", (DIVISION,),
                       quote="模型学到一种分工")


def test_a_hedged_claim_is_supported_by_showing_it_happens():
    assert judge(HEDGED, {"division": est(0.3, 0.2, 0.4)}).status == "supported"


def test_a_hedged_claim_without_power_is_not_refuted_by_sampled_numbers():
    v = judge(HEDGED, {"division": NO_DIVISION})
    assert v.status == "inconclusive"
    assert "The claim is hedged (可能, may): a 'may' is refuted only by showing it cannot happen" in v.reason
    # the same numbers refute the unhedged sentence
    assert judge(DIVISION_CLAIM, {"division": NO_DIVISION}).status == "refuted"


def test_an_exact_computation_refutes_a_hedged_claim():
    # exact arithmetic over the whole setting sees the effect wherever it is: it cannot happen there
    assert judge(HEDGED, {"division": exact(0.0)}).status == "refuted"


def test_a_met_power_requirement_lets_a_hedged_claim_be_refuted():
    assert judge(POWERED, {"division": NO_DIVISION, "control_division": est(0.4, 0.3, 0.5)}).status == "refuted"
    v = judge(POWERED, {"division": NO_DIVISION, "control_division": est(0.05, 0.0, 0.1)})
    assert v.status == "inconclusive" and "the power requirement is not met" in v.reason
    thin = over_seeds([0.4, 0.5])
    assert judge(POWERED, {"division": NO_DIVISION, "control_division": thin}, quick=True).status == QUICK_UNDECIDED


def test_power_is_read_only_to_refute():
    # a power requirement that fails does not stop a claim from being supported: the effect was seen
    assert judge(POWERED, {"division": est(0.3, 0.2, 0.4), "control_division": exact(0.0)}).status == "supported"


def test_a_power_requirement_guards_an_unhedged_refutation_too():
    claim = Claim("p2", "by hand", "tutorial", "p", "a model learns a division", "none", (DIVISION,),
                  requires=(POWER,))
    assert judge(claim, {"division": NO_DIVISION, "control_division": exact(0.0)}).status == "inconclusive"


def test_not_hedged_gives_a_reason_and_needs_a_hedge_to_override():
    over = Claim("o", "by hand", "tutorial", "o", "...", "none", (DIVISION,), quote="模型可能认为语义变了",
                 not_hedged="the 可能 is the model's reading, not what is tested")
    assert not over.hedged and judge(over, {"division": NO_DIVISION}).status == "refuted"
    with pytest.raises(PosencError, match="neither its quote nor its sentence holds a hedge"):
        Claim("o", "by hand", "tutorial", "o", "...", "none", (DIVISION,), quote="模型学到", not_hedged="why")
