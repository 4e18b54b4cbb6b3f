"""The one verdict rule on hand-made intervals, the claim records, and the ledger's bookkeeping."""

from __future__ import annotations

import json
import math

import pytest

from posenc.errors import PosencError
from posenc.report.claim import Choice, Claim, Test
from posenc.report.experiments import EXPERIMENTS
from posenc.report.ledger import LEDGER, claim_ids, claims_by_origin, get_claim
from posenc.report.measurement import Measurement
from posenc.report.run import apply_thresholds, judge_claim, load_thresholds
from posenc.report.verdict import (
    NOT_MEASURED,
    NOT_RUN,
    QUICK_UNDECIDED,
    STATUSES,
    Verdict,
    judge,
    outcome,
    qualified,
)
from posenc.stats import SHARE, Estimate, exact, observed, over_seeds


def est(value: float, low: float, high: float, n: int = 10) -> Estimate:
    return Estimate(value, low, high, n, "bootstrap")


ABOVE = Test("x", ">", 0.5, "x is above one half", "by hand")
BELOW = Test("y", "<", 0.1, "y is small", "by hand", role="condition", unless="only when y is large")
CLAIM = Claim("toy", "by hand", "tutorial", "toy", "x is large and y small", "none", (ABOVE, BELOW))


def test_outcome_reads_the_whole_interval():
    assert outcome(ABOVE, est(0.7, 0.6, 0.8)) is True
    assert outcome(ABOVE, est(0.3, 0.2, 0.4)) is False
    assert outcome(ABOVE, est(0.55, 0.45, 0.65)) is None  # straddles
    assert outcome(ABOVE, est(0.4, 0.3, 0.5)) is False  # high == threshold: not above
    assert outcome(BELOW, est(0.05, 0.0, 0.09)) is True
    assert outcome(ABOVE, exact(float("nan"))) is None


def test_five_statuses_from_intervals():
    assert judge(CLAIM, {"x": est(0.7, 0.6, 0.8), "y": est(0.0, 0.0, 0.05)}).status == "supported"
    assert judge(CLAIM, {"x": est(0.3, 0.2, 0.4), "y": est(0.0, 0.0, 0.05)}).status == "refuted"
    v = judge(CLAIM, {"x": est(0.7, 0.6, 0.8), "y": est(0.5, 0.4, 0.6)})
    assert v.status == "qualified" and v.condition == "only when y is large"
    v = judge(CLAIM, {"x": est(0.55, 0.45, 0.65), "y": est(0.0, 0.0, 0.05)})
    assert v.status == "inconclusive" and "samples instead of 10" in v.reason


def test_an_undecided_test_that_cannot_change_the_verdict_does_not_make_it_inconclusive():
    # x fails outright: refuted whatever y turns out to be
    v = judge(CLAIM, {"x": est(0.3, 0.2, 0.4), "y": est(0.1, 0.05, 0.15)})
    assert v.status == "refuted"


def test_inconclusive_says_how_much_more_data_settles_it():
    # half-width 0.1, gap 0.05: (0.1 / 0.05)^2 = 4x the sample
    v = judge(CLAIM, {"x": est(0.55, 0.45, 0.65, n=10), "y": est(0.0, 0.0, 0.05)})
    assert "about 40 samples instead of 10" in v.reason
    one_seed = judge(CLAIM, {"x": over_seeds([0.9]), "y": exact(0.0)})
    assert one_seed.status == "inconclusive" and "at least 3 independent units" in one_seed.reason


def test_the_sample_needed_grows_with_the_square_of_half_width_over_gap():
    # half-width 0.25, gap 0.0625 (exact in binary): (0.25 / 0.0625)^2 = 16x the sample of 10
    v = judge(CLAIM, {"x": est(0.5625, 0.3125, 0.8125, n=10), "y": est(0.0, 0.0, 0.05)})
    assert v.status == "inconclusive"
    assert "x = " in v.reason and "straddles 0.5; about 160 samples instead of 10 would settle it" in v.reason

