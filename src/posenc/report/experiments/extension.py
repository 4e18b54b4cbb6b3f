"""Context extension of a pretrained RoPE model (:mod:`posenc.extend`): SmolLM2-135M (native context 8192) past its
context, without scaling and with position interpolation (``linear``, Chen et al. 2023) and YaRN (Peng et al. 2023),
no fine-tuning. Perplexity on Shakespeare (non-overlapping windows) and passkey retrieval.

What is measured (:data:`FULL`, sizes fixed from the time budget before any run, see below):

- perplexity at ``long`` = 12288 tokens (factor s = 1.5) on 4 windows per scaling, and the same 49152 tokens read by
  the native model in 24 windows of ``short`` = 2048 tokens (at or below 8192 every scaling is the identity, s = 1);
- per window ``w`` the mean token loss ``nll[w]``; a scaling's effect is the paired log-ratio
  ``d[w] = nll_scaling[w] - nll_none[w]`` on the same window, reported as the perplexity ratio ``exp(mean d)`` with a
  Student-t 95% interval over windows (the windows are the independent units; with 4 of them a percentile
  bootstrap would be too narrow); the native reference pairs each long window with the mean of the 6 short windows
  that tile it. The perplexity at each length has a percentile-bootstrap interval over its windows;
- passkey retrieval, 20 trials per (length, depth) with a Wilson interval: at 2048 tokens at depths 0, 0.5 and 1; at
  8192 (the native limit) and at 12288 at depth 1 (the needle just before the question).

The budget: the whole full report must stay under 60 minutes on 2 cores, this experiment about 25. On the time model
of :mod:`posenc.extend.plan` (``f(L)`` seconds per forward pass: 35 at 8192, 63 at 12288, 98 at 16384) the plan
above costs about 23 minutes. 20 passkey trials at 16384 tokens cost 13 to 33 minutes per (depth, scaling) and the
perplexity windows at 16384 alone 23 minutes, so 16384 does not fit; at 12288, a needle farther than 8192 tokens from
the question (depth below 1/3) costs about 18 minutes per (depth, scaling), so past the native length the passkey runs
only at depth 1, where trials share the cached text before the needle and cost seconds. ``posenc extend`` runs the
missing cells (:data:`MORE`).

Sequences past 8192 tokens cost a minute of CPU each, more than the whole quick report may take, so quick mode does
not run this experiment and says so: the claim is then inconclusive in quick mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.report.claim import Claim, Test
from posenc.report.experiments.base import Context, Measurement, Row, experiment
from posenc.stats import Estimate, bootstrap, over_seeds, wilson

SCALINGS = ("none", "linear", "yarn")
PROTOCOL = "nonoverlap"


@dataclass(frozen=True)
class ExtensionPlan:
    """The sizes of the experiment.

    Attributes:
        long: the perplexity length past the native context.
        short: a length at or below it that divides ``long``: the same text read by the native model.
        windows: non-overlapping windows at ``long`` (``windows * long / short`` at ``short``).
        passkey: ``(length, depths)`` pairs; every (length, depth) runs ``trials`` trials for every scaling (at or
            below the native length the scalings are one model, computed once).
        trials: passkey trials per (length, depth).
    """

    long: int
    short: int
    windows: int
    passkey: tuple[tuple[int, tuple[float, ...]], ...]
    trials: int = 20

    def __post_init__(self) -> None:
        if self.long % self.short:
            raise PosencError(f"the short length must divide the long one (its windows tile the long windows), got "
                              f"short={self.short}, long={self.long}")
        if self.windows < 2:
            raise PosencError(f"an interval over windows needs at least 2 windows, got windows={self.windows}")
        if not any(n == self.long for n, _ in self.passkey):
            raise PosencError(f"the passkey must run at the long length {self.long}, got lengths "
                              f"{[n for n, _ in self.passkey]}")

    @property
    def short_windows(self) -> int:
        return self.windows * self.long // self.short

    def check_native(self, native: int) -> None:
        if not self.short <= native < self.long:
            raise PosencError(f"the plan needs short <= native < long, got short={self.short}, native={native}, "
                              f"long={self.long}")
        if not any(n <= native for n, _ in self.passkey):
            raise PosencError(f"the passkey needs a length at or below the native {native}, got "
                              f"{[n for n, _ in self.passkey]}")


#: the report's full-mode plan for SmolLM2-135M (native 8192): about 23 minutes on 2 idle cores (module docstring)
FULL = ExtensionPlan(long=12288, short=2048, windows=4,
                     passkey=((2048, (0.0, 0.5, 1.0)), (8192, (1.0,)), (12288, (1.0,))), trials=20)

#: what the budget leaves out, and the command that runs it
MORE = ("`posenc extend smollm2 --lengths 12k --scalings none,linear,yarn --protocols nonoverlap --windows 4 "
        "--depths 0,0.5,1 --trials 20 --store DIR/results.sqlite` runs the passkey at 12288 tokens at every depth "
        "(about 2 hours on 2 cores, the report's windows and depth-1 trials read from its store)")

#: why the full plan is what it is (shown in the page's setup line)
FULL_NOTE = ("Sizes fixed from the 25-minute budget on 2 cores before any result (the time model of "
             "posenc.extend.plan): 16384 tokens (2x) does not fit, nor does a needle farther than 8192 tokens from the "
             "question at 12288 (about 18 minutes per depth and scaling), so past the native length the passkey runs at "
             "depth 1 only; " + MORE + ".")

QUICK_REASON = ("not run in quick mode: SmolLM2 past its 8192-token context costs about a minute of CPU per forward "
                "pass, more than the whole quick report; run `posenc report --claim pi-yarn` (full mode, about 23 "
                "minutes on 2 cores)")


@experiment("extend_pi_yarn")
def extend_pi_yarn(ctx: Context) -> Measurement:
    """PI and YaRN on SmolLM2-135M past its native context (full mode only; quick mode says why not)."""
    if ctx.quick:
        return Measurement({"ran": False, "reason": QUICK_REASON}, setup="not run in quick mode",
                           missing=QUICK_REASON)
    return pi_yarn_measurement("smollm2", FULL, ctx, note=FULL_NOTE)


def _run(model: str, ctx: Context, **kwargs: Any) -> dict[str, Any]:
    from posenc.extend.run import run_extend

    return run_extend(model, scalings=SCALINGS, store_path=ctx.store_path, progress=ctx.progress, echo=None,
                      **kwargs)


def window_ppl(window_nll: list[float] | np.ndarray) -> Estimate:
    """Perplexity ``exp(mean window loss)`` with a 95% percentile-bootstrap interval over windows."""
    return bootstrap(np.asarray(window_nll, dtype=np.float64), lambda x: float(np.exp(np.mean(x))))


def paired_ppl_ratio(nll: list[float] | np.ndarray, reference: list[float] | np.ndarray) -> Estimate:
    """``exp(mean_w (nll[w] - reference[w]))``, the perplexity ratio paired by window, with the Student-t 95%
    interval of the mean log-ratio over windows (:func:`posenc.stats.over_seeds`: a mean over independent units)."""
    a, b = np.asarray(nll, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise PosencError(f"paired windows must be two 1-D arrays of one length, got {a.shape} and {b.shape}")
    d = over_seeds(a - b)
    return Estimate(float(np.exp(d.value)), float(np.exp(d.low)), float(np.exp(d.high)), d.n, d.method)


def tile_means(short_nll: list[float] | np.ndarray, windows: int) -> np.ndarray:
    """The mean loss of the short windows that tile each long window: ``[windows * k] -> [windows]``."""
    a = np.asarray(short_nll, dtype=np.float64)
    if a.size % windows:
        raise PosencError(f"{a.size} short windows do not tile {windows} long windows evenly")
    return a.reshape(windows, -1).mean(axis=1)  # [windows, k] -> [windows]


def passkey_counts(passkey: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[tuple[str, int, float],
                                                                                     tuple[int, int]]:
    """``{(scaling, length, depth): (correct, trials)}`` for every passkey cell run."""
    from posenc.plots.extend import passkey_cells

    return {(s, n, d): kn for s, cells in passkey_cells(passkey).items() for (n, d), kn in cells.items()}


def pi_yarn_measurement(model: str, plan: ExtensionPlan, ctx: Context, note: str = "") -> Measurement:
    """Run :func:`posenc.extend.run.run_extend` for ``model`` with ``plan`` and compute the claim's statistics
    (``note`` ends the setup line)."""
    import time

    from posenc.extend.patch import native_length
    from posenc.extend.run import model_config

    started = time.time()
    native = native_length(model_config(model))
    plan.check_native(native)
    long_run = _run(model, ctx, lengths=[plan.long], protocols=(PROTOCOL,), passkey=False, windows=plan.windows)
    short_run = _run(model, ctx, lengths=[plan.short], protocols=(PROTOCOL,), passkey=False,
                     windows=plan.short_windows)
    by_depths: dict[tuple[float, ...], list[int]] = {}
    for length, depths in plan.passkey:
        by_depths.setdefault(tuple(depths), []).append(length)
    passkey: dict[str, dict[str, Any]] = {s: {} for s in SCALINGS}
    pk_runs = []
    for depths, lengths in by_depths.items():
        run = _run(model, ctx, lengths=lengths, protocols=(), passkey=True, depths=list(depths), trials=plan.trials)
        pk_runs.append(run)
        for s in SCALINGS:
            passkey[s].update(run["passkey"][s])

    long_key, short_key = str(plan.long), str(plan.short)
    long_nll = {s: np.array(long_run["ppl"][PROTOCOL][s][long_key]["window_nll"]) for s in SCALINGS}
    short_nll = np.array(short_run["ppl"][PROTOCOL]["none"][short_key]["window_nll"])
    native_reading = tile_means(short_nll, plan.windows)  # [windows]: the long windows' text, read natively
    ppl_short = window_ppl(short_nll)
    ppl_long = {s: window_ppl(long_nll[s]) for s in SCALINGS}
    over_none = {s: paired_ppl_ratio(long_nll[s], long_nll["none"]) for s in SCALINGS if s != "none"}
    over_native = {s: paired_ppl_ratio(long_nll[s], native_reading) for s in SCALINGS}
    counts = passkey_counts(passkey)
    cells = {key: wilson(k, n) for key, (k, n) in counts.items()}
    at_long = [kn for (s, n, _), kn in counts.items() if s == "yarn" and n == plan.long]  # every depth run there
    yarn_long = wilson(sum(k for k, _ in at_long), sum(n for _, n in at_long))
    factor = float(long_run["factors"][long_key])

    estimates = {"linear_over_none_ppl": over_none["linear"], "yarn_over_none_ppl": over_none["yarn"],
                 "yarn_over_native_ppl": over_native["yarn"], "yarn_passkey_past_native": yarn_long}
    numbers = {
        "ran": True, "model": model, "native_len": native, "long": plan.long, "short": plan.short,
        "factor_long": factor, "windows_long": plan.windows, "windows_short": plan.short_windows,
        "trials": plan.trials, "passkey_plan": [[n, list(d)] for n, d in plan.passkey],
        "window_nll_long": {s: v.tolist() for s, v in long_nll.items()}, "window_nll_short": short_nll.tolist(),
        "native_reading_nll": native_reading.tolist(),
        "ppl_short": ppl_short.as_dict(), "ppl_long": {s: e.as_dict() for s, e in ppl_long.items()},
        "ppl_over_none": {s: e.as_dict() for s, e in over_none.items()},
        "ppl_over_native": {s: e.as_dict() for s, e in over_native.items()},
        "passkey": {f"{s}:{n}:{d:g}": {"correct": counts[(s, n, d)][0], "trials": counts[(s, n, d)][1],
                                       "low": e.low, "high": e.high} for (s, n, d), e in sorted(cells.items())},
        "estimate_s": sum(r["estimate_s"] for r in (long_run, short_run, *pk_runs)),
        "wall_s": time.time() - started,
        "jobs_computed": sum(r["jobs"]["computed"] for r in (long_run, short_run, *pk_runs)),
    }
    rows = [Row(f"perplexity at {plan.short} tokens, {plan.short_windows} windows (every scaling is the native "
                f"model at s = 1)", ppl_short)]
    for s in SCALINGS:
        rows.append(Row(f"{s}: perplexity at {plan.long} tokens (s = {factor:g}), {plan.windows} windows", ppl_long[s],
                        ppl_short, f"the same text in {plan.short}-token windows"))
    for s, e in over_none.items():
        rows.append(Row(f"{s} / none: perplexity ratio at {plan.long} tokens, paired by window", e, 1.0,
                        "no effect"))
    for s, e in over_native.items():
        rows.append(Row(f"{s} at {plan.long} / native model on the same text: perplexity ratio", e, 1.0,
                        "as good as within the context"))
    for (s, n, d), e in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][2], SCALINGS.index(kv[0][0]))):
        if n <= native and s != "none":
            continue  # at or below the native length every scaling is the native model: one row
        label = "every scaling" if n <= native else s
        rows.append(Row(f"{label}: passkey accuracy at {n} tokens, depth {d:g} ({e.n} trials)", e, 0.99,
                        "YaRN paper, after fine-tuning: > 99% to 128k"))
    figure = _figure(model, native, long_run, short_run, passkey, plan)
    pk_text = "; ".join(f"{n} at depth{'s' if len(d) > 1 else ''} {', '.join(f'{x:g}' for x in d)}"
                        for n, d in plan.passkey)
    setup = (f"{model} (native context {native}), Shakespeare, no fine-tuning; scalings {', '.join(SCALINGS)} at "
             f"s = max(1, L / {native}). Perplexity: {plan.windows} non-overlapping windows of {plan.long} tokens "
             f"(s = {factor:g}) per scaling, and the same {plan.windows * plan.long} tokens in {plan.short_windows} "
             f"windows of {plan.short}. Passkey: {plan.trials} trials per (length, depth): {pk_text}. {note}").strip()
    return Measurement(numbers, rows, figure, setup, estimates=estimates)


def _figure(model: str, native: int, long_run: dict, short_run: dict, passkey: dict, plan: ExtensionPlan) -> Figure:
    """Perplexity by length with intervals (top) and the passkey heatmap by depth and length (bottom)."""
    from posenc.plots.extend import extend_figure, passkey_heatmap

    merged = {s: {**short_run["ppl"][PROTOCOL][s], **long_run["ppl"][PROTOCOL][s]} for s in SCALINGS}
    fig = Figure(figsize=(8.5, 7.5), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1.0])
    extend_figure({"ppl": {PROTOCOL: merged}, "native_len": native, "config": {"model": model}}, figure=top)
    passkey_heatmap(passkey, native, figure=bottom,
                    title=f"passkey retrieval, {plan.trials} trials per cell (grey: not run within the budget)")
    return fig


# ---------------------------------------------------------------------------------------------------------------
# the claim
# ---------------------------------------------------------------------------------------------------------------
#: a scaling "beats" no scaling when it lowers perplexity by more than 5% (ledger bar since posenc 0.1.0)
BEATS = 0.95
#: past the context, perplexity within 1.5x of the native model on the same text (ledger bar since posenc 0.1.0)
NEAR_NATIVE = 1.5
#: the key is retrieved in most trials
RETRIEVES = 0.5

CLAIMS: tuple[Claim, ...] = (
    Claim("pi-yarn", "Chen et al. 2023 (PI); Peng et al. 2023 (YaRN)", "literature", "PI / YaRN extend the context",
          "Position interpolation and YaRN let a RoPE model run past its trained context.",
          "extend_pi_yarn", (
              Test("linear_over_none_ppl", "<", BEATS, "past the native context, position interpolation lowers "
                   "perplexity against no scaling (ratio paired by window)",
                   "a 5% margin, the ledger's bar since posenc 0.1.0",
                   unless="for YaRN only: position interpolation without fine-tuning (Chen et al. 2023 fine-tune "
                          "1000 steps) does not beat no scaling"),
              Test("yarn_over_none_ppl", "<", BEATS, "past the native context, YaRN lowers perplexity against no "
                   "scaling (ratio paired by window)", "a 5% margin, the ledger's bar since posenc 0.1.0",
                   unless="for position interpolation only: YaRN without fine-tuning does not beat no scaling"),
              Test("yarn_over_native_ppl", "<", NEAR_NATIVE, "with YaRN, perplexity past the context stays within "
                   "1.5x that of the native model on the same text", "the ledger's bar since posenc 0.1.0; a "
                   "context collapse is many-fold (Chen et al. 2023: LLaMA-7B from 7.2 to > 1000 at 2x)",
                   role="condition", unless="YaRN helps, but past the context perplexity stays above 1.5x the "
                                            "native value"),
              Test("yarn_passkey_past_native", ">", RETRIEVES, "with YaRN and a prompt longer than the native "
                   "context, the model still retrieves a key placed just before the question",
                   "most trials; guessing a 5-digit key succeeds once in 90000", role="condition",
                   unless="YaRN keeps perplexity, but the model stops retrieving the key past its context")),
          revision=2),
)
