"""The pages of :mod:`posenc.report.experiments.tutorial_tables` (tutorial claims on tables, formulas and
configurations)."""

from __future__ import annotations

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tutorial_tables import (
    DISTINCT_WIDTHS,
    FF_OPTIONS,
    FIGURE_DIMS,
    FIGURE_POSITIONS,
    FIGURE_WIDTHS,
    LENGTHS,
    LONGEST,
    NULL_TABLES,
    RESOLUTIONS,
    RULE_OFFSETS,
    WINDOW,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents


@presents("naive_integer_relative")
def naive_integer_relative(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import relative_score_figure
    from posenc.report.present.tables import naive_integer

    base = naive_integer(m.shown["base"], ctx)
    n, offsets = m.numbers, m.shown["offsets"]
    length, dim = n["relative_length"], n["relative_dim"]
    rows = list(base.rows[:4])
    rows += [Row("largest |PE[p+k] - PE[p] - k|, k = 1, 2, 4, 8", n["translation_error"], 0.0,
                 "exact: a relative map exists (a translation)"),
             Row("integer: best share of queries any position-only logit points k back (bound, every k)",
                 n["integer_best_share"], 1.0, "a relative code"),
             Row("integer: share with the exact translation as the map, PE[i] . (PE[j] + k)",
                 n["integer_shift_share"], None, "the largest key always wins"),
             Row("sinusoid: share with its fitted map, PE[i] . PE[j] M_k (worst k)", n["sinusoid_shift_share"],
                 1.0, "every query")]
    fig = relative_score_figure(m.shown["codes"], 1.0, m.shown["integer_scores"], m.shown["sinusoid_scores"],
                                offsets[0])
    return Shown(rows, base.setup + f"; attention read-out on {length} positions, d={dim}, offsets {list(offsets)}, "
                                    f"every key a candidate",
                 base.scope + f"; an attention read-out over {length} positions", fig)


@presents("concat_parameters")
def concat_parameters(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import parameter_ratio_figure

    counts, ratios = m.numbers["counts"], m.numbers["ratios"]
    head = "4 x width"
    rows = [Row("model width after add / after concat", counts[head]["add"]["width"], counts[head]["concat"]["width"],
                "tutorial 003: 512 -> 1024")]
    for option in FF_OPTIONS:
        c = counts[option]
        rows.append(Row(f"d_ff {option}: parameters of the 6 blocks, add -> concat",
                        f"{c['add']['blocks']:,} -> {c['concat']['blocks']:,}", 2.0, "x2 (tutorial 003)"))
        rows.append(Row(f"d_ff {option}: concat / add per part (attention, FFN, LayerNorm, output head)",
                        ", ".join(f"{ratios[option][p]:.3g}" for p in ("attention", "ffn", "layernorm", "head")),
                        2.0, "x2 (tutorial 003)"))
    rows.append(Row("blocks and output head together (vocabulary 37000), 4 x width", m.numbers["with_head_ratio"][head],
                    2.0, "x2 (tutorial 003)"))
    fig = parameter_ratio_figure({o: {p: ratios[o][p] for p in ("attention", "ffn", "layernorm", "blocks", "head")}
                                  for o in FF_OPTIONS})
    return Shown(rows, "posenc Transformer, d_model 512, 6 layers, 8 heads, sinusoid added (width 512) or concatenated "
                       "(width 1024); one block counted, times 6",
                 "posenc's Transformer at the original's sizes (d_model 512, 6 layers, 8 heads), counted", fig)


@presents("sinusoid_distinctness")
def sinusoid_distinctness(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import nearest_distance_figure

    numbers = m.numbers
    curves = {o: {int(n): v for n, v in c.items()} for o, c in numbers["nearest"].items()}
    where = numbers["closest_offset"]
    head = curves["d=512"]
    rows = [Row(f"d=512: nearest distance among the first {n:,} positions", head[n], 3.71,
                "FACTS: 3.71 at n=1024, d=512") for n in LENGTHS]
    rows += [Row(f"{o}: nearest among {LONGEST:,} / among 16 (closest pair {where[o]:,} apart)",
                 numbers["ratios"][o], 1.0, "no loss of distinctness") for o in DISTINCT_WIDTHS]
    rows.append(Row("formula vs posenc's table (n=1024, d=512): nearest distance difference", numbers["table_check"],
                    0.0, "same"))
    fig = nearest_distance_figure({o: curves[o] for o in DISTINCT_WIDTHS})
    return Shown(rows, f"sinusoid, base 10000, widths {', '.join(DISTINCT_WIDTHS)}, sequences of 16 to {LONGEST:,} "
                       f"positions; distances from the formula in float64",
                 f"the sinusoid (base 10000) at d=512, 4 to 64; sequences of up to {LONGEST:,} positions", fig)


@presents("continuous_compact")
def continuous_compact(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import compactness_figure

    numbers = m.numbers
    n, binary_dims, sin_dims = numbers["positions"], numbers["binary_dims"], numbers["sinusoid_dims"]
    rows = [Row(f"binary: bits for {n} positions (nearest pair {numbers['binary_nearest']:g} apart)", binary_dims, 10,
                "log2(1024)")]
    rows += [Row(f"sinusoid: dimensions for {n} positions, {label}", d, binary_dims, "binary")
             for label, d in sin_dims.items()]
    rows.append(Row("mean square per channel, sinusoid vs binary", numbers["mean_square_sinusoid"],
                    numbers["mean_square_binary"], "binary (equal: distances compare)"))
    fig = compactness_figure(list(RESOLUTIONS), list(sin_dims.values()), [binary_dims] * len(sin_dims), n)
    return Shown(rows, f"{n} positions; sinusoid base 10000 at even widths 2..128; posenc's binary code",
                 f"the sinusoid and the binary code for {n} positions", fig)


@presents("sinusoid_offset_rule")
def sinusoid_offset_rule(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import offset_rule_figure

    numbers = m.numbers
    composition, shares, dim, length = numbers["composition_error"], numbers["shares"], numbers["dim"], \
        numbers["length"]
    rows = [Row(f"k={k}: max |M_k - M_1^k|", e, 0.0, "one rule") for k, e in zip(RULE_OFFSETS, composition,
                                                                                   strict=True)]
    rows += [Row(f"share of queries whose best key is k back, worst k: {name}", min(v), 1.0 if name == "sinusoid"
                 else None, "every query" if name == "sinusoid" else "baseline") for name, v in shares.items()]
    rows.append(Row("sin-relative-linear (tables.py) tests", "the fit per offset, its p-independence, the rotation",
                    None, "not repeated here"))
    rows.insert(len(RULE_OFFSETS), Row(f"share of queries whose best key is k back, worst k: sinusoid beside the null "
                                       f"({NULL_TABLES} random tables, each with its own best maps)",
                                       min(shares["sinusoid"]), m.estimates["null_recognition_share"], "null"))
    fig = offset_rule_figure(RULE_OFFSETS, composition, shares)
    return Shown(rows, f"sinusoid d={dim}, positions 0..{length - 1}, offsets {list(RULE_OFFSETS)}; maps fitted by "
                       f"least squares (paired 2x2 blocks for the sinusoid, full for the baselines)",
                 f"the sinusoid at d={dim}, {length} positions; {NULL_TABLES} random tables", fig)


@presents("worked_example")
def worked_example(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import worked_example_figure

    numbers = m.numbers
    row_2, printed = numbers["posenc_row_2"], numbers["printed"]
    labels = ["sin(2)", "cos(2)", "sin(0.02)", "cos(0.02)"]
    rows = [Row(f"PE[2, {j}] = {label}", row_2[j], printed[j], "tutorial 002, printed")
            for j, label in enumerate(labels)]
    rows += [Row("argument of the second pair, 2 / 10000^(2/4)", numbers["second_frequency_argument"], 0.02,
                 "tutorial 002: 0.02"),
             Row("positions 1 and 3 against the printed vector (smallest largest difference)",
                 numbers["neighbour_difference"], None, "the check can fail"),
             Row("indexing", "position index 2 (counting from 0, as the formula does)", "第 2 个位置",
                 "the document says 'the 2nd position' and computes pos = 2")]
    fig = worked_example_figure(row_2, printed, labels)
    return Shown(rows, "posenc sinusoidal, d=4, float32 table of positions 0..3", "posenc's sinusoidal table at d=4",
                 fig)


@presents("dims_figure")
def dims_figure(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import dims_period_figure

    detail = m.numbers["by_width"]
    rows = []
    for option in FIGURE_WIDTHS:
        d = detail[option]
        rows.append(Row(f"{option}: periods of dims 2, 6, 12 (read off the curves)",
                        ", ".join(f"{p:.3f}" for p in d["measured"]), ", ".join(f"{p:.3f}" for p in d["formula"]),
                        "formula 2 pi 10000^(2i/d)"))
        rows.append(Row(f"{option}: fewest periods within the 128 positions", d["min_periods_in_window"], 2.0,
                        "visibly periodic"))
    fig = dims_period_figure(*m.shown["figure_data"])
    return Shown(rows, f"sinusoid, positions 0..{WINDOW - 1}, dims {list(FIGURE_DIMS)}, widths "
                       f"{', '.join(FIGURE_WIDTHS)}",
                 f"the sinusoid, {WINDOW} positions, widths {', '.join(FIGURE_WIDTHS)}", fig)


@presents("positions_figure")
def positions_figure(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import position_pair_figure

    a, b = FIGURE_POSITIONS
    detail = m.numbers["by_width"]
    rows = []
    for option in FIGURE_WIDTHS:
        d = detail[option]
        rows += [Row(f"{option}: ||PE[5] - PE[1]||", d["distance"], None, "> 0: unique"),
                 Row(f"{option}: rank correlation of pair index and the pair's distance", d["rank_correlation"],
                     -1.0, "closer with every higher pair"),
                 Row(f"{option}: distance in the highest quarter of pairs / lowest quarter", d["high_low_ratio"],
                     0.0, "the high dims nearly equal")]
    fig = position_pair_figure(*m.shown["figure_data"])
    return Shown(rows, f"sinusoid, positions {a} and {b}, widths {', '.join(FIGURE_WIDTHS)}",
                 f"the sinusoid, positions {a} and {b}, widths {', '.join(FIGURE_WIDTHS)}", fig)


@presents("model_encodings")
def model_encodings(m: Measured, ctx: Context) -> Shown:
    numbers = m.numbers
    rows = []
    for name, found in numbers["models"].items():
        rows.append(Row(f"{name} ({found['config']}): {found['kind']}"
                        + (f", table {found['table'][0]} x {found['table'][1]}" if found["table"] else "")
                        + m.shown["extras"][name] + f"; posenc.from_hf_config: {found['posenc_reading']}",
                        found["kind"], found["document"], "the documents"))
    rows.append(Row("the original Transformer (Vaswani et al. 2017)", "no configuration in transformers",
                    "sinusoidal", "tutorial 003 §14.6.1; the paper §3.5"))
    for name, groups in numbers["schedules"].items():
        rows.append(Row(f"{name}: " + "; ".join(f"layers {layers}: {text}" for layers, text in groups),
                        len(groups), 1, "kinds of layer (one encoding for every layer: 1)"))
    version = numbers["transformers"]
    return Shown(rows, f"transformers {version} config classes with their default values, each model built with one "
                       f"layer, parameters on the meta device",
                 f"transformers {version}'s default configurations")