def test_requirements_decide_before_the_tests():
    need = Test("learned", ">", 0.95, "the model learned the task", "bar")
    guard = Test("baseline", ">", 0.1, "the baseline can fail", "sanity", otherwise="not testable")
    claim = Claim("req", "by hand", "tutorial", "req", "...", "none", (ABOVE,), requires=(need, guard))
    good = {"x": est(0.7, 0.6, 0.8), "learned": est(0.99, 0.98, 1.0), "baseline": exact(0.5)}
    assert judge(claim, good).status == "supported"
    v = judge(claim, {**good, "learned": est(0.6, 0.5, 0.7)})
    assert v.status == "inconclusive" and "requirement not met" in v.reason and "0.6" in v.reason
    assert v.reason.endswith("(needs > 0.95) — does not hold")  # decided against, not undecided
    v = judge(claim, {**good, "learned": est(0.95, 0.9, 0.99)})  # straddles the bar
    assert v.status == "inconclusive" and v.reason.endswith("(needs > 0.95) — undecided")
    assert judge(claim, {**good, "baseline": exact(0.01)}).status == "not testable"


def test_missing_experiment_is_not_measured_never_inconclusive_and_absent_statistics_raise():
    quick = judge(CLAIM, {}, missing="not run in quick mode", quick=True)
    assert quick.status == QUICK_UNDECIDED and quick.command == "posenc report --claim toy"
    full = judge(CLAIM, {}, missing="trains for an hour", missing_status=NOT_RUN, command="posenc report --extended")
    assert (full.status, full.reason, full.command) == (NOT_RUN, "trains for an hour", "posenc report --extended")
    assert judge(CLAIM, {}, missing="skipped").status == NOT_RUN  # outside quick mode a skip is "not run"
    with pytest.raises(PosencError, match="must be one of"):
        judge(CLAIM, {}, missing="x", missing_status="inconclusive")
    with pytest.raises(PosencError, match="gave no estimate for y"):
        judge(CLAIM, {"x": exact(1.0)})


def test_a_number_from_fewer_than_three_units_decides_nothing():
    """Two seeds give no t-interval: the test is undecided even where the value is far from its bar; quick mode
    (whose 2 seeds make it so by construction) says 'not decided in quick mode' with the command that decides it,
    full mode 'inconclusive', each saying why."""
    two = over_seeds([0.99, 0.98], bounds=SHARE)  # far above 0.5
    assert not two.has_interval and outcome(ABOVE, two) is None
    y = est(0.0, 0.0, 0.05)
    quick = judge(CLAIM, {"x": two, "y": y}, quick=True)
    assert quick.status == QUICK_UNDECIDED and quick.command == "posenc report --claim toy"
    assert "n=2" in quick.reason and "at least 3" in quick.reason
    full = judge(CLAIM, {"x": two, "y": y})
    assert full.status == "inconclusive" and "rests on n=2, too few for an interval" in full.reason
    three = over_seeds([0.99, 0.98, 0.97], bounds=SHARE)
    assert judge(CLAIM, {"x": three, "y": y}, quick=True).status == "supported"
    # a thin number that cannot change the verdict leaves it decided (x fails outright: refuted whatever y is)
    assert judge(CLAIM, {"x": est(0.3, 0.2, 0.4), "y": over_seeds([0.0, 0.3])}, quick=True).status == "refuted"
    # a requirement resting on two seeds: not decided in quick mode, inconclusive in full mode
    need = Test("learned", ">", 0.95, "the model learned the task", "bar")
    claim = Claim("req2", "by hand", "tutorial", "req", "...", "none", (ABOVE,), requires=(need,))
    thin = {"x": est(0.7, 0.6, 0.8), "learned": over_seeds([1.0, 1.0], bounds=SHARE)}
    assert judge(claim, thin, quick=True).status == QUICK_UNDECIDED
    assert judge(claim, thin).status == "inconclusive" and "requirement undecided" in judge(claim, thin).reason


def test_an_observed_number_is_judged_as_it_is():
    # how many runs reached a bar: no interval of its own, read like an exact number
    assert outcome(Test("reached", ">", 0.5, "most runs reach", "bar"), observed(0.75, 4, SHARE)) is True
    assert observed(0.75, 4, SHARE).text() == "0.75"


