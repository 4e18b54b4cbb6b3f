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
An extrapolation claim is judged only on models that learned the task in distribution (:data:`LEARNED`). Their
pages: :mod:`posenc.report.present.training`.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from posenc.errors import PosencError
from posenc.report.experiments.base import Context, Measured, Mode, experiment
from posenc.stats import (
    CORRELATION,
    MIN_UNITS,
    POSITIVE,
    SHARE,
    Estimate,
    bootstrap_weights,
    mean_reciprocal_rank,
    observed,
    over_seeds,
)

TASK_ENCODINGS = ["nope", "t5", "alibi", "rope", "sinusoidal", "learned"]
LM_ENCODINGS = ["sinusoidal", "rope", "alibi"]
#: the mode whose task sweep trains one task: a claim over tasks is not decided there (not a size: the sweep's sizes
#: are :func:`task_sweep`'s)
QUICK = Mode(quick=True, full=False)


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


#: a model "learned" a task when its in-distribution token accuracy (sizes <= L), mean over seeds, reaches this;
#: below it an extrapolation number says nothing (the model never solved the task where it was trained)
LEARNED = 0.95
#: two accuracies closer than this are a tie (one point of accuracy)
TIE = 0.01
METRICS = ("token_accuracy", "exact_match")
#: round-off forgiven where a mean over seeds meets a bar: three seeds at 0.95 average to 0.9499999999999998
ROUND_OFF = 1e-12


def learned(accuracy: Estimate) -> bool:
    """Whether an in-distribution accuracy (a mean over seeds) reaches :data:`LEARNED`, round-off forgiven."""
    return accuracy.value >= LEARNED - ROUND_OFF

#: ``table[metric][task][encoding][size / L] -> [value per seed]``
Table = dict[str, dict[str, dict[str, dict[float, list[float]]]]]


def _value(entry: Any, metric: str) -> float:
    """One evaluation's metric; a model that cannot run the length scores 0."""
    return float(entry[metric]) if isinstance(entry, dict) else 0.0


def task_table(ctx: Context) -> tuple[Table, float, dict[str, Any]]:
    """Per-seed accuracies ``table[metric][task][encoding][size / L]`` (sizes as multiples of each task's trained
    size L, so tasks trained at different L line up), the trained size in those units (1.0), and the sweep."""
    sweep = task_sweep(ctx.quick, ctx.seed_count)
    return accuracy_table(run_lab(sweep, ctx)), 1.0, sweep


def accuracy_table(results: list[Any]) -> Table:
    """``table[metric][task][encoding][size / L] -> [value per seed, in seed order]`` of task runs."""
    table: Table = {m: {} for m in METRICS}
    for result in sorted(results, key=lambda r: r.seed):
        c = result.config
        for metric in METRICS:
            by_length = table[metric].setdefault(c["task"], {}).setdefault(c["label"], {})
            for n, entry in result.metrics["by_length"].items():
                by_length.setdefault(int(n) / c["train_len"], []).append(_value(entry, metric))
    return table


def per_seed(by_length: dict[float, list[float]], keep) -> list[float]:
    """Per seed: the mean over the kept lengths."""
    lengths = [n for n in sorted(by_length) if keep(n)]
    if not lengths:
        return []
    seeds = min(len(by_length[n]) for n in lengths)
    return [sum(by_length[n][s] for n in lengths) / len(lengths) for s in range(seeds)]


def in_distribution(table: Table, L: float, metric: str = "token_accuracy") -> dict[str, dict[str, Estimate]]:
    """``{task: {encoding: accuracy at sizes <= L, over seeds}}``: did each model learn each task?"""
    return {t: {e: over_seeds(per_seed(v, lambda n: n <= L), bounds=SHARE) for e, v in by_enc.items()}
            for t, by_enc in table[metric].items()}


def by_size_curves(table: Table, encodings: list[str], metric: str = "token_accuracy"
                   ) -> dict[str, dict[float, tuple[float, float, float]]]:
    """``{encoding: {size / L: (mean, low, high)}}``: per seed the mean over the tasks that ran the size, then the
    mean and 95% t-interval over seeds (an encoding with no runs is left out; fewer than 3 seeds: infinite ends, which
    the figures draw as no band)."""
    acc = table[metric]
    curves: dict[str, dict[float, tuple[float, float, float]]] = {}
    for enc in encodings:
        lengths = sorted({n for t in acc.values() for n in t.get(enc, {})})
        if not lengths:
            continue
        curves[enc] = {}
        for n in lengths:
            per_seed = [sum(vals) / len(vals) for vals in
                        zip(*(acc[t][enc][n] for t in acc if enc in acc[t] and n in acc[t][enc]), strict=False)]
            e = over_seeds(per_seed, bounds=SHARE)
            curves[enc][n] = (e.value, e.low, e.high)
    return curves


