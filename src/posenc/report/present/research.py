"""The pages of :mod:`posenc.report.experiments.research` (FIRE, KERPLE, p-RoPE and CoPE, trained in the lab)."""

from __future__ import annotations

import math

from posenc.lab.compare import by_size_curves, perplexity_bands
from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.research import (
    BASELINES,
    COUNTING_ENCODINGS,
    COUNTING_TASKS,
    EXTRAPOLATORS,
    PROPE_MARGIN,
)
from posenc.report.experiments.training import LEARNED, PERPLEXITY
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.report.present.training import lab_scope, lab_setup
from posenc.stats import over_seeds


@presents("lab_fire_kerple")
def lab_fire_kerple(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import perplexity_by_length_figure

    L, longest, ppl, sweep = m.numbers["train_len"], m.numbers["longest"], m.shown["ppl"], m.shown["sweep"]
    rows = [Row(f"{e}: perplexity at {L} (in distribution)", over_seeds(ppl[e][L], bounds=PERPLEXITY), None,
                "trained length")
            for e in EXTRAPOLATORS + BASELINES]
    rows += [Row(f"{e}: perplexity at {longest}", over_seeds(ppl[e][longest], bounds=PERPLEXITY), None, "") for e in
             EXTRAPOLATORS + BASELINES]
    rows += [Row(f"{e}: log perplexity at {longest} minus the lower of RoPE's and ALiBi's",
                 m.variants[f"{longest // L}L"][f"{e}_minus_best"], 0.0, "< 0: below both") for e in EXTRAPOLATORS]
    fig = perplexity_by_length_figure(perplexity_bands(ppl), L)
    return Shown(rows, lab_setup(sweep) + "; RoPE and ALiBi are the char-LM sweep's own runs", lab_scope(sweep), fig)


@presents("lab_prope")
def lab_prope(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import perplexity_by_length_figure

    L, ppl, sweep = m.numbers["train_len"], m.shown["ppl"], m.shown["sweep"]
    rows = [Row(f"{e}: perplexity at {L} (in distribution)", over_seeds(ppl[e][L], bounds=PERPLEXITY), None, "")
            for e in ("p_rope", "rope")]
    rows.append(Row(f"log perplexity at {L}: p-RoPE minus RoPE", m.estimates["prope_minus_rope"],
                    math.log(PROPE_MARGIN), f"non-inferiority margin (log {PROPE_MARGIN:g})"))
    longest = max(ppl["rope"])
    rows += [Row(f"{e}: perplexity at {longest} (for comparison; not judged)",
                 over_seeds(ppl[e][longest], bounds=PERPLEXITY), None, "")
             for e in ("p_rope", "rope") if longest in ppl[e]]
    fig = perplexity_by_length_figure(perplexity_bands(ppl), L)
    return Shown(rows, lab_setup(sweep) + "; RoPE is the char-LM sweep's own run", lab_scope(sweep), fig)


@presents("lab_cope_counting")
def lab_cope_counting(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import accuracy_by_size_figure

    ind, past, margins, sweep = m.shown["in_distribution"], m.shown["past_L"], m.shown["margins"], m.shown["sweep"]
    rows = [Row(f"{t}: {e} token accuracy at sizes <= L", ind[t][e], LEARNED, "learned the task")
            for t in COUNTING_TASKS for e in COUNTING_ENCODINGS]
    rows += [Row(f"{t}: {e} token accuracy at sizes > L", past[t][e], None, "") for t in COUNTING_TASKS
             for e in COUNTING_ENCODINGS]
    rows += [Row(f"{t}: CoPE minus the better of RoPE and learned, sizes > L", margins[t], 0.0, "> 0: CoPE better")
             for t in COUNTING_TASKS]
    fig = accuracy_by_size_figure(by_size_curves(m.shown["table"], COUNTING_ENCODINGS), 1.0,
                                  "selective copy and count (band: 95% interval over seeds)")
    return Shown(rows, lab_setup(sweep), lab_scope(sweep), fig)