def test_choice_gives_a_verdict_per_option_and_the_headline_says_what_it_rests_on():
    claim = Claim("ch", "by hand", "literature", "ch", "...", "none", (ABOVE,),
                  choice=Choice("window", ("128", "256"), "128", "the length the model was trained at"))
    m = Measurement({}, estimates={"x": exact(0.9)},
                    variants={"128": {"x": est(0.9, 0.8, 0.95)}, "256": {"x": est(0.3, 0.2, 0.4)}})
    head, variants = judge_claim(claim, m)
    assert head.status == "supported" and variants["256"].status == "refuted"
    assert "window = 128" in head.reason and "256: refuted" in head.reason
    with pytest.raises(PosencError, match="no estimates for window 256"):
        judge_claim(claim, Measurement({}, variants={"128": {"x": exact(0.9)}}))
    with pytest.raises(PosencError, match="headline option"):
        Choice("window", ("128",), "512", "x")


def test_claim_records_validate():
    with pytest.raises(PosencError, match="no tests"):
        Claim("c", "s", "tutorial", "t", "c", "e", ())
    with pytest.raises(PosencError, match="origin"):
        Claim("c", "s", "blog", "t", "c", "e", (ABOVE,))
    with pytest.raises(PosencError, match="only conditions"):
        Claim("c", "s", "tutorial", "t", "c", "e", (BELOW,))
    with pytest.raises(PosencError, match="op must be"):
        Test("x", ">=", 1, "s", "b")
    assert "0.5" in CLAIM.criterion_text and "qualified" in CLAIM.criterion_text


def test_a_claim_marked_untestable_is_not_testable_whatever_was_measured():
    vague = Claim("vague", "by hand", "tutorial", "vague", "x may not complement y well", "none", (),
                  untestable="'may not complement well' names no measure")
    for estimates, missing in (({}, None), ({"x": exact(1.0)}, None), ({}, "not run in quick mode")):
        v = judge(vague, estimates, missing)
        assert v.status == "not testable" and "names no measure" in v.reason
    assert vague.criterion_text == "Not testable as written: 'may not complement well' names no measure"
    with pytest.raises(PosencError, match="marked not testable"):
        Claim("c", "s", "tutorial", "t", "c", "e", (ABOVE,), untestable="vague")
    with pytest.raises(PosencError, match="untestable="):
        Claim("c", "s", "tutorial", "t", "c", "e", ())


def test_verdict_validates_status_and_condition():
    with pytest.raises(PosencError, match="must be one of"):
        Verdict("true", "x")
    with pytest.raises(PosencError, match="condition"):
        Verdict("qualified", "x")
    assert qualified("only at d >= 128", "numbers").label == "qualified: only at d >= 128"
    assert set(STATUSES) == {"supported", "qualified", "refuted", "inconclusive", "not testable",
                             "not decided in quick mode", "not run", "failed"}
    assert set(NOT_MEASURED) == {"not decided in quick mode", "not run"} and "inconclusive" not in NOT_MEASURED
    for status in NOT_MEASURED:  # never without the command that runs it
        with pytest.raises(PosencError, match="must name the command"):
            Verdict(status, "x")
        assert Verdict(status, "x", command="posenc report --claim c").as_dict()["command"] == "posenc report --claim c"


def test_ledger_ids_are_unique_and_name_registered_experiments():
    ids = claim_ids()
    assert len(ids) == len(set(ids)) and len(ids) >= 16
    assert all(c.experiment in EXPERIMENTS for c in LEDGER)
    groups = claims_by_origin()
    assert {c.id for c in groups["literature"]} >= {"alibi-table", "nope-ranking"}
    assert ids.index("word-order") < ids.index("sin-bounded")
    # seeds first, then the literature
    origins = [c.origin for c in LEDGER]
    assert origins == sorted(origins, key=lambda o: o != "tutorial")


def test_unknown_claim_lists_the_valid_ids():
    with pytest.raises(PosencError, match="word-order"):
        get_claim("no-such-claim")


# ---- each claim's thresholds on hand-made estimates at its edges ------------------------------------------------
def verdict(claim_id: str, **estimates: Estimate) -> str:
    return judge(get_claim(claim_id), estimates).status