def _share_bounds(wins: int, ties_or_losses: int, total: int, seeds: int) -> Estimate:
    """The share of tasks won, as the interval between counting every undecided task as lost and as won; no
    interval when the per-task differences rest on too few seeds to have intervals of their own."""
    value_low = wins / total
    value_high = (total - ties_or_losses) / total
    value = (value_low + value_high) / 2
    if seeds < MIN_UNITS:
        return Estimate(value, -math.inf, math.inf, seeds, "bounds", SHARE)
    return Estimate(value, value_low, value_high, total, "bounds", SHARE)


def has_room(baseline: Estimate) -> bool:
    """Whether a baseline's in-distribution accuracy leaves room to be beaten by more than :data:`TIE` (the ceiling
    rule): its mean over seeds lies below ``1 - TIE``. At or above it, "the other wins by more than a tie" cannot
    happen on that metric, so the task cannot tell the cases apart."""
    return baseline.value < 1.0 - TIE - ROUND_OFF


def win_share(acc: dict[str, dict[str, dict[float, list[float]]]], tasks: list[str], challenger: str, baseline: str,
              L: float, shift: int = 0) -> tuple[Estimate, dict[str, Estimate], int, int]:
    """The share of ``tasks`` on which ``challenger`` beats ``baseline`` in distribution by more than :data:`TIE`:
    per task the difference of token accuracy at sizes <= L, paired by seed, with a t-interval; a task is won when
    the whole interval is above +TIE, not won when it is wholly at or below +TIE; the share is the interval between
    counting the undecided tasks as lost and as won (:func:`_share_bounds`). Returns (share, per-task difference,
    wins, not-wins).

    ``shift``: pair the challenger's seed ``s`` with the baseline's seed ``s + shift`` (mod the seeds): with the
    baseline as its own challenger and ``shift=1``, the null: an encoding against itself across seeds.
    """
    diffs: dict[str, Estimate] = {}
    for task in tasks:
        a = per_seed(acc[task][challenger], lambda n: n <= L)
        b = per_seed(acc[task][baseline], lambda n: n <= L)
        seeds = min(len(a), len(b))
        diffs[task] = over_seeds([a[s] - b[(s + shift) % seeds] for s in range(seeds)], bounds=(-1.0, 1.0))
    wins = sum(d.low > TIE + ROUND_OFF for d in diffs.values())  # a lead of exactly TIE is a tie
    not_wins = sum(d.high <= TIE + ROUND_OFF for d in diffs.values())
    seeds = min((d.n for d in diffs.values()), default=0)
    share = (_share_bounds(wins, not_wins, len(tasks), seeds) if tasks else observed(float("nan"), seeds, SHARE))
    return share, diffs, wins, not_wins


