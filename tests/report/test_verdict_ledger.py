"""The ledger's criteria on hand-made numbers: each verdict, the edges of each threshold, and bad numbers."""

from __future__ import annotations

import math

import pytest

from posenc.errors import PosencError
from posenc.report.experiments import EXPERIMENTS
from posenc.report.ledger import (
    CHANCE_SDS,
    LEARNED,
    LEDGER,
    NOPE_PAPER_MRR,
    TIE,
    _spearman,
    claim_ids,
    get_claim,
    mean_reciprocal_rank,
)
from posenc.report.verdict import STATUSES, Verdict, qualified


def judge(claim_id: str, numbers: dict) -> Verdict:
    return get_claim(claim_id).judge(numbers)


def test_every_claim_names_a_registered_experiment_and_ids_are_unique():
    ids = claim_ids()
    assert len(ids) == len(set(ids))
    assert len(ids) >= 23
    missing = [c.id for c in LEDGER if c.experiment not in EXPERIMENTS]
    assert missing == []


def test_verdict_validates_status_and_condition():
    with pytest.raises(PosencError, match="must be one of"):
        Verdict("true", "x")
    with pytest.raises(PosencError, match="condition"):
        Verdict("qualified", "x")
    v = qualified("only at d >= 128", "numbers")
    assert v.label == "qualified: only at d >= 128"
    assert set(STATUSES) == {"supported", "qualified", "refuted", "not testable", "failed"}


def test_unknown_claim_lists_the_valid_ids():
    with pytest.raises(PosencError, match="word-order"):
        get_claim("no-such-claim")


def test_criterion_that_cannot_read_its_numbers_raises_a_clear_error():
    with pytest.raises(PosencError, match="could not read the numbers"):
        judge("sin-bounded", {"max": 1.0})


def _order(blind: float, sees: float, causal: float) -> dict:
    return {"cases": {"nope_encoder": {"equivariance_max": blind},
                      "sinusoidal_encoder": {"equivariance_min": sees}, "rope_encoder": {"equivariance_min": sees},
                      "nope_decoder": {"equivariance_min": causal}}}


def test_word_order_verdicts():
    assert judge("word-order", _order(1e-7, 0.5, 1e-7)).status == "supported"
    v = judge("word-order", _order(1e-7, 0.5, 0.8))
    assert v.status == "qualified" and "causal" in v.condition
    assert judge("word-order", _order(0.1, 0.5, 0.8)).status == "refuted"  # blind model is not blind
    assert judge("word-order", _order(1e-7, 1e-4, 0.8)).status == "refuted"  # positions change nothing


def _bounded(max_abs: float) -> dict:
    return {"max_abs": max_abs, "positions_checked": 10, "largest_position": 1e9, "integer_max_same_positions": 9.0}


def test_bounded_edge():
    assert judge("sin-bounded", _bounded(1.0)).status == "supported"
    assert judge("sin-bounded", _bounded(1.0 + 1e-7)).status == "supported"  # float32 rounding of 1
    assert judge("sin-bounded", _bounded(1.01)).status == "refuted"


def _geometry(mean_cos: float, angle: float, overlap: float, dim: int = 384) -> dict:
    k = {str(k): {"overlap": overlap, "random": 0.01} for k in (5, 10, 20)}
    return {"dim": dim, "mean_angle_deg": angle, "mean_cos": mean_cos, "std_cos": 0.05,
            "chance_std": 1 / math.sqrt(dim), "centred": {"cos_mean": 0.0}, "subspace_overlap": k}


def test_near_orthogonal_verdicts_use_chance_baseline():
    sd = 1 / math.sqrt(384)
    assert judge("near-orthogonal", _geometry(0.5 * sd, 89.0, 0.001)).status == "supported"
    assert judge("near-orthogonal", _geometry(CHANCE_SDS * sd, 88.0, 0.001)).status == "supported"  # edge: <=
    v = judge("near-orthogonal", _geometry(0.5 * sd, 89.0, 0.02))  # chance-level, no subspace separation
    assert v.status == "qualified" and "chance" in v.condition
    # MiniLM-like: 2.5 chance SDs off, 82.7 degrees, subspaces separated -> qualified, names the offset
    v = judge("near-orthogonal", _geometry(0.1267, 82.7, 0.001))
    assert v.status == "qualified" and "82.7" in v.condition
    assert judge("near-orthogonal", _geometry(0.1267, 82.7, 0.02)).status == "qualified"
    assert judge("near-orthogonal", _geometry(0.5, 60.0, 0.001)).status == "refuted"


