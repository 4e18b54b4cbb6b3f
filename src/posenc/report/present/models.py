"""The pages of :mod:`posenc.report.experiments.models` (posenc's own small Transformer, random weights)."""

from __future__ import annotations

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.tables import SAME
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents


@presents("word_order")
def word_order(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.model_checks import word_order_figure

    results = m.numbers["cases"]
    labels = {"nope_encoder": "no positions, bidirectional", "sinusoidal_encoder": "sinusoid, bidirectional",
              "rope_encoder": "RoPE, bidirectional", "nope_decoder": "no positions, causal mask"}
    rows = []
    for key, r in results.items():
        rows.append(Row(f"{labels[key]}: |h(you love I) - reversed h(I love you)|, largest over seeds",
                        r["equivariance_max"], 0.0, "cannot tell the orders apart"))
        rows.append(Row(f"{labels[key]}: 'not' sentences, sentence-vector difference, smallest over seeds",
                        r["pooled_difference_min"], 0.0, "same bag of words"))
    fig = word_order_figure({labels[k]: results[k]["equivariance_max"] for k in results}, ["C3", "C0", "C0", "C1"],
                            SAME)
    return Shown(rows, f"posenc Transformer d_model=32, 2 layers, 4 heads, random weights, {m.numbers['seeds']} "
                       f"seeds (extremes over all seeds); token vocabulary of the two example sentences",
                 "posenc Transformers of width 32, 2 layers, random weights", fig)


@presents("ffn_position_blind")
def ffn_position_blind(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.model_checks import ffn_permutation_figure

    n = m.numbers
    ffn_err, same_err, block_err = n["ffn_permutation_error"], n["ffn_same_vector_error"], \
        n["rope_block_permutation_error"]
    rows = [Row("FFN: |FFN(x[perm]) - FFN(x)[perm]|", ffn_err, block_err, "whole block with RoPE attention"),
            Row("FFN: same vector at positions 0 and 31, output difference", same_err, 0.0, "position-blind"),
            Row("mean |FFN output|", n["output_scale"], None, "scale of the outputs")]
    fig = ffn_permutation_figure({"FFN": ffn_err, "FFN, same vector": same_err, "block with RoPE": block_err},
                                 ["C0", "C0", "C3"])
    return Shown(rows, f"posenc.model.Block (width {n['width']}, d_ff 256, GELU), random weights, batch 2 x "
                       f"{n['length']} tokens", "one posenc block, random weights", fig)


@presents("learned_max_len")
def learned_max_len(m: Measured, ctx: Context) -> Shown:
    positions = m.numbers["minilm_positions"]
    labels = {"table_at_max_len": "posenc learned table, 512 positions",
              "table_past_max_len": "posenc learned table, 513 positions",
              "table_at_double": "posenc learned table, 1024 positions (tutorial 002's example)",
              "model_at_max_len": "Transformer with learned table (max_len 64), 64 tokens",
              "model_past_max_len": "same Transformer, 65 tokens",
              "sinusoid_model_past_max_len": "same Transformer with the sinusoid, 128 tokens",
              "minilm_at_max_len": f"all-MiniLM-L6-v2, {positions} tokens",
              "minilm_at_double": f"all-MiniLM-L6-v2, {2 * positions} tokens"}
    rows = [Row(labels[k], v, "ran" if k.endswith("at_max_len") or k.startswith("sinusoid") else "fails",
                "expected") for k, v in m.numbers["outcomes"].items()]
    return Shown(rows, "posenc learned table (max_len 512), a Transformer with max_len 64, and all-MiniLM-L6-v2 "
                       "(512 learned positions)",
                 "posenc's learned table, a posenc Transformer, all-MiniLM-L6-v2 (max_len 512)")


@presents("add_vs_concat")
def add_vs_concat(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.model_checks import add_concat_readout_figure

    n = m.numbers
    widths, readout = n["widths"], n["readout"]
    rows = [Row("input width after add (d_model 64)", n["add_width"], n["concat_width"], "after concat"),
            Row("parameters of a 2-layer model, add", n["add_parameters"], n["concat_parameters"], "concat")]
    for d in widths:
        r = readout[str(d)]
        rows.append(Row(f"d={d}: linear read-out accuracy (token, position) from the sum",
                        f"{r['add_token']:.3f}, {r['add_position']:.3f}",
                        f"{r['concat_token']:.3f}, {r['concat_position']:.3f}", "from the concatenation"))
    fig = add_concat_readout_figure(widths, readout)
    return Shown(rows, f"{n['vocab']} random N(0,1) token embeddings x {n['length']} sinusoid positions, least-squares "
                       f"linear read-out over every (token, position) pair, widths {widths}",
                 "random N(0, 1) token embeddings with posenc's sinusoid, linear read-outs", fig)
