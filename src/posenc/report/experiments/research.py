"""Experiments on the research encodings' own claims (FIRE, KERPLE, p-RoPE, CoPE), trained in :mod:`posenc.lab`.

- char-LM: FIRE, KERPLE and p-RoPE trained exactly as the char-LM sweep of :mod:`.training` trains RoPE and ALiBi
  (same model, data, steps and seeds; only the encoding differs). The RoPE and ALiBi runs are that sweep's own, read
  from the store, so each comparison is paired by seed.
- counting: ``selective_copy`` and ``count`` (:mod:`posenc.lab.tasks`), CoPE against two encodings that count every
  token (RoPE and a learned table), with the task sweep's model, trained to the in-distribution ceiling the same way.

Every encoding runs with its defaults (FIRE: hidden 32, threshold 512; KERPLE: the log kernel; p-RoPE: p = 0.75, the
paper's best; CoPE: one learned vector per counted position); none was tuned on these tasks.

These train past the hour the full report keeps to on 2 cores, so they run only when asked: ``posenc report
--extended``, or the claim named with ``--claim`` (``extended`` of :class:`~posenc.report.experiments.base.Experiment`).
Their pages: :mod:`posenc.report.present.research`.
"""

from __future__ import annotations

import math
from typing import Any

from posenc.errors import PosencError
from posenc.report.experiments import training
from posenc.report.experiments.base import Context, Measured, experiment
from posenc.report.experiments.training import lm_sweep, task_sweep
from posenc.stats import SHARE, Estimate, exact, over_seeds

#: the research encodings on the char-LM, and what each is compared with (the char-LM sweep's own runs)
EXTRAPOLATORS = ["fire", "kerple"]
BASELINES = ["rope", "alibi"]
#: CoPE against the encodings whose positions count every token
COUNTING_ENCODINGS = ["cope", "rope", "learned"]
COUNTING_TASKS = ["selective_copy", "count"]
#: a count of tasks above this is every counting task
COUNTING_TASKS_BAR = len(COUNTING_TASKS) - 0.5
#: p-RoPE "does not hurt": its perplexity at the trained length at most this factor above RoPE's (a margin of 2%,
#: fixed before any run; in log-perplexity, log 1.02)
PROPE_MARGIN = 1.02
#: the margin as a bar on a difference of log perplexities, and in percent
PROPE_LOG_MARGIN, PROPE_PERCENT = math.log(PROPE_MARGIN), 100 * (PROPE_MARGIN - 1)


def research_lm_sweep(quick: bool, seeds: int = 1, encodings: list[str] | None = None) -> dict[str, Any]:
    """The char-LM sweep's configuration with other encodings (default FIRE and KERPLE)."""
    sweep = lm_sweep(quick, seeds)
    name = "report-research-lm" + ("-quick" if quick else "")
    return {**sweep, "name": name, "grid": {"encoding": list(encodings or EXTRAPOLATORS)}}


def prope_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The char-LM sweep's configuration with p-RoPE."""
    return {**research_lm_sweep(quick, seeds, ["p_rope"]), "name": "report-prope" + ("-quick" if quick else "")}


def counting_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The task sweep's model and training, on the counting tasks, for CoPE and two token-counting encodings."""
    sweep = task_sweep(quick, seeds)
    return {**sweep, "name": "report-counting" + ("-quick" if quick else ""),
            "grid": {"variant": [{"task": t} for t in COUNTING_TASKS], "encoding": list(COUNTING_ENCODINGS)}}


def _baseline_runs(ctx: Context) -> list[Any]:
    """RoPE's and ALiBi's runs of the char-LM sweep (trained there, or read from the store)."""
    return [r for r in training.run_lab(lm_sweep(ctx.quick, ctx.seed_count), ctx) if r.config["label"] in BASELINES]


def _train_research_lm(ctx: Context) -> None:
    training.run_lab(lm_sweep(ctx.quick, ctx.seed_count), ctx)
    training.run_lab(research_lm_sweep(ctx.quick, ctx.seed_count), ctx)


def _train_prope(ctx: Context) -> None:
    training.run_lab(lm_sweep(ctx.quick, ctx.seed_count), ctx)
    training.run_lab(prope_sweep(ctx.quick, ctx.seed_count), ctx)


def _train_counting(ctx: Context) -> None:
    training.run_lab(counting_sweep(ctx.quick, ctx.seed_count), ctx)


_LM_TIME = ("trains 6 char-LM models (FIRE and KERPLE, 3 seeds each; 11 min of one core in all) besides the char-LM "
            "sweep the report trains anyway")
_PROPE_TIME = "trains 3 char-LM models (p-RoPE, 3 seeds; 5 min of one core in all) besides the char-LM sweep"
_COUNTING_TIME = ("trains 18 models (CoPE, RoPE and a learned table on two counting tasks, 3 seeds; 12 min of one core "
                  "in all)")


