"""Which numbers the PI/YaRN claim's statistics are made of, on a made-up run (issue #19, item 3).

test_extension_claims.py checks the statistics' formulas (perplexity ratio paired by window against
``scipy.stats.ttest_rel``, Wilson intervals against ``scipy.stats.binomtest``) and test_extension.py the whole
experiment on a tiny random Llama. Here ``run_extend`` is replaced by a made-up result in its format, with window
losses and passkey trials chosen so that every pairing is visible: each estimate must be the ratio of the right
scaling against the right reference (no scaling at the long length, or the native model on the same windows), and
the passkey cells the right (scaling, length, depth).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from posenc.report.experiments import extension
from posenc.report.experiments.base import Context
from posenc.report.experiments.extension import ExtensionPlan, PasskeyCells
from posenc.report.present import extension as extension_page
from posenc.report.present import shown

NATIVE, LONG = 64, 96
PLAN = ExtensionPlan(long=LONG, windows=5, depth=0.95,
                     passkey=(PasskeyCells(48, (0.5, 0.95)), PasskeyCells(LONG, (0.95,), ("yarn",))), trials=12)
#: mean token loss of each of the 5 windows at the long length, per scaling, and the native model's on their first
#: NATIVE tokens
NLL = {"none": [4.1, 3.2, 5.0, 4.4, 3.9], "linear": [3.6, 3.1, 4.2, 4.0, 3.5], "yarn": [3.3, 2.7, 4.1, 3.5, 3.2]}
NATIVE_NLL = [3.0, 2.9, 3.8, 3.6, 3.1]
#: passkey: correct answers of 12 trials per (scaling, length, depth)
CORRECT = {(48, 0.5): 11, (48, 0.95): 9, (LONG, 0.95): 4}


def _trials(length: int, depth: float) -> list[dict]:
    return [{"depth": depth, "correct": i < CORRECT[(length, depth)]} for i in range(PLAN.trials)]


def _fake_run(model, ctx, scalings=extension.SCALINGS, **kwargs):
    if not kwargs["passkey"]:
        cells = {s: {str(LONG): {"window_nll": NLL[s], **({"window_nll_within_native": NATIVE_NLL}
                                                          if s == "none" else {})}} for s in scalings}
        return {"ppl": {"nonoverlap": cells}, "factors": {str(LONG): LONG / NATIVE}, "estimate_s": 1.0,
                "jobs": {"computed": 1}}
    (length,) = kwargs["lengths"]
    table = {s: {str(length): {"trials": [t for d in kwargs["depths"] for t in _trials(length, d)]}}
             for s in scalings}
    return {"passkey": table, "estimate_s": 1.0, "jobs": {"computed": 1}}


@pytest.fixture
def measured(monkeypatch):
    from posenc import pretrained
    from posenc.extend import patch

    monkeypatch.setattr(extension, "_run", _fake_run)
    monkeypatch.setattr(extension_page, "_figure", lambda *args: None)
    monkeypatch.setattr(pretrained, "model_config", lambda model: {"model": model})
    monkeypatch.setattr(patch, "native_length", lambda config: NATIVE)
    ctx = Context(quick=False)
    return shown("extend_pi_yarn", extension.pi_yarn_measurement("made-up", PLAN, ctx), ctx)


def _paired(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """exp of the mean paired difference and of its paired-t interval."""
    diff = np.array(a) - np.array(b)
    ci = sps.ttest_rel(a, b).confidence_interval(0.95)
    return math.exp(diff.mean()), math.exp(ci.low), math.exp(ci.high)


def _wilson(k: int, n: int) -> tuple[float, float, float]:
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return k / n, ci.low, ci.high


def _triple(e) -> tuple[float, float, float]:
    return e.value, e.low, e.high


def test_each_estimate_pairs_the_right_losses(measured):
    e = measured.estimates
    assert _triple(e["linear_over_none_ppl"]) == pytest.approx(_paired(NLL["linear"], NLL["none"]), rel=1e-9)
    assert _triple(e["yarn_over_none_ppl"]) == pytest.approx(_paired(NLL["yarn"], NLL["none"]), rel=1e-9)
    assert _triple(e["yarn_over_native_ppl"]) == pytest.approx(_paired(NLL["yarn"], NATIVE_NLL), rel=1e-9)
    assert _triple(e["none_over_native_ppl"]) == pytest.approx(_paired(NLL["none"], NATIVE_NLL), rel=1e-9)
    assert measured.numbers["ppl_native"]["value"] == pytest.approx(math.exp(np.mean(NATIVE_NLL)))
    for s in extension.SCALINGS:
        assert measured.numbers["ppl_long"][s]["value"] == pytest.approx(math.exp(np.mean(NLL[s])))


def test_passkey_estimates_read_the_right_cells(measured):
    e = measured.estimates
    assert measured.numbers["control_length"] == 48  # the longest passkey length within the native 64
    assert _triple(e["passkey_within_native"]) == pytest.approx(_wilson(CORRECT[(48, 0.95)], 12), abs=1e-9)
    assert _triple(e["yarn_passkey_past_native"]) == pytest.approx(_wilson(CORRECT[(LONG, 0.95)], 12), abs=1e-9)
    cells = measured.numbers["passkey"]
    assert {k: v["correct"] for k, v in cells.items()} == {
        **{f"{s}:48:{d:g}": CORRECT[(48, d)] for s in extension.SCALINGS for d in (0.5, 0.95)},
        f"yarn:{LONG}:0.95": CORRECT[(LONG, 0.95)]}
    assert measured.numbers["factor_long"] == 1.5


def test_every_anchor_in_the_table_says_what_it_is(measured):
    """A row's anchor is shown with its label: the native perplexity, the ratios' 1 ("no effect", "as good as
    within the context") and the passkey rows' 0.99, which is the YaRN paper's result after fine-tuning."""
    anchored = [r for r in measured.rows if r.anchor is not None]
    assert anchored and all(isinstance(r.anchor_label, str) and r.anchor_label for r in anchored)
    passkey = [r for r in measured.rows if "passkey accuracy" in r.quantity]
    # 48 tokens (native 64) at depths 0.5 and 0.95, one row for every scaling; 96 tokens with yarn: 3 rows
    assert len(passkey) == 3 and {(r.anchor, r.anchor_label) for r in passkey} == {
        (0.99, "YaRN paper, after fine-tuning: > 99% to 128k")}
    labels = {r.quantity.split(":")[0]: r.anchor_label for r in measured.rows if "perplexity at 96" in r.quantity}
    assert labels == {s: f"native, {NATIVE} tokens" for s in extension.SCALINGS}
    ratios = [r.anchor_label for r in measured.rows if "perplexity ratio" in r.quantity]
    assert sorted(set(ratios)) == ["as good as within the context", "no effect"] and len(ratios) == 2 + 3


def test_the_figure_marks_the_native_length_in_both_panels():
    """``_figure`` on the made-up run: each scaling's perplexity line starts at the native length (the unscaled model
    on each window's first 64 tokens: exp(mean NATIVE_NLL) for every scaling), a dashed guide marks 64 in the top
    panel, and in the heatmap a boundary sits between the 48- and 96-token columns (at x = 0.5)."""
    long_run = _fake_run("made-up", None, lengths=[LONG], passkey=False)
    for s, cell in long_run["ppl"]["nonoverlap"].items():  # run_extend's cells also hold the perplexity itself
        ppl = math.exp(np.mean(NLL[s]))
        cell[str(LONG)].update(ppl=ppl, ppl_interval=[0.9 * ppl, 1.1 * ppl])
    passkey = {s: {} for s in extension.SCALINGS}
    for cells in PLAN.passkey:
        run = _fake_run("made-up", None, cells.scalings, lengths=[cells.length], passkey=True,
                        depths=list(cells.depths))
        for s in cells.scalings:
            passkey[s].update(run["passkey"][s])
    fig = extension_page._figure("made-up", NATIVE, long_run, passkey, PLAN)
    top, bottom = fig.subfigs
    (ax,) = top.axes
    assert "native 64" in [line.get_label() for line in ax.get_lines()]
    lines = {c.get_label(): c.lines[0] for c in ax.containers}
    assert list(lines) == list(extension.SCALINGS)
    for s, line in lines.items():
        assert np.asarray(line.get_xdata(), dtype=float).tolist() == [NATIVE, LONG]
        assert np.asarray(line.get_ydata(), dtype=float).tolist() == pytest.approx(
            [math.exp(np.mean(NATIVE_NLL)), math.exp(np.mean(NLL[s]))])
    panels = [a for a in bottom.axes if a.images]
    assert [a.get_title() for a in panels] == list(extension.SCALINGS)
    for panel in panels:
        assert [np.asarray(line.get_xdata(), dtype=float).tolist() for line in panel.get_lines()] == [[0.5, 0.5]]
