"""The pages of :mod:`posenc.report.experiments.tutorial_semantics` (meaning, words and positions in all-MiniLM-L6-v2),
and :func:`output_rows`, the rows of the output reading that the model_head_content page
(:mod:`posenc.report.present.decoder`) shows for SmolLM2 too."""

from __future__ import annotations

from typing import Any

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tutorial_semantics import (
    CONCENTRATION_OPTIONS,
    NEARNESS,
    OUTPUT_BAR,
    POSITION_TOLERANCE,
    READING_KEYS,
    SHIFT_OPTIONS,
    WINDOW_LENGTH,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.stats import Estimate


@presents("minilm_analogies")
def minilm_analogies(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_semantics import analogy_figure

    numbers, found, pooled = m.numbers, m.numbers["analogies"], m.shown["pooled"]
    candidates = numbers["candidates"]
    rows = []
    for name, f in found.items():
        singles = ", ".join(f"{w} alone {r}" for w, r in f["single_word_ranks"].items())
        rows.append(Row(f"{name}: the target's rank among {candidates:,} tokens", f["rank"], 1,
                        f"nearest (Mikolov et al. 2013); {singles}"))
        rows.append(Row(f"{name}: the nearest words", ", ".join(f["nearest"]), None, ""))
    rows.append(Row("chance: median rank of a random target for a random triple", numbers["chance_median_rank"],
                    candidates / 2, "half the vocabulary"))
    for option in NEARNESS:
        rows.append(Row(f"chance of a hit, {option}", m.estimates[f"chance_hit_rate_{READING_KEYS[option]}"], None,
                        "random triples"))
    fig = analogy_figure({n: f["rank"] for n, f in found.items()},
                         {n: f["single_word_ranks"] for n, f in found.items()}, pooled, candidates)
    return Shown(rows, f"all-MiniLM-L6-v2 input word embeddings, unit rows, {candidates:,} trained tokens (placeholders "
                       f"and special tokens left out), cosine; {len(pooled)} random triples for chance (the null of "
                       f"every reading)", f"all-MiniLM-L6-v2's input word table, {candidates:,} tokens", fig)


@presents("minilm_word_pairs")
def minilm_word_pairs(m: Measured, ctx: Context) -> Shown:
    numbers, estimates = m.numbers, m.estimates
    pairs, candidates = numbers["random_pairs"], m.shown["candidates"]
    rows = [Row("cos(king, queen)", numbers["cos_king_queen"], numbers["random_quantiles"]["0.99"],
                "99th percentile of random pairs"),
            Row("cos(king, apple)", numbers["cos_king_apple"], numbers["random_quantiles"]["0.5"],
                "median of random pairs"),
            Row("share of random pairs less similar than king-queen", estimates["queen_percentile"], 0.99, "close"),
            Row("share of random pairs less similar than king-apple", estimates["apple_percentile"], 0.9,
                "no closer than a typical unrelated pair")]
    return Shown(rows, f"all-MiniLM-L6-v2 input word embeddings (English: king, queen, apple), cosine, {pairs:,} "
                       f"random pairs of {candidates:,} trained tokens",
                 f"all-MiniLM-L6-v2's input word table, {pairs:,} random pairs")


@presents("minilm_spectra")
def minilm_spectra(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_semantics import spectra_figure

    numbers = m.numbers
    detail, d, n, seeds = numbers["words"], numbers["dim"], numbers["word_rows"], numbers["seeds"]
    rows = [Row(f"words, {o}: share of variance in the top 10%", f"{detail[o]['top_share']:.4f}",
                f"{detail[o]['isotropic_top_share']:.4f}", "isotropic table, same shape") for o in CONCENTRATION_OPTIONS]
    rows += [Row(f"words, {o}: ratio to isotropic", detail[o]["ratio"], 1.0, "evenly spread")
             for o in CONCENTRATION_OPTIONS]
    rows += [Row("positions: principal directions holding 90% of the variance", numbers["position_dims_90"],
                 min(numbers["isotropic_position_dims_90"]), "isotropic 512-row table (fewest over seeds)"),
             Row("words: principal directions holding 90% of the variance", numbers["word_dims_90"], d, "all")]
    shown = m.shown
    fig = spectra_figure(shown["word_diag"], [s[0] for s in shown["iso_words"]], shown["pos_eig"],
                         [s[1] for s in shown["iso_pos"]])
    return Shown(rows, f"all-MiniLM-L6-v2: {n:,} trained word rows and 512 position rows, d = {d}, centred; {seeds} "
                       f"isotropic Gaussian tables of each shape (Wishart covariances)",
                 f"all-MiniLM-L6-v2's tables ({n:,} word rows, 512 position rows), {seeds} isotropic tables", fig)


@presents("minilm_shifted_words")
def minilm_shifted_words(m: Measured, ctx: Context) -> Shown:
    detail, count = m.numbers["by_option"], m.numbers["draws"]
    rows = []
    for option in SHIFT_OPTIONS:
        d = detail[option]
        rows += [Row(f"{option}: the word is still the nearest word in direction", m.variants[option]["word_kept"],
                     0.95, "meaning kept"),
                 Row(f"{option}: mean angle, same word at two positions (smallest)",
                     f"{d['same_word_angle_mean']:.2f} deg ({d['same_word_angle_min']:.2f})",
                     f"{d['other_word_angle_mean']:.2f} deg", "two words at one position"),
                 Row(f"{option}: mean angle between the word and word + position", d["shift_angle_mean"], None, "")]
    return Shown(rows, f"all-MiniLM-L6-v2 tables, {count} random draws of two words and two positions (0..511)",
                 f"all-MiniLM-L6-v2's tables, {count} draws")


@presents("minilm_sum_readout")
def minilm_sum_readout(m: Measured, ctx: Context) -> Shown:
    n_test, candidates = m.numbers["test"], m.numbers["candidates"]
    rows = []
    for name, d in m.numbers["by_second_part"].items():
        rows += [Row(f"E + {name}: linear maps, word / second part / both identified",
                     f"{d['linear_word']:.3f} / {d['linear_second']:.3f} / {d['linear_both']:.3f}",
                     None if name != "positions" else 0.9, "separated" if name == "positions" else "baseline"),
                 Row(f"E + {name}: both decoded by searching the tables", d["decoded_both"],
                     None if name != "positions" else 0.95, "no bad overlap" if name == "positions" else "baseline")]
    return Shown(rows, f"all-MiniLM-L6-v2 tables (d = 384): {candidates:,} trained words x 512 positions, uniform "
                       f"independent draws; maps fitted on 4000, tested on {n_test}",
                 f"all-MiniLM-L6-v2's tables (d = 384), {n_test} held-out sums")


@presents("minilm_layer_probes")
def minilm_layer_probes(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_semantics import layer_probe_figure

    numbers, estimates = m.numbers, m.estimates
    points, later, exact_position = m.shown["points"], m.shown["later"], numbers["exact_position_accuracy"]
    windows = numbers["windows"]
    rows = [Row(f"{n}: position / token read by the probe",
                f"{numbers['position_accuracy'][n]:.3f} / {numbers['token_accuracy'][n]:.3f}", None, "")
            for n in points]
    rows += [Row(f"worst later module, position within +-{POSITION_TOLERANCE}", estimates["min_position_accuracy"],
                 numbers["position_chance"], f"chance: {2 * POSITION_TOLERANCE + 1}/128"),
             Row("the same, position read exactly (shown, not judged): embeddings / worst later module",
                 f"{exact_position['embeddings']:.3f} / {min(exact_position[n] for n in later):.3f}", 1 / 128,
                 "chance: 1/128"),
             Row("worst later module, token", estimates["min_token_accuracy"], numbers["majority_token_share"],
                 f"chance: the most frequent token ({m.shown['majority_token']!r})")]
    fig = layer_probe_figure(points, [numbers["position_accuracy"][n] for n in points],
                             [numbers["token_accuracy"][n] for n in points], 1 / WINDOW_LENGTH,
                             numbers["majority_token_share"])
    return Shown(rows, f"all-MiniLM-L6-v2, {windows} windows of {WINDOW_LENGTH} tokens (one per play); ridge probes "
                       f"(penalty 1% of the mean eigenvalue) fitted on {m.shown['folds']} folds of windows, each "
                       f"tested on the windows it left out; a position counts as read within +-{POSITION_TOLERANCE} "
                       f"tokens", f"all-MiniLM-L6-v2, {windows} windows of {WINDOW_LENGTH} tokens", fig)


def output_rows(estimates: dict[str, Estimate], numbers: dict[str, Any], model: str = "") -> list[Row]:
    """The page's rows of the output reading (:func:`posenc.probe.head_output.output_estimates`), ``model`` naming
    the model before each."""
    name = f"{model}: " if model else ""
    return [Row(f"{name}positional heads' output names the word attended to (ridge probe, held-out windows)",
                estimates["output_word_accuracy"], estimates["null_output_word_accuracy"],
                "null: the same heads' position-only output, the same probe"),
            Row(f"{name}chance: the most frequent word attended to", numbers["chance"], None, ""),
            Row(f"{name}the same probe on the hidden states the heads read (what they could pass on)",
                estimates["input_word_accuracy"], OUTPUT_BAR, "power: above this")]


def minilm_head_content(m: Measured, ctx: Context) -> Shown:
    """The page of :func:`posenc.report.experiments.tutorial_semantics.minilm_head_content`, MiniLM's part of the
    model_head_content page (:mod:`posenc.report.present.decoder`)."""
    numbers, estimates, windows = m.numbers, m.estimates, m.shown["windows"]
    rows = output_rows(estimates, numbers["output"])
    rows += [Row(f"positional head L{l}H{h} (offset {o:+d}): attention moved by the word swap",
                 numbers["per_head"][f"L{l}H{h}"], 0.0, "position alone") for l, h, o in m.shown["positional"]]
    rows += [Row("mean over the positional heads", estimates["content_change"], 0.05, "some content"),
             Row("mean over every other head", numbers["other_heads_mean"], None, "")]
    return Shown(rows, f"all-MiniLM-L6-v2, {windows} windows of {WINDOW_LENGTH} tokens; what each positional head "
                       f"outputs, read by ridge probes fitted on {numbers['output'].get('folds', 0)} folds of windows "
                       f"(each tested on the windows it left out); each window's words replaced by the next window's, "
                       f"special tokens and positions kept",
                 f"all-MiniLM-L6-v2's positional heads, {windows} windows of {WINDOW_LENGTH} tokens")