@experiment("lab_learned_vs_fixed", device=True, driver=True, prepare=_train_tasks)
def lab_learned_vs_fixed(ctx: Context) -> Measured:
    """Tutorial 003 §14.8.3: a learned table vs the sinusoid, in distribution (sizes up to the trained length).

    Per task: the difference learned - sinusoid of token accuracy at sizes <= L, paired by seed (:func:`win_share`).
    The ceiling rule: a task tests "learned wins by more than a tie" only where the sinusoid leaves room for it
    (:func:`has_room`); the claim is judged on the learned tasks with room, or is not testable when fewer than two
    have it. The null: the same share with the sinusoid against itself across seeds (seed s against seed s + 1).
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
               f"(4 tasks, 3 seeds) can decide it" if QUICK.of(ctx) and tasks < 2 else None)
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


#: Kazemnejad et al. 2023, mean reciprocal rank over tasks (FACTS.md §4)
NOPE_PAPER_MRR = {"nope": 0.69, "t5": 0.55, "alibi": 0.50, "rope": 0.33, "sinusoidal": 0.22}
NOPE_METRICS = {"exact match": "exact_match", "token accuracy": "token_accuracy"}


#: a task ranks the encodings only when at least one of them learned it in distribution (else all tie, last)
RANKED_TASKS_NEEDED = 2
#: label permutations for the ranking's null
PERMUTATIONS = 2000
#: an encoding that did not learn a task in distribution scores this there: below every accuracy, so it ranks last
FAILED = -1.0


def _min_ranks(x: np.ndarray) -> np.ndarray:
    """``x [..., n]`` -> ranks ``[..., n]``, highest first, ties sharing the better rank (1 + how many are higher):
    ``scipy.stats.rankdata(-x, method="min")`` along the last axis, for many rows at once."""
    return 1 + (x[..., None, :] > x[..., :, None]).sum(axis=-1)


def _mean_ranks(x: np.ndarray) -> np.ndarray:
    """``x [..., n]`` -> ascending ranks ``[..., n]``, ties sharing their mean rank (``rankdata``'s default)."""
    less = (x[..., None, :] < x[..., :, None]).sum(axis=-1)
    equal = (x[..., None, :] == x[..., :, None]).sum(axis=-1)
    return 1 + less + (equal - 1) / 2


def ranking_rho(scores: np.ndarray, task_weights: np.ndarray | None = None) -> np.ndarray:
    """``scores [..., tasks, encodings]`` (encodings in :data:`NOPE_PAPER_MRR`'s order; one that failed a task scores
    :data:`FAILED` there): the Spearman correlation of each encoding's mean reciprocal rank over tasks (ties share
    the better rank, as :func:`~posenc.stats.mean_reciprocal_rank`; tasks weighted by ``task_weights [..., tasks]``,
    default equal) with the paper's, ``[...]``; NaN where every encoding has the same mean reciprocal rank."""
    scores = np.asarray(scores, dtype=np.float64)
    if task_weights is None:
        task_weights = np.full(scores.shape[:-1], 1.0 / scores.shape[-2])
    mrr = np.einsum("...t,...te->...e", task_weights, 1.0 / _min_ranks(scores))  # [..., encodings]
    a = _mean_ranks(np.round(mrr, 12))  # equal sums of reciprocal ranks tie whatever order they were added in
    b = _mean_ranks(np.array(list(NOPE_PAPER_MRR.values())))
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a @ b) / np.sqrt((a * a).sum(axis=-1) * (b @ b))


