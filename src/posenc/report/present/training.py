"""The pages of :mod:`posenc.report.experiments.training` (the lab's task and char-LM sweeps), and the setup sentence
and scope of a lab sweep (:func:`lab_setup`, :func:`lab_scope`), which the pages of the research and field sweeps
share."""

from __future__ import annotations

from typing import Any

from posenc.lab.compare import by_size_curves, perplexity_bands
from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.training import (
    ALIBI_PAPER_GROWTH,
    CONTROL,
    LEARNED,
    NOPE_METRICS,
    NOPE_PAPER_MRR,
    PERPLEXITY,
    TASK_ENCODINGS,
    TIE,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.stats import over_seeds

__all__ = ["lab_setup", "lab_scope"]


def lab_setup(sweep: dict[str, Any]) -> str:
    b = sweep["base"]
    variants = sweep["grid"].get("variant")
    seeds = len(sweep["seeds"])
    training = (f"trained to the in-distribution ceiling (validation every {b['val_every']} steps, patience "
                f"{b['patience']}, at most {b['steps']} steps)" if b.get("val_every") else f"{b['steps']} steps")
    text = (f"posenc.lab, causal decoder, {b['n_layers']} layers, {training}, {seeds} seed{'s' if seeds != 1 else ''}"
            f" per configuration (mean and 95% t-interval over seeds)")
    if not variants:
        return (text + f", d_model={b['d_model']}, Shakespeare characters, context {b['train_len']}, "
                f"{b['eval_tokens']} characters scored per length")
    tasks = "; ".join(f"{v['task']} (d_model {v.get('d_model', b['d_model'])}, trained on sizes "
                      f"1..{v.get('train_len', b['train_len'])}, tested at {v.get('eval_lengths', b['eval_lengths'])})"
                      for v in variants)
    return text + f"; tasks: {tasks}; {b['eval_samples']} test strings per size"


def lab_scope(sweep: dict[str, Any]) -> str:
    """What a lab claim's numbers rest on, in a few words: "2-layer lab models of width 64, 3 seeds, trained on
    sizes up to 8 (copy, reverse, sort; addition at width 128, up to 4)"."""
    b = sweep["base"]
    seeds = len(sweep["seeds"])
    variants = sweep["grid"].get("variant")
    head = f"{b['n_layers']}-layer lab models of width {b['d_model']}, {seeds} seed{'s' if seeds != 1 else ''}"
    if not variants:
        return head + f", char-LM trained at {b['train_len']} characters"
    plain = [v["task"] for v in variants if set(v) == {"task"}]
    other = [v for v in variants if set(v) != {"task"}]
    text = head + f", trained on sizes up to {b['train_len']:g} ({', '.join(plain)}"
    for v in other:
        text += (f"; {v['task']} at width {v.get('d_model', b['d_model'])}, up to "
                 f"{v.get('train_len', b['train_len'])}")
    return text + ")"


@presents("lab_learned_vs_fixed")
def lab_learned_vs_fixed(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import in_distribution_bars_figure

    ind, diffs, room = m.shown["in_distribution"], m.shown["differences"], m.numbers["tasks_with_room"]
    rows = [Row(f"{t}: learned - sinusoid, token accuracy at sizes <= L", d, 0.0,
                f"tie (learned {ind[t]['learned'].text()}, sinusoid {ind[t]['sinusoidal'].text()}"
                f"{'' if t in room else '; no room: the sinusoid is within the tie of 1'})")
            for t, d in diffs.items()]
    rows.append(Row(f"share of learned tasks with room (sinusoid in distribution < {1 - TIE:g}) where learned wins "
                    f"by > {TIE:g}", m.shown["share"], m.shown["null"], "null: the sinusoid against itself across seeds"))
    names = list(diffs)
    fig = in_distribution_bars_figure(names, {enc: [(ind[t][enc].value, ind[t][enc].low, ind[t][enc].high)
                                                    for t in names] for enc in ("learned", "sinusoidal")}, LEARNED)
    sweep = m.shown["sweep"]
    return Shown(rows, lab_setup(sweep), lab_scope(sweep), fig)


@presents("lab_rope_extrapolation")
def lab_rope_extrapolation(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import accuracy_by_size_figure

    e, past_L, sweep = m.estimates, m.shown["past_L"], m.shown["sweep"]
    rows = [Row(f"RoPE token accuracy, sizes <= L ({len(m.numbers['tasks'])} task(s))", e["rope_in_distribution"],
                LEARNED, "learned the task"),
            Row(f"RoPE token accuracy, sizes > L (up to {m.numbers['longest_over_L']:g} L)", past_L["rope"], None, ""),
            Row("share of in-distribution accuracy kept past L", e["kept_past_L"], 0.9, "holds (>= 0.9)"),
            Row(f"power: {CONTROL}'s share of its in-distribution accuracy kept past L (the same tasks)",
                e["control_kept_past_L"], 0.5, "the setting lets an encoding built to extrapolate keep half")]
    rows += [Row(f"{enc} token accuracy, sizes > L", past, None, "for comparison") for enc, past in past_L.items()
             if enc != "rope"]
    fig = accuracy_by_size_figure(by_size_curves(m.shown["table"], TASK_ENCODINGS), m.shown["L"],
                                  "train short, test long (band: 95% interval over seeds)")
    return Shown(rows, lab_setup(sweep), lab_scope(sweep), fig)


@presents("lab_nope_ranking")
def lab_nope_ranking(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import accuracy_by_size_figure

    by_metric, ranking, sweep = m.numbers["by_metric"], m.shown["ranking"], m.shown["sweep"]
    rows = [Row(f"{e}: mean reciprocal rank ({option})", v, NOPE_PAPER_MRR.get(e), "Kazemnejad et al. 2023")
            for option in NOPE_METRICS for e, v in sorted(by_metric[option]["mrr"].items(), key=lambda kv: -kv[1])]
    rows += [Row(f"rank correlation with the paper ({option})", ranking[option]["rank_correlation"],
                 ranking[option]["rank_correlation_null"], "null: labels permuted within each task")
             for option in NOPE_METRICS]
    rows += [Row(f"{t}: exact match at sizes <= L, best encoding", max(r.values(), key=lambda e: e.value), LEARNED,
                 "did the task train?") for t, r in m.shown["exact_match"].items()]
    fig = accuracy_by_size_figure(by_size_curves(m.shown["table"], list(NOPE_PAPER_MRR), "exact_match"), m.shown["L"],
                                  "length generalisation by encoding (exact match)", "exact_match")
    return Shown(rows, lab_setup(sweep) + "; every encoding ranked on every task some encoding learned, one that did "
                                          "not learn it ranking last", lab_scope(sweep), fig)


@presents("lab_alibi_shape")
def lab_alibi_shape(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import perplexity_by_length_figure

    L, longest, ppl, sweep = m.numbers["train_len"], m.numbers["longest"], m.shown["ppl"], m.shown["sweep"]
    rows = [Row(f"{e}: perplexity at {longest} / at {L}", g, ALIBI_PAPER_GROWTH.get(e), "ALiBi paper, 10512 / 512")
            for e, g in m.shown["growth"].items()]
    rows += [Row(f"{e}: perplexity at {L}", over_seeds(v[L], bounds=PERPLEXITY), None, "in distribution")
             for e, v in ppl.items() if L in v]
    fig = perplexity_by_length_figure(perplexity_bands(ppl), L)
    return Shown(rows, lab_setup(sweep), lab_scope(sweep), fig)