def test_word_order_edges():
    ok = {"blind_encoder_difference": exact(1e-7), "positions_see_order": exact(0.5),
          "causal_no_positions_difference": exact(1e-7)}
    assert verdict("word-order", **ok) == "supported"
    assert verdict("word-order", **{**ok, "causal_no_positions_difference": exact(0.8)}) == "qualified"
    assert verdict("word-order", **{**ok, "blind_encoder_difference": exact(0.1),
                                    "positions_see_order": exact(1e-4)}) == "refuted"


def test_bounded_edge():
    assert verdict("sin-bounded", max_abs=exact(1.0)) == "supported"
    assert verdict("sin-bounded", max_abs=exact(1.0 + 1e-7)) == "supported"  # float32 rounding of 1
    assert verdict("sin-bounded", max_abs=exact(1.01)) == "refuted"


def test_relative_linear_needs_a_baseline_that_can_fail():
    ok = {"max_residual": exact(1e-9), "max_half_difference": exact(1e-8), "max_vs_rotation": exact(1e-8),
          "min_random_residual": exact(0.9)}
    assert verdict("sin-relative-linear", **ok) == "supported"
    assert verdict("sin-relative-linear", **{**ok, "min_random_residual": exact(0.01)}) == "not testable"


def test_rope_extrapolates_needs_the_task_learned_first():
    good = {"rope_in_distribution": est(0.99, 0.98, 1.0), "kept_past_L": est(0.95, 0.92, 0.97),
            "control_kept_past_L": est(0.7, 0.6, 0.8)}  # ALiBi keeps half past L: the power requirement is met
    assert verdict("rope-extrapolates", **good) == "supported"
    assert verdict("rope-extrapolates", **{**good, "kept_past_L": est(0.7, 0.6, 0.8)}) == "qualified"
    # 可以外推 ("can extrapolate") is hedged: sampled numbers refute it only beside a power requirement that is met
    refuting = {**good, "kept_past_L": est(0.2, 0.1, 0.3)}
    assert verdict("rope-extrapolates", **refuting) == ("refuted" if get_claim("rope-extrapolates").power
                                                        else "inconclusive")
    weak_control = {**refuting, "control_kept_past_L": est(0.3, 0.2, 0.4)}  # the setting shows no extrapolation
    assert verdict("rope-extrapolates", **weak_control) == "inconclusive"
    assert verdict("rope-extrapolates", **{**good, "kept_past_L": est(0.5, 0.3, 0.7)}) == "inconclusive"
    assert verdict("rope-extrapolates", **{**good, "rope_in_distribution": est(0.8, 0.7, 0.9)}) == "inconclusive"


def test_nope_ranking_edges():
    null = {"rank_correlation_null": est(0.0, -0.9, 0.9)}  # five labels in random orders: 0.9 at the 97.5th centile
    assert verdict("nope-ranking", ranked_tasks=exact(2), tasks_with_room=exact(2), rank_correlation=est(0.95, 0.92, 1.0), **null) == \
        "supported"
    assert verdict("nope-ranking", ranked_tasks=exact(2), tasks_with_room=exact(2), rank_correlation=est(0.1, -0.3, 0.5), **null) == "refuted"
    assert verdict("nope-ranking", ranked_tasks=exact(2), tasks_with_room=exact(2), rank_correlation=est(0.9, 0.8, 1.0), **null) == \
        "inconclusive"
    assert verdict("nope-ranking", ranked_tasks=exact(1), tasks_with_room=exact(1), rank_correlation=est(0.95, 0.92, 1.0), **null) == \
        "inconclusive"  # one task ranked: fewer than the two a ranking over tasks needs
    assert verdict("nope-ranking", ranked_tasks=exact(0), tasks_with_room=exact(0), rank_correlation=exact(math.nan),
                   rank_correlation_null=exact(math.nan)) == "inconclusive"
    # a null that reaches past the bar (a bar too low for five ranks) cannot tell the paper's order from chance
    assert verdict("nope-ranking", ranked_tasks=exact(2), tasks_with_room=exact(2), rank_correlation=est(0.95, 0.92, 1.0),
                   rank_correlation_null=est(0.95, 0.92, 0.98)) == "not testable"
    # the ceiling rule: two ranked tasks on which every encoding sits at the ceiling past L order nothing
    assert verdict("nope-ranking", ranked_tasks=exact(2), tasks_with_room=exact(1),
                   rank_correlation=est(0.95, 0.92, 1.0), **null) == "not testable"


