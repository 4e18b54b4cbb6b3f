"""The ledger against the rules of docs/report.md ("Nulls, hedges, ceilings and scope"): every sampled statistic has
its null or a reason it has none, every hedged claim is judged by the hedge rule, every comparison on a bounded
metric declares its headroom, every measured verdict names its scope, and quick mode is never more decided than full
mode in the committed runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from posenc.report.claim import Claim, Test, hedge_words
from posenc.report.ledger import LEDGER, get_claim
from posenc.report.verdict import DECIDED, UNDECIDED, judge
from posenc.stats import Estimate

REPORTS = Path(__file__).resolve().parents[2] / "docs" / "reports"
JUDGED = [c for c in LEDGER if not c.untestable]


def _committed(name: str) -> dict[str, dict]:
    """A committed report.json's claims by id (a missing file fails: it is committed, never optional)."""
    path = REPORTS / name
    assert path.exists(), f"{path} is missing: run `posenc report --quick --out DIR` and commit DIR/report.json there"
    return {c["id"]: c for c in json.loads(path.read_text(encoding="utf-8"))["claims"]}


def _sampled(claim: Claim, runs: list[dict[str, dict]]) -> bool:
    """Whether any of the claim's statistics came out sampled (not exact arithmetic) in a committed run, under its
    headline or any option of its choice."""
    names = {t.statistic for t in (*claim.requires, *claim.tests)}
    for run in runs:
        entry = run.get(claim.id) or {}
        tables = [entry.get("estimates") or {}, *(entry.get("estimates_by_choice") or {}).values()]
        if any(table[name]["method"] != "exact" for table in tables for name in names if name in table):
            return True
    return False


# ---- the null -------------------------------------------------------------------------------------------------------
def test_every_claim_with_sampled_statistics_names_its_null_and_each_test_its_null_or_why_none():
    runs = [_committed("full.json"), _committed("extended.json"), _committed("quick.json")]
    missing = []
    for claim in JUDGED:
        if not _sampled(claim, runs):
            continue
        if not claim.null:
            missing.append(f"{claim.id}: no Claim.null")
        missing += [f"{claim.id}: {t.statistic} has neither null nor no_null"
                    for t in (*claim.requires, *claim.tests) if not (t.null or t.no_null)]
    assert not missing, "a bar with no null behind it:\n" + "\n".join(missing)


def test_a_tests_null_is_another_estimate_than_its_statistic():
    same = [f"{c.id}: {t.statistic}" for c in JUDGED for t in (*c.requires, *c.tests) if t.null == t.statistic]
    assert not same, same


# ---- the hedge rule -------------------------------------------------------------------------------------------------
#: written by hand from the quotes: every claim whose quote or sentence holds a hedge (可能, 也许, 或许, 可以 "can";
#: may, might) that its record does not explain away with not_hedged. A claim that gains or loses one changes this
#: list on purpose.
HEDGED = {
    "unit-interval-positions",  # 模型可能认为这是单词语义发生了变化
    "sin-relative-linear",  # 可以线性投影 ... 来表示
    "periodicity-distinctness",  # 周期性可能导致 ... 区分度逐渐降低
    "binary-512-positions",  # 基本可以把每个token的位置都编码出来
    "sinusoid-cost",  # 还可能占用大量的内存空间
    "start-attends-verbs",  # 句首的词可能更倾向于关注 ... 动词
    "static-vs-dynamic",  # 在融合时可能无法很好地相互补充
    "head-experts",  # 有的头可能主要关注 ...
    "positional-head-content",  # 一个头可能主要关注位置
    "rope-extrapolates",  # 可以外推到更长的序列
    "low-dims-position",  # 模型可能学到一种 ... 分工模式
    "learned-slows-convergence",  # 可能导致大模型训练更难收敛
}


def test_the_hedged_claims_are_these():
    found = {c.id for c in LEDGER if c.hedged}
    explained = {c.id: c.not_hedged for c in LEDGER if c.not_hedged}
    assert found == HEDGED - set(explained), (sorted(found - HEDGED), sorted(HEDGED - found - set(explained)))
    assert all(reason.strip() for reason in explained.values())


def test_a_hedge_is_no_reason_to_call_a_claim_not_testable():
    """A "may" is an existence claim, testable where it names a measure; not testable is for a sentence that names
    none. A hedged claim's reason that speaks of its hedge says how the hedge rule reads it (a reason written before
    the rule, "hedged twice", leaned on the hedge)."""
    leaning = [f"{c.id}: {c.untestable}" for c in LEDGER if c.untestable and hedge_words(c.quote, c.claim)
               and "hedge" in c.untestable.lower() and "hedge rule" not in c.untestable.lower()]
    assert not leaning, "not testable for the hedge's sake:\n" + "\n".join(leaning)


def _short(test: Test) -> float:
    return test.threshold - 0.1 * max(1.0, abs(test.threshold)) * (1 if test.op == ">" else -1)


def _past(test: Test) -> float:
    return test.threshold + 0.1 * max(1.0, abs(test.threshold)) * (1 if test.op == ">" else -1)


def _sampled_estimate(value: float) -> Estimate:
    half = 1e-3 * max(1.0, abs(value))
    return Estimate(value, value - half, value + half, 10, "bootstrap")