@experiment("lab_fire_kerple", device=True, driver=True, prepare=_train_research_lm, extended=_LM_TIME)
def lab_fire_kerple(ctx: Context) -> Measured:
    """Li et al. 2023 (FIRE) and Chi et al. 2022 (KERPLE): perplexity past the training context, against RoPE and
    ALiBi.

    Per seed, at each evaluation length ``n > L``: the log-perplexity of FIRE (KERPLE) minus the lower of RoPE's and
    ALiBi's (< 0: below both); mean and t-interval over seeds. Choice: the evaluation length (2L, 4L, 8L); the
    headline is the longest, as both papers' claims are about lengths far past training.
    """
    from posenc.lab.compare import lm_perplexities, margins_past

    sweep = research_lm_sweep(ctx.quick, ctx.seed_count)
    ppl = lm_perplexities(_baseline_runs(ctx) + training.run_lab(sweep, ctx))
    variants, numbers = margins_past(ppl, sweep["base"]["train_len"],
                                     {f"{e}_minus_best": (e, BASELINES) for e in EXTRAPOLATORS})
    return Measured(numbers, variants[next(reversed(variants))], variants, shown={"sweep": sweep, "ppl": ppl})


@experiment("lab_prope", device=True, driver=True, prepare=_train_prope, extended=_PROPE_TIME)
def lab_prope(ctx: Context) -> Measured:
    """Barbero et al. 2024 (p-RoPE): RoPE on its highest frequencies only, against RoPE, in distribution.

    Per seed: log-perplexity at the trained context L of p-RoPE (p = 0.75) minus RoPE's; mean and t-interval over
    seeds. "Does not hurt" is non-inferiority: the whole interval below ``log(PROPE_MARGIN)``.
    """
    from posenc.lab.compare import lm_perplexities, log_ppl_margins

    sweep = prope_sweep(ctx.quick, ctx.seed_count)
    ppl = lm_perplexities([r for r in _baseline_runs(ctx) if r.config["label"] == "rope"] + training.run_lab(sweep, ctx))
    L = sweep["base"]["train_len"]
    if L not in ppl.get("p_rope", {}) or L not in ppl.get("rope", {}):
        raise PosencError("the char-LM runs of p-RoPE or RoPE are missing; every run failed")
    diff = over_seeds(log_ppl_margins(ppl, L, "p_rope", ["rope"]))
    numbers = {"ppl": {e: {str(n): p for n, p in v.items()} for e, v in ppl.items()}, "train_len": L}
    return Measured(numbers, {"prope_minus_rope": diff}, shown={"sweep": sweep, "ppl": ppl})


@experiment("lab_cope_counting", device=True, driver=True, prepare=_train_counting, extended=_COUNTING_TIME)
def lab_cope_counting(ctx: Context) -> Measured:
    """Golovneva et al. 2024 (CoPE): the counting tasks past the trained size, CoPE against RoPE and a learned table.

    Per task and seed: CoPE's token accuracy at sizes > L minus the higher of RoPE's and the learned table's (> 0:
    CoPE does better than both); mean and t-interval over seeds. Judged only where CoPE learned both tasks in
    distribution (token accuracy >= LEARNED at sizes <= L); CoPE's own accuracy past L, the lower of the two tasks,
    says whether it *solves* them there.
    """
    from posenc.lab.compare import accuracy_table, has_room, in_distribution, per_seed

    sweep = counting_sweep(ctx.quick, ctx.seed_count)
    table = accuracy_table(training.run_lab(sweep, ctx))
    acc = table["token_accuracy"]
    absent = [f"{t}/{e}" for t in COUNTING_TASKS for e in COUNTING_ENCODINGS if e not in acc.get(t, {})]
    if absent:
        raise PosencError(f"the counting runs {', '.join(absent)} are missing; every run failed")
    ind = in_distribution(table, 1.0)
    others = [e for e in COUNTING_ENCODINGS if e != "cope"]
    margins: dict[str, Estimate] = {}
    past: dict[str, dict[str, Estimate]] = {}
    for t in COUNTING_TASKS:
        per = {e: per_seed(acc[t][e], lambda n: n > 1.0) for e in COUNTING_ENCODINGS}
        seeds = min(len(v) for v in per.values())
        margins[t] = over_seeds([per["cope"][s] - max(per[e][s] for e in others) for s in range(seeds)],
                                bounds=(-1.0, 1.0))
        past[t] = {e: over_seeds(v, bounds=SHARE) for e, v in per.items()}
    lowest_in = min((ind[t]["cope"] for t in COUNTING_TASKS), key=lambda e: e.value)
    lowest_past = min((past[t]["cope"] for t in COUNTING_TASKS), key=lambda e: e.value)
    # the ceiling rule: CoPE can beat the better of RoPE and learned past L only where that one leaves room
    room = [t for t in COUNTING_TASKS if all(has_room(past[t][e]) for e in others)]
    estimates = {"cope_in_distribution": lowest_in, "cope_past_L": lowest_past,
                 "tasks_with_room": exact(float(len(room))),
                 **{f"{t}_margin": margins[t] for t in COUNTING_TASKS}}
    numbers = {"in_distribution": {t: {e: v.as_dict() for e, v in r.items()} for t, r in ind.items()},
               "past_L": {t: {e: v.as_dict() for e, v in r.items()} for t, r in past.items()},
               "margins": {t: m.as_dict() for t, m in margins.items()}}
    return Measured(numbers, estimates, shown={"sweep": sweep, "table": table, "in_distribution": ind, "past_L": past,
                                               "margins": margins})


