"""SmolLM2's option of the head claims (posenc.report.experiments.decoder): the claims judged under each option;
quick mode; full mode's parts on a tiny Llama in SmolLM2's place. (The measuring steps, on a tiny Llama whose heads
are built to look at the previous token, at the token itself and nowhere in particular, and the null's matched norms:
tests/probe/test_heads.py, test_content.py, test_random_weights.py, test_head_output.py.)"""

import math

from posenc.probe.heads import decoder_heads, two_passes
from posenc.report.claims import value
from posenc.report.experiments import decoder
from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.pretrained import MODEL_OPTIONS
from posenc.report.ledger import get_claim
from posenc.report.present import decoder as decoder_page
from posenc.report.verdict import QUICK_UNDECIDED, judge
from posenc.stats import Estimate

MINILM, SMOLLM2 = MODEL_OPTIONS


def test_the_claims_choose_the_model_and_read_smollm2_under_its_option_only():
    for claim_id in ("positional-heads", "voita-heads", "positional-head-content"):
        claim = get_claim(claim_id)
        assert claim.choice is value("HEAD_MODEL") and claim.choice.headline == MINILM
        smol = claim.under(SMOLLM2)
        assert smol.tests and all(t.statistic.startswith("smollm2_") for t in (*smol.tests, *smol.requires))
        assert not any(t.statistic.startswith("smollm2_") for t in (*claim.under(MINILM).tests,
                                                                      *claim.under(MINILM).requires))
    assert {t.null for t in get_claim("positional-heads").under(SMOLLM2).tests} == {"null_smollm2_positional_heads"}
    content = get_claim("positional-head-content")
    assert content.hedged and [t.statistic for t in content.under(SMOLLM2).power] == [
        "smollm2_input_word_accuracy"]
    assert {t.null for t in content.under(SMOLLM2).tests} == {"null_smollm2_output_word_accuracy", ""}


def _count(low: float, high: float | None = None) -> Estimate:
    high = low if high is None else high
    return Estimate(low, low, high, 16, "bounds", (0.0, math.inf))


def _share(value: float, low: float, high: float) -> Estimate:
    return Estimate(value, low, high, 16, "bootstrap", (0.0, 1.0))


def test_smollm2_verdicts_against_the_null():
    heads = get_claim("positional-heads")
    assert judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(0)},
                 option=SMOLLM2).status == "supported"
    assert judge(heads, {"smollm2_positional_heads": _count(0), "null_smollm2_positional_heads": _count(0)},
                 option=SMOLLM2).status == "refuted"
    already = judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(2)},
                    option=SMOLLM2)
    assert already.status == "not testable" and "null_smollm2_positional_heads" in already.reason
    assert judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(0, 1)},
                 option=SMOLLM2).status == "inconclusive"
    voita = get_claim("voita-heads")
    at = {"smollm2_adjacent_positional_heads": _count(2), "null_smollm2_adjacent_positional_heads": _count(0),
          "smollm2_other_positional_heads": _count(0)}
    assert judge(voita, at, option=SMOLLM2).status == "supported"
    also_self = judge(voita, {**at, "smollm2_other_positional_heads": _count(1)}, option=SMOLLM2)
    assert also_self.status == "qualified" and also_self.condition.startswith("positional heads exist at -1")


def test_smollm2_content_is_refuted_only_with_power():
    claim = get_claim("positional-head-content")
    moved = {"smollm2_positional_heads_found": _count(2), "smollm2_content_change": _share(0.2, 0.15, 0.25),
             "smollm2_other_heads_content_change": _share(0.4, 0.35, 0.45),
             "smollm2_output_word_accuracy": _share(0.3, 0.25, 0.35),
             "null_smollm2_output_word_accuracy": _share(0.06, 0.05, 0.07),
             "smollm2_input_word_accuracy": _share(0.55, 0.5, 0.6)}
    assert judge(claim, moved, option=SMOLLM2).status == "supported"
    still = {**moved, "smollm2_content_change": _share(0.01, 0.005, 0.02)}
    assert judge(claim, still, option=SMOLLM2).status == "qualified"
    silent = {**moved, "smollm2_output_word_accuracy": _share(0.06, 0.05, 0.07)}
    assert judge(claim, silent, option=SMOLLM2).status == "refuted"
    blind = {**silent, "smollm2_input_word_accuracy": _share(0.1, 0.05, 0.15)}
    assert judge(claim, blind, option=SMOLLM2).status == "inconclusive"
    none = {**moved, "smollm2_positional_heads_found": _count(0)}
    assert judge(claim, none, option=SMOLLM2).status == "not testable"


def test_quick_mode_leaves_smollm2_undecided_without_loading_it():
    ctx = Context(quick=True)
    for part, page, claim_id in ((decoder._heads_part, decoder_page._heads_part, "positional-heads"),
                                 (decoder._heads_part, decoder_page._heads_part, "voita-heads"),
                                 (decoder._content_part, decoder_page._content_part, "positional-head-content")):
        estimates, numbers, shown = part(ctx)
        measured = Measured({"smollm2": numbers}, {}, {SMOLLM2: estimates}, shown={"smollm2": shown})
        rows, setup, scope = decoder_page._smollm2(measured, page)
        assert numbers == {"ran": False} and rows == [] and "not run in quick mode" in scope
        assert all(math.isnan(e.value) and not e.has_interval for e in estimates.values())
        verdict = judge(get_claim(claim_id), estimates, quick=True, option=SMOLLM2)
        assert verdict.status == QUICK_UNDECIDED and verdict.command == f"posenc report --claim {claim_id}"


def test_full_mode_reads_each_statistic_from_its_own_pass(tiny_llama, monkeypatch):
    # the SmolLM2 option's parts in full mode, on the tiny Llama in SmolLM2's place (the same two passes): each
    # estimate is the measured pass's, each null_ one the null pass's, and the numbers keep both
    run = two_passes(tiny_llama.model, tiny_llama.tokenizer, 3, 16)
    monkeypatch.setattr(decoder, "_smollm2", lambda count, length: {**run, "cpu_s": {"load": 0.0, **run["cpu_s"]}})
    judged, null = decoder_heads(run["trained"]), decoder_heads(run["null"])
    estimates, numbers, shown = decoder._heads_part(Context(quick=False))
    rows, _, _ = decoder_page._heads_part(estimates, numbers, shown)
    for key in ("positional_heads", "adjacent_positional_heads", "other_positional_heads"):
        assert estimates[f"smollm2_{key}"] == judged.estimates[key]
    for key in ("positional_heads", "adjacent_positional_heads"):
        assert estimates[f"null_smollm2_{key}"] == null.estimates[key]
    assert numbers["ran"] and numbers["layers"] == 2 and numbers["heads"] == 4 and rows
    assert numbers["null"]["estimates"]["positional_heads"][0] == null.estimates["positional_heads"].value
