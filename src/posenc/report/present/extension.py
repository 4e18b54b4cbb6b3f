"""The pages of :mod:`posenc.report.experiments.extension` (SmolLM2-135M past its native context: perplexity and
passkey without scaling, with PI and with YaRN)."""

from __future__ import annotations

from matplotlib.figure import Figure

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.extension import PROTOCOL, SCALINGS, ExtensionPlan
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents


def pi_yarn_page(m: Measured, ctx: Context) -> Shown:
    """What :func:`~posenc.report.experiments.extension.pi_yarn_measurement` measured, or why it did not run."""
    if m.missing is not None:
        return Shown([], "not run in quick mode")
    numbers, shown = m.numbers, m.shown
    model, native, factor = numbers["model"], numbers["native_len"], numbers["factor_long"]
    plan: ExtensionPlan = shown["plan"]
    ppl_native, cells = shown["ppl_native"], shown["cells"]
    rows = [Row(f"perplexity at {native} tokens, {plan.windows} windows (the unscaled model on each window's first "
                f"{native} tokens)", ppl_native)]
    for s in SCALINGS:
        rows.append(Row(f"{s}: perplexity at {plan.long} tokens (s = {factor:g}), {plan.windows} windows",
                        shown["ppl_long"][s], ppl_native, f"native, {native} tokens"))
    for s, e in shown["over_none"].items():
        rows.append(Row(f"{s} / none: perplexity ratio at {plan.long} tokens, paired by window", e, 1.0,
                        "no effect"))
    for s, e in shown["over_native"].items():
        rows.append(Row(f"{s} at {plan.long} / native ({native}) on the same windows: perplexity ratio", e, 1.0,
                        "as good as within the context"))
    for (s, n, d), e in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][2], SCALINGS.index(kv[0][0]))):
        if n <= native and s != "none":
            continue  # at or below the native length every scaling is the native model: one row
        label = "every scaling (native model)" if n <= native else s
        rows.append(Row(f"{label}: passkey accuracy at {n} tokens, depth {d:g} ({e.n} trials)", e, 0.99,
                        "YaRN paper, after fine-tuning: > 99% to 128k"))
    figure = _figure(model, native, shown["long_run"], shown["passkey"], plan)
    pk_text = "; ".join(f"{c.length} at depth{'s' if len(c.depths) > 1 else ''} {', '.join(f'{x:g}' for x in c.depths)}"
                        + ("" if c.length <= native else f" ({', '.join(c.scalings)})") for c in plan.passkey)
    setup = (f"{model} (native context {native}), Shakespeare, no fine-tuning; scalings {', '.join(SCALINGS)} at "
             f"s = max(1, L / {native}). Perplexity: {plan.windows} non-overlapping windows of {plan.long} tokens "
             f"(s = {factor:g}) per scaling; the native reference is the unscaled model on each window's first "
             f"{native} tokens. Passkey: {plan.trials} trials per (length, depth): {pk_text}. {shown['note']}").strip()
    scope = f"{model}, {plan.windows} windows of {plan.long} tokens, passkey {plan.trials} trials per cell"
    return Shown(rows, setup, scope, figure)


@presents("extend_pi_yarn")
def extend_pi_yarn(m: Measured, ctx: Context) -> Shown:
    return pi_yarn_page(m, ctx)


@presents("extend_pi_yarn_rescue")
def extend_pi_yarn_rescue(m: Measured, ctx: Context) -> Shown:
    return pi_yarn_page(m, ctx)


def _figure(model: str, native: int, long_run: dict, passkey: dict, plan: ExtensionPlan) -> Figure:
    """Perplexity by length with intervals (top) and the passkey heatmap by depth and length (bottom): each scaling's
    row gets the native-length point (the unscaled model on each window's first ``native`` tokens) before
    :func:`posenc.plots.extend.extension_summary_figure` draws it."""
    from posenc.extend.compare_scalings import passkey_cells, window_ppl
    from posenc.plots.extend import extension_summary_figure

    cells = long_run["ppl"][PROTOCOL]
    within = window_ppl(cells["none"][str(plan.long)]["window_nll_within_native"])
    at_native = {"ppl": within.value, "ppl_interval": [within.low, within.high]}
    merged = {s: {str(native): at_native, **cells[s]} for s in SCALINGS}
    return extension_summary_figure(merged, PROTOCOL, native, model, passkey_cells(passkey), plan.trials)
