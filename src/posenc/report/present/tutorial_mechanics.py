"""The pages of :mod:`posenc.report.experiments.tutorial_mechanics` (the documents' remaining claims about mechanisms,
computed exactly or on small real models; the sinusoid's cost timed)."""

from __future__ import annotations

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tables import DIFFERENT
from posenc.report.experiments.tutorial_mechanics import (
    BINARY_WIDTH,
    CONSECUTIVE,
    COST_HEADS,
    COST_LAYERS,
    COST_LENGTH,
    COST_QUANTILE,
    COST_REPEATS,
    COST_WIDTHS,
    GRADIENT,
    LR,
    PRINTED_SHAPES,
    RNN_SEEDS,
    RNN_WIDTH,
    ROPE_HEAD_DIM,
    ROPE_OFFSETS,
    ROPE_VECTORS,
    RUN_LENGTH,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents


@presents("rnn_order")
def rnn_order(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_mechanics import order_effect_figure

    numbers = m.numbers
    results = numbers["by_kind"]
    rows = []
    for kind, r in results.items():
        rows.append(Row(f"{kind}: smallest order effect over seeds and reorderings", r["min_order_effect"],
                        numbers["attention_max_order_effect"], "self-attention without positions (largest)"))
        rows.append(Row(f"{kind}: smallest gap between neighbouring positions of one repeated token",
                        r["min_position_gap"], numbers["attention_max_position_gap"],
                        "self-attention without positions (largest)"))
    fig = order_effect_figure({k: r["min_order_effect"] for k, r in results.items()},
                              numbers["attention_max_order_effect"], DIFFERENT)
    return Shown(rows, f"torch.nn RNN / GRU / LSTM and posenc's Transformer without positions (2 layers, 4 heads), "
                       f"width {RNN_WIDTH}, random weights, {RNN_SEEDS} seeds; inputs: {', '.join(numbers['inputs'])}; "
                       f"a run of {RUN_LENGTH} equal tokens",
                 "torch RNN, GRU and LSTM and posenc's position-free attention, 5 random initialisations", fig)


@presents("binary_capacity")
def binary_capacity(m: Measured, ctx: Context) -> Shown:
    numbers = m.numbers
    rows = [Row("distinct codes of 512 bits (log2)", numbers["codes_available_log2"], 63.0,
                "log2 of the largest int64 position + 1"),
            Row(f"positions checked (0..{CONSECUTIVE - 1} and around every power of 2 up to 2^63 - 1), decode "
                f"errors or shared codes", numbers["decode_errors"], 0, "every position its own code"),
            Row("values other than 0 and 1", numbers["values_outside_0_1"], 0, "a binary code"),
            Row("channels that are ever 1 (positions below 2^63 use 63 bits)", numbers["channels_in_use"],
                BINARY_WIDTH, "d_model"),
            Row("d_model = 3 (the document's example): positions 0..15 sharing a code", numbers["small_code_duplicates"],
                8, "16 positions, 8 codes")]
    return Shown(rows, f"posenc binary table, d = {BINARY_WIDTH}, {numbers['positions_checked']} positions up to "
                       f"2^63 - 1; d = 3 for positions 0..15",
                 f"posenc's binary code of {BINARY_WIDTH} bits, computed exactly")


@presents("frequency_order")
def frequency_order(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_mechanics import frequency_order_figure

    numbers = m.numbers
    flips = numbers["binary_flips_per_bit"]
    rows = [Row(f"bit {j}: flips over positions 0..255", int(flips[j]), 255 // 2 ** j, "every 2^j numbers")
            for j in range(4)]
    rows += [Row("(position, bit) where a flip is missing or extra", numbers["binary_violations"], 0, "none"),
             Row("sinusoid d=512: pairs whose frequency does not fall below the previous pair's",
                 numbers["sinusoid_order_violations"], 0, "falls along the dimension"),
             Row("the same with the pairs shuffled", numbers["shuffled_order_violations"], None, "the check can fail"),
             Row("frequencies read off the table vs 10000^(-2i/d), largest relative difference",
                 numbers["frequency_vs_formula"], 0.0, "formula")]
    fig = frequency_order_figure(m.shown["binary"], m.shown["frequencies"])
    return Shown(rows, "posenc binary table (8 bits, positions 0..255); posenc sinusoid (d = 512, positions 0..64), "
                       "frequencies read off the float32 table",
                 "posenc's binary table and sinusoid (d = 512), computed exactly", fig)


@presents("sinusoid_cost")
def sinusoid_cost(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.tutorial_mechanics import table_cost_figure

    numbers, e = m.numbers, m.estimates
    repeats = COST_REPEATS.of(ctx)
    table_bytes, block_bytes = numbers["table_bytes"], numbers["blocks_bytes"]
    lo, hi = COST_WIDTHS[0], COST_WIDTHS[-1]
    q = f"{COST_QUANTILE:g} quantile of {repeats}"
    rows = [Row(f"d={d}: table time ({q}; median {numbers['table_median_ms'][str(d)]:.3f} ms), bytes",
                f"{numbers['table_ms'][str(d)]:.3f} ms, {table_bytes[d] / 2 ** 20:.3g} MiB", None, "")
            for d in COST_WIDTHS]
    rows += [Row(f"time d={hi} / d={lo}", e["time_growth"], e["time_growth_null"],
                 f"null: d={lo} / d={lo} timed again"),
             Row(f"memory d={hi} / d={lo}", numbers["memory_growth"], hi / lo, "proportional to d"),
             Row(f"d=512: table / (table + forward of {COST_LAYERS} blocks), time", e["step_share"],
                 e["step_share_null"], "null: an empty call in the table's place"),
             Row(f"d=512: table bytes / the {COST_LAYERS} blocks' weights ({block_bytes / 2 ** 20:.0f} MiB)",
                 numbers["memory_share"], 0.1, "a tenth: 'a lot of memory'")]
    rows += [Row(f"table bytes / blocks' weights at {n} positions (not judged: the document names 512)", v, None, "")
             for n, v in numbers["memory_share_by_length"].items() if n != str(COST_LENGTH)]
    fig = table_cost_figure(list(COST_WIDTHS), [numbers["table_ms"][str(d)] for d in COST_WIDTHS],
                            COST_LAYERS * numbers["block_ms"])
    return Shown(rows, f"posenc sinusoid tables of {COST_LENGTH} positions, d = {', '.join(map(str, COST_WIDTHS))}, "
                       f"{repeats} interleaved repeats on {m.shown['threads']} torch thread(s), each time the {q} "
                       f"repeats; one posenc block (d 512, {COST_HEADS} heads, d_ff 2048) forward, times {COST_LAYERS}",
                 f"posenc's sinusoid and one posenc block of width 512 on this machine's CPU, one thread, "
                 f"{COST_LENGTH} positions, {repeats} repeats", fig)


@presents("worked_update")
def worked_update(m: Measured, ctx: Context) -> Shown:
    numbers = m.numbers
    fixed, learned = numbers["sinusoid"], numbers["learned"]
    rows = [Row("gradient of the loss w.r.t. the embedding entry", fixed["gradient"], GRADIENT, "tutorial 003"),
            Row("embedding entry after one SGD step (lr 0.1)", fixed["embedding_after"], 0.94,
                "0.9 - 0.1 x (-0.4) = 0.94"),
            Row("the document's arithmetic in float64", numbers["document_new_value"], 0.94, "0.94"),
            Row("sinusoid: position value before and after the step (PE[2, 0] = sin 2)",
                f"{fixed['pe_value']:.7f} -> {fixed['pe_value_after']:.7f}", "unchanged", "fixed, not trained"),
            Row("sinusoid: trainable parameters of the encoding", fixed["trainable_parameters"], 0, "none"),
            Row("next forward pass: embedding + position", fixed["combined_after"], 0.94 + fixed["pe_value"],
                "0.94 + PE (the document: 0.94 + 0.1 = 1.04)"),
            Row("learned table (entry 0.1): combined before, after", f"{learned['combined_before']:.6f} -> "
                f"{learned['combined_after']:.6f}", "1.0 -> 1.04", "tutorial 003, if the position value were fixed"),
            Row("learned table: its entry moves by", learned["pe_change"], LR * abs(GRADIENT), "lr x |gradient|")]
    return Shown(rows, "posenc TransformerInput (vocabulary 8, d_model 4), token 3 at position 2, loss -0.4 x "
                       "combined[2, 0], torch.optim.SGD lr 0.1, one step; sinusoid vs a learned table",
                 "one SGD step of posenc's input layer, computed exactly")


@presents("rope_offset_only")
def rope_offset_only(m: Measured, ctx: Context) -> Shown:
    numbers = m.numbers
    rows = [Row("RoPE: largest spread of the score over positions with one offset, / |q||k|", numbers["rope_max_spread"],
                0.0, "depends on the offset only"),
            Row("sinusoid added to q and k: smallest spread, / |q + PE||k + PE|", numbers["added_min_spread"], None,
                "depends on where the pair sits"),
            Row("sinusoid added: largest spread", numbers["added_max_spread"], None, "")]
    return Shown(rows, f"posenc RoPE (head_dim {ROPE_HEAD_DIM}, base 10000, float32 tables), {ROPE_VECTORS} N(0, 1) "
                       f"q/k pairs, offsets {list(ROPE_OFFSETS)}, 64 key positions 0..3843; sinusoid of width "
                       f"{ROPE_HEAD_DIM} added instead",
                 "posenc's RoPE (float32 tables), 16 random query/key pairs")


@presents("input_shapes")
def input_shapes(m: Measured, ctx: Context) -> Shown:
    added, concatenated = m.numbers["added"], m.numbers["concatenated"]
    rows = [Row(name, str(list(added[name])), str(list(shape)), "tutorial 003 §14.7.2") for name, shape in
            PRINTED_SHAPES.items()]
    rows.append(Row("combined, if concatenated", str(list(concatenated["combined"])), None, "the check can fail"))
    return Shown(rows, "posenc TransformerInput (vocabulary 1000, d_model 512, sqrt(d) scale, learned table of 16 "
                       "rows), ids [4, 16]",
                 "posenc's input layer at the document's shapes, computed exactly")


@presents("nothing_measured")
def nothing_measured(m: Measured, ctx: Context) -> Shown:
    return Shown([Row("measured", "nothing: the claim cannot be tested as written (see the verdict)", None, "")],
                 "nothing measured", "nothing measured")
