"""Experiments that train small models (:mod:`posenc.lab`): train short, test long.

Two sweeps, shared by several claims and cached in the report's store by the lab itself (kind ``lab``):

- tasks: synthetic tasks (copy, reverse, ...) x encodings, a causal decoder trained on sizes ``1..L`` and tested at
  ``L/2, L, 2L`` (Kazemnejad et al. 2023 train up to 20 and test up to 40);
- char-LM: a character-level Shakespeare language model trained at context ``L`` and scored at ``L..8L``
  (the shape of the ALiBi paper's table, Press et al. 2022).

Every configuration trains with several seeds (:attr:`Context.seed_count`: 3 in both modes, unless ``--seeds`` says
otherwise); each number is the mean over seeds with a Student-t 95% interval (:func:`posenc.stats.over_seeds`),
clipped to what the number can take (accuracies in [0, 1], their differences in [-1, 1], perplexities at or above 1;
ratios of perplexities on a log scale). A t-interval needs 3 seeds: with fewer (``--seeds 2``) the numbers have no
intervals, and the lab claims are not decided in quick mode (inconclusive in full mode), never decided differently.
An extrapolation claim is judged only on models that learned the task in distribution (:data:`LEARNED`). The
statistics over the runs are :mod:`posenc.lab.compare`'s; their pages: :mod:`posenc.report.present.training`.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

from posenc.errors import PosencError

# LEARNED, NOPE_PAPER_MRR, PERPLEXITY and TIE: the claims (posenc.report.claims) and pages (posenc.report.present)
# read these bars and reference numbers from here
from posenc.lab.compare import (  # noqa: F401
    LEARNED,
    NOPE_PAPER_MRR,
    PERPLEXITY,
    TIE,
    Table,
    accuracy_table,
    has_room,
    in_distribution,
    learned,
    lm_perplexities,
    per_seed,
    ranking_estimates,
    win_share,
)
from posenc.report.experiments.base import Context, Measured, experiment
from posenc.stats import POSITIVE, SHARE, Estimate, observed, over_seeds

TASK_ENCODINGS = ["nope", "t5", "alibi", "rope", "sinusoidal", "learned"]
LM_ENCODINGS = ["sinusoidal", "rope", "alibi"]


def task_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The lab sweep (a dict for :func:`posenc.lab.run_sweep`) over tasks x encodings.

    Full mode trains each model to its in-distribution ceiling (validation every 250 steps, stop after 4 without
    improvement, at most 3000 steps). The sizes were fixed from the compute budget (the full report under 60 minutes
    on 2 cores) and from in-distribution validation alone (``benchmarks/explore_ceiling.py``): copy, reverse and
    sort at sizes up to 8 with 2 layers; addition, which 2 layers of width 64 do not learn at 8 digits in that
    budget, at up to 4 digits with width 128. Every task is tested at L/2, L and 2L.

    Quick mode trains copy alone, 400 steps, at the size where the most of the six encodings learned it in
    distribution within the quick report's 2 minutes (seeds 100-102, apart from the report's; in-distribution
    validation only; docs/report.md, "What quick mode leaves to the full report"): width 64 at sizes up to 4.
    """
    if quick:
        base = {"d_model": 64, "n_layers": 2, "n_heads": 4, "train_len": 4, "eval_lengths": [2, 4, 8],
                "steps": 400, "batch_size": 32, "lr": 3e-3, "warmup": 30, "eval_samples": 64}
        variants = [{"task": "copy"}]
    else:
        base = {"d_model": 64, "n_layers": 2, "n_heads": 4, "train_len": 8, "eval_lengths": [4, 8, 16],
                "steps": 3000, "batch_size": 32, "lr": 1e-3, "warmup": 100, "eval_samples": 256, "val_every": 250,
                "patience": 4, "val_samples": 64}
        variants = [{"task": "copy"}, {"task": "reverse"}, {"task": "sort"},
                    {"task": "addition", "train_len": 4, "eval_lengths": [2, 4, 8], "d_model": 128}]
    return {"name": "report-tasks" + ("-quick" if quick else ""), "base": base,
            "grid": {"variant": variants, "encoding": TASK_ENCODINGS}, "seeds": list(range(seeds))}


