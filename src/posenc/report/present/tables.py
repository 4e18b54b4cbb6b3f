"""The pages of :mod:`posenc.report.experiments.tables` (position tables alone, no model)."""

from __future__ import annotations

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tables import BOUNDED_POSITIONS
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents


def _property_row(prop: str, d_model: int, length: int, m: Measured) -> Row:
    """The same claim checked by :mod:`posenc.properties` (an independent implementation), as a table row."""
    return Row(f"posenc.properties '{prop}' on the same encoding (d={d_model}, {length} positions)",
               m.numbers["property_check"]["verdict"], "holds", m.shown["property_reason"][:140])


@presents("naive_integer")
def naive_integer(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import integer_growth_figure

    n, dim = m.numbers, m.shown["dim"]
    train_len, test_len = n["train_len"], n["test_len"]
    residual, sin_residual = n["relative_map_residual"], n["sinusoid_relative_map_residual"]
    rows = [Row("largest value, trained length 64", n["max_value_train"], 1.0, "sinusoid's bound"),
            Row("largest value, length 512", n["max_value_test"], 1.0, "sinusoid's bound"),
            Row("PE RMS / token-embedding RMS at 512", n["rms_ratio_test"], 1.0, "equal scale"),
            Row("test positions with values never seen in training", n["unseen_fraction_test"], 0.0, "bounded code"),
            Row("residual of best p-independent map PE[p] -> PE[p+1]", residual, sin_residual, "sinusoid")]
    row = _property_row("growth", dim, test_len, m)
    rows.append(Row(row.quantity, row.measured, "fails", row.anchor_label))
    fig = integer_growth_figure(m.shown["values"], train_len, residual, sin_residual)
    return Shown(rows, f"integer encoding (start 1), d={dim}, positions 0..{test_len - 1}; 'training' lengths "
                       f"0..{train_len - 1}",
                 "posenc's integer, normalised, binary and sinusoid tables, computed exactly", fig)


@presents("naive_normalized")
def naive_normalized(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import normalized_step_figure

    lengths = m.shown["lengths"]
    steps = {int(n): s for n, s in m.numbers["step_by_length"].items()}
    codes_of_2 = {int(n): c for n, c in m.numbers["code_of_position_2_by_length"].items()}
    rows = [Row(f"neighbour step at n={n}", steps[n], 0.5 if n == 3 else None, "tutorial 000: 3 tokens 0, 0.5, 1"
                if n == 3 else "") for n in lengths]
    rows.append(Row("code of position 2 at n=3 vs n=1000", f"{codes_of_2[3]:.3g} vs {codes_of_2[1000]:.3g}",
                    "equal", "a length-independent code"))
    row = _property_row("length_independence", m.shown["dim"], 64, m)
    rows.append(Row(row.quantity, row.measured, "fails", row.anchor_label))
    fig = normalized_step_figure(m.shown["codes"], steps)
    return Shown(rows, f"normalized encoding p/(n-1), lengths {lengths}",
                 "posenc's normalised table at lengths 3 to 1000, computed exactly", fig)


@presents("naive_binary")
def naive_binary(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import binary_jumps_figure

    n = m.numbers
    dim, length = n["dim"], n["length"]
    rows = [Row("neighbour distance, min .. max", f"{n['neighbour_distance_min']:.3g} .. "
                f"{n['neighbour_distance_max']:.3g}", "constant", "sinusoid (a rotation)"),
            Row("spread of neighbour distance (std / mean)", n["neighbour_distance_cv"],
                n["sinusoid_neighbour_distance_cv"], "sinusoid"),
            Row("residual of best p-independent map PE[p] -> PE[p+1]", n["relative_map_residual"],
                n["sinusoid_relative_map_residual"], "sinusoid")]
    row = _property_row("continuity", dim, length, m)
    rows.append(Row(row.quantity, row.measured, "fails", row.anchor_label))
    fig = binary_jumps_figure(m.shown["codes"], m.shown["jumps"], m.shown["sinusoid_jumps"])
    return Shown(rows, f"binary encoding, d={dim}, positions 0..{length - 1}; sinusoid d={dim}",
                 "posenc's binary and sinusoid tables, computed exactly", fig)


@presents("sinusoid_bounded")
def sinusoid_bounded(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import bounded_values_figure

    n, near = m.numbers, BOUNDED_POSITIONS.of(ctx)
    rows = [Row("largest |PE[p, j]|", n["max_abs"], 1.0, "bound of sin and cos"),
            Row("value range", f"[{n['min']:.4g}, {n['max']:.4g}]", "[-1, 1]", "tutorial 001 §3.1"),
            Row(f"integer encoding, same {near} positions: largest value", n["integer_max_same_positions"], None, ""),
            _property_row("bounded", n["dim"], near, m)]
    fig = bounded_values_figure(m.shown["first"], m.shown["values"], n["positions_checked"])
    return Shown(rows, f"sinusoid d={n['dim']} at positions 0..{near - 1} and 1e5..2^40",
                 "posenc's sinusoid table (float32), positions up to 2^40, computed exactly", fig)


@presents("sinusoid_unique")
def sinusoid_unique(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import unique_positions_figure

    n = m.numbers
    dim, length = n["dim"], n["length"]
    rows = [Row("smallest distance between two positions", n["min_pairwise_distance"], 3.71,
                "FACTS: 3.71 at n=1024, d=512"),
            Row("distinct float32 rows", n["distinct_rows_float32"], length, "one per position"),
            Row("binary code with 8 bits: distinct rows", n["binary_d8_distinct_rows"], length, "one per position"),
            _property_row("uniqueness", dim, length, m)]
    fig = unique_positions_figure(m.shown["distances"], n["min_pairwise_distance"], m.shown["gram"])
    return Shown(rows, f"sinusoid d={dim}, positions 0..{length - 1}, float32 table",
                 "posenc's sinusoid table (float32), computed exactly", fig)


@presents("sinusoid_relative_linear")
def sinusoid_relative_linear(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import relative_map_figure

    n, offsets = m.numbers, m.shown["offsets"]
    dim, length = n["dim"], n["length"]
    results = {k: n["by_offset"][str(k)] for k in offsets}
    rows = [Row(f"k={k}: residual of PE[p+k] ~ PE[p] M_k", v["residual"], v["random_residual"],
                "random (learned-like) table") for k, v in results.items()]
    rows.append(Row("largest |M_k(first half) - M_k(second half)|", n["max_half_difference"], 0.0,
                    "independent of p"))
    rows.append(Row("largest |M_k - rotation R(k w_i)|", n["max_vs_rotation"], 0.0, "tutorial 001 derivation"))
    rows.append(_property_row("relative", dim, length, m))
    residuals = {label: [results[k][key] for k in offsets] for key, label in
                 (("residual", "sinusoid"), ("binary_residual", "binary"), ("random_residual", "random table"))}
    fig = relative_map_figure(offsets, residuals, m.shown["map_4"], 4)
    return Shown(rows, f"sinusoid d={dim}, positions 0..{length - 1}, offsets {offsets}; baselines: N(0,1) table "
                       f"and binary code of the same size",
                 "posenc's sinusoid table (float32), computed exactly", fig)


@presents("sinusoid_local_global")
def sinusoid_local_global(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import local_global_figure

    n, quarter = m.numbers, m.shown["quarter"]
    dim, length = n["dim"], n["length"]
    rows = [Row("neighbour step, lowest quarter of dims", n["low_neighbour_step"], n["high_neighbour_step"],
                "highest quarter"),
            Row("R^2 of linear read-out of p, lowest quarter", n["low_position_r2"], n["high_position_r2"],
                "highest quarter"),
            Row("sign changes of the sin channels over the sequence, lowest quarter", n["low_sign_changes"],
                n["high_sign_changes"], "highest quarter")]
    fig = local_global_figure(m.shown["table"], 2, dim - 2, m.shown["steps"], quarter)
    return Shown(rows, f"sinusoid d={dim}, positions 0..{length - 1}; quarters of {quarter} dims",
                 "posenc's sinusoid table (float32), computed exactly", fig)


@presents("sinusoid_extrapolation_theory")
def sinusoid_extrapolation_theory(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_checks import extrapolation_figure

    n = m.numbers
    dim, train_len, far_start = n["dim"], n["train_len"], n["far_start"]
    rows = [Row(f"largest |PE| at positions {far_start}..{far_start + train_len - 1}", n["far_max_abs"], 1.0,
                "bound"),
            Row("residual of M_1 fitted on 0..511, applied at 100000+", n["transfer_residual"], 0.0, "exact rotation"),
            Row("smallest distance between two far positions", n["far_min_distance"], None, "> 0: distinct"),
            Row("learned table (max_len 512) gives a vector at 100000", "yes" if n["learned_runs_far"] else
                "no (raises)", None, "")]
    fig = extrapolation_figure(m.shown["inside"], m.shown["far"], far_start)
    return Shown(rows, f"sinusoid d={dim}; map fitted on 0..{train_len - 1}, tested at "
                       f"{far_start}..{far_start + train_len - 1}",
                 "posenc's sinusoid table (float32), computed exactly", fig)