def _failing(claim: Claim, power_met: bool) -> dict[str, Estimate]:
    """Sampled numbers under which every test of ``claim`` fails outright, every plain requirement is met, every
    null falls short of its bar, and the power requirements are met or not."""
    values = {}
    for name in {t.statistic for t in claim.tests}:  # short of every core bar on it (a condition may pass)
        bars = [t for t in claim.tests if t.statistic == name and t.role == "core"]
        above = [t for t in bars if t.op == ">"]
        if bars:
            values[name] = _short(min(above, key=lambda t: t.threshold)) if above else \
                _short(max(bars, key=lambda t: t.threshold))
        else:
            values[name] = _past(next(t for t in claim.tests if t.statistic == name))
    for t in claim.requires:
        if t.role == "power":
            values[t.statistic] = _past(t) if power_met else _short(t)
        else:
            values.setdefault(t.statistic, _past(t))
    for t in (*claim.requires, *claim.tests):
        if t.null and t.null not in values:
            values[t.null] = _short(t)
    return {k: _sampled_estimate(v) for k, v in values.items()}


TESTABLE_HEDGED = [c for c in JUDGED if c.hedged]


@pytest.mark.parametrize("claim", TESTABLE_HEDGED, ids=[c.id for c in TESTABLE_HEDGED])
def test_each_hedged_claim_is_refuted_by_sampled_numbers_only_with_power(claim):
    numbers = _failing(claim, power_met=False)
    verdict = judge(claim, numbers)
    assert verdict.status == "inconclusive", (claim.id, verdict)
    if claim.power:
        assert judge(claim, _failing(claim, power_met=True)).status == "refuted"


# ---- the ceiling rule -----------------------------------------------------------------------------------------------
#: written by hand from the ledger: the claims that compare two encodings or models on a bounded metric (token or
#: exact-match accuracy, a share of tasks in [0, 1]), where a baseline at the ceiling leaves no room for the margin
BOUNDED_COMPARISONS = {
    "learned-beats-fixed": "learned against fixed encodings' accuracy past L, by more than a margin",
    "sinusoid-weak-local": "learned minus sinusoid accuracy on the local-dependency task",
    "nope-ranking": "a ranking of encodings by accuracy (ties at the ceiling carry no order)",
    "cope-counts": "CoPE's accuracy margin over the better of RoPE and a learned table",
}


def test_the_bounded_comparisons_listed_are_in_the_ledger_and_every_difference_of_shares_is_listed():
    assert set(BOUNDED_COMPARISONS) <= {c.id for c in LEDGER}
    differences = set()
    for run in (_committed("full.json"), _committed("extended.json")):
        for claim in JUDGED:
            entry = run.get(claim.id) or {}
            tables = [entry.get("estimates") or {}, *(entry.get("estimates_by_choice") or {}).values()]
            if any(table[t.statistic]["bounds"] == [-1.0, 1.0] and t.statistic.endswith(("margin", "accuracy"))
                   for table in tables for t in claim.tests if t.statistic in table):
                differences.add(claim.id)
    assert differences <= set(BOUNDED_COMPARISONS), sorted(differences - set(BOUNDED_COMPARISONS))


@pytest.mark.parametrize("claim_id", sorted(BOUNDED_COMPARISONS))
def test_each_comparison_on_a_bounded_metric_declares_its_headroom(claim_id):
    claim = get_claim(claim_id)
    headroom = [t for t in claim.requires if t.role == "headroom"]
    assert headroom, f"{claim_id} compares on a bounded metric ({BOUNDED_COMPARISONS[claim_id]}) with no headroom " \
                     f"requirement"
    assert all(t.otherwise == "not testable" for t in headroom)


# ---- the scope rule -------------------------------------------------------------------------------------------------
def test_every_measured_claim_of_the_committed_quick_run_names_its_scope():
    quick = _committed("quick.json")
    judged = {c.id for c in JUDGED}  # a claim not testable as written has no verdict to scope
    unscoped = [cid for cid, entry in quick.items() if entry.get("estimates") or entry.get("estimates_by_choice")
                if cid in judged and not (entry.get("scope") or "").strip()]
    assert not unscoped, f"measured in quick mode with no scope: {unscoped}"


def test_every_measurement_of_this_sessions_quick_report_names_its_scope(small_report):
    """The experiments the render tests' small report ran in quick mode in this session."""
    unscoped = [r.claim.id for r in small_report.results if r.measurement is not None and not r.measurement.missing
                and not r.measurement.scope.strip()]
    assert not unscoped


# ---- quick mode is never more decided than full mode ----------------------------------------------------------------
def _options(entry: dict) -> dict[str, str]:
    """A claim's verdict under its headline and each option of its choice."""
    return {"(headline)": entry["verdict"]["status"], **{o: v["status"] for o, v in (entry.get("variants") or {}).items()}}


def test_quick_mode_is_never_more_decided_than_full_mode_option_by_option():
    full, quick = _committed("full.json"), _committed("quick.json")
    more = []
    for cid in sorted(set(full) & set(quick)):
        full_options, quick_options = _options(full[cid]), _options(quick[cid])
        for option, status in quick_options.items():
            if status in DECIDED and full_options.get(option) in UNDECIDED:
                more.append(f"{cid} [{option}]: {status} in quick, {full_options[option]} in full")
    assert not more, "quick mode more decided than full mode:\n" + "\n".join(more)
