"""Experiments that run in about a second, against values derived by hand."""

from __future__ import annotations

import math

import pytest
import torch

from posenc.properties import relative_map_residual
from posenc.report.experiments import Context, get_experiment

QUICK = Context(quick=True)


def test_normalized_step_is_one_over_n_minus_one():
    n = get_experiment("naive_normalized")(QUICK).numbers
    # tutorial 000 §2.2: 3 tokens get 0, 0.5, 1 -> step 1/2; 1000 tokens -> step 1/999
    assert n["step_by_length"]["3"] == pytest.approx(0.5)
    assert n["step_by_length"]["1000"] == pytest.approx(1 / 999)
    assert n["step_ratio_shortest_longest"] == pytest.approx(999 / 2)


def test_unique_min_distance_matches_the_neighbour_formula():
    n = get_experiment("sinusoid_unique")(QUICK).numbers
    # ||PE[p+1] - PE[p]||^2 = sum_i |e^{i w_i} - 1|^2 = sum_i 4 sin^2(w_i / 2), w_i = 10000^(-2i/d), d = 512
    w = [10000 ** (-2 * i / 512) for i in range(256)]
    expected = math.sqrt(sum(4 * math.sin(x / 2) ** 2 for x in w))
    assert n["neighbour_distance"] == pytest.approx(expected, rel=1e-5)
    assert n["min_pairwise_distance"] == pytest.approx(expected, rel=1e-4)  # FACTS: 3.71, nearest are neighbours
    assert n["distinct_rows_float32"] == n["length"]