def test_threshold_file_replaces_thresholds_and_refuses_what_it_does_not_know(tmp_path):
    good = tmp_path / "t.json"
    good.write_text(json.dumps({"sin-bounded": {"max_abs": 0.5}}))
    claim = apply_thresholds(get_claim("sin-bounded"), load_thresholds(good))
    assert claim.tests[0].threshold == 0.5 and "threshold file" in claim.tests[0].basis
    assert judge(claim, {"max_abs": exact(1.0)}).status == "refuted"
    for text, match in (("{not json", "does not parse"), ('{"nope-claim": {"x": 1}}', "unknown claim"),
                        ('{"sin-bounded": {"bogus": 1}}', "no statistic 'bogus'"),
                        ('{"sin-bounded": {"max_abs": "one"}}', "is not a number"), ("[1]", "expected an object")):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(PosencError, match=match):
            load_thresholds(bad)
    with pytest.raises(PosencError, match="does not exist"):
        load_thresholds(tmp_path / "missing.json")


def test_an_interval_touching_the_threshold_is_undecided():
    # low == threshold for ">" is not "wholly above", high == threshold for "<" not "wholly below"
    assert outcome(ABOVE, est(0.6, 0.5, 0.7)) is None
    assert outcome(BELOW, est(0.08, 0.06, 0.1)) is None
    assert outcome(BELOW, est(0.1, 0.1, 0.1)) is False  # low == threshold: wholly not below


def test_every_verdict_carries_the_reason_built_from_each_test():
    x, y = est(0.7, 0.6, 0.8), est(0.0, 0.0, 0.05)
    expected = (f"x is above one half: x = {x.text()} (needs > 0.5) — holds; "
                f"y is small: y = {y.text()} (needs < 0.1) — holds")
    assert judge(CLAIM, {"x": x, "y": y}).reason == expected
    q = judge(CLAIM, {"x": x, "y": est(0.5, 0.4, 0.6)})
    assert q.reason.startswith("x is above one half: x = ") and q.reason.endswith("(needs < 0.1) — does not hold")
    assert "; y is small: " in q.reason


def test_failed_and_supported_verdicts_keep_their_words():
    from posenc.report.verdict import failed, supported

    f = failed("ValueError: boom")
    assert (f.status, f.reason) == ("failed", "ValueError: boom") and f.status in STATUSES
    s = supported("because")
    assert (s.status, s.reason) == ("supported", "because")


def test_a_qualified_verdict_names_the_measured_value_where_its_wording_asks():
    claim = Claim("x", "tutorial 003", "tutorial", "t", "c", "word_order", (
        Test("r", ">", 1.8, "grows", "b"),
        Test("r", "<", 2.2, "about twofold", "b", role="condition", unless="grows {value}-fold, not twofold")))
    verdict = judge(claim, {"r": exact(3.9999)})
    assert verdict.status == "qualified" and verdict.condition == "grows 4-fold, not twofold"
    plain = Claim("y", "tutorial 003", "tutorial", "t", "c", "word_order", (
        Test("r", ">", 1.8, "grows", "b"), Test("r", "<", 2.2, "about twofold", "b", role="condition")))
    assert judge(plain, {"r": exact(4.0)}).condition == "not: about twofold"


def test_each_constructor_gives_its_own_status():
    from posenc.report import verdict as v

    assert v.supported("r") == Verdict("supported", "r")
    assert v.refuted("r") == Verdict("refuted", "r")
    assert v.qualified("when short", "r") == Verdict("qualified", "r", "when short")
    assert v.inconclusive("r") == Verdict("inconclusive", "r")
    assert v.not_testable("r") == Verdict("not testable", "r")
    assert v.not_run("r", "posenc report --claim x") == Verdict("not run", "r", command="posenc report --claim x")
    assert v.not_decided_in_quick("r", "c") == Verdict("not decided in quick mode", "r", command="c")
    assert v.failed("boom") == Verdict("failed", "boom")
    assert v.decide_command("seed-3") == "posenc report --claim seed-3"
    assert list(STATUSES) == ["supported", "qualified", "refuted", "inconclusive", "not testable",
                                     "not decided in quick mode", "not run", "failed"]


