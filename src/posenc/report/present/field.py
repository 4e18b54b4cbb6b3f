"""The pages of :mod:`posenc.report.experiments.field` (PoPE, FoX, DAPE and iRoPE's layer pattern, trained in the
lab)."""

from __future__ import annotations

from posenc.lab.compare import perplexity_bands
from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.field import FIELD_LM, IROPE
from posenc.report.experiments.training import PERPLEXITY
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.report.present.training import lab_scope, lab_setup
from posenc.stats import over_seeds


@presents("lab_field_lm")
def lab_field_lm(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import perplexity_by_length_figure

    L, longest, ppl, sweep = m.numbers["train_len"], m.numbers["longest"], m.shown["ppl"], m.shown["sweep"]
    labels = sweep["grid"]["encoding"]
    rows = [Row(f"{e}: perplexity at {L} (in distribution)", over_seeds(ppl[e][L], bounds=PERPLEXITY), None, "trained length")
            for e in labels]
    rows += [Row(f"{e}: perplexity at {longest}", over_seeds(ppl[e][longest], bounds=PERPLEXITY), None, "") for e in labels]
    rows += [Row(f"{e}: log perplexity at {longest} minus {b}'s", m.variants[f"{longest // L}L"][f"{e}_minus_{b}"],
                 0.0, f"< 0: below {b}") for e, b in FIELD_LM.items()]
    fig = perplexity_by_length_figure(perplexity_bands(ppl), L)
    return Shown(rows, lab_setup(sweep) + "; RoPE's and KERPLE's runs are those of the char-LM and research sweeps (the "
                                          "same configuration)", lab_scope(sweep), fig)


@presents("lab_irope")
def lab_irope(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.lab import perplexity_by_length_figure

    L, longest, ppl, sweep = m.numbers["train_len"], m.numbers["longest"], m.shown["ppl"], m.shown["sweep"]
    rows = [Row(f"{e}: perplexity at {n}{' (in distribution)' if n == L else ''}", over_seeds(ppl[e][n], bounds=PERPLEXITY), None, "")
            for n in (L, longest) for e in m.shown["labels"]]
    rows.append(Row(f"hybrid: log perplexity at {L} minus the lower of all-RoPE's and all-NoPE's (not judged)",
                    m.shown["hybrid_minus_best_at_L"], 0.0, "in distribution"))
    rows.append(Row(f"hybrid: log perplexity at {longest} minus the lower of all-RoPE's and all-NoPE's",
                    m.variants[f"{longest // L}L"]["hybrid_minus_best"], 0.0, "< 0: below both"))
    fig = perplexity_by_length_figure(perplexity_bands(ppl), L)
    setup = lab_setup({**sweep, "grid": {}})  # its variants are encodings, not tasks
    return Shown(rows, setup + f"; hybrid: layers {', '.join(IROPE)} (every fourth layer NoPE) against all-RoPE and "
                               f"all-NoPE", lab_scope({**sweep, "grid": {}}), fig)  # its variants are encodings, not tasks