def _terms(ww: float, pp: float, wp: float, pw: float, err: float = 1e-6) -> dict:
    return {"ww_std": ww, "pp_std": pp, "wp_std": wp, "pw_std": pw, "reconstruction_error": err}


def test_four_terms_weak_thresholds():
    # cross / main = ((0.1 + 0.1) / 2) / ((1 + 1) / 2) = 0.1 < 0.5
    assert judge("four-terms-weak", _terms(1, 1, 0.1, 0.1)).status == "supported"
    # (0.6 + 0.6) / 2 / 1 = 0.6: weaker, same order
    assert judge("four-terms-weak", _terms(1, 1, 0.6, 0.6)).status == "qualified"
    assert judge("four-terms-weak", _terms(1, 1, 1.5, 1.5)).status == "refuted"
    assert judge("four-terms-weak", _terms(1, 1, 0.1, 0.1, err=0.5)).status == "not testable"


def test_heads_and_voita():
    base = {"total_heads": 72, "voita_threshold": 0.9, "prev_heads_50": 2, "next_heads_50": 1,
            "best_head": {"layer": 0, "head": 2, "offset": -1, "fraction": 0.93}}
    # no head meets the 90% rule: refuted, however close the best head comes
    assert judge("positional-heads", {**base, "positional_heads": 0, "positional_offsets": []}).status == "refuted"
    assert judge("positional-heads", {**base, "positional_heads": 3,
                                      "positional_offsets": [-1, 1, 1]}).status == "supported"
    assert judge("voita-heads", {**base, "positional_heads": 3, "positional_offsets": [-1, 1, 1]}).status == \
        "supported"
    assert judge("voita-heads", {**base, "positional_heads": 2, "positional_offsets": [-1, 3]}).status == "qualified"


def _readout(gaps: dict[int, float]) -> dict:
    readout = {str(d): {"add_token": 1.0 - g, "add_position": 1.0, "concat_token": 1.0, "concat_position": 1.0}
               for d, g in gaps.items()}
    return {"add_width": 64, "concat_width": 128, "d_model": 64, "add_parameters": 10, "concat_parameters": 20,
            "readout": readout, "vocab": 64, "length": 64}


def test_add_vs_concat_names_the_width_it_needs():
    assert judge("add-vs-concat", _readout({8: 0.0, 128: 0.01})).status == "supported"
    v = judge("add-vs-concat", _readout({8: 0.8, 32: 0.5, 128: 0.0}))
    assert v.status == "qualified" and "d >= 128" in v.condition
    assert judge("add-vs-concat", _readout({8: 0.8, 128: 0.3})).status == "refuted"  # loses even when wide
    bad = _readout({8: 0.0})
    bad["add_width"] = 128  # adding changed the width
    assert judge("add-vs-concat", bad).status == "refuted"


def test_learned_beats_fixed_counts_wins_with_ties():
    def numbers(pairs):
        return {"per_task": {f"t{i}": {"learned": a, "sinusoidal": b} for i, (a, b) in enumerate(pairs)}}

    assert judge("learned-beats-fixed", numbers([(0.95, 0.85), (0.9, 0.85), (0.85, 0.9)])).status == "supported"
    assert judge("learned-beats-fixed", numbers([(0.85, 0.95), (0.8, 0.9), (0.95, 0.85)])).status == "refuted"
    # a difference of TIE / 2 is a tie: 1 win, 0 losses, 1 tie of 2 -> not "most"
    assert judge("learned-beats-fixed", numbers([(0.95, 0.85), (0.9 + TIE / 2, 0.9)])).status == "qualified"
    assert judge("learned-beats-fixed", numbers([(0.95, 0.85)])).status == "not testable"
    # tasks no model learned (best < LEARNED) do not count: only one learned task left
    v = judge("learned-beats-fixed", numbers([(0.95, 0.85), (0.5, 0.3), (LEARNED - 0.01, 0.2)]))
    assert v.status == "not testable"


def test_mean_reciprocal_rank_by_hand():
    # task a: x 0.9 (rank 1), y 0.5 (rank 2); task b: y 0.8 (1), x 0.8 (tie -> 1) -> x (1 + 1)/2, y (1/2 + 1)/2
    mrr = mean_reciprocal_rank({"a": {"x": 0.9, "y": 0.5}, "b": {"x": 0.8, "y": 0.8}})
    assert mrr == {"x": 1.0, "y": 0.75}