def lm_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The char-LM sweep: perplexity by evaluation length for a few encodings."""
    if quick:
        base = {"task": "charlm", "d_model": 32, "n_layers": 2, "n_heads": 4, "train_len": 32, "steps": 150,
                "batch_size": 16, "lr": 3e-3, "warmup": 15, "eval_tokens": 2048, "protocols": ["nonoverlap"]}
    else:
        base = {"task": "charlm", "d_model": 64, "n_layers": 2, "n_heads": 4, "train_len": 64, "steps": 1500,
                "batch_size": 32, "lr": 1e-3, "warmup": 100, "eval_tokens": 16384, "protocols": ["nonoverlap"]}
    encodings = LM_ENCODINGS if quick else LM_ENCODINGS + ["t5", "nope"]
    return {"name": "report-charlm" + ("-quick" if quick else ""), "base": base, "grid": {"encoding": encodings},
            "seeds": list(range(seeds))}


def _workers(ctx: Context) -> int:
    """Lab processes for the report: one per usable core (quick mode too: its 3 seeds x 9 configurations take
    about a minute and a half of one core, far more than the worker start-up)."""
    from posenc.resources import usable_cores

    return usable_cores()


def run_lab(sweep: dict[str, Any], ctx: Context) -> list[Any]:
    """Run (or read from the store) every run of ``sweep``.

    Each run uses one torch thread: these models are tiny, and on a busy machine two OpenMP threads fighting for
    cores are many times slower than one. Locally, one process per core (:func:`_workers`); on Ray
    (``ctx.executor``), one task per run on the cluster at ``ctx.address``, stored by this process. The process's
    thread count is restored afterwards.
    """
    import torch

    from posenc.lab.sweep import run_sweep

    store = ctx.store_path
    if store is None:  # the report runs without a store: keep the lab's runs for this call only
        store = Path(tempfile.mkdtemp(prefix="posenc-lab-")) / "lab.sqlite"
    threads = torch.get_num_threads()
    try:
        results = run_sweep(sweep, store, executor=ctx.executor, workers=_workers(ctx), address=ctx.address,
                            progress=ctx.progress, threads=1, device=ctx.device, dtype=ctx.dtype)
    finally:
        torch.set_num_threads(threads)
    errors = [r for r in results if r.status != "done"]
    if len(errors) == len(results):
        raise PosencError(f"every lab run of sweep {sweep['name']} failed; first error: "
                          f"{(errors[0].error or '').splitlines()[0]}")
    return [r for r in results if r.status == "done"]


def _train_tasks(ctx: Context) -> None:
    """Train (or find in the store) every run of the task sweep, ahead of the claims that read it."""
    run_lab(task_sweep(ctx.quick, ctx.seed_count), ctx)


def _train_lm(ctx: Context) -> None:
    """Train (or find in the store) every run of the char-LM sweep, ahead of the claim that reads it."""
    run_lab(lm_sweep(ctx.quick, ctx.seed_count), ctx)


def task_table(ctx: Context) -> tuple[Table, float, dict[str, Any]]:
    """Per-seed accuracies ``table[metric][task][encoding][size / L]`` (sizes as multiples of each task's trained
    size L, so tasks trained at different L line up), the trained size in those units (1.0), and the sweep."""
    sweep = task_sweep(ctx.quick, ctx.seed_count)
    return accuracy_table(run_lab(sweep, ctx)), 1.0, sweep


@experiment("lab_learned_vs_fixed", device=True, driver=True, prepare=_train_tasks)
def lab_learned_vs_fixed(ctx: Context) -> Measured:
    """Tutorial 003 §14.8.3: a learned table vs the sinusoid, in distribution (sizes up to the trained length).

    Per task: the difference learned - sinusoid of token accuracy at sizes <= L, paired by seed
    (:func:`posenc.lab.compare.win_share`). The ceiling rule: a task tests "learned wins by more than a tie" only where
    the sinusoid leaves room for it (:func:`posenc.lab.compare.has_room`); the claim is judged on the learned tasks
    with room, or is not testable when fewer than two have it. The null: the same share with the sinusoid against
    itself across seeds (seed s against seed s + 1).
    """
    table, L, sweep = task_table(ctx)
    ind = in_distribution(table, L)
    acc = table["token_accuracy"]
    both = [t for t, by in acc.items() if "learned" in by and "sinusoidal" in by]
    learned_tasks = [t for t in both if learned(ind[t]["learned"]) or learned(ind[t]["sinusoidal"])]
    room = [t for t in learned_tasks if has_room(ind[t]["sinusoidal"])]
    _, diffs, _, _ = win_share(acc, both, "learned", "sinusoidal", L)
    share, _, wins, not_wins = win_share(acc, room, "learned", "sinusoidal", L)
    null, null_diffs, _, _ = win_share(acc, room, "sinusoidal", "sinusoidal", L, shift=1)
    seeds = min((d.n for d in diffs.values()), default=0)
    estimates = {"learned_tasks": observed(len(learned_tasks), seeds, POSITIVE),
                 "tasks_with_room": observed(len(room), seeds, POSITIVE), "win_share": share, "win_share_null": null}
    numbers = {"differences": {t: d.as_dict() for t, d in diffs.items()}, "learned_tasks": learned_tasks,
               "tasks_with_room": room, "null_differences": {t: d.as_dict() for t, d in null_diffs.items()},
               "in_distribution": {t: {e: v.as_dict() for e, v in r.items()} for t, r in ind.items()},
               "wins": wins, "not_wins": not_wins}
    tasks = len(sweep["grid"]["variant"])
    missing = (f"quick mode trains {tasks} task; 'most tasks' needs at least 2 learned ones, so only the full report "
               f"(4 tasks, 3 seeds) can decide it" if ctx.quick and tasks < 2 else None)
    return Measured(numbers, {} if missing else estimates, missing=missing,
                    shown={"sweep": sweep, "in_distribution": ind, "differences": diffs, "share": share, "null": null})


#: rope-extrapolates' positive control: ALiBi, the encoding built to extrapolate (Press et al. 2022), on the same
#: tasks and lengths
CONTROL = "alibi"


@experiment("lab_rope_extrapolation", device=True, driver=True, prepare=_train_tasks)
def lab_rope_extrapolation(ctx: Context) -> Measured:
    """Tutorial 003 §14.6.3: RoPE trained on sizes up to L, tested past L: the share of its in-distribution token
    accuracy it keeps, per seed, over tasks RoPE learned."""
    table, L, sweep = task_table(ctx)
    ind = in_distribution(table, L)
    acc = table["token_accuracy"]
    rope_learned = [t for t in acc if "rope" in acc[t] and learned(ind[t]["rope"])]
    tasks = rope_learned or [t for t in acc if "rope" in acc[t]]
    if not tasks:
        raise PosencError("the lab sweep returned no RoPE runs")

    def over_tasks(enc: str, keep, names: list[str]) -> list[float]:
        per_task = [per_seed(acc[t][enc], keep) for t in names if enc in acc[t]]
        seeds = min(len(v) for v in per_task)
        return [sum(v[s] for v in per_task) / len(per_task) for s in range(seeds)]

    def kept_share(enc: str, names: list[str]) -> tuple[list[float], Estimate]:
        inside, past = over_tasks(enc, lambda n: n <= L, names), over_tasks(enc, lambda n: n > L, names)
        return inside, over_seeds([b / a if a > 0 else 0.0 for a, b in zip(inside, past, strict=False)],
                                  bounds=POSITIVE)

    inside, kept = kept_share("rope", tasks)
    past = over_tasks("rope", lambda n: n > L, tasks)
    control_tasks = [t for t in tasks if CONTROL in acc[t]]
    # no control runs, no power: a number with no interval, which decides nothing
    control = kept_share(CONTROL, control_tasks)[1] if control_tasks else Estimate(math.nan, -math.inf, math.inf, 0,
                                                                                    "t", POSITIVE)
    rope_in = over_seeds(inside, bounds=SHARE)
    longest = max(n for t in acc.values() for e in t.values() for n in e)
    estimates = {"rope_in_distribution": rope_in, "kept_past_L": kept, "control_kept_past_L": control}
    # past L, RoPE's and each other encoding's that ran every task (for comparison)
    past_L = {"rope": over_seeds(past, bounds=SHARE)}
    past_L |= {e: over_seeds(over_tasks(e, lambda n: n > L, tasks), bounds=SHARE) for e in TASK_ENCODINGS
               if e != "rope" and all(e in acc[t] for t in tasks)}
    numbers = {"tasks": tasks, "rope_learned_tasks": rope_learned, "longest_over_L": longest,
               "in_distribution": {t: {e: v.as_dict() for e, v in r.items()} for t, r in ind.items()}}
    return Measured(numbers, estimates, shown={"sweep": sweep, "table": table, "L": L, "past_L": past_L})


NOPE_METRICS = {"exact match": "exact_match", "token accuracy": "token_accuracy"}


#: a task ranks the encodings only when at least one of them learned it in distribution (else all tie, last)
RANKED_TASKS_NEEDED = 2
#: the same as a bar on a count of tasks: more than this is at least :data:`RANKED_TASKS_NEEDED`
RANKED_TASKS_BAR = RANKED_TASKS_NEEDED - 0.5


@experiment("lab_nope_ranking", device=True, driver=True, prepare=_train_tasks)
def lab_nope_ranking(ctx: Context) -> Measured:
    """Kazemnejad et al. 2023: rank encodings per task by accuracy past the trained length; mean reciprocal rank,
    and its rank correlation with the paper's. Every encoding ranks on every task some encoding learned; one that
    did not learn the task in distribution ranks last there (:func:`posenc.lab.compare.ranking_estimates`).

    Choice: the metric. The paper ranks by exact-match accuracy (the headline); token accuracy is shown beside it.
    Quick mode trains one task; a ranking over tasks needs at least :data:`RANKED_TASKS_NEEDED`, so quick mode
    decides neither option.
    """
    table, L, sweep = task_table(ctx)
    variants, detail = {}, {}
    for option, metric in NOPE_METRICS.items():
        ind = in_distribution(table, L, metric)
        variants[option], detail[option] = ranking_estimates(table, L, metric, ind)
    numbers = {"by_metric": {o: {"tasks": d["tasks"], "failed": d.get("failed", {}), "mrr": d.get("mrr", {})}
                             for o, d in detail.items()}}
    tasks = len(sweep["grid"]["variant"])
    missing = (f"quick mode trains {tasks} task; a ranking over tasks needs at least {RANKED_TASKS_NEEDED}, so only "
               f"the full report (4 tasks, 3 seeds) can decide it" if ctx.quick and tasks < RANKED_TASKS_NEEDED
               else None)
    return Measured(numbers, {} if missing else variants["exact match"], variants={} if missing else variants,
                    missing=missing, shown={"sweep": sweep, "table": table, "L": L, "ranking": variants,
                                            "exact_match": in_distribution(table, L, "exact_match")})


#: ALiBi paper, perplexity at 10512 / at 512 (Press et al. 2022, trained at L=512; FACTS.md §4)
ALIBI_PAPER_GROWTH = {"sinusoidal": 341.53 / 20.05, "rope": 60.77 / 20.07, "t5": 52.95 / 19.65,
                      "alibi": 18.32 / 19.73}


@experiment("lab_alibi_shape", device=True, driver=True, prepare=_train_lm)
def lab_alibi_shape(ctx: Context) -> Measured:
    """Press et al. 2022: perplexity at evaluation lengths past the training context, per encoding.

    Growth = perplexity at the evaluation length / at L, per seed. Statistics, per seed then over seeds: ALiBi's
    growth minus the smallest growth of the others (< 0: ALiBi is flattest), and the sinusoid's growth minus the
    largest of the others (> 0: the sinusoid is steepest). Choice: the evaluation length (2L, 4L, 8L); the
    headline is the longest, as the paper's claim is about lengths far past L.
    """
    sweep = lm_sweep(ctx.quick, ctx.seed_count)
    L = sweep["base"]["train_len"]
    ppl = lm_perplexities(run_lab(sweep, ctx))
    lengths = sorted({n for v in ppl.values() for n in v if n > L})
    variants: dict[str, dict[str, Estimate]] = {}
    growth: dict[int, dict[str, Estimate]] = {}
    for n in lengths:
        per_seed = {e: [a / b for a, b in zip(v[n], v[L], strict=False)] for e, v in ppl.items() if n in v and L in v}
        growth[n] = {e: over_seeds(g, log=True) for e, g in per_seed.items()}
        seeds = min(len(g) for g in per_seed.values())
        others = [e for e in per_seed if e != "alibi"]
        flattest = [per_seed["alibi"][s] - min(per_seed[e][s] for e in others) for s in range(seeds)]
        not_sin = [e for e in per_seed if e != "sinusoidal"]
        steepest = [per_seed["sinusoidal"][s] - max(per_seed[e][s] for e in not_sin) for s in range(seeds)]
        variants[f"{n // L}L"] = {"alibi_minus_flattest_other": over_seeds(flattest),
                                  "sinusoid_minus_steepest_other": over_seeds(steepest)}
    longest = max(lengths)
    numbers = {"ppl": {e: {str(n): p for n, p in v.items()} for e, v in ppl.items()},
               "growth": {str(n): {e: g.as_dict() for e, g in by.items()} for n, by in growth.items()},
               "train_len": L, "longest": longest}
    return Measured(numbers, variants[f"{longest // L}L"], variants,
                    shown={"sweep": sweep, "ppl": ppl, "growth": growth[longest]})


