"""The pages of :mod:`posenc.report.experiments.tutorial_training` (the tutorial claims that train a small model)."""

from __future__ import annotations

import math

import numpy as np

from posenc.lab.traced import (
    BAR,
    BATCH,
    CAP,
    CAPABILITY_LABELS,
    CAPABILITY_LENGTHS,
    CAPABILITY_STEPS,
    CAPABILITY_TASKS,
    COPY_LEN,
    D_MODEL,
    LOCAL_LEN,
    LR,
    N_HEADS,
    N_LAYERS,
    NOPE_CAP,
    VAL_EVERY,
    VAL_PER_SIZE,
    WARMUP,
    counted_steps,
)
from posenc.probe.geometry import ORTHOGONAL_ENRICHMENT
from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tutorial_training import (
    COMPARISONS,
    DIVISION,
    DIVISION_OPTIONS,
    EVALUATED,
    GAP,
    LARGE_TABLE_SHARES,
    MEASURES,
    MOVE_POWER,
    PERMUTATIONS,
    SMOLLM2_WINDOWS,
    SPARSE_GAIN,
    _params,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.stats import SHARE, over_seeds

_TASKS_TEXT = f"copy (sizes 1..{COPY_LEN}) and a local task ((x_t + x_(t-1)) mod 10, {LOCAL_LEN} tokens)"


def _step_rows(runs: dict, pairs: list[tuple[str, str]], seeds: int) -> list[Row]:
    rows = []
    for task, label in pairs:
        values = [counted_steps(runs[(task, label, s)]) for s in range(seeds)]
        missed = sum(runs[(task, label, s)]["steps_to_bar"] is None for s in range(seeds))
        rows.append(Row(f"{task}, {label}: steps to {BAR:g} validation accuracy (geometric mean)",
                        over_seeds(values, log=True), None,
                        f"{missed} of {seeds} runs never reached it (counted at their last step)" if missed
                        else "every run reached it"))
    return rows


def _curves(runs: dict, pairs: list[tuple[str, str]], seeds: int) -> dict[str, dict[str, list]]:
    out: dict[str, dict[str, list]] = {}
    for task, label in pairs:
        out.setdefault(task, {})[label] = [runs[(task, label, s)]["curve"] for s in range(seeds)]
    return out


def _scope(seeds: int) -> str:
    """What the lab claims of this module rest on, in a few words."""
    return (f"{N_LAYERS}-layer lab models of width {D_MODEL}, {seeds} seed{'s' if seeds != 1 else ''}, copy at "
            f"sizes up to {COPY_LEN} and local tasks at {LOCAL_LEN} tokens")


def _setup(seeds: int, tasks: str) -> str:
    return (f"posenc causal Transformer, d_model {D_MODEL}, {N_LAYERS} layers, {N_HEADS} heads; {tasks}; AdamW lr "
            f"{LR:g} (warm-up {WARMUP} steps), batch {BATCH}; validation every {VAL_EVERY} steps, stop at token "
            f"accuracy {BAR:g} (at most {CAP} steps); {seeds} seeds, paired across encodings (step counts and their "
            f"ratios as geometric means, 95% t-interval on the log scale over runs; an interval needs 3 runs)")


@presents("add_vs_concat_training")
def add_vs_concat_training(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_training import validation_curves_figure

    runs, seeds, params = m.shown["runs"], m.shown["seeds"], m.numbers["params"]
    rows = [Row(f"{option}: steps to the bar, concatenated ({concat}, {params[concat]:,} parameters) / added ({add}, "
                f"{params[add]:,}), geometric mean over tasks and seeds", m.variants[option]["concat_over_add_steps"],
                1.0, "equally easy") for option, (concat, add) in COMPARISONS.items()]
    labels = list(params)
    pairs = [(t, e) for t in ("copy", "local") for e in labels]
    rows += _step_rows(runs, pairs, seeds)
    fig = validation_curves_figure(_curves(runs, pairs, seeds), BAR)
    setup = (_setup(seeds, _TASKS_TEXT) + "; the sinusoid added at width 32 and 64, concatenated as 16 + 16 (blocks "
             "32 wide) and 32 + 32 (blocks 64 wide): parameters " + ", ".join(f"{label} {params[label]:,}"
                                                                          for label in labels) + " (copy)")
    return Shown(rows, setup, _scope(seeds), fig)


@presents("learned_convergence")
def learned_convergence(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_training import validation_curves_figure

    runs, seeds, pairs = m.shown["runs"], m.shown["seeds"], m.shown["pairs"]
    table, share = m.numbers["table_params"], m.numbers["table_share"]
    rows = _step_rows(runs, pairs, seeds)
    rows.append(Row("steps to the bar, learned / sinusoid (geometric mean over tasks and seeds)",
                    m.estimates["learned_over_sinusoid_steps"], 1.0, "converge alike"))
    rows.append(Row(f"learned table: {2 * COPY_LEN} x {D_MODEL} = {table} parameters, share of the model's "
                    f"{_params(runs, 'copy', 'learned'):,}", share, LARGE_TABLE_SHARES["GPT-2 small"],
                    "GPT-2 small's table, 1024 x 768 of 124M"))
    rows += [Row(f"{name}: the position table's share of the parameters", value, None, "") for name, value in
             LARGE_TABLE_SHARES.items() if name != "GPT-2 small"]
    fig = validation_curves_figure(_curves(runs, pairs, seeds), BAR)
    setup = (_setup(seeds, _TASKS_TEXT)
             + f". The table is {share:.1%} of this model's parameters, more than in the large models the document "
               f"speaks of (GPT-2 small 0.63%, BERT-base 0.36%, GPT-3 0.014%): a larger share cannot be had by "
               f"scaling the model up, so this size tests the table's relative cost at its largest; what it cannot "
               f"test is an effect of absolute scale (hundreds of millions of parameters, long schedules)")
    return Shown(rows, setup, _scope(seeds), fig)


@presents("local_dependency")
def local_dependency(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_training import validation_curves_figure

    runs, seeds, units = m.shown["runs"], m.shown["seeds"], len(m.numbers["units"])
    rows = []
    for n, option in zip(CAPABILITY_LENGTHS, EVALUATED.options, strict=True):
        rows += [Row(f"{n} tokens: token accuracy, {label} (mean over {units} runs: 2 tasks x {seeds} seeds)",
                     over_seeds(m.numbers[str(n)][label], bounds=SHARE), None, "") for label in ("learned", "sinusoidal")]
        rows.append(Row(f"{n} tokens: accuracy learned - sinusoid, paired by task and seed",
                        m.variants[option]["learned_minus_sinusoid_accuracy"], GAP, "a weaker sinusoid: above this"))
    rows += [Row("lowest learned-table accuracy at the trained length (12 tokens)", m.shown["learned_trained"], BAR,
                 "the learned table solves the tasks: above this"),
             Row(f"best NoPE validation accuracy on the local task in {NOPE_CAP} steps (best run)", m.shown["nope_best"],
                 BAR, "the task needs positions: below this")]
    curves = {t: {label: [runs[(t, label, s)]["curve"] for s in range(seeds)] for label in CAPABILITY_LABELS}
              for t in CAPABILITY_TASKS}
    curves["local"]["nope"] = [runs[("local", "nope", s)]["curve"] for s in range(seeds)]
    fig = validation_curves_figure(curves, BAR)
    setup = (f"posenc causal Transformer, d_model {D_MODEL}, {N_LAYERS} layers, {N_HEADS} heads; two local tasks "
             f"((x_t + x_(t-1)) mod 10; the token two places back), {LOCAL_LEN} tokens, {CAPABILITY_STEPS} steps each "
             f"(AdamW lr {LR:g}, warm-up {WARMUP}, batch {BATCH}, no early stop), then token accuracy on "
             f"{4 * VAL_PER_SIZE} fresh sequences at {' and '.join(map(str, CAPABILITY_LENGTHS))} tokens (the learned "
             f"table has {max(CAPABILITY_LENGTHS)} rows; those past {LOCAL_LEN} stay as initialised); {seeds} seeds "
             f"(3 in the full report), paired across encodings (mean and 95% t-interval over the {units} "
             f"task-seed runs); "
             f"control: NoPE on the local task ({NOPE_CAP} steps, the runs of the step claims)")
    return Shown(rows, setup, _scope(seeds), fig)


@presents("orthogonality_training")
def orthogonality_training(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_training import orthogonality_figure

    runs, seeds, detail, estimates = m.shown["runs"], m.shown["seeds"], m.shown["by_measure"], m.estimates
    chance, sparse = m.numbers["chance"], m.numbers["sparse_share"]
    rows = [Row("position table's variance in the word rows' principal subspace over chance's (enrichment; 1: "
                "random, 0: orthogonal), at initialisation", estimates["init_enrichment"],
                estimates["init_enrichment_null"], "null: random tables of the same shapes"),
            Row("... at the bar", estimates["final_enrichment"], estimates["final_enrichment_null"],
                f"null: random tables; orthogonal: below {ORTHOGONAL_ENRICHMENT:g}")]
    rows += [Row("chance: mean |cos| of independent random directions, d=32", chance, None, "shown, not judged")]
    for option in MEASURES:
        v = detail[option]
        rows += [Row(f"{option}: mean |cos| at initialisation / chance (shown, not judged)", v["init_over_chance"],
                     1.0, "as orthogonal as random vectors"),
                 Row(f"{option}: mean |cos| at the bar / at initialisation (shown, not judged)", v["final_over_init"],
                     1.0, "unchanged")]
    rows += [Row("position variance in the half of the dimensions where the word rows vary least, at "
                 "initialisation (mean over runs)", over_seeds([a for a, _ in sparse], bounds=SHARE), 0.5, "no preference"),
             Row("... at the bar", over_seeds([b for _, b in sparse], bounds=SHARE), 0.5, "no preference"),
             Row("... change through training, paired by run", estimates["sparse_share_gain"], SPARSE_GAIN,
                 "position moved where meaning is sparse: above this")]
    angles = [math.degrees(math.acos(min(1.0, c))) for c in detail["raw cosine"]["start"]]
    rows.append(Row("raw: the mean |cos| at initialisation as an angle (degrees), per run",
                    ", ".join(f"{a:.1f}" for a in angles), 90.0, "orthogonal"))
    traces = {f"{t}, learned table": [runs[(t, "learned", s)]["trace"] for s in range(seeds)]
              for t in ("copy", "local")}
    fig = orthogonality_figure(traces, chance)
    return Shown(rows, _setup(seeds, _TASKS_TEXT) + "; learned position table (12 rows, init N(0, 0.02^2)), token "
                                                   "embedding N(0, 1)", _scope(seeds), fig)


@presents("dimension_division")
def dimension_division(m: Measured, ctx: Context) -> Shown:
    from posenc.report.present.pretrained import minilm_dimensions as minilm_page

    seeds, quarter, lab = m.shown["seeds"], m.shown["quarter"], m.numbers["lab"]
    quarters = lab["word_quarters"]
    sin_low, sin_high = lab["sinusoid_variance_quarters"]
    sinusoid, smollm2, minilm = (m.variants[o] for o in DIVISION_OPTIONS)
    # what MiniLM's experiment measured, and its own page (its setup, scope and figure)
    mini_measured = m.shown["minilm"]
    mini = minilm_page(mini_measured, ctx)
    band_means = m.shown["per_window"].mean(0)
    rows = [Row("lab, sinusoid added: word variance, highest minus lowest quarter of dimensions, change from "
                "initialisation to the bar (paired by run)", sinusoid["division"], DIVISION, "a division: above this"),
            Row("... null: the same rows moved as far in a random direction", sinusoid["division_null"], DIVISION,
                "no preference for any dimension"),
            Row("lab: how far training moved the word rows, |E_end - E_start| / |E_start| (mean over runs)",
                sinusoid["word_moved"], MOVE_POWER, "power: a move into the highest quarter alone reaches the bar "
                                                    "past this"),
            Row("lab: word variance in the lowest / highest quarter, at initialisation -> at the bar (mean over runs)",
                " / ".join(f"{np.mean([x[0][i] for x in quarters]):.3f} -> {np.mean([x[1][i] for x in quarters]):.3f}"
                           for i in (0, 1)), 0.25, "equal quarters"),
            Row(f"lab: the sinusoid's own variance over the {2 * COPY_LEN} trained positions, lowest / highest "
                f"quarter", f"{sin_low:.3f} / {sin_high:.3f}", None, "position sits low by construction"),
            Row("SmolLM2: offset-explained share of a pair's logits, fastest quarter minus slowest (per window, mean "
                "over layers and heads)", smollm2["division"], DIVISION, "a division: above this"),
            Row("... null: SmolLM2 with re-initialised weights of matched norms, the same windows",
                smollm2["division_null"], DIVISION, "above this: the bands alone make the division, whatever the "
                                                    "weights"),
            Row("SmolLM2: offset-explained share by pair, fastest 8 pairs", ", ".join(f"{x:.3f}" for x in
                                                                                  band_means[:quarter]), None, ""),
            Row("SmolLM2: ... slowest 8 pairs", ", ".join(f"{x:.3f}" for x in band_means[-quarter:]), None, ""),
            Row("MiniLM learned table: position share of the input variance, lowest minus highest quarter",
                minilm["division"], DIVISION, "a division: above this"),
            Row(f"... null: the same per-dimension shares in {PERMUTATIONS} random orders of the dimensions (mean, "
                f"central 95%)", minilm["division_null"], DIVISION, "an index that carries nothing"),
            Row("MiniLM learned table: R^2 of position from the sum, lowest minus highest quarter",
                mini_measured.estimates["low_minus_high_position_r2"], DIVISION, "shown, not judged")]
    count, length = SMOLLM2_WINDOWS.of(ctx)
    setup = (f"Lab: {_setup(seeds, _TASKS_TEXT)}, the sinusoid added; token embeddings initialised N(0, 1); trained "
             f"power: the used word rows must move {MOVE_POWER:.3g} of their norm; null: the start rows moved as far in a "
             f"random direction. "
             f"SmolLM2-135M (RoPE theta {m.numbers['smollm2']['theta']:g}, head dim {m.numbers['smollm2']['head_dim']}, "
             f"half pairing): {count} "
             f"windows of {length} tokens from plays and the Python language reference, every layer and head, offsets "
             f"0..{length // 2}, 95% interval from a bootstrap over windows; null: the same windows through SmolLM2 "
             f"with re-initialised weights of matched norms. MiniLM: " + mini.setup
             + f" Null: the same per-dimension shares with the dimensions in {PERMUTATIONS} random orders.")
    return Shown(rows, setup, _scope(seeds) + f"; SmolLM2-135M, {count} windows of {length} tokens; "
                 + (mini.scope or "all-MiniLM-L6-v2's learned table"), mini.figure)