def test_spearman_and_nope_ranking():
    assert _spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert _spearman([3, 2, 1], [10, 20, 30]) == pytest.approx(-1.0)
    learned = {"t": {k: 0.95 for k in NOPE_PAPER_MRR}}
    assert judge("nope-ranking", {"long_accuracy": {"t": dict(NOPE_PAPER_MRR)},
                                  "in_distribution": learned}).status == "supported"
    reversed_acc = {k: 1 - v for k, v in NOPE_PAPER_MRR.items()}
    assert judge("nope-ranking", {"long_accuracy": {"t": reversed_acc}, "in_distribution": learned}).status == \
        "refuted"
    unlearned = {"t": {k: 0.3 for k in NOPE_PAPER_MRR}}
    assert judge("nope-ranking", {"long_accuracy": {"t": dict(NOPE_PAPER_MRR)},
                                  "in_distribution": unlearned}).status == "not testable"
    two = {"t": {"nope": 1.0, "rope": 0.5}}
    assert judge("nope-ranking", {"long_accuracy": two, "in_distribution": two}).status == "not testable"


def test_rope_extrapolation_ratio_edges():
    def numbers(train, long):
        return {"rope_train": train, "rope_long": long, "metric": "token accuracy", "long_factor": 2.0,
                "learned_long": None}

    assert judge("rope-extrapolates", numbers(0.9, 0.855)).status == "supported"  # ratio 0.95
    assert judge("rope-extrapolates", numbers(0.9, 0.5)).status == "qualified"
    assert judge("rope-extrapolates", numbers(0.9, 0.1)).status == "refuted"
    assert judge("rope-extrapolates", numbers(0.1, 0.1)).status == "not testable"  # never learned
    assert judge("rope-extrapolates", numbers(LEARNED - 0.01, 0.7)).status == "not testable"


def test_alibi_shape_and_pi_yarn():
    assert judge("alibi-table", {"ppl_growth": {"alibi": 0.95, "rope": 3.0, "sinusoidal": 17.0}}).status == \
        "supported"
    assert judge("alibi-table", {"ppl_growth": {"alibi": 0.95, "rope": 30.0, "sinusoidal": 17.0}}).status == \
        "qualified"
    assert judge("alibi-table", {"ppl_growth": {"alibi": 5.0, "rope": 3.0, "sinusoidal": 17.0}}).status == "refuted"
    assert judge("alibi-table", {"ppl_growth": {"rope": 3.0}}).status == "not testable"
    pk = {"none": 0.0, "yarn": 1.0}
    assert judge("pi-yarn", {"ran": False, "reason": "quick mode"}).status == "not testable"
    assert judge("pi-yarn", {"ran": True, "ppl_native": 10.0, "ppl_long": {"none": 100.0, "yarn": 12.0}, "long_factor": 4,
                             "passkey_long": pk}).status == "supported"
    assert judge("pi-yarn", {"ran": True, "ppl_native": 10.0, "ppl_long": {"none": 100.0, "yarn": 40.0}, "long_factor": 4,
                             "passkey_long": pk}).status == "qualified"
    assert judge("pi-yarn", {"ran": True, "ppl_native": 10.0, "ppl_long": {"none": 100.0, "yarn": 140.0}, "long_factor": 4,
                             "passkey_long": pk}).status == "refuted"


def test_magnitude_and_learned_max_len():
    m = {"minilm_word_norm": 1.07, "minilm_position_norm": 0.47, "minilm_position_to_word_norm": 0.44,
         "sinusoid_rms": 0.707, "sinusoid_to_scaled_init_rms": 1.56}
    assert judge("small-magnitude", m).status == "qualified"
    assert judge("small-magnitude", {**m, "sinusoid_to_scaled_init_rms": 0.5}).status == "supported"
    assert judge("small-magnitude", {**m, "minilm_position_to_word_norm": 1.2}).status == "refuted"
    ok = {"ran_at_max_len": True, "failed_past_max_len": ["a"], "ran_past_max_len": []}
    assert judge("learned-max-len", ok).status == "supported"
    assert judge("learned-max-len", {**ok, "ran_past_max_len": ["b"]}).status == "refuted"
    assert judge("learned-max-len", {**ok, "ran_at_max_len": False}).status == "not testable"