# ---- every claim of the ledger at each of its bars: just past it, on it, and short of it ---------------------------
def _passes(test: Test, value: float) -> bool:
    """The bar read in words: strictly above (``>``) or strictly below (``<``) the threshold."""
    return value > test.threshold if test.op == ">" else value < test.threshold


def _passing_values(claim: Claim) -> dict[str, float]:
    """A value for each statistic that clears every bar on it: just past a single bar, the middle of a range; each
    null a test names (that is not itself a statistic) a little short of that test's bar."""
    values = {}
    statistics = {t.statistic for t in (*claim.requires, *claim.tests)}
    for t in (*claim.requires, *claim.tests):
        if t.null and t.null not in statistics:
            values[t.null] = t.threshold - 1e-3 * max(1.0, abs(t.threshold)) * (1 if t.op == ">" else -1)
    for name in statistics:
        bars = [t for t in (*claim.requires, *claim.tests) if t.statistic == name]
        lows = [t.threshold for t in bars if t.op == ">"]
        highs = [t.threshold for t in bars if t.op == "<"]
        if lows and highs:
            values[name] = (max(lows) + min(highs)) / 2
        elif lows:
            values[name] = max(lows) + 1e-6 * max(1.0, abs(max(lows)))
        else:
            values[name] = min(highs) - 1e-6 * max(1.0, abs(min(highs)))
    return values


def _expected(claim: Claim, values: dict[str, float]) -> str:
    """The status the rule's documented order gives when every number is exact: the first requirement not met
    decides (its ``otherwise``); then a null that passes its test's bar makes it not testable; then all core tests
    passing and all conditions passing is supported, no core test passing refuted (inconclusive when a power
    requirement is not met), anything else qualified."""
    for req in claim.requires:
        if req.role != "power" and not _passes(req, values[req.statistic]):
            return req.otherwise
    if any(t.null and _passes(t, values[t.null]) for t in (*claim.requires, *claim.tests)):
        return "not testable"
    core = [_passes(t, values[t.statistic]) for t in claim.tests if t.role == "core"]
    conditions = [_passes(t, values[t.statistic]) for t in claim.tests if t.role == "condition"]
    if all(core) and all(conditions):
        return "supported"
    if not any(core):
        return "refuted" if all(_passes(p, values[p.statistic]) for p in claim.power) else "inconclusive"
    return "qualified"


JUDGED = [c for c in LEDGER if not c.untestable]


@pytest.mark.parametrize("claim", JUDGED, ids=[c.id for c in JUDGED])
def test_each_claim_is_supported_just_past_its_bars_and_not_on_them(claim):
    """The headline verdict moves with each bar of the headline option (a claim's tests for its other options only,
    :attr:`posenc.report.claim.Test.options`, leave it where it is)."""
    headline = claim.under(None)
    passing = _passing_values(claim)
    assert _expected(headline, passing) == "supported"
    assert judge(claim, {k: exact(v) for k, v in passing.items()}).status == "supported"
    read = {id(t) for t in (*headline.requires, *headline.tests)}
    for bar in (*claim.requires, *claim.tests):
        # on the bar (an interval touching it is not wholly past it) and a little short of it
        short = bar.threshold - 1e-6 * max(1.0, abs(bar.threshold)) * (1 if bar.op == ">" else -1)
        for value in (bar.threshold, short):
            values = {**passing, bar.statistic: value}
            expected = _expected(headline, values)
            assert expected != "supported" or bar.role == "power" or id(bar) not in read, (bar, value)
            got = judge(claim, {k: exact(v) for k, v in values.items()}).status
            assert got == expected, (bar, value, got)


def test_the_claims_marked_not_testable_are_these_three():
    # written by hand: a claim that becomes testable, or stops being, changes this list on purpose
    assert sorted(c.id for c in LEDGER if c.untestable) == ["ffn-would-mix", "start-attends-verbs",
                                                            "static-vs-dynamic"]