def _ranking_estimates(table: Table, L: float, metric: str, ind: dict[str, dict[str, Estimate]]
                       ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """Every one of the paper's five encodings ranks on every task that at least one of them learned in
    distribution; one that did not learn it ranks last there (:data:`FAILED`). Per task the encodings are ranked by
    accuracy past L (mean over seeds); the Spearman correlation of their mean reciprocal ranks with the paper's
    (:func:`ranking_rho`), with an interval from a bootstrap that resamples tasks and seeds apart (two-way,
    :func:`~posenc.stats.bootstrap_weights`): no interval with fewer than 3 of either.

    The null, computed by the same function on the same scores: the encodings' labels permuted within each task
    (:data:`PERMUTATIONS` draws, seeded), its value the median and its interval the central 95% of the draws: what
    rank correlation an order unrelated to the encodings gives.
    """
    ranked = list(NOPE_PAPER_MRR)
    acc = table[metric]
    tasks = [t for t in acc if all(e in acc[t] for e in ranked) and any(learned(ind[t][e]) for e in ranked)]
    seeds = min((len(x) for by in acc.values() for lengths in by.values() for x in lengths.values()), default=0)
    if not tasks:
        return ({"ranked_tasks": observed(0, seeds, POSITIVE), "tasks_with_room": observed(0, seeds, POSITIVE),
                 "rank_correlation": observed(math.nan, seeds, CORRELATION),
                 "rank_correlation_null": observed(math.nan, seeds, CORRELATION)}, {"tasks": []})
    past = {t: {e: per_seed(acc[t][e], lambda n: n > L) for e in ranked} for t in tasks}
    seeds = min(len(past[t][e]) for t in tasks for e in ranked)
    failed = np.array([[not learned(ind[t][e]) for e in ranked] for t in tasks])  # [tasks, encodings]
    by_seed = np.array([[[past[t][e][s] for e in ranked] for t in tasks] for s in range(seeds)])  # [S, T, E]

    def scores_for(seed_weights: np.ndarray) -> np.ndarray:  # seed_weights [..., S] -> scores [..., T, E]
        return np.where(failed, FAILED, np.einsum("...s,ste->...te", seed_weights, by_seed))

    def statistic(task_w: np.ndarray, seed_w: np.ndarray) -> np.ndarray:  # [r, T], [r, S] -> [r]
        return ranking_rho(scores_for(seed_w), task_w)

    (estimate,) = bootstrap_weights((len(tasks), seeds), statistic, bounds=CORRELATION)
    mean_scores = scores_for(np.full(seeds, 1.0 / seeds))  # [T, E]
    rng = np.random.default_rng(0)
    order = np.array([[rng.permutation(len(ranked)) for _ in tasks] for _ in range(PERMUTATIONS)])  # [P, T, E]
    draws = ranking_rho(np.take_along_axis(np.broadcast_to(mean_scores, order.shape), order, axis=-1))
    draws = draws[~np.isnan(draws)]
    low, mid, high = np.quantile(draws, [0.025, 0.5, 0.975])
    null = Estimate(float(mid), float(low), float(high), len(tasks), "permutation", CORRELATION)
    mrr = mean_reciprocal_rank({t: {e: float(v) for e, v in zip(ranked, row, strict=True)}
                                for t, row in zip(tasks, mean_scores, strict=True)})
    # the ceiling rule: a task whose five encodings all sit within the tie of the ceiling past L orders nothing
    room = [t for t, row in zip(tasks, mean_scores, strict=True) if (row < 1.0 - TIE - ROUND_OFF).any()]
    return ({"ranked_tasks": observed(len(tasks), seeds, POSITIVE), "tasks_with_room": observed(len(room), seeds, POSITIVE),
             "rank_correlation": estimate, "rank_correlation_null": null},
            {"tasks": tasks, "failed": {t: [e for e, f in zip(ranked, row, strict=True) if f]
                                        for t, row in zip(tasks, failed, strict=True)}, "mrr": mrr})


@experiment("lab_nope_ranking", device=True, driver=True, prepare=_train_tasks)
def lab_nope_ranking(ctx: Context) -> Measured:
    """Kazemnejad et al. 2023: rank encodings per task by accuracy past the trained length; mean reciprocal rank,
    and its rank correlation with the paper's. Every encoding ranks on every task some encoding learned; one that
    did not learn the task in distribution ranks last there (:func:`_ranking_estimates`).

    Choice: the metric. The paper ranks by exact-match accuracy (the headline); token accuracy is shown beside it.
    Quick mode trains one task; a ranking over tasks needs at least :data:`RANKED_TASKS_NEEDED`, so quick mode
    decides neither option.
    """
    table, L, sweep = task_table(ctx)
    variants, detail = {}, {}
    for option, metric in NOPE_METRICS.items():
        ind = in_distribution(table, L, metric)
        variants[option], detail[option] = _ranking_estimates(table, L, metric, ind)
    numbers = {"by_metric": {o: {"tasks": d["tasks"], "failed": d.get("failed", {}), "mrr": d.get("mrr", {})}
                             for o, d in detail.items()}}
    tasks = len(sweep["grid"]["variant"])
    missing = (f"quick mode trains {tasks} task; a ranking over tasks needs at least {RANKED_TASKS_NEEDED}, so only "
               f"the full report (4 tasks, 3 seeds) can decide it" if QUICK.of(ctx) and tasks < RANKED_TASKS_NEEDED
               else None)
    return Measured(numbers, {} if missing else variants["exact match"], variants={} if missing else variants,
                    missing=missing, shown={"sweep": sweep, "table": table, "L": L, "ranking": variants,
                                            "exact_match": in_distribution(table, L, "exact_match")})


def lm_perplexities(results: list[Any]) -> dict[str, dict[int, list[float]]]:
    """``{encoding label: {evaluation length: [perplexity per seed, in seed order]}}`` of char-LM runs, from the
    non-overlapping protocol; a length a model cannot run is left out."""
    ppl: dict[str, dict[int, list[float]]] = {}
    for result in sorted(results, key=lambda r: r.seed):
        for n, e in result.metrics["by_length"]["nonoverlap"].items():
            if isinstance(e, dict):
                ppl.setdefault(result.config["label"], {}).setdefault(int(n), []).append(float(e["ppl"]))
    return ppl


def perplexity_bands(ppl: dict[str, dict[int, list[float]]]) -> dict[str, dict[int, tuple[float, float, float]]]:
    """``{encoding: {length: (mean, low, high)}}`` over seeds, for :func:`~posenc.plots.lab.perplexity_by_length_figure`."""
    bands = {e: {n: over_seeds(v[n], bounds=PERPLEXITY) for n in sorted(v)} for e, v in ppl.items()}
    return {e: {n: (x.value, x.low, x.high) for n, x in by.items()} for e, by in bands.items()}


#: what a perplexity can take: at least 1
PERPLEXITY = (1.0, math.inf)
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


