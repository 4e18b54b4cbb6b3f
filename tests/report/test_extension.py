"""The context-extension experiment end to end on a tiny random Llama (no download): run_extend's windows and passkey
trials are read into the PI/YaRN claim's statistics, the window losses match the model library's own forward pass,
and a re-run reads everything from the store."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
import torch

from posenc.errors import PosencError
from posenc.report.claims import claims_of
from posenc.report.experiments.base import Context
from posenc.report.experiments.extension import SCALINGS, ExtensionPlan, PasskeyCells, pi_yarn_measurement
from posenc.report.present import shown
from posenc.report.verdict import judge

CLAIMS = claims_of("extension")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")
NATIVE = 128
PLAN = ExtensionPlan(long=192, windows=2, depth=0.95,
                     passkey=(PasskeyCells(128, (0.0, 0.95)), PasskeyCells(192, (0.95,), ("yarn",))), trials=3)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A 1-layer random Llama with a 128-token context and MiniLM's tokenizer (offline package)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from posenc.pretrained import minilm_dir

    folder = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=30522, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=NATIVE,
                         rope_theta=10000.0, tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copy(minilm_dir() / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def measured(tiny, tmp_path_factory):
    store = tmp_path_factory.mktemp("store") / "results.sqlite"
    ctx = Context(quick=False, store_path=store)
    first = shown("extend_pi_yarn", pi_yarn_measurement(str(tiny), PLAN, ctx), ctx)
    again = pi_yarn_measurement(str(tiny), PLAN, Context(quick=False, store_path=store))
    return first, again


def test_statistics_and_verdict(measured):
    # the first test of the module-scoped fixture: mutation testing traces the measurement to this test alone, so
    # what the measurement records is checked here
    m, again = measured
    assert again.numbers["jobs_computed"] == 0 and m.numbers["jobs_computed"] > 0  # the second reads the store
    # only the claim's scalings run, and only yarn past the native length in the passkey: windows at 192 tokens,
    # 2 per scaling, none / linear / yarn each a different model there (s = 1.5): 6; passkey at 128 = native, where
    # every scaling is the native model: one model x 2 depths x 3 trials = 6; at 192 with yarn, 1 depth x 3 trials:
    # 3. 6 + 6 + 3 = 15 (every scaling of run_extend, ntk, dynamic and llama3 too, would add windows and trials)
    assert m.numbers["jobs_computed"] == 15
    assert again.estimates == m.estimates
    n = m.numbers
    assert n["ran"] and n["native_len"] == NATIVE and n["factor_long"] == 1.5
    assert set(m.estimates) == {t.statistic for t in CLAIMS[0].tests + CLAIMS[0].requires}
    # 3 passkey trials cannot clear the 0.5 bar either way: Wilson's 95% interval for k of 3 is, by hand with
    # z^2 = 3.8415, [0, 0.5616] at k = 0 and [0.4384, 1] at k = 3, so whatever the random model retrieves, the first
    # requirement (the prompt works within the context) straddles its bar and the verdict is inconclusive
    within = m.estimates["passkey_within_native"]
    assert within.n == PLAN.trials and within.low < 0.5 < within.high
    verdict = judge(CLAIMS[0], m.estimates, m.missing)
    assert verdict.status == "inconclusive" and verdict.reason.startswith("requirement not met: within its context")
    # a random model near-uniform over 30522 tokens: perplexity of the order of the vocabulary
    assert 5e3 < m.estimates["yarn_over_none_ppl"].value * n["ppl_long"]["none"]["value"] < 1e5
    for s in SCALINGS:
        nll = np.array(n["window_nll_long"][s])
        assert len(nll) == PLAN.windows and n["ppl_long"][s]["value"] == pytest.approx(math.exp(nll.mean()))
    assert len(n["window_nll_native"]) == PLAN.windows and n["control_length"] == 128


def test_window_losses_match_the_model_library(measured, tiny):
    """At the long length "none" is the unmodified model (the library's own rotary code, no posenc patch)."""
    from transformers import AutoTokenizer, LlamaForCausalLM

    from posenc.corpora import load_text
    from posenc.extend.perplexity import token_nll

    m, _ = measured
    tokenizer = AutoTokenizer.from_pretrained(tiny)
    ids = torch.tensor(tokenizer(load_text(None, max_chars=20000), add_special_tokens=False)["input_ids"])
    library = LlamaForCausalLM.from_pretrained(tiny, use_safetensors=True).eval()
    long = [float(token_nll(library, ids[i * 192:(i + 1) * 192]).double().mean()) for i in range(PLAN.windows)]
    # the native reference: 128-token windows at the long windows' offsets, run on their own
    native = [float(token_nll(library, ids[i * 192:i * 192 + NATIVE]).double().mean()) for i in range(PLAN.windows)]
    np.testing.assert_allclose(m.numbers["window_nll_long"]["none"], long, rtol=1e-4)
    np.testing.assert_allclose(m.numbers["window_nll_native"], native, rtol=1e-4)


def test_passkey_cells_and_rows(measured):
    m, _ = measured
    cells = m.numbers["passkey"]
    # the plan's trials per (length, depth) and scaling; at the native length the scalings are one model
    assert {k: v["trials"] for k, v in cells.items()} == {
        **{f"{s}:128:{d}": PLAN.trials for s in SCALINGS for d in ("0", "0.95")}, "yarn:192:0.95": PLAN.trials}
    assert len({cells[f"{s}:128:0"]["correct"] for s in SCALINGS}) == 1
    assert m.estimates["yarn_passkey_past_native"].n == PLAN.trials
    assert m.figure is not None and f"{PLAN.trials} trials per (length, depth)" in m.setup


def test_plan_must_straddle_the_native_length(tiny):
    plan = ExtensionPlan(long=256, windows=2, depth=0.5, passkey=(PasskeyCells(256, (0.5,)),))
    with pytest.raises(Exception, match="passkey needs a length at or below the native"):
        pi_yarn_measurement(str(tiny), plan, Context(quick=False))


def test_at_the_native_length_the_scalings_share_one_passkey_row(measured):
    """PLAN asks passkey trials at 128 = the native length (every scaling, depths 0 and 0.95) and at 192 (yarn,
    depth 0.95). At 128 no scaling changes the model, so the table has one row per depth there, not one per scaling:
    2 rows at 128 and 1 at 192."""
    m, _ = measured
    passkey = [r.quantity for r in m.rows if "passkey accuracy" in r.quantity]
    assert passkey == ["every scaling (native model): passkey accuracy at 128 tokens, depth 0 (3 trials)",
                       "every scaling (native model): passkey accuracy at 128 tokens, depth 0.95 (3 trials)",
                       "yarn: passkey accuracy at 192 tokens, depth 0.95 (3 trials)"]


# ---- the plan's switches: windows, the long length against the native one, the control length -------------------
def test_a_plan_needs_two_windows_for_an_interval():
    cells = (PasskeyCells(128, (0.95,)), PasskeyCells(192, (0.95,), ("yarn",)))
    assert ExtensionPlan(long=192, windows=2, depth=0.95, passkey=cells).windows == 2
    with pytest.raises(PosencError, match="at least 2 windows, got windows=1"):
        ExtensionPlan(long=192, windows=1, depth=0.95, passkey=cells)


def test_a_plan_needs_yarn_at_the_long_length_and_the_tested_depth():
    with pytest.raises(PosencError, match="yarn at the long length 192, depth 0.95"):
        ExtensionPlan(long=192, windows=2, depth=0.95, passkey=(PasskeyCells(192, (0.5,), ("yarn",)),))
    with pytest.raises(PosencError, match="yarn at the long length 192"):
        ExtensionPlan(long=192, windows=2, depth=0.95, passkey=(PasskeyCells(192, (0.95,), ("none", "linear")),))


@pytest.mark.parametrize("native,fails", [(191, None), (192, "must pass the native context: long=192, native=192"),
                                          (193, "must pass the native context")])
def test_the_long_length_must_pass_the_native_one(native, fails):
    plan = ExtensionPlan(long=192, windows=2, depth=0.95,
                         passkey=(PasskeyCells(128, (0.95,)), PasskeyCells(192, (0.95,), ("yarn",))))
    if fails is None:
        plan.check_native(native)
    else:
        with pytest.raises(PosencError, match=fails):
            plan.check_native(native)


@pytest.mark.parametrize("control,native,expected", [(128, 128, 128), (128, 129, 128), (129, 128, 64)])
def test_the_control_runs_at_or_below_the_native_length(control, native, expected):
    """The control that the prompt works: the longest passkey length at or below the native one at the tested
    depth; a length one past it does not count, nor the 100-token cell at another depth (so 64 is left)."""
    plan = ExtensionPlan(long=192, windows=2, depth=0.95,
                         passkey=(PasskeyCells(64, (0.95,)), PasskeyCells(100, (0.5,)), PasskeyCells(control, (0.95,)),
                                  PasskeyCells(192, (0.95,), ("yarn",))))
    assert plan.control(native) == expected
    with pytest.raises(PosencError, match="at or below the native 63 at depth 0.95"):
        plan.control(63)
