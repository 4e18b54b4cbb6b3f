"""The claims ledger: every claim posenc tests, as data.

One :class:`Claim` per claim: where it is made (seed document and section, or paper), the claim in one sentence,
the experiment that tests it (a name in :mod:`posenc.report.experiments`), and the pass criterion, a function of the
experiment's measured numbers returning a :class:`~posenc.report.verdict.Verdict`. Thresholds are named constants
with their reason; nothing here knows what a run will measure.

Seeds: 000 (why Transformers need positions; naive encodings), 001 (sin/cos properties; MiniLM/BERT geometry;
FFN and attention), 002 (absolute encodings: local/global dims, learned tables), 003 (input layer: add vs concat,
learned vs fixed, RoPE). Papers: see ``shared/reference/FACTS.md`` §4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from posenc.errors import PosencError
from posenc.report.verdict import Verdict, not_testable, qualified, refuted, supported

__all__ = ["Claim", "LEDGER", "get_claim", "claim_ids", "mean_reciprocal_rank"]

Numbers = dict[str, Any]

#: a difference below this (relative to the outputs' scale) is float32 round-off: "the same"
SAME = 1e-5
#: a difference above this is a real difference, far above round-off
DIFFERENT = 1e-3


@dataclass(frozen=True)
class Claim:
    """One claim and how it is judged.

    Attributes:
        id: short stable slug (used in the page's anchors and as the store key ``report:<id>``).
        source: where the claim is made, e.g. ``"seed 001 §3.1"``.
        title: a few words for the summary table.
        claim: the claim in one sentence.
        experiment: name of the experiment that tests it.
        criterion: ``numbers -> Verdict``.
        criterion_text: the pass criterion in words (shown on the page).
        revision: bump when the experiment or its sizes change, so stored results are recomputed.
    """

    id: str
    source: str
    title: str
    claim: str
    experiment: str
    criterion: Callable[[Numbers], Verdict]
    criterion_text: str
    revision: int = 1

    def judge(self, numbers: Numbers) -> Verdict:
        """The verdict from measured numbers. A criterion that cannot read its numbers raises ``PosencError``."""
        try:
            return self.criterion(numbers)
        except (KeyError, TypeError, IndexError, ZeroDivisionError) as exc:
            raise PosencError(f"claim {self.id}: the criterion could not read the numbers of experiment "
                              f"{self.experiment!r} ({type(exc).__name__}: {exc}); the experiment's output changed "
                              f"— bump the claim's revision and re-run") from exc


def _fmt(x: float) -> str:
    return f"{x:.3g}"


# ---------------------------------------------------------------------------------------------------------------
# seed 000
# ---------------------------------------------------------------------------------------------------------------
def _word_order(n: Numbers) -> Verdict:
    c = n["cases"]
    blind = c["nope_encoder"]["equivariance_max"]
    sees = min(c["sinusoidal_encoder"]["equivariance_min"], c["rope_encoder"]["equivariance_min"])
    causal = c["nope_decoder"]["equivariance_min"]
    if blind >= SAME:
        return refuted(f"a bidirectional model without positions still tells the orders apart (difference "
                       f"{_fmt(blind)} >= {SAME})")
    if sees <= DIFFERENT:
        return refuted(f"adding positions did not change the outputs (difference {_fmt(sees)})")
    reason = (f"without positions a bidirectional model only reorders its outputs (largest difference "
              f"{_fmt(blind)}, round-off); with the sinusoid or RoPE the difference is at least {_fmt(sees)}")
    if causal > DIFFERENT:
        return qualified("for bidirectional (encoder) self-attention; a causal mask alone breaks the symmetry",
                         reason + f"; but a causal decoder without positions differs by {_fmt(causal)}, so it "
                                  f"can tell the orders apart (Kazemnejad et al. 2023)")
    return supported(reason)


def _naive_integer(n: Numbers) -> Verdict:
    flaws = {
        "grows with length": n["max_value_test"] > 2 * n["max_value_train"],
        "swamps a unit-scale embedding": n["rms_ratio_test"] > 10,
        "values unseen in training": n["unseen_fraction_test"] > 0.5,
        "no p-independent relative map": n["relative_map_residual"] > 100 * max(n["sinusoid_relative_map_residual"],
                                                                                 1e-12),
    }
    found = [k for k, v in flaws.items() if v]
    text = (f"largest value {_fmt(n['max_value_train'])} at length {n['train_len']} and {_fmt(n['max_value_test'])} "
            f"at {n['test_len']}; RMS {_fmt(n['rms_ratio_test'])}x a unit embedding; relative-map residual "
            f"{_fmt(n['relative_map_residual'])} vs {_fmt(n['sinusoid_relative_map_residual'])} for the sinusoid")
    if len(found) == len(flaws):
        return supported(text)
    if found:
        return qualified(f"only these flaws show: {', '.join(found)}", text)
    return refuted(text)


def _naive_normalized(n: Numbers) -> Verdict:
    ratio = n["step_ratio_shortest_longest"]
    text = f"the neighbour step is {ratio:.0f}x larger at n=3 than at n=1000; position 2 is coded differently"
    return supported(text) if ratio > 2 else refuted(f"the step barely depends on length (ratio {_fmt(ratio)})")


def _naive_binary(n: Numbers) -> Verdict:
    jumpy = n["neighbour_distance_max"] >= 2 * n["neighbour_distance_min"] and n["neighbour_distance_cv"] > 0.1
    no_map = n["relative_map_residual"] > 0.05
    text = (f"neighbours are {_fmt(n['neighbour_distance_min'])} to {_fmt(n['neighbour_distance_max'])} apart "
            f"(spread {_fmt(n['neighbour_distance_cv'])} vs {_fmt(n['sinusoid_neighbour_distance_cv'])} for the "
            f"sinusoid); best 2x2 relative maps leave residual {_fmt(n['relative_map_residual'])}")
    if jumpy and no_map:
        return supported(text)
    if jumpy or no_map:
        return qualified("discontinuous" if jumpy else "no linear relative map", text)
    return refuted(text)


# ---------------------------------------------------------------------------------------------------------------
# seed 001 §3: properties of the sinusoid
# ---------------------------------------------------------------------------------------------------------------
def _bounded(n: Numbers) -> Verdict:
    text = (f"largest |value| {n['max_abs']:.6g} over {n['positions_checked']} positions up to "
            f"{n['largest_position']:.3g} (the integer code reaches {_fmt(n['integer_max_same_positions'])})")
    return supported(text) if n["max_abs"] <= 1 + 1e-6 else refuted(text)


def _unique(n: Numbers) -> Verdict:
    d = n["min_pairwise_distance"]
    text = (f"smallest distance between two of {n['length']} positions is {_fmt(d)} (neighbours are "
            f"{_fmt(n['neighbour_distance'])} apart); {n['distinct_rows_float32']} distinct float32 rows")
    if d > 1e-3 and n["distinct_rows_float32"] == n["length"]:
        return supported(text)
    if d > 0:
        return qualified("distinct, but some positions nearly collide", text)
    return refuted(text)


def _relative_linear(n: Numbers) -> Verdict:
    text = (f"one 2x2 map per pair predicts PE[p+k] from PE[p] with residual <= {_fmt(n['max_residual'])} "
            f"(random table: >= {_fmt(n['min_random_residual'])}, binary: >= {_fmt(n['min_binary_residual'])}); "
            f"maps fitted on either half differ by <= {_fmt(n['max_half_difference'])} and match the rotation "
            f"R(k w) to {_fmt(n['max_vs_rotation'])}")
    if n["min_random_residual"] < 0.1:
        return not_testable("the baseline also fits a linear map, so the test cannot tell encodings apart")
    ok = n["max_residual"] < SAME and n["max_half_difference"] < DIFFERENT and n["max_vs_rotation"] < DIFFERENT
    return supported(text) if ok else refuted(text)


def _local_global(n: Numbers) -> Verdict:
    local = n["step_ratio_low_high"] > 10
    glob = n["high_position_r2"] > 0.9 and n["low_position_r2"] < 0.5
    text = (f"neighbours move {n['step_ratio_low_high']:.0f}x more in the lowest quarter of dims; a linear read-out "
            f"of p gets R^2 {n['high_position_r2']:.3f} from the highest quarter vs {n['low_position_r2']:.3f} "
            f"from the lowest")
    if local and glob:
        return supported(text)
    if local or glob:
        return qualified("only the local part" if local else "only the global part", text)
    return refuted(text)


# ---------------------------------------------------------------------------------------------------------------
# seed 001 §4-5: pretrained geometry, attention terms, heads, FFN
# ---------------------------------------------------------------------------------------------------------------
#: a mean cosine within this many chance standard deviations of 0 is "as orthogonal as random directions"
CHANCE_SDS = 2.0
#: below this mean angle, "nearly orthogonal" no longer describes the pair of sets
NEAR_ORTHOGONAL_DEG = 75.0


#: top-k subspaces "more orthogonal than chance" when their overlap is below this fraction of random subspaces
SUBSPACE_RATIO = 0.5


def _orthogonal(n: Numbers) -> Verdict:
    z = abs(n["mean_cos"]) / n["chance_std"]
    ks = [k for k in ("5", "10", "20") if k in n["subspace_overlap"]]
    ratio = (sum(n["subspace_overlap"][k]["overlap"] / n["subspace_overlap"][k]["random"] for k in ks) / len(ks)
             if ks else float("nan"))
    separated = ratio <= SUBSPACE_RATIO
    text = (f"mean angle {n['mean_angle_deg']:.2f}° (mean cosine {n['mean_cos']:.4f}, std {n['std_cos']:.4f}); "
            f"random directions in d={n['dim']} give 90° with cosine std {n['chance_std']:.4f}, so the mean cosine "
            f"is {z:.1f} chance standard deviations from 0 (after centring both sets: {n['centred']['cos_mean']:.4f})"
            f"; the top-5/10/20 PCA subspaces overlap {ratio:.2f}x as much as random subspaces")
    if z <= CHANCE_SDS and separated:
        return supported(text)
    if z <= CHANCE_SDS:
        return qualified("only at chance level: as orthogonal as any random vectors, no sign of learned separation",
                         text)
    if n["mean_angle_deg"] >= NEAR_ORTHOGONAL_DEG and separated:
        return qualified(f"as subspaces: the main directions of words and positions are more orthogonal than random "
                         f"ones, but the vectors share an offset (mean angle {n['mean_angle_deg']:.1f}°, not 90°)",
                         text)
    if n["mean_angle_deg"] >= NEAR_ORTHOGONAL_DEG:
        return qualified(f"nearly orthogonal only in the loose sense: {n['mean_angle_deg']:.1f}° is measurably less "
                         f"orthogonal than chance", text)
    return refuted(text)


#: word-position terms are "weak" when their spread is below this fraction of the word-word and position-position
WEAK_RATIO = 0.5


def _four_terms(n: Numbers) -> Verdict:
    cross = (n["wp_std"] + n["pw_std"]) / 2
    main = (n["ww_std"] + n["pp_std"]) / 2
    ratio = cross / main
    text = (f"spread of the first-layer logit terms: word-word {_fmt(n['ww_std'])}, position-position "
            f"{_fmt(n['pp_std'])}, word-position {_fmt(n['wp_std'])}, position-word {_fmt(n['pw_std'])}; "
            f"cross terms / main terms = {ratio:.2f}; the four terms add up to the logits within "
            f"{_fmt(n['reconstruction_error'])}")
    if n["reconstruction_error"] > DIFFERENT:
        return not_testable(f"the four terms do not add up to the logits (error {_fmt(n['reconstruction_error'])})")
    if ratio < WEAK_RATIO:
        return supported(text)
    if ratio < 1:
        return qualified("weaker than the main terms, but of the same order", text)
    return refuted(text)


def _best_head(n: Numbers) -> str:
    b = n["best_head"]
    return (f"the most positional head (layer {b['layer']}, head {b['head']}) has its maximum at offset "
            f"{b['offset']:+d} for {b['fraction']:.1%} of queries")


def _positional_heads(n: Numbers) -> Verdict:
    text = (f"{n['positional_heads']} of {n['total_heads']} heads put their maximum on one fixed offset at least "
            f"{n['voita_threshold']:.0%} of the time (offsets: {n['positional_offsets'] or 'none'}); "
            + _best_head(n))
    if n["positional_heads"] >= 1:
        return supported(text)
    return refuted(text)


def _voita(n: Numbers) -> Verdict:
    offsets = n["positional_offsets"]
    text = (f"{n['positional_heads']} positional heads (Voita: >= {n['voita_threshold']:.0%} max on one offset) at "
            f"offsets {offsets or 'none'}; heads with > 50% attention on the previous / next token: "
            f"{n['prev_heads_50']} / {n['next_heads_50']} of {n['total_heads']} (Clark et al. 2019, BERT-base: "
            f"4 / 5 of 144); " + _best_head(n))
    if not offsets:
        return refuted(text)
    if all(abs(o) == 1 for o in offsets):
        return supported(text)
    return qualified("positional heads exist, but some look further than one token", text)


#: word-position terms "look uniform" when they explain less than this share of the logits' variance
UNIFORM_SHARE = 0.1


def _tupe(n: Numbers) -> Verdict:
    share = n["cross_variance_share"]
    text = (f"word-position + position-word terms explain {share:.1%} of the variance of the first-layer logits "
            f"(word-word {n['ww_variance_share']:.1%}, position-position {n['pp_variance_share']:.1%})")
    if share < UNIFORM_SHARE:
        return supported(text)
    if share < 0.5:
        return qualified(f"small but not negligible (>= {UNIFORM_SHARE:.0%} of the variance)", text)
    return refuted(text)


def _ffn_blind(n: Numbers) -> Verdict:
    text = (f"permuting the inputs permutes the FFN's outputs exactly (difference {_fmt(n['ffn_permutation_error'])}; "
            f"same vector at two positions: {_fmt(n['ffn_same_vector_error'])}); a block with RoPE attention differs "
            f"by {_fmt(n['rope_block_permutation_error'])}")
    if n["rope_block_permutation_error"] <= DIFFERENT:
        return not_testable("the position-aware baseline was also permutation-equivariant: the test cannot fail")
    blind = max(n["ffn_permutation_error"], n["ffn_same_vector_error"]) < SAME * max(n["output_scale"], 1.0)
    return supported(text) if blind else refuted(text)


# ---------------------------------------------------------------------------------------------------------------
# seeds 002, 003: learned tables, adding, magnitude, extrapolation
# ---------------------------------------------------------------------------------------------------------------
def _learned_max_len(n: Numbers) -> Verdict:
    text = (f"runs at max_len: {n['ran_at_max_len']}; refuses past it: {', '.join(n['failed_past_max_len']) or 'none'}"
            f"; ran past it: {', '.join(n['ran_past_max_len']) or 'none'}")
    if not n["ran_at_max_len"]:
        return not_testable("the models did not even run at max_len, so the limit is not what stopped them")
    if n["ran_past_max_len"]:
        return refuted(text)
    return supported(text)


def _sin_extrapolates(n: Numbers) -> Verdict:
    ok = (n["far_all_finite"] and n["far_max_abs"] <= 1 + 1e-6 and n["transfer_residual"] < SAME
          and n["far_min_distance"] > 1e-3)
    text = (f"at positions {n['far_start']}+ values stay in [-1, 1], stay distinct (min distance "
            f"{_fmt(n['far_min_distance'])}), and the 2x2 maps fitted on 0..{n['train_len'] - 1} still hold "
            f"(residual {_fmt(n['transfer_residual'])}); the learned table {'runs' if n['learned_runs_far'] else 'raises'}"
            f" there")
    return supported(text) if ok else refuted(text)


def _add_vs_concat(n: Numbers) -> Verdict:
    keeps = n["add_width"] == n["d_model"] and n["concat_width"] > n["d_model"]
    gaps = {int(d): max(r["concat_token"] - r["add_token"], r["concat_position"] - r["add_position"])
            for d, r in n["readout"].items()}
    widest = max(gaps)
    lossless = [d for d, g in sorted(gaps.items()) if g <= 0.02]
    text = (f"add keeps width {n['add_width']} (concat: {n['concat_width']}, parameters "
            f"{n['add_parameters']:,} vs {n['concat_parameters']:,}); accuracy lost by adding (largest of token, "
            f"position) per width: " + ", ".join(f"d={d}: {g:.3f}" for d, g in sorted(gaps.items())))
    if not keeps:
        return refuted(text)
    if gaps[widest] > 0.02:
        return refuted(text)
    if all(g <= 0.02 for g in gaps.values()):
        return supported(text)
    return qualified(f"no information lost only when the width is large enough (here d >= {min(lossless)} for "
                     f"{n['vocab']} tokens x {n['length']} positions)", text)


def _magnitude(n: Numbers) -> Verdict:
    trained = n["minilm_position_to_word_norm"]
    fixed = n["sinusoid_to_scaled_init_rms"]
    text = (f"all-MiniLM-L6-v2: position vectors are {trained:.2f}x the norm of word vectors "
            f"({n['minilm_position_norm']:.2f} vs {n['minilm_word_norm']:.2f}); the sinusoid's RMS "
            f"{n['sinusoid_rms']:.3f} is {fixed:.2f}x that of a GPT-2-style embedding (std 0.02) scaled by "
            f"sqrt(d) as in Vaswani et al.")
    if trained < 1 and fixed < 1:
        return supported(text)
    if trained < 1:
        return qualified("in the trained model; the fixed sinusoid is larger than a typical initial embedding", text)
    return refuted(text)


# ---------------------------------------------------------------------------------------------------------------
# trained small models (lab) and context extension (extend)
# ---------------------------------------------------------------------------------------------------------------
#: accuracy within this margin is a tie
TIE = 0.01
#: a model "learned" a task when its token accuracy at the trained sizes reaches this; below it a comparison of
#: encodings measures how fast each trains, not what the encoding allows
LEARNED = 0.8


def _learned_beats_fixed(n: Numbers) -> Verdict:
    per_task = n["per_task"]  # task -> {"learned": acc, "sinusoidal": acc}
    learned = {t: r for t, r in per_task.items() if max(r["learned"], r["sinusoidal"]) >= LEARNED}
    if len(learned) < 2:
        return not_testable(f"on only {len(learned)} of {len(per_task)} tasks did either model reach token accuracy "
                            f"{LEARNED:g} at the trained sizes; 'most tasks' needs several learned tasks")
    wins = [t for t, r in learned.items() if r["learned"] > r["sinusoidal"] + TIE]
    losses = [t for t, r in learned.items() if r["sinusoidal"] > r["learned"] + TIE]
    text = ("in-distribution token accuracy, learned vs sinusoid: " + "; ".join(
        f"{t} {r['learned']:.2f} vs {r['sinusoidal']:.2f}" for t, r in per_task.items())
            + f" — on the {len(learned)} learned tasks, learned wins {len(wins)}, loses {len(losses)}, ties "
              f"{len(learned) - len(wins) - len(losses)}")
    if len(wins) > len(learned) / 2:
        return supported(text)
    if len(losses) > len(learned) / 2:
        return refuted(text)
    return qualified("no clear winner: learned wins on at most half of the tasks", text)


def _rope_extrapolates(n: Numbers) -> Verdict:
    ratio = n["rope_long"] / max(n["rope_train"], 1e-9)
    text = (f"RoPE {n['metric']}: {n['rope_train']:.3f} at the trained lengths, {n['rope_long']:.3f} at "
            f"{n['long_factor']:g}x longer ({ratio:.2f} of it); learned table: "
            f"{n['learned_long'] if n['learned_long'] is not None else 'cannot run'}")
    others = {k: v for k, v in n.get("others_long", {}).items() if v is not None}
    if others:
        text += "; the other encodings past the trained sizes: " + ", ".join(f"{k} {v:.3f}" for k, v in others.items())
    if n["rope_train"] < LEARNED:
        return not_testable(f"RoPE did not learn the tasks at the trained sizes (token accuracy "
                            f"{n['rope_train']:.2f} < {LEARNED:g}), so its accuracy past them says little")
    if ratio >= 0.9:
        return supported(text)
    if ratio >= 0.5:
        return qualified("only partly: it runs past the trained length but loses accuracy", text)
    return refuted(text + "; it runs, but does not generalise")


def _alibi_shape(n: Numbers) -> Verdict:
    growth = n["ppl_growth"]  # encoding -> ppl at longest / ppl at trained length
    text = "perplexity at the longest length / at the trained length: " + ", ".join(
        f"{k} {v:.2f}" for k, v in growth.items()) + " (ALiBi paper at 20x: sinusoidal 17.0, rotary 3.03, ALiBi 0.93)"
    if "alibi" not in growth or len(growth) < 2:
        return not_testable("ALiBi and at least one other encoding are needed")
    flattest = min(growth, key=growth.get)
    steepest = max(growth, key=growth.get)
    if flattest == "alibi" and steepest == "sinusoidal":
        return supported(text)
    if flattest == "alibi":
        return qualified(f"ALiBi is flattest, but {steepest} degrades faster than the sinusoid", text)
    return refuted(text)


#: Kazemnejad et al. 2023, mean reciprocal rank over tasks (FACTS.md §4)
NOPE_PAPER_MRR = {"nope": 0.69, "t5": 0.55, "alibi": 0.50, "rope": 0.33, "sinusoidal": 0.22}


def _spearman(a: list[float], b: list[float]) -> float:
    def ranks(x: list[float]) -> list[float]:
        order = sorted(range(len(x)), key=lambda i: x[i])
        r = [0.0] * len(x)
        for rank, i in enumerate(order):
            r[i] = float(rank)
        return r

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 0.0


def mean_reciprocal_rank(accuracy: dict[str, dict[str, float]]) -> dict[str, float]:
    """``{encoding: mean over tasks of 1 / rank}``, ranking encodings per task by ``accuracy[task][encoding]``
    (Kazemnejad et al. 2023's summary; ties share the better rank)."""
    reciprocal: dict[str, list[float]] = {}
    for scores in accuracy.values():
        for e, v in scores.items():
            rank = 1 + sum(other > v for other in scores.values())
            reciprocal.setdefault(e, []).append(1.0 / rank)
    return {e: sum(v) / len(v) for e, v in reciprocal.items()}


def _nope_ranking(n: Numbers) -> Verdict:
    learned = [t for t, scores in n["in_distribution"].items() if max(scores.values()) >= LEARNED]
    if not learned:
        return not_testable(f"no task was learned at the trained sizes (best token accuracy below {LEARNED:g})")
    mrr = {k: v for k, v in mean_reciprocal_rank({t: n["long_accuracy"][t] for t in learned}).items()
           if k in NOPE_PAPER_MRR}
    if len(mrr) < 3:
        return not_testable(f"only {len(mrr)} of the paper's encodings were trained")
    rho = _spearman([mrr[k] for k in mrr], [NOPE_PAPER_MRR[k] for k in mrr])
    text = (f"mean reciprocal rank over {len(learned)} learned task(s), by token accuracy past the trained sizes: "
            + ", ".join(f"{k} {v:.2f} (paper {NOPE_PAPER_MRR[k]:.2f})"
                        for k, v in sorted(mrr.items(), key=lambda kv: -kv[1]))
            + f"; rank correlation with the paper {rho:.2f}")
    if rho >= 0.7:
        return supported(text)
    if rho > 0:
        return qualified("the ranking only partly agrees with the paper's", text)
    return refuted(text)


#: a scaling "beats" no scaling when its perplexity is at most this fraction of the unscaled one
BEATS = 0.95


def _pi_yarn(n: Numbers) -> Verdict:
    if not n["ran"]:
        return not_testable(n["reason"])
    base = n["ppl_native"]
    none = n["ppl_long"]["none"]
    scaled = {k: v for k, v in n["ppl_long"].items() if k != "none"}
    if not scaled:
        return not_testable("no scaling was evaluated")
    best = min(scaled, key=scaled.get)
    text = (f"perplexity at the native length {base:.2f}; at {n['long_factor']:g}x: no scaling {none:.2f}, "
            + ", ".join(f"{k} {v:.2f}" for k, v in scaled.items())
            + "; passkey at the longest length: " + ", ".join(f"{k} {v:.0%}" for k, v in n["passkey_long"].items()))
    if scaled[best] <= BEATS * none and scaled[best] <= 1.5 * base:
        return supported(text)
    if scaled[best] <= BEATS * none:
        return qualified(f"without fine-tuning {best} helps but perplexity stays {scaled[best] / base:.1f}x the "
                         f"native value", text)
    return refuted(text)


# ---------------------------------------------------------------------------------------------------------------
# the ledger
# ---------------------------------------------------------------------------------------------------------------
LEDGER: tuple[Claim, ...] = (
    Claim("word-order", "seed 000 intro, §3.2", "No positions, no word order",
          "Without position information self-attention cannot tell \"I love you\" from \"you love I\".",
          "word_order", _word_order,
          "Supported if a bidirectional model without positions only permutes its outputs (difference < 1e-5) while "
          "the sinusoid or RoPE changes them (> 1e-3); qualified if a causal decoder without positions also tells "
          "the orders apart."),
    Claim("integer-positions", "seed 000 §2.1", "Integer positions fail",
          "Marking positions 1, 2, 3, ... grows without bound, swamps the embedding, leaves training range and "
          "cannot express relative position.",
          "naive_integer", _naive_integer,
          "Supported if all four flaws show: values grow with length, RMS > 10x a unit embedding, most test "
          "positions unseen in training, and no p-independent linear map PE[p] -> PE[p+1] (residual 100x the "
          "sinusoid's)."),
    Claim("unit-interval-positions", "seed 000 §2.2", "[0, 1] positions depend on length",
          "Squeezing positions into [0, 1] makes the distance between neighbours depend on the sequence length.",
          "naive_normalized", _naive_normalized,
          "Supported if the neighbour step at n=3 is more than twice the step at n=1000."),
    Claim("binary-positions", "seed 000 §2.3", "Binary positions jump",
          "Binary position vectors change discontinuously between neighbours, so relative position is hard to infer.",
          "naive_binary", _naive_binary,
          "Supported if neighbour distances vary (max >= 2x min, spread > 0.1) and no 2x2 linear map per channel pair "
          "predicts PE[p+1] (residual > 0.05)."),
    Claim("sin-bounded", "seed 001 §3.1", "Sin/cos values are bounded",
          "Sinusoidal position values always lie in [-1, 1].",
          "sinusoid_bounded", _bounded, "Supported if no value exceeds 1 in absolute value, at any position tested."),
    Claim("sin-unique", "seed 001 §3.2, seed 002", "Every position is unique",
          "Every position gets a different sinusoidal vector.",
          "sinusoid_unique", _unique,
          "Supported if the smallest distance between two positions exceeds 1e-3 and every float32 row is distinct."),
    Claim("sin-relative-linear", "seed 001 §3.3", "PE[p+k] is linear in PE[p]",
          "For every offset k, PE[p+k] is a fixed linear function (a rotation per channel pair) of PE[p], the same "
          "for every p.",
          "sinusoid_relative_linear", _relative_linear,
          "Supported if the least-squares maps leave residual < 1e-5, maps fitted on either half of the positions "
          "agree and match the rotation to 1e-3, while a random table leaves residual > 0.1."),
    Claim("local-global-dims", "seed 002", "Low dims local, high dims global",
          "Low (fast) dimensions of the sinusoid capture local position, high (slow) dimensions global position.",
          "sinusoid_local_global", _local_global,
          "Supported if neighbours move > 10x more in the lowest quarter of dims than in the highest, and a linear "
          "read-out recovers the position from the highest quarter (R^2 > 0.9) but not from the lowest (< 0.5)."),
    Claim("near-orthogonal", "seed 001 §4.1", "Words and positions nearly orthogonal",
          "In a pretrained BERT-family model, word embeddings and position embeddings are nearly orthogonal.",
          "minilm_geometry", _orthogonal,
          f"Supported if the mean word-position cosine is within {CHANCE_SDS:g} chance standard deviations "
          f"(1/sqrt(d)) of 0 and the top PCA subspaces overlap less than {SUBSPACE_RATIO:g}x as much as random "
          f"subspaces; qualified if only one holds (or the mean angle is still >= {NEAR_ORTHOGONAL_DEG:g}°); "
          f"refuted below that angle."),
    Claim("four-terms-weak", "seed 001 §5.2", "Word-position logit terms are weak",
          "Attention logits split into word-word, word-position, position-word and position-position terms, and the "
          "word-position ones are weak.",
          "minilm_four_terms", _four_terms,
          f"Supported if the spread of the cross terms is below {WEAK_RATIO:g}x that of the word-word and "
          f"position-position terms; qualified if below 1x."),
    Claim("positional-heads", "seed 001 §5.2", "Some heads are positional",
          "Some attention heads specialise in position.",
          "minilm_heads", _positional_heads,
          "Supported if at least one head of the pretrained model meets Voita et al.'s definition (max attention on "
          "one fixed relative offset >= 90% of the time); refuted otherwise."),
    Claim("ffn-position-blind", "seed 001 §5.1", "The FFN is position-blind",
          "The position-wise FFN applies the same function at every position.",
          "ffn_position_blind", _ffn_blind,
          "Supported if permuting the FFN's inputs permutes its outputs exactly (difference < 1e-5) while a block "
          "with RoPE attention does not (> 1e-3)."),
    Claim("learned-max-len", "seed 002, seed 003 §14.8.3", "A learned table stops at max_len",
          "A learned position table trained with max_len = 512 cannot run a longer sequence.",
          "learned_max_len", _learned_max_len,
          "Supported if every learned model runs at max_len and refuses one token more (posenc's table, a "
          "Transformer on it, and all-MiniLM-L6-v2)."),
    Claim("sin-extrapolates-theory", "seed 003 §14.8.3", "The sinusoid extrapolates in theory",
          "The fixed sinusoid can in theory be extended to any length.",
          "sinusoid_extrapolation_theory", _sin_extrapolates,
          "Supported if far past the trained range the values stay bounded and distinct and the relative maps "
          "fitted inside it still hold (residual < 1e-5)."),
    Claim("learned-beats-fixed", "seed 003 §14.8.3", "Learned beats fixed on most tasks",
          "In practice a learned position table does better than the fixed sinusoid on most tasks.",
          "lab_learned_vs_fixed", _learned_beats_fixed,
          f"Among tasks learned at the trained sizes (token accuracy >= {LEARNED:g}), supported if learned beats the "
          f"sinusoid (by > {TIE:g}) on more than half; refuted if it loses on more than half; not testable with "
          f"fewer than 2 learned tasks."),
    Claim("add-vs-concat", "seed 003 §14.3", "Adding keeps the width, loses nothing",
          "Adding the position vector keeps d_model, and loses no information compared with concatenating it.",
          "add_vs_concat", _add_vs_concat,
          "Supported if add keeps the width and a linear read-out recovers token and position from the sum as well "
          "as from the concatenation (within 0.02) at every width; qualified if only at the larger widths."),
    Claim("small-magnitude", "seed 000 §3.3, seed 003 §14.8.2", "Positions are small next to words",
          "The position encoding's magnitude is small next to the word embedding's, so it does not drown it.",
          "magnitude", _magnitude,
          "Supported if position vectors are smaller than word vectors both in a trained model and for the fixed "
          "sinusoid against a standard initial embedding; qualified if only in the trained model."),
    Claim("rope-extrapolates", "seed 003 §14.6.3", "RoPE extrapolates",
          "RoPE can extrapolate to sequences longer than those seen in training.",
          "lab_rope_extrapolation", _rope_extrapolates,
          f"Supported if RoPE keeps >= 90% of its trained-size accuracy past the trained size; qualified at >= 50%; "
          f"refuted below; not testable if it did not learn the tasks (accuracy < {LEARNED:g})."),
    Claim("alibi-table", "Press et al. 2022 (ALiBi)", "ALiBi's table: flat past L",
          "Trained at length L, ALiBi's perplexity stays flat at longer lengths while the sinusoid's explodes and "
          "rotary's grows.",
          "lab_alibi_shape", _alibi_shape,
          "Supported if ALiBi has the flattest perplexity growth and the sinusoid the steepest."),
    Claim("nope-ranking", "Kazemnejad et al. 2023 (NoPE)", "NoPE ranks first at length generalisation",
          "On synthetic tasks, length generalisation ranks NoPE > T5 > ALiBi > Rotary > sinusoidal.",
          "lab_nope_ranking", _nope_ranking,
          f"Over tasks learned at the trained sizes (best accuracy >= {LEARNED:g}): supported if the Spearman rank "
          f"correlation of measured and published mean reciprocal ranks is >= 0.7; qualified if > 0."),
    Claim("voita-heads", "Voita et al. 2019; Clark et al. 2019", "Positional heads look at ±1",
          "Positional heads exist and point at the previous or the next token.",
          "minilm_heads", _voita,
          "Supported if positional heads exist (Voita's 90% rule) and all sit at offset -1 or +1; qualified if some "
          "sit elsewhere."),
    Claim("tupe-uniform", "Ke et al. 2021 (TUPE)", "Word-position terms carry little",
          "In BERT-family models the word-position and position-word terms of the first layer's logits look "
          "uniform (they carry little).",
          "minilm_four_terms", _tupe,
          f"Supported if the cross terms explain < {UNIFORM_SHARE:.0%} of the logits' variance; qualified below 50%."),
    Claim("pi-yarn", "Chen et al. 2023 (PI); Peng et al. 2023 (YaRN)", "PI / YaRN extend the context",
          "Position interpolation and YaRN let a RoPE model run past its trained context.",
          "extend_pi_yarn", _pi_yarn,
          f"Supported if the best scaling's perplexity past the native length is <= {BEATS:g}x that of no scaling "
          f"and within 1.5x the native perplexity; qualified if it only beats no scaling."),
)


def claim_ids() -> list[str]:
    return [c.id for c in LEDGER]


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; an unknown id lists the valid ones."""
    for claim in LEDGER:
        if claim.id == claim_id:
            return claim
    raise PosencError(f"unknown claim {claim_id!r}; known: {', '.join(claim_ids())}")


def _check_ledger() -> None:
    ids = claim_ids()
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise PosencError(f"duplicate claim ids in the ledger: {sorted(duplicates)}")


_check_ledger()