# ---- mixed inputs on the rule's dispatch paths ----------------------------------------------------------------------
GUARD = Test("baseline", ">", 0.1, "the baseline can fail", "sanity", otherwise="not testable")
GUARDED = Claim("guarded", "by hand", "tutorial", "g", "...", "none", (ABOVE,), requires=(GUARD,))
GOOD_X = {"x": est(0.7, 0.6, 0.8)}


def test_a_not_testable_requirement_is_not_testable_only_when_it_fails_outright():
    """Failing wholly: not testable. Straddling its bar: the data may still settle it, so inconclusive. Resting on two
    seeds: not decided in quick mode (inconclusive in full mode), like any requirement without an interval."""
    assert judge(GUARDED, {**GOOD_X, "baseline": est(0.05, 0.0, 0.1)}).status == "not testable"
    straddles = judge(GUARDED, {**GOOD_X, "baseline": est(0.1, 0.05, 0.15)})
    assert straddles.status == "inconclusive" and straddles.reason.startswith("requirement not met: ")
    thin = {**GOOD_X, "baseline": over_seeds([0.5, 0.6])}
    assert judge(GUARDED, thin, quick=True).status == QUICK_UNDECIDED
    assert judge(GUARDED, thin).status == "inconclusive"
    assert judge(GUARDED, {**GOOD_X, "baseline": est(0.5, 0.4, 0.6)}).status == "supported"


def test_a_value_on_the_threshold_says_no_sample_would_settle_it():
    v = judge(CLAIM, {"x": est(0.5, 0.4, 0.6), "y": est(0.0, 0.0, 0.05)})  # value == threshold 0.5
    assert v.status == "inconclusive" and "x sits on the threshold; no sample size would settle it" in v.reason


def test_a_claim_with_a_choice_whose_experiment_did_not_run_has_no_variants():
    """A missing measurement decides before any option is read: the claim's own not-measured status and command,
    and no verdict per option (a quick run by default not decided in quick mode, a full one not run)."""
    claim = Claim("ch2", "by hand", "literature", "ch", "...", "none", (ABOVE,),
                  choice=Choice("window", ("128", "256"), "128", "the trained length"))
    missing = Measurement({}, missing="not run in quick mode")
    head, variants = judge_claim(claim, missing, quick=True)
    assert (head.status, head.command, variants) == (QUICK_UNDECIDED, "posenc report --claim ch2", {})
    head, variants = judge_claim(claim, missing)
    assert (head.status, variants) == (NOT_RUN, {})
    own = Measurement({}, missing="trains for an hour", missing_status=NOT_RUN, command="posenc report --extended")
    head, _ = judge_claim(claim, own, quick=True)
    assert (head.status, head.reason, head.command) == (NOT_RUN, "trains for an hour", "posenc report --extended")


def test_each_option_of_a_choice_is_judged_in_the_runs_mode():
    """Options resting on two seeds: not decided in quick mode, each of them and the headline; inconclusive in full."""
    claim = Claim("ch3", "by hand", "literature", "ch", "...", "none", (ABOVE,),
                  choice=Choice("window", ("128", "256"), "128", "the trained length"))
    two = {"x": over_seeds([0.9, 0.95])}
    m = Measurement({}, estimates=two, variants={"128": two, "256": two})
    head, variants = judge_claim(claim, m, quick=True)
    assert head.status == QUICK_UNDECIDED and head.command == "posenc report --claim ch3"
    assert {o: v.status for o, v in variants.items()} == {"128": QUICK_UNDECIDED, "256": QUICK_UNDECIDED}
    head, variants = judge_claim(claim, m)
    assert head.status == "inconclusive" and {v.status for v in variants.values()} == {"inconclusive"}


@pytest.mark.parametrize("text,read", [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf")])
def test_a_threshold_file_refuses_a_bar_that_is_not_a_finite_number(tmp_path, text, read):
    """Python's json reads NaN and Infinity; a NaN bar would leave every interval undecided against it and an
    infinite one decide every claim alike, so the file is refused, naming the entry."""
    bad = tmp_path / "t.json"
    bad.write_text('{"sin-bounded": {"max_abs": ' + text + "}}")
    with pytest.raises(PosencError, match=rf"sin-bounded\.max_abs = {read} is not a finite number"):
        load_thresholds(bad)