def test_relative_map_residual_is_zero_for_rotations_and_large_for_noise():
    theta = torch.arange(100, dtype=torch.float64)[:, None] * torch.tensor([0.3, 0.01], dtype=torch.float64)
    table = torch.stack([theta.sin(), theta.cos()], dim=-1).flatten(1)  # [100, 4]: (sin, cos) pairs
    residual, m = relative_map_residual(table, 3, paired=True)
    assert residual < 1e-10
    # the 2x2 block of pair 0 is the rotation by 3 * 0.3 acting on row vectors (sin, cos)
    c, s = math.cos(0.9), math.sin(0.9)
    assert m[:2, :2].flatten().tolist() == pytest.approx([c, -s, s, c], abs=1e-9)
    noise = torch.randn(100, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    assert relative_map_residual(noise, 3, paired=True)[0] > 0.5


def test_ffn_is_blind_and_the_rope_block_is_not():
    n = get_experiment("ffn_position_blind")(QUICK).numbers
    assert n["ffn_permutation_error"] < 1e-6 and n["ffn_same_vector_error"] < 1e-6
    assert n["rope_block_permutation_error"] > 1e-3


def test_add_keeps_width_concat_adds_it():
    n = get_experiment("add_vs_concat")(QUICK).numbers
    assert (n["add_width"], n["concat_width"]) == (64, 128)
    # a block at width w: two LayerNorms 4w, q w^2, k and v 2w^2, out w^2, FFN (4w x w + 4w) + (w x 4w + w): 12w^2 + 9w;
    # the model: 64 x 64 token table + 2 blocks + final LayerNorm 2w + untied head 64 x w (the sinusoid has none)
    # add, w = 64: 4096 + 2 (49152 + 576) + 128 + 4096 = 107776
    # concat, w = 128: 4096 + 2 (196608 + 1152) + 256 + 8192 = 408064
    assert (n["add_parameters"], n["concat_parameters"]) == (107776, 408064)
    for r in n["readout"].values():  # concatenation keeps both parts apart: token always recoverable
        assert r["concat_token"] >= r["add_token"] - 1e-9


# ---------------------------------------------------------------------------------------------------------------
# the registry: every experiment with how the report schedules it, every claim with the experiment that measures it
# ---------------------------------------------------------------------------------------------------------------
#: experiments that compute on the CPU in one task, with nothing to train ahead
PLAIN = {"word_order", "ffn_position_blind", "learned_max_len", "add_vs_concat", "minilm_four_terms", "model_heads",
         "naive_integer", "naive_normalized", "naive_binary", "sinusoid_bounded", "sinusoid_unique",
         "sinusoid_relative_linear", "sinusoid_local_global", "sinusoid_extrapolation_theory", "rnn_order",
         "binary_capacity", "frequency_order", "sinusoid_cost", "worked_update", "rope_offset_only", "input_shapes",
         "nothing_measured", "minilm_analogies", "minilm_word_pairs", "minilm_spectra", "minilm_shifted_words",
         "minilm_sum_readout", "minilm_layer_probes", "model_head_content", "naive_integer_relative",
         "concat_parameters", "sinusoid_distinctness", "continuous_compact", "sinusoid_offset_rule", "worked_example",
         "dims_figure", "positions_figure", "model_encodings"}
#: MiniLM's fixed tables: quick computes what full does
QUICK_IS_FULL = {"minilm_geometry", "magnitude", "minilm_dimensions"}
#: the lab sweeps within the hour's budget, each trained ahead in a process of its own; the three task claims share
#: one sweep
LAB = {"lab_learned_vs_fixed": "tasks", "lab_rope_extrapolation": "tasks", "lab_nope_ranking": "tasks",
       "lab_alibi_shape": "char-LM"}
#: the lab sweeps past the budget (run with --extended or their claim named)
EXTENDED = {"lab_fire_kerple", "lab_prope", "lab_cope_counting", "lab_field_lm", "lab_irope"}
#: the tutorial claims' small models, trained together in this process
IN_PROCESS = {"add_vs_concat_training", "learned_convergence", "local_dependency", "orthogonality_training",
              "dimension_division"}


def test_every_experiment_is_registered_with_its_scheduling():
    from posenc.report.experiments import EXPERIMENTS

    assert set(EXPERIMENTS) - {"test_broken_experiment"} == (PLAIN | QUICK_IS_FULL | set(LAB) | EXTENDED | IN_PROCESS
                                                             | {"extend_pi_yarn", "extend_pi_yarn_rescue"})
    flags = {name: (e.device, e.driver, e.prepare is not None, e.prepare_here, e.exclusive, e.extended is not None,
                    e.quick_is_full) for name, e in EXPERIMENTS.items()}
    for name in PLAIN:
        assert flags[name] == (False,) * 7, name
    for name in QUICK_IS_FULL:
        assert flags[name] == (False,) * 6 + (True,), name
    for name in LAB:
        assert flags[name] == (True, True, True, False, False, False, False), name
    for name in EXTENDED:
        assert flags[name] == (True, True, True, False, False, True, False), name
        assert "trains" in EXPERIMENTS[name].extended and "min" in EXPERIMENTS[name].extended, name
    for name in IN_PROCESS:
        assert flags[name] == (False, False, True, True, False, False, False), name
    assert flags["extend_pi_yarn"] == (True, False, False, False, True, False, False)
    # the same experiment at twice the context: past the budget, so run with --extended, on every core
    assert flags["extend_pi_yarn_rescue"] == (True, False, False, False, True, True, False)
    assert EXPERIMENTS["extend_pi_yarn_rescue"].extended.startswith("reads SmolLM2-135M at 16384 tokens")
    # experiments that read one training share its preparation, so it runs once
    groups = [[n for n, g in LAB.items() if g == "tasks"], ["lab_alibi_shape"], sorted(IN_PROCESS)]
    keys = [{EXPERIMENTS[n].preparation for n in group} for group in groups]
    assert [len(k) for k in keys] == [1, 1, 1] and len(set.union(*keys)) == 3


#: module -> {claim id: the experiment that measures it}
CLAIMED = {
    "models": {"word-order": "word_order", "ffn-position-blind": "ffn_position_blind",
               "learned-max-len": "learned_max_len", "add-vs-concat": "add_vs_concat"},
    "tables": {"integer-positions": "naive_integer_relative", "unit-interval-positions": "naive_normalized",
               "binary-positions": "naive_binary", "sin-bounded": "sinusoid_bounded", "sin-unique": "sinusoid_unique",
               "sin-relative-linear": "sinusoid_relative_linear", "local-global-dims": "sinusoid_local_global",
               "sin-extrapolates-theory": "sinusoid_extrapolation_theory"},
    "tutorial_tables": {"concat-doubles-parameters": "concat_parameters",
                        "periodicity-distinctness": "sinusoid_distinctness", "continuous-compact": "continuous_compact",
                        "one-linear-rule": "sinusoid_offset_rule", "worked-example": "worked_example",
                        "dims-period-figure": "dims_figure", "positions-closer-figure": "positions_figure",
                        "model-encodings": "model_encodings"},
    "tutorial_mechanics": {"rnn-word-order": "rnn_order", "binary-512-positions": "binary_capacity",
                           "binary-alternation": "frequency_order", "sinusoid-cost": "sinusoid_cost",
                           "worked-update": "worked_update", "rope-relative-explicit": "rope_offset_only",
                           "input-shapes": "input_shapes", "ffn-would-mix": "ffn_position_blind",
                           "start-attends-verbs": "nothing_measured", "static-vs-dynamic": "nothing_measured"},
    "pretrained": {"near-orthogonal": "minilm_geometry", "small-magnitude": "magnitude",
                   "comparable-magnitude": "magnitude", "four-terms-weak": "minilm_four_terms",
                   "head-experts": "minilm_four_terms", "qk-dimension-experts": "minilm_four_terms",
                   "positional-heads": "model_heads", "voita-heads": "model_heads",
                   "tupe-uniform": "minilm_four_terms"},
    "tutorial_semantics": {"vector-composition": "minilm_analogies", "same-word-shifted": "minilm_shifted_words",
                           "linear-separation": "minilm_sum_readout", "sum-capacity": "minilm_sum_readout",
                           "semantic-concentration": "minilm_spectra", "position-own-space": "minilm_spectra",
                           "positional-head-content": "model_head_content",
                           "later-modules-extract": "minilm_layer_probes", "king-queen-apple": "minilm_word_pairs"},
    "training": {"learned-beats-fixed": "lab_learned_vs_fixed", "rope-extrapolates": "lab_rope_extrapolation",
                 "alibi-table": "lab_alibi_shape", "nope-ranking": "lab_nope_ranking"},
    "tutorial_training": {"low-dims-position": "dimension_division", "orthogonality-learned": "orthogonality_training",
                          "add-easier-to-learn": "add_vs_concat_training",
                          "learned-slows-convergence": "learned_convergence",
                          "sinusoid-weak-local": "local_dependency"},
    "extension": {"pi-yarn": "extend_pi_yarn", "pi-yarn-rescue": "extend_pi_yarn_rescue"},
    "research": {"fire-extrapolates": "lab_fire_kerple", "kerple-extrapolates": "lab_fire_kerple",
                 "p-rope-in-distribution": "lab_prope", "cope-counts": "lab_cope_counting"},
    "field": {"pope-extrapolates": "lab_field_lm", "fox-extrapolates": "lab_field_lm",
              "dape-extrapolates": "lab_field_lm", "nope-layer-pattern": "lab_irope"},
}


def test_each_file_holds_its_claims_in_page_order_each_naming_its_experiment():
    from posenc.report.claims import ORDER, claims_of

    assert list(ORDER) == list(CLAIMED)
    for name in ORDER:
        assert {c.id: c.experiment for c in claims_of(name)} == CLAIMED[name], name
    assert sum(len(c) for c in CLAIMED.values()) == 67


def test_an_experiments_defaults_are_one_plain_cpu_task():
    from posenc.errors import PosencError
    from posenc.report.experiments.base import EXPERIMENTS, Experiment, experiment

    def fn(ctx):
        return None

    record = Experiment("x", fn)
    assert (record.device, record.driver, record.prepare, record.prepare_here, record.exclusive, record.extended,
            record.quick_is_full, record.preparation) == (False, False, None, False, False, None, False, None)
    try:
        assert experiment("test_defaults")(fn) is fn  # the function itself comes back
        assert EXPERIMENTS["test_defaults"] == Experiment("test_defaults", fn)
        with pytest.raises(PosencError, match="experiment name 'test_defaults' is already registered"):
            experiment("test_defaults")(fn)
    finally:
        EXPERIMENTS.pop("test_defaults", None)


def test_a_contexts_defaults_are_the_quick_report_on_this_cpu():
    ctx = Context()
    assert (ctx.quick, ctx.store_path, ctx.work_dir, ctx.progress, ctx.seeds, ctx.device, ctx.dtype, ctx.executor,
            ctx.address, ctx.extended) == (True, None, None, False, None, "cpu", "float32", "local", None, False)
    # seeds: the caller's (1 taken as it is), else 2 quick and 3 full
    assert [Context(quick=q, seeds=s).seed_count for q in (True, False) for s in (None, 1)] == [3, 1, 3, 1]


def _prepare(ctx):
    return None


@pytest.mark.parametrize(("field", "value"), [
    ("device", True), ("driver", True), ("prepare", _prepare), ("prepare_here", True), ("exclusive", True),
    ("extended", "trains 4 models for about 20 minutes on 2 cores"), ("quick_is_full", True)])
def test_each_keyword_of_the_decorator_reaches_its_own_field(field, value):
    """``@experiment(name, field=value)`` records ``value`` in that field of the registered record and leaves every
    other field at its default: the scheduler and the page read these fields (an ``extended`` sentence that did
    not arrive would run a long experiment inside the report's budget)."""
    from posenc.report.experiments.base import EXPERIMENTS, Experiment, experiment

    def fn(ctx):
        return None

    try:
        experiment("test_keyword", **{field: value})(fn)
        assert EXPERIMENTS["test_keyword"] == Experiment("test_keyword", fn, **{field: value})
        assert getattr(EXPERIMENTS["test_keyword"], field) == value
    finally:
        EXPERIMENTS.pop("test_keyword", None)
